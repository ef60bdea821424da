// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* program_invocation_short_name */
#include "ckutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *alloc_checked(void *p)
{
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", program_invocation_short_name);
		exit(1);
	}
	return p;
}

/*
 * malloc(0) and calloc(0, ...) may return NULL, and realloc(p, 0) frees p and
 * returns NULL: ask for one byte instead, so NULL always means out of memory.
 */
void *ck_xmalloc(size_t size)
{
	return alloc_checked(malloc(size ? size : 1));
}

void *ck_xcalloc(size_t nmemb, size_t size)
{
	return alloc_checked(nmemb && size ? calloc(nmemb, size) : calloc(1, 1));
}

void *ck_xrealloc(void *p, size_t size)
{
	return alloc_checked(realloc(p, size ? size : 1));
}

char *ck_xstrdup(const char *s)
{
	return alloc_checked(strdup(s));
}

void ck_close_stdout(void)
{
	int err;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout)) {
		/* Nothing pending: a stdout closed from the start is no error. */
		fclose(stdout);
		return;
	}
	err = errno;
	fclose(stdout);
	ck_write_failed(NULL, err);
}

void ck_output_init(void)
{
	static const int modes[3] = { O_WRONLY, O_RDONLY, O_WRONLY };

	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* stdin write-only, stdout read-only: using them fails as if closed */
		if (open("/dev/null", modes[fd]) < 0)
			break; /* (lower fds are open by now, so it got this one) */
	}
	atexit(ck_close_stdout);
}

void ck_write_failed(const char *path, int err)
{
	if (err == EPIPE) {
		/* The reader is gone: end as the default SIGPIPE would, silently. */
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
		_exit(128 + SIGPIPE);
	}
	fprintf(stderr, "%s: write error: %s%s%s\n", program_invocation_short_name,
		path ? path : "", path ? ": " : "", err ? strerror(err) : "output lost");
	_exit(1);
}

void ck_xflush(FILE *f, const char *path)
{
	errno = 0;
	if (fflush(f) || ferror(f))
		ck_write_failed(path, errno);
}

int ck_fclose_checked(FILE *f)
{
	int bad;

	errno = 0;
	bad = fflush(f) || ferror(f);
	int err = errno;

	if (fclose(f) && !bad) {
		bad = 1;
		err = errno;
	}
	if (bad)
		errno = err ? err : EIO;
	return bad ? -1 : 0;
}

int ck_open_input_fd(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return -1;
	}
	return fd;
}

FILE *ck_open_input(const char *path)
{
	FILE *f;
	int fd;

	if (!strcmp(path, "-"))
		return stdin;
	fd = ck_open_input_fd(path);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

const char *ck_input_strerror(int err)
{
	if (err == EISDIR)
		return "is a directory, not a file (give a file, a pipe or -)";
	if (err == EINVAL)
		return "not a regular file or a pipe";
	return strerror(err);
}

static int parse_u64_base(const char *s, int base, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	/* strtoull silently negates "-1" and skips a sign: a digit must come first. */
	if (!isxdigit((unsigned char)*s) || (base == 10 && !isdigit((unsigned char)*s)))
		return -1;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int ck_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	while (isspace((unsigned char)*s))
		s++;
	return parse_u64_base(s, 10, min, max, out);
}

int ck_parse_hash_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	while (isspace((unsigned char)*s))
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return parse_u64_base(s + 2, 16, min, max, out);
	return parse_u64_base(s, 10, min, max, out);
}

int ck_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char num[32];
	size_t n = strlen(s);
	int shift = 0;
	uint64_t v;

	if (n && strchr("kK", s[n - 1]))
		shift = 10;
	else if (n && strchr("mM", s[n - 1]))
		shift = 20;
	if (shift) {	/* the number without its suffix */
		if (n > sizeof(num))
			return -1;
		memcpy(num, s, n - 1);
		num[n - 1] = '\0';
		s = num;
	}
	if (ck_parse_u64(s, 0, max >> shift, &v) || v << shift < min)
		return -1;
	*out = v << shift;
	return 0;
}

int ck_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !(v >= min && v <= max))
		return -1;
	*out = v;
	return 0;
}

uint64_t ck_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void ck_rng_seed(struct ck_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = ck_splitmix64(&seed);
}

static inline uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t ck_rng_next(struct ck_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl64(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return result;
}

uint64_t ck_rng_below(struct ck_rng *r, uint64_t n)
{
	/* Reject the top partial block so every residue is equally likely. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t v;

	do
		v = ck_rng_next(r);
	while (v >= limit);
	return v % n;
}

uint64_t ck_random_seed(void)
{
	uint64_t v = 0;

	/* syscall() rather than getrandom(): the static i386 build has it too. */
	if (syscall(SYS_getrandom, &v, sizeof(v), 0) != (long)sizeof(v)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		v = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^
		    (uint64_t)getpid() << 32;
	}
	return v;
}

void ck_strbuf_init(struct ck_strbuf *b, char *s, size_t size)
{
	*b = (struct ck_strbuf){ .s = s, .size = size };
	if (size)
		s[0] = '\0';
}

int ck_strbuf_vprintf(struct ck_strbuf *b, const char *fmt, va_list ap)
{
	size_t room = b->size > b->len ? b->size - b->len : 0;
	int n = vsnprintf(room ? b->s + b->len : NULL, room, fmt, ap);

	if (n >= 0 && (size_t)n < room) {
		b->len += n;
		return 0;
	}
	/* Left out whole: take back the part vsnprintf wrote. */
	if (room)
		b->s[b->len] = '\0';
	if (n >= 0) {
		b->dropped += n;
		errno = ENOSPC;
	}
	return -1;
}

int ck_strbuf_printf(struct ck_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = ck_strbuf_vprintf(b, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * The data model this object was compiled for, readable without running it:
 * the sizes of these two symbols in the ELF symbol table are sizeof(long)
 * and sizeof(off_t).  An i386 probe must be a genuine 32-bit-off_t caller,
 * and the host may not be able to execute it, so tests/unit/test-bin32 reads
 * them with readelf -s.  The i386 link pulls this object in by these names
 * (-Wl,-u in tools/tools.mk), whatever else the tool uses.
 */
__attribute__((used)) const char ck_abi_long[sizeof(long)] = { 0 };
__attribute__((used)) const char ck_abi_off_t[sizeof(off_t)] = { 0 };
