// SPDX-License-Identifier: GPL-2.0
// ck-build: i386 (the probe run as a genuine 32-bit off_t caller (compat task); tools/list)
// ck-build: emul (the 32-bit reader run under qemu-user in the guest, plain and LFS; lab 08, tools/list)
/*
 * dirprobe: walk a directory the way different readers do and say whether
 * its readdir cookies let the walk finish.
 *
 *   getdents  raw getdents64(): record every d_off, count duplicates, then
 *             lseek() to each saved d_off and check that the entry that
 *             comes back is the one that followed it (what a stateless
 *             reader such as an NFS server relies on);
 *   telldir   the article's loop: readdir(); seekdir(d, telldir(d));
 *   ls        a plain readdir() loop.
 *
 * A watchdog stops a walk that comes back to the same entry K times with
 * no new entry in between.  The i386 build is a genuine 32-bit caller
 * (32-bit long and off_t), so a 64-bit kernel hands it 31-bit cookies.
 */
#define _GNU_SOURCE /* getdents64() */
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "ckutil.h"
#include "collide.h"
#include "cookie.h"

enum mode { MODE_GETDENTS, MODE_TELLDIR, MODE_LS, MODE_OLDGETDENTS };
static const char *const mode_names[] = { "getdents", "telldir", "ls", "oldgetdents" };

enum exit_code { EXIT_CLEAN = 0, EXIT_ERROR = 1, EXIT_LOOP = 3, EXIT_ELOOP = 4 };

static struct env {
	enum mode mode;
	int have_mode;
	unsigned long max_repeat;
	unsigned long long max_returned;
	int seek_check;
	int list;
	int fd32;
	const char *dir;
} env = { .max_repeat = 3, .max_returned = 100000000ULL, .seek_check = 1 };

void (*argp_program_version_hook)(FILE *, struct argp_state *) = ck_argp_version;
static const char doc[] =
"Walk DIR and report whether its readdir cookies let the walk finish.\n"
"\n"
"USAGE: dirprobe --mode getdents|telldir|ls|oldgetdents [--max-repeat K] DIR\n"
"\n"
"oldgetdents is getdents mode through the old getdents() syscall, whose\n"
"d_off is a long (32 bits in a 32-bit program), as an old C library or a\n"
"program making the syscall itself would; QEMU's user mode converts it\n"
"from the host's 64-bit entries.  Its seek check uses lseek64().\n"
"\n"
"Prints one JSON line: entries (names other than . and ..), returned (with\n"
"revisits), distinct_doff, duplicates (entries whose d_off an earlier entry\n"
"already had), seek_mismatches (getdents mode), max_bits (width of the widest\n"
"d_off: 31 for 31-bit ext4 cookies, 63 for 63-bit ones), outcome, errno.\n"
"\n"
"Exit status: 0 clean; 3 loop (the watchdog saw an entry come back K times\n"
"without progress, or, in getdents mode only, duplicate cookies make\n"
"resuming from a saved d_off go back: the walk itself finished, but a\n"
"reader that resumes from cookies would not); 4 readdir/getdents failed\n"
"with ELOOP; 1 other errors; 64 bad usage.  In ls mode duplicates are\n"
"reported but do not change the outcome.\n"
"\n"
"--fd32 asks for 31-bit cookies on the walk's open directory with\n"
"fcntl(F_SETFL, O_DIR32BITHASH), which only the kit's fd32 kernel knows\n"
"(kernel/patches/0007; elsewhere the bit is ignored).  The JSON then has fd32\n"
"(1 if F_GETFL shows the kernel kept the flag) and second_bits: the widest\n"
"d_off of a getdents pass through a second open() of DIR, made after the\n"
"walk while the first is still open.\n"
"\n"
"Numbers are decimal: a leading zero is not octal (010 is ten), and 0x is refused.\n"
"\n"
"EXAMPLES:\n"
"  dirprobe --mode telldir /mnt/lab/crafted31     # 64-bit: clean after 3.4\n"
"  /kit/bin32/dirprobe --mode telldir /mnt/lab/crafted31   # i386: loop\n"
"  dirprobe --mode ls /mnt/nfs/crafted31          # ELOOP on the old NFS client\n";

