/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the cookiekit tools: memory, output, numbers, randomness, names. */
#ifndef CK_CKUTIL_H
#define CK_CKUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ckname.h"	/* printing names (ck_print_name), the name-list line format */

/*
 * --version (lib/ckversion.c): a command sets
 *   void (*argp_program_version_hook)(FILE *, struct argp_state *) = ck_argp_version;
 * and argp's --version/-V prints "NAME (cookiekit) VERSION" (mk/version).
 */
struct argp_state;
void ck_argp_version(FILE *f, struct argp_state *state);

/*
 * Allocations that do not return on failure: out of memory prints
 * "NAME: out of memory" (NAME = the program's name) and exits 1, the tools'
 * runtime-error status.  A size of 0 still yields a block to free.
 */
void *ck_xmalloc(size_t size);
void *ck_xcalloc(size_t nmemb, size_t size);
void *ck_xrealloc(void *p, size_t size);
char *ck_xstrdup(const char *s);

/*
 * Output that is checked, as gnulib's closeout does: a full disk or a closed
 * stdout is an error, never a silent exit 0.
 *
 * ck_output_init(), first thing in main: fds 0..2 that are closed are
 * opened on /dev/null (stdout read-only, so writing it still fails, with
 * EBADF, and no file the program opens later becomes its stdout), and
 * ck_close_stdout runs at exit: it flushes and closes stdout and, if any
 * write failed, prints "NAME: write error: <strerror>" and exits 1.
 *
 * A failed write ends the program through ck_write_failed(): EPIPE (the
 * reader went away, `| head -1`) quietly, by SIGPIPE, as coreutils do even
 * when SIGPIPE was ignored; anything else with "NAME: write error: [PATH:
 * ]<strerror>" and exit status 1.  ck_xflush(f, path) flushes a stream and
 * calls it on failure (path NULL: stdout), for loops that write as they go.
 * ck_fclose_checked() closes a named output file: 0, or -1 with errno (a
 * write that failed earlier counts, since fclose forgets it).
 */
void ck_output_init(void);
void ck_close_stdout(void);
__attribute__((noreturn)) void ck_write_failed(const char *path, int err);
void ck_xflush(FILE *f, const char *path);
int ck_fclose_checked(FILE *f);

/*
 * Open a file to read input from: a regular file or a FIFO (a pipe,
 * bash's <(...)); ck_open_input() also takes "-" for stdin.  Anything else,
 * a directory above all, is refused before a byte is read (reading a
 * directory gives EISDIR only on the first read, or, through stdio, looks
 * like an empty file): -1 / NULL with errno EISDIR for a directory, EINVAL
 * for a device or socket.  ck_input_strerror(errno) says it in words.
 */
int ck_open_input_fd(const char *path);
FILE *ck_open_input(const char *path);
const char *ck_input_strerror(int err);

/*
 * Parse a whole unsigned number in [min, max].  Returns 0, or -1
 * (errno-checked strtoull; sign, junk, range all refused).  Decimal, always:
 * a count typed as 010 is ten, not eight, and 0x is refused.  Hex is for
 * values that are printed in hex, a hash or a cookie: ck_parse_hash_u64
 * takes 0x-prefixed hex as well as decimal.  Each --help says which.
 */
int ck_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int ck_parse_hash_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/*
 * A size: a decimal number with an optional binary suffix K or M (either
 * case, x1024, x1048576), e.g. "16M", "4096", "64k".  Returns 0 or -1; a
 * value that would overflow is refused, not wrapped.
 */
int ck_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Same for a double (e.g. probabilities), via strtod + errno. */
int ck_parse_double(const char *s, double min, double max, double *out);

/* splitmix64: seeds other generators, and a decent mixer on its own. */
uint64_t ck_splitmix64(uint64_t *state);

/* xoshiro256**: the tools' fast generator; fully determined by a seed. */
struct ck_rng {
	uint64_t s[4];
};
void ck_rng_seed(struct ck_rng *r, uint64_t seed);
uint64_t ck_rng_next(struct ck_rng *r);
/* Uniform in [0, n) without modulo bias. */
uint64_t ck_rng_below(struct ck_rng *r, uint64_t n);
/* 64 bits from the kernel (getrandom), for "no --rng-seed given". */
uint64_t ck_random_seed(void);

/*
 * A string built in a fixed buffer that is never overrun: always
 * NUL-terminated, and each append goes in whole or not at all, so a
 * "key=value" word is never cut in two.  An append that does not fit is
 * left out and counted in `dropped`; later appends that fit still go in.
 *
 *	char line[80];
 *	struct ck_strbuf b;
 *	ck_strbuf_init(&b, line, sizeof(line));
 *	if (ck_strbuf_printf(&b, " dir=%s", path))
 *		... say that the path did not fit
 */
struct ck_strbuf {
	char *s;
	size_t size;    /* of s, the NUL included (at least 1) */
	size_t len;     /* strlen(s) */
	size_t dropped; /* bytes of appends left out for want of room */
};
void ck_strbuf_init(struct ck_strbuf *b, char *s, size_t size);
/* Append; 0, or -1 when it was left out (errno ENOSPC, or vsnprintf's). */
int ck_strbuf_printf(struct ck_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int ck_strbuf_vprintf(struct ck_strbuf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
