// SPDX-License-Identifier: GPL-2.0
// ck-build: i386 (so a guest can check names locally; tools/list)
/*
 * cookie-hash: the ext4 htree hash of names and the readdir cookies a
 * 32-bit and a 64-bit caller would see for them.
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckutil.h"
#include "cookie.h"
#include "ext4hash.h"
#include "ext4sb.h"
#include "hashsrc.h"

static struct env {
	struct ck_hashsrc src;   /* --alg, --hash-seed, --image */
	const char *names_from;
	int verbose;
	int info;
	char **names;
	int nnames;
} env = { .src = CK_HASHSRC_INIT };

void (*argp_program_version_hook)(FILE *, struct argp_state *) = ck_argp_version;
static const char doc[] =
"Print the ext4 directory hash of each NAME and its readdir cookies.\n"
"\n"
"One line per name, tab-separated: NAME (escaped as lib/ckname.h says: \\\\,\n"
"\\t, \\n, \\xNN), major hash, minor hash, the 31-bit\n"
"cookie (32-bit callers, and every caller before Linux 3.4) and the 63-bit\n"
"cookie (64-bit callers since 3.4), all in hex.\n"
"\n"
"USAGE: cookie-hash --alg ALG [--hash-seed UUID] NAME...\n"
"       cookie-hash --image IMG NAME...\n"
"\n"
"ALG: legacy, half_md4, tea, legacy_unsigned, half_md4_unsigned, tea_unsigned.\n"
"A missing or all-zero seed means the algorithm's default, as in the kernel.\n"
"With --image the seed and algorithm come from the superblock; --alg and\n"
"--hash-seed still override them.\n"
"\n"
"--info prints what the superblock says instead (key=value lines):\n"
"hash_seed, def_hash_version, flags (signed/unsigned_directory_hash),\n"
"dir_index, and alg, the algorithm the kernel will use for new directories.\n"
"\n"
"EXAMPLES:\n"
"  cookie-hash --image lab.img --info\n"
"  cookie-hash --alg half_md4 --hash-seed 0fcd2a53-0de4-4fb7-9c4f-5cc2a1e33f4b foo bar\n"
"  cookie-hash --image lab.img --names-from names.txt\n";