static const struct argp_option options[] = {
	{ "mode", 'm', "MODE", 0, "getdents, telldir, ls or oldgetdents", 0 },
	{ "max-repeat", 'k', "K", 0, "Watchdog: stop after an entry comes back K times without progress (default 3)", 0 },
	{ "max-returned", 'n', "N", 0, "Stop (as a loop) after N entries in all (default 1e8)", 0 },
	{ "no-seek-check", 'S', NULL, 0, "getdents mode: skip the lseek-to-each-d_off check", 0 },
	{ "list", 'l', NULL, 0, "List d_off and name of every entry returned on stderr", 0 },
	{ "fd32", 'F', NULL, 0, "Ask for 31-bit cookies on this open directory (F_SETFL O_DIR32BITHASH, the fd32 kernel)", 0 },
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	uint64_t v;

	switch (key) {
	case 'm':
		for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
			if (strcmp(arg, mode_names[i]) == 0) {
				env.mode = (enum mode)i;
				env.have_mode = 1;
				return 0;
			}
		argp_error(state, "--mode: unknown mode '%s' (getdents, telldir, ls, oldgetdents)", arg);
		break;
	case 'k':
		if (ck_parse_u64(arg, 1, 1000000, &v))
			argp_error(state, "--max-repeat: '%s' is not a number in 1..1000000", arg);
		env.max_repeat = (unsigned long)v;
		break;
	case 'n':
		if (ck_parse_u64(arg, 1, UINT64_MAX, &v))
			argp_error(state, "--max-returned: '%s' is not a positive number", arg);
		env.max_returned = v;
		break;
	case 'S':
		env.seek_check = 0;
		break;
	case 'l':
		env.list = 1;
		break;
	case 'F':
		env.fd32 = 1;
		break;
	case ARGP_KEY_ARG:
		if (env.dir)
			argp_error(state, "one DIR only (got '%s' and '%s')", env.dir, arg);
		env.dir = arg;
		break;
	case ARGP_KEY_END:
		if (!env.have_mode)
			argp_error(state, "--mode is required (getdents, telldir, ls or oldgetdents)");
		if (!env.dir)
			argp_error(state, "DIR is required");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* One distinct name seen during the walk. */
struct entry {
	char *name;
	uint64_t doff;          /* d_off (or telldir) when first returned */
	unsigned long mark;     /* number of new entries when last returned */
	unsigned long stall;    /* returns since then without a new entry */
};

static struct walk {
	struct entry *ent;
	size_t n, cap;
	struct ck_idtab names;  /* name -> index into ent */
	unsigned long long returned, revisits;
	const char *looped_on;  /* the entry the watchdog stopped on */
} w;

static int name_key_of(const void *ctx, uint32_t id, uint64_t *key)
{
	(void)ctx;
	*key = ck_hash_bytes(w.ent[id].name, strlen(w.ent[id].name));
	return 1;
}

/* Returns 1 when the watchdog says the walk is going round in circles. */
static int walk_visit(const char *name, uint64_t doff)
{
	uint32_t *s;

	w.returned++;
	if (env.list) {
		fprintf(stderr, "0x%016" PRIx64 "\t", doff);
		ck_print_name(stderr, name, strlen(name));
		fputc('\n', stderr);
	}
	if (!w.names.slot && ck_idtab_init(&w.names, 1024)) {
		fprintf(stderr, "dirprobe: out of memory\n");
		exit(EXIT_ERROR);
	}
	for (s = ck_idtab_first(&w.names, ck_hash_bytes(name, strlen(name))); *s;
	     s = ck_idtab_next(&w.names, s)) {
		struct entry *e = &w.ent[*s - 1];

		if (strcmp(e->name, name) == 0) {
			w.revisits++;
			if (e->mark == w.n) {
				if (++e->stall >= env.max_repeat) {
					w.looped_on = e->name;
					return 1;
				}
			} else {
				e->mark = w.n;
				e->stall = 0;
			}
			return w.returned >= env.max_returned;
		}
	}
	if (w.n == w.cap) {
		w.cap = w.cap ? 2 * w.cap : 1024;
		w.ent = ck_xrealloc(w.ent, w.cap * sizeof(*w.ent));
	}
	w.ent[w.n].name = ck_xstrdup(name);
	w.ent[w.n].doff = doff;
	w.ent[w.n].stall = 0;
	if (ck_idtab_put(&w.names, s, w.n, name_key_of, NULL)) {
		fprintf(stderr, "dirprobe: out of memory\n");
		exit(EXIT_ERROR);
	}
	w.n++;
	w.ent[w.n - 1].mark = w.n;
	return w.returned >= env.max_returned;
}

struct result {
	const char *outcome;
	int err;                 /* errno of the failure, 0 if none */
	const char *failed_call;
	unsigned long seek_checked, seek_mismatches;
	int fd32_kept;           /* --fd32: F_GETFL shows O_DIR32BITHASH */
	int second_bits;         /* --fd32: widest d_off through a second open, -1 if none */
};

/*
 * The fd32 kernel's F_SETFL flag (kernel/patches/0007): 31-bit cookies for
 * one open directory.  Not in any libc header; other kernels ignore it.
 */
#define CK_O_DIR32BITHASH 040000000

static int is_dot(const char *n)
{
	return n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0));
}

