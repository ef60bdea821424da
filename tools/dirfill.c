// SPDX-License-Identifier: GPL-2.0
// ck-build: i386 (grows real htree directories from an i386 process in the guest; tools/list)
/*
 * dirfill: fill a directory with empty files, fillers plus crafted names
 * (e.g. cookie-collide's colliding pairs), in a stated order.  Used on
 * the host to prepare a tree for mkfs.ext4 -d and in the guest to grow a
 * real htree directory through the kernel.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckutil.h"

enum order { ORDER_FILLERS_FIRST, ORDER_NAMES_FIRST, ORDER_INTERLEAVE };
static const char *const order_names[] = { "fillers-first", "names-first", "interleave" };

static struct env {
	const char *names_files[16];
	int nnames_files;
	uint64_t fillers;
	const char *filler_prefix;
	int filler_width;
	enum order order;
	int mkdir;
	int exist_ok;
	int print;
	const char *dir;
} env = { .filler_prefix = "filler-", .filler_width = 6 };

void (*argp_program_version_hook)(FILE *, struct argp_state *) = ck_argp_version;
static const char doc[] =
"Create empty files in DIR: N fillers and the names listed in FILEs.\n"
"\n"
"USAGE: dirfill [--names FILE]... [--fillers N] [--order ORDER] DIR\n"
"\n"
"FILE holds one name per line; empty lines and lines starting with '#' are\n"
"skipped.  A tab-separated line is read as cookie-collide output: its fields\n"
"up to the first one that looks like a hash (0x followed by hex digits) are\n"
"names, the rest is ignored.  Names are unescaped as cookie-collide escapes\n"
"them (\\\\, \\t, \\n, \\xNN; see lib/ckname.h), so any byte but '/' and NUL\n"
"can be listed; --print writes names the same way.  Fillers are PREFIX\n"
"followed by a zero-padded number (filler-000000, filler-000001, ...).\n"
"Numbers are decimal: a leading zero is not octal (010 is ten), and 0x is refused.\n"
"\n"
"ORDER (creation order; it decides which entries share a leaf block):\n"
"  fillers-first  all fillers, then the listed names in file order (default)\n"
"  names-first    the listed names, then the fillers\n"
"  interleave     the listed names spread evenly among the fillers\n"
"\n"
"EXAMPLES:\n"
"  cookie-collide --bits 31 --image lab.img --count 4 > pairs.txt\n"
"  dirfill --mkdir --fillers 2000 --names pairs.txt /mnt/lab/crafted31\n";

static const struct argp_option options[] = {
	{ "names", 'f', "FILE", 0, "Names to create ('-': stdin); may be repeated", 0 },
	{ "fillers", 'n', "N", 0, "Also create N filler files (default 0)", 0 },
	{ "filler-prefix", 'p', "P", 0, "Filler name prefix (default filler-)", 0 },
	{ "filler-width", 'w', "W", 0, "Digits in filler numbers (default 6)", 0 },
	{ "order", 'o', "ORDER", 0, "fillers-first, names-first or interleave", 0 },
	{ "mkdir", 'm', NULL, 0, "Create DIR (and parents) if missing", 0 },
	{ "exist-ok", 'e', NULL, 0, "Skip names that already exist instead of failing", 0 },
	{ "print", 'P', NULL, 0, "Print each name on stdout in creation order", 0 },
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	uint64_t v;

	switch (key) {
	case 'f':
		if (env.nnames_files == 16)
			argp_error(state, "--names: at most 16 files");
		env.names_files[env.nnames_files++] = arg;
		break;
	case 'n':
		if (ck_parse_u64(arg, 0, 100000000, &v))
			argp_error(state, "--fillers: '%s' is not a number in 0..100000000", arg);
		env.fillers = v;
		break;
	case 'p':
		if (strchr(arg, '/'))
			argp_error(state, "--filler-prefix: '%s' contains '/'", arg);
		env.filler_prefix = arg;
		break;
	case 'w':
		if (ck_parse_u64(arg, 1, 20, &v))
			argp_error(state, "--filler-width: '%s' is not a number in 1..20", arg);
		env.filler_width = (int)v;
		break;
	case 'o':
		for (int i = 0; i < 3; i++)
			if (strcmp(arg, order_names[i]) == 0) {
				env.order = (enum order)i;
				return 0;
			}
		argp_error(state, "--order: unknown order '%s' (fillers-first, names-first, interleave)", arg);
		break;
	case 'm':
		env.mkdir = 1;
		break;
	case 'e':
		env.exist_ok = 1;
		break;
	case 'P':
		env.print = 1;
		break;
	case ARGP_KEY_ARG:
		if (env.dir)
			argp_error(state, "one DIR only (got '%s' and '%s')", env.dir, arg);
		env.dir = arg;
		break;
	case ARGP_KEY_END:
		if (!env.dir)
			argp_error(state, "DIR is required");
		if (!env.fillers && !env.nnames_files)
			argp_error(state, "nothing to create: give --fillers N and/or --names FILE");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static char **names;
static size_t nnames, capnames;

static int add_name(const char *n, size_t len, const char *where, long lineno)
{
	char *copy;

	if (len == 0 || len > 255 || memchr(n, '/', len) || memchr(n, 0, len) ||
	    (len == 1 && n[0] == '.') || (len == 2 && !memcmp(n, "..", 2))) {
		fprintf(stderr, "dirfill: %s:%ld: '", where, lineno);
		ck_print_name(stderr, n, len);
		fprintf(stderr, "' is not a valid file name (1..255 bytes, no '/' or NUL, not . or ..)\n");
		return -1;
	}
	if (nnames == capnames) {
		capnames = capnames ? 2 * capnames : 64;
		names = ck_xrealloc(names, capnames * sizeof(*names));
	}
	copy = ck_xmalloc(len + 1);
	memcpy(copy, n, len);
	copy[len] = 0;
	names[nnames++] = copy;
	return 0;
}

static int read_names(const char *path)
{
	FILE *f = ck_open_input(path);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0;
	int rc = 0;

	if (!f) {
		fprintf(stderr, "dirfill: --names: cannot open %s: %s\n", path, ck_input_strerror(errno));
		return -1;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		char *fields[CK_NAMES_MAX];
		size_t lens[CK_NAMES_MAX];
		const char *why;
		int k;

		lineno++;
		if (n > 0 && line[n - 1] == '\n')
			n--;
		k = ck_names_split(line, (size_t)n, fields, lens, CK_NAMES_MAX, &why);
		if (k < 0) {
			fprintf(stderr, "dirfill: %s:%ld: %s\n", path, lineno, why);
			rc = -1;
		}
		for (int i = 0; i < k; i++)
			rc |= add_name(fields[i], lens[i], path, lineno);
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return rc;
}

static int mkdir_p(const char *path)
{
	char *p = ck_xstrdup(path);

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	free(p);
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

static unsigned long created, skipped;

static int create_one(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0) {
		int err = errno;

		if (err == EEXIST && env.exist_ok) {
			skipped++;
			return 0;
		}
		fprintf(stderr, "dirfill: creating %s/", env.dir);
		ck_print_name(stderr, name, strlen(name));
		fprintf(stderr, ": %s%s\n", strerror(err),
			err == EEXIST ? " (use --exist-ok to skip existing names)" : "");
		return -1;
	}
	close(fd);
	created++;
	if (env.print) {
		ck_name_fprint(stdout, name, strlen(name), CK_NAME_FIELD);
		putchar('\n');
	}
	return 0;
}

static int create_filler(int dfd, uint64_t i)
{
	char name[300];

	snprintf(name, sizeof(name), "%s%0*llu", env.filler_prefix, env.filler_width,
		 (unsigned long long)i);
	if (strlen(name) > 255) {
		fprintf(stderr, "dirfill: filler name too long: %s\n", name);
		return -1;
	}
	return create_one(dfd, name);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, "DIR", doc, 0, 0, 0 };
	int dfd, rc = 0;
	uint64_t f = 0;
	size_t k = 0;

	ck_output_init();
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 1;
	for (int i = 0; i < env.nnames_files; i++)
		if (read_names(env.names_files[i]))
			return 1;
	if (env.mkdir && mkdir_p(env.dir)) {
		fprintf(stderr, "dirfill: cannot create directory %s: %s\n", env.dir, strerror(errno));
		return 1;
	}
	dfd = open(env.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		fprintf(stderr, "dirfill: cannot open directory %s: %s%s\n", env.dir, strerror(errno),
			errno == ENOENT ? " (use --mkdir to create it)" : "");
		return 1;
	}
	switch (env.order) {
	case ORDER_FILLERS_FIRST:
		for (; f < env.fillers && !rc; f++)
			rc = create_filler(dfd, f);
		for (; k < nnames && !rc; k++)
			rc = create_one(dfd, names[k]);
		break;
	case ORDER_NAMES_FIRST:
		for (; k < nnames && !rc; k++)
			rc = create_one(dfd, names[k]);
		for (; f < env.fillers && !rc; f++)
			rc = create_filler(dfd, f);
		break;
	case ORDER_INTERLEAVE:
		/* Name k goes after filler (k+1)*F/(N+1): evenly spread. */
		while ((f < env.fillers || k < nnames) && !rc) {
			if (k < nnames && f >= (uint64_t)(k + 1) * env.fillers / (nnames + 1))
				rc = create_one(dfd, names[k++]);
			else
				rc = create_filler(dfd, f++);
		}
		break;
	}
	if (fsync(dfd) && errno != EINVAL && errno != EROFS)
		fprintf(stderr, "dirfill: fsync %s: %s\n", env.dir, strerror(errno));
	close(dfd);
	fprintf(stderr, "dirfill: %s: created %lu (%llu fillers, %zu listed names), %lu existing skipped, order %s\n",
		env.dir, created, (unsigned long long)f, k, skipped, order_names[env.order]);
	return rc ? 1 : 0;	/* ck_close_stdout checks --print's output */
}