static const struct argp_option options[] = {
	{ "alg", 'a', "ALG", 0, "Hash algorithm (see above)", 0 },
	{ "hash-seed", 's', "UUID", 0, "Hash seed, as mkfs.ext4 -E hash_seed= takes it", 0 },
	{ "image", 'i', "IMG", 0, "Take seed and algorithm from this ext4 image or device", 0 },
	{ "names-from", 'f', "FILE", 0, "Also hash the names in FILE ('-': stdin): one per line, or "
	  "cookie-collide's or this program's output lines", 0 },
	{ "verbose", 'v', NULL, 0, "Say which algorithm and seed are used (stderr)", 0 },
	{ "info", 'I', NULL, 0, "With --image: print the superblock's hash settings, no names needed", 0 },
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'a':
	case 's':
	case 'i':
		return ck_hashsrc_parse(&env.src, key, arg, state);
	case 'f':
		env.names_from = arg;
		break;
	case 'v':
		env.verbose = 1;
		break;
	case 'I':
		env.info = 1;
		break;
	case ARGP_KEY_ARGS:
		env.names = state->argv + state->next;
		env.nnames = state->argc - state->next;
		break;
	case ARGP_KEY_END:
		if (env.info && !env.src.image)
			argp_error(state, "--info needs --image IMG");
		if (env.nnames == 0 && !env.names_from && !env.info)
			argp_error(state, "no NAME given (and no --names-from)");
		for (int i = 0; i < env.nnames; i++) {
			size_t len = strlen(env.names[i]);

			if (len == 0 || len > EXT4_NAME_MAX)
				argp_error(state, "NAME %d: %zu bytes, must be 1..%d", i + 1, len,
					   EXT4_NAME_MAX);
		}
		ck_hashsrc_check(&env.src, state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void print_one(int alg, const struct ext4hash_seed *seed, const char *name, size_t len)
{
	struct ext4hash h;

	ext4hash_compute(alg, seed, name, len, &h);
	ck_name_fprint(stdout, name, len, CK_NAME_FIELD);
	printf("\t0x%08" PRIx32 "\t0x%08" PRIx32 "\t0x%08" PRIx64 "\t0x%016" PRIx64 "\n",
	       h.major, h.minor, cookie_hash2pos(COOKIE_31BIT, h.major, h.minor),
	       cookie_hash2pos(COOKIE_63BIT, h.major, h.minor));
}

/*
 * A name no directory can hold is still hashed (the hash is defined for
 * any bytes), but said: '/' and NUL cannot be in a file name, and a CR at
 * the end is usually a DOS line end that will not be in the real name.
 */
static void warn_odd_name(const char *where, long lineno, const char *name, size_t len)
{
	const char *why = memchr(name, '\0', len) ? "a NUL byte, which no file name can have" :
			  memchr(name, '/', len) ? "a '/', which no file name can have" :
			  memchr(name, '\r', len) ? "a CR (a DOS line end?)" : NULL;
	char line[24] = "";

	if (!why)
		return;
	if (lineno)
		snprintf(line, sizeof(line), ":%ld", lineno);
	fprintf(stderr, "cookie-hash: warning: %s%s: the name has %s; hashed as it is\n",
		where, line, why);
}

static int hash_file(int alg, const struct ext4hash_seed *seed, const char *path)
{
	FILE *f = ck_open_input(path);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0;
	int rc = 0;

	if (!f) {
		fprintf(stderr, "cookie-hash: --names-from: cannot open %s: %s\n", path,
			ck_input_strerror(errno));
		return -1;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		char *names[CK_NAMES_MAX];
		size_t lens[CK_NAMES_MAX];
		const char *why;
		int k;

		lineno++;
		if (n > 0 && line[n - 1] == '\n')
			n--;
		k = ck_names_split(line, (size_t)n, names, lens, CK_NAMES_MAX, &why);
		if (k < 0) {
			fprintf(stderr, "cookie-hash: %s:%ld: %s\n", path, lineno, why);
			rc = -1;
		}
		for (int i = 0; i < k; i++) {
			if (lens[i] > EXT4_NAME_MAX) {
				fprintf(stderr, "cookie-hash: %s:%ld: name of %zu bytes, must be 1..%d\n",
					path, lineno, lens[i], EXT4_NAME_MAX);
				rc = -1;
				continue;
			}
			warn_odd_name(path, lineno, names[i], lens[i]);
			print_one(alg, seed, names[i], lens[i]);
		}
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, "NAME...", doc, 0, 0, 0 };
	struct ext4hash_seed seed;
	int alg, rc = 0;
	char seedtxt[37];

	ck_output_init();
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	if (ck_hashsrc_resolve(&env.src, "cookie-hash", &alg, &seed))
		return 1;
	if (env.src.have_sb) {
		const struct ext4sb_info sb = env.src.sb;

		if (!sb.dir_index)
			fprintf(stderr, "cookie-hash: warning: %s has no dir_index feature; "
				"its directories are linear and use byte offsets, not hash cookies\n",
				env.src.image);
		if (env.info) {
			ext4hash_seed_format(&sb.hash_seed, seedtxt);
			static const char *const flagtxt[] = {
				"none", "signed_directory_hash", "unsigned_directory_hash",
				"signed_directory_hash,unsigned_directory_hash",
			};

			printf("image=%s\nhash_seed=%s\ndef_hash_version=%u\nflags=%s\n"
			       "dir_index=%d\nalg=%s\n", env.src.image, seedtxt, sb.def_hash_version,
			       flagtxt[sb.flags & 3], sb.dir_index, ext4hash_alg_name(sb.alg));
		}
	}
	if (env.verbose) {
		ext4hash_seed_format(&seed, seedtxt);
		fprintf(stderr, "cookie-hash: alg %s, seed %s%s\n", ext4hash_alg_name(alg), seedtxt,
			ext4hash_seed_is_zero(&seed) ? " (zero: default)" : "");
	}
	for (int i = 0; i < env.nnames; i++) {
		char where[32];

		snprintf(where, sizeof(where), "NAME %d", i + 1);
		warn_odd_name(where, 0, env.names[i], strlen(env.names[i]));
		print_one(alg, &seed, env.names[i], strlen(env.names[i]));
	}
	if (env.names_from && hash_file(alg, &seed, env.names_from))
		rc = 1;
	return rc;	/* ck_close_stdout checks what was written */
}