/* Layout of what getdents64 fills in (the kernel's linux_dirent64). */
struct dirent64_raw {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static long sys_getdents64(int fd, void *buf, size_t len)
{
	/* glibc's wrapper, so the test shim (LD_PRELOAD) can stand in for it. */
	return getdents64(fd, buf, len);
}

static void fail_with(struct result *r, const char *call)
{
	r->err = errno;
	r->failed_call = call;
	r->outcome = errno == ELOOP ? "eloop" : "error";
}

/* Layout of what the old getdents syscall fills in (the kernel's linux_dirent). */
struct dirent_old_raw {
	unsigned long d_ino;
	unsigned long d_off;
	unsigned short d_reclen;
	char d_name[];
};

/*
 * One reading call of the walk's mode, with each entry's name and d_off
 * put into one form: the entries of buf from *pos, advancing it.
 */
static long read_dir(int fd, void *buf, size_t len)
{
	if (env.mode == MODE_OLDGETDENTS)
		return syscall(SYS_getdents, fd, buf, len);
	return sys_getdents64(fd, buf, len);
}

static const char *next_entry(const char *buf, long *pos, uint64_t *doff)
{
	if (env.mode == MODE_OLDGETDENTS) {
		const struct dirent_old_raw *d = (const void *)(buf + *pos);

		*pos += d->d_reclen;
		*doff = d->d_off;
		return d->d_name;
	} else {
		const struct dirent64_raw *d = (const void *)(buf + *pos);

		*pos += d->d_reclen;
		*doff = (uint64_t)d->d_off;
		return d->d_name;
	}
}

/* Seek to a cookie as the mode's reader would: lseek64 for the old syscall's long. */
static int seek_to(int fd, uint64_t doff, struct result *r)
{
	if (env.mode == MODE_OLDGETDENTS) {
		if (lseek64(fd, (off64_t)doff, SEEK_SET) == (off64_t)doff)
			return 0;
	} else {
		off_t off = (off_t)doff;

		if ((uint64_t)off != doff || off < 0) {
			/* A 32-bit off_t cannot even express this cookie. */
			errno = EOVERFLOW;
			fail_with(r, "lseek");
			return -1;
		}
		if (lseek(fd, off, SEEK_SET) == off)
			return 0;
	}
	fail_with(r, "lseek");
	return -1;
}

/* --fd32: set the flag on fd and note whether the kernel kept it. */
static int ask_fd32(int fd, struct result *r)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | CK_O_DIR32BITHASH) < 0) {
		fail_with(r, "fcntl(F_SETFL, O_DIR32BITHASH)");
		return -1;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0) {
		fail_with(r, "fcntl(F_GETFL)");
		return -1;
	}
	r->fd32_kept = (fl & CK_O_DIR32BITHASH) != 0;
	return 0;
}

/*
 * --fd32, after the walk while its descriptor is still open: the widest
 * d_off a second, unflagged open() of the directory gets from getdents64.
 */
static void second_open(struct result *r)
{
	static char buf[32768] __attribute__((aligned(8)));
	uint64_t max = 0;
	int fd = open(env.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (fd < 0) {
		fail_with(r, "open (second)");
		return;
	}
	while ((n = sys_getdents64(fd, buf, sizeof(buf))) > 0)
		for (long pos = 0; pos < n;) {
			struct dirent64_raw *d = (struct dirent64_raw *)(buf + pos);

			pos += d->d_reclen;
			if ((uint64_t)d->d_off > max)
				max = (uint64_t)d->d_off;
		}
	if (n < 0)
		fail_with(r, "getdents64 (second open)");
	else
		r->second_bits = cookie_bits(max);
	close(fd);
}

/*
 * After the walk: for each entry i, seeking to its d_off must give entry
 * i+1 next (or the end).  With two equal cookies the second seek lands on
 * the first of them instead, which is where a reader that resumes from
 * cookies (NFS) would go round again.
 */
static void seek_check(int fd, struct result *r)
{
	/*
	 * Only the first entry after each seek is read: room for one entry of
	 * the longest name (a 255-byte name takes 280 bytes in either dirent
	 * kind), not a page.  The kernel fills whatever buffer it is given, so
	 * a 4 KiB one made ext4 emit ~100 names per seek, 200,000 for a
	 * 2,000-name directory, for the tracers watching the walk to record.
	 */
	static char buf[512] __attribute__((aligned(8)));

	for (size_t i = 0; i < w.n; i++) {
		uint64_t want_off = w.ent[i].doff, got_off;
		const char *want = i + 1 < w.n ? w.ent[i + 1].name : NULL;
		const char *got = NULL;
		long n, pos = 0;

		if (seek_to(fd, want_off, r))
			return;
		n = read_dir(fd, buf, sizeof(buf));
		if (n < 0) {
			fail_with(r, "getdents (seek check)");
			return;
		}
		if (n > 0)
			got = next_entry(buf, &pos, &got_off);
		r->seek_checked++;
		if ((want == NULL) != (got == NULL) || (want && strcmp(want, got) != 0)) {
			r->seek_mismatches++;
			if (r->seek_mismatches <= 5) {
				fprintf(stderr, "dirprobe: seek to d_off 0x%" PRIx64 " of '", want_off);
				ck_print_name(stderr, w.ent[i].name, strlen(w.ent[i].name));
				fprintf(stderr, "' gave '%s', expected '%s'\n",
					got ? got : "(end)", want ? want : "(end)");
			}
		}
	}
}

static void walk_getdents(struct result *r)
{
	static char buf[32768] __attribute__((aligned(8)));
	int fd = open(env.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		fail_with(r, "open");
		return;
	}
	if (env.fd32 && ask_fd32(fd, r)) {
		close(fd);
		return;
	}
	for (;;) {
		long n = read_dir(fd, buf, sizeof(buf));

		if (n < 0) {
			fail_with(r, env.mode == MODE_OLDGETDENTS ? "getdents" : "getdents64");
			break;
		}
		if (n == 0)
			break;
		for (long pos = 0; pos < n;) {
			uint64_t doff;
			const char *name = next_entry(buf, &pos, &doff);

			if (walk_visit(name, doff)) {
				r->outcome = "loop";
				goto out;
			}
		}
	}
	if (!r->failed_call && env.seek_check)
		seek_check(fd, r);
out:
	if (env.fd32 && !r->failed_call)
		second_open(r);
	close(fd);
}

static void walk_readdir(struct result *r, int seek_back)
{
	DIR *d = opendir(env.dir);

	if (!d) {
		fail_with(r, "opendir");
		return;
	}
	if (env.fd32 && ask_fd32(dirfd(d), r)) {
		closedir(d);
		return;
	}
	for (;;) {
		struct dirent *de;
		long pos;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				fail_with(r, "readdir");
			break;
		}
		if (seek_back) {
			/* The article's "no-op": it is one only if cookies are unique. */
			pos = telldir(d);
			if (pos < 0) {
				fail_with(r, "telldir");
				break;
			}
			if (walk_visit(de->d_name, (uint64_t)pos)) {
				r->outcome = "loop";
				break;
			}
			seekdir(d, pos);
		} else if (walk_visit(de->d_name, (uint64_t)de->d_off)) {
			r->outcome = "loop";
			break;
		}
	}
	if (env.fd32 && !r->failed_call)
		second_open(r);
	closedir(d);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, "DIR", doc, 0, 0, 0 };
	struct result r = { .outcome = NULL, .second_bits = -1 };
	uint64_t *offs, max_doff = 0;
	size_t distinct = 0, names = 0;
	int rc;

	ck_output_init();
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return EXIT_ERROR;
	/*
	 * --list writes a line per entry on stderr, which is unbuffered: a write
	 * per piece of every line, about four per name, 6 s for /big's 100,000
	 * names in a TCG guest.  Buffered (by the line on a terminal), and
	 * flushed before the JSON line, so a reader of both (2>&1) still gets
	 * the list first.
	 */
	if (env.list)
		setvbuf(stderr, NULL, isatty(STDERR_FILENO) ? _IOLBF : _IOFBF, 1 << 16);
	if (env.mode == MODE_GETDENTS || env.mode == MODE_OLDGETDENTS)
		walk_getdents(&r);
	else
		walk_readdir(&r, env.mode == MODE_TELLDIR);

	/* Duplicates among the distinct names' first-seen cookies. */
	offs = ck_xmalloc((w.n + 1) * sizeof(*offs));
	for (size_t i = 0; i < w.n; i++) {
		offs[i] = w.ent[i].doff;
		if (offs[i] > max_doff)
			max_doff = offs[i];
		names += !is_dot(w.ent[i].name);
	}
	qsort(offs, w.n, sizeof(*offs), cmp_u64);
	for (size_t i = 0; i < w.n; i++)
		distinct += i == 0 || offs[i] != offs[i - 1];
	free(offs);

	/*
	 * A walk that finished is clean, except in getdents mode, whose point
	 * is the cookies: a duplicate sends any reader that resumes from a
	 * saved d_off (NFS, telldir users) back, and the seek check shows it.
	 */
	if (!r.outcome)
		r.outcome = (env.mode == MODE_GETDENTS || env.mode == MODE_OLDGETDENTS) &&
			    ((w.n - distinct) || r.seek_mismatches)
			    ? "loop" : "clean";
	if (strcmp(r.outcome, "clean") == 0)
		rc = EXIT_CLEAN;
	else if (strcmp(r.outcome, "loop") == 0)
		rc = EXIT_LOOP;
	else if (strcmp(r.outcome, "eloop") == 0)
		rc = EXIT_ELOOP;
	else
		rc = EXIT_ERROR;

	if (env.list)
		ck_xflush(stderr, "the --list output (stderr)");
	printf("{\"tool\":\"dirprobe\",\"mode\":\"%s\",\"dir\":", mode_names[env.mode]);
	json_string(env.dir);
	printf(",\"long_bits\":%zu,\"off_t_bits\":%zu", 8 * sizeof(long), 8 * sizeof(off_t));
	printf(",\"entries\":%zu,\"returned\":%llu,\"revisits\":%llu", names, w.returned, w.revisits);
	printf(",\"distinct_doff\":%zu,\"duplicates\":%zu", distinct, w.n - distinct);
	printf(",\"seek_checked\":%lu,\"seek_mismatches\":%lu", r.seek_checked, r.seek_mismatches);
	printf(",\"max_bits\":%d,\"max_doff\":\"0x%" PRIx64 "\"", cookie_bits(max_doff), max_doff);
	if (env.fd32)
		printf(",\"fd32\":%d,\"second_bits\":%d", r.fd32_kept, r.second_bits);
	printf(",\"watchdog\":");
	if (w.looped_on)
		json_string(w.looped_on);
	else
		printf("null");
	printf(",\"outcome\":\"%s\",\"errno\":%d,\"error\":", r.outcome, r.err);
	if (r.failed_call) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s: %s", r.failed_call, strerror(r.err));
		json_string(msg);
	} else {
		printf("null");
	}
	printf("}\n");
	if (r.failed_call)
		fprintf(stderr, "dirprobe: %s %s: %s\n", r.failed_call, env.dir, strerror(r.err));
	return rc;
}
