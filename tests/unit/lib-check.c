// SPDX-License-Identifier: GPL-2.0
/*
 * lib-check: direct checks of lib/ that need no outside tool.
 *   - cookie codec round trips for 31- and 63-bit cookies, EOF values,
 *     d_off decoding and the never-EOF adjustment of the major hash;
 *   - known answers for every hash algorithm (values printed by e2fsprogs'
 *     debugfs dx_hash, not by this library);
 *   - UUID seed parsing, and the superblock parser's refusals;
 *   - the checked allocations: out of memory ends the program with
 *     "NAME: out of memory" and exit 1, a size of 0 is not a failure;
 *   - number parsing: sizes (ck_parse_size), decimal counts and 0x hashes.
 * Run by tests/unit/test-lib (and under sanitizers by test-asan).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ckcheck.h"
#include "ckutil.h"
#include "cookie.h"
#include "ext4hash.h"
#include "ext4sb.h"

static void check_codec(void)
{
	struct ck_rng rng;
	unsigned long before = failures;
	static const uint32_t edge_major[] = { 0, 2, 0x7ffffffe, 0x80000000, 0xfffffffa, 0xfffffffc };
	static const uint32_t edge_minor[] = { 0, 1, 0x7fffffff, 0x80000000, 0xffffffff };

	ck_rng_seed(&rng, 42);
	for (int i = 0; i < 1000000 + 30; i++) {
		uint32_t major, minor;

		if (i < 30) {
			major = edge_major[i % 6];
			minor = edge_minor[i / 6];
		} else {
			uint64_t r = ck_rng_next(&rng);

			major = ext4hash_finish_major((uint32_t)(r >> 32));
			minor = (uint32_t)r;
		}
		uint64_t p63 = cookie_hash2pos(COOKIE_63BIT, major, minor);
		uint64_t p31 = cookie_hash2pos(COOKIE_31BIT, major, minor);
		struct cookie_decoded d;

		CHECK(cookie_pos2maj(COOKIE_63BIT, p63) == major && cookie_pos2min(COOKIE_63BIT, p63) == minor,
		      "63-bit round trip of 0x%08" PRIx32 "/0x%08" PRIx32, major, minor);
		CHECK(cookie_pos2maj(COOKIE_31BIT, p31) == major && cookie_pos2min(COOKIE_31BIT, p31) == 0,
		      "31-bit round trip of major 0x%08" PRIx32, major);
		CHECK(p63 < COOKIE_EOF_63BIT && p31 < COOKIE_EOF_31BIT,
		      "a real entry's cookie is below EOF (0x%08" PRIx32 ")", major);
		CHECK(p31 == p63 >> 32, "the 31-bit cookie is the 63-bit one's top half");
		CHECK(cookie_bits(p31) <= 31 && cookie_bits(p63) <= 63, "cookie widths");
		CHECK(cookie_decode(p63, 63, &d) == 0 && d.major == major && d.minor == minor && !d.eof,
		      "decode 63-bit d_off 0x%016" PRIx64, p63);
		CHECK(cookie_decode(p31, 31, &d) == 0 && d.major == major && d.minor == 0 && !d.eof,
		      "decode 31-bit d_off 0x%08" PRIx64, p31);
	}
	printf("codec: 1,000,030 (major, minor) round trips, both widths: %s\n",
	       failures == before ? "ok" : "FAILED");

	struct cookie_decoded d;

	CHECK(cookie_eof(COOKIE_31BIT) == 0x7fffffffULL, "31-bit EOF");
	CHECK(cookie_eof(COOKIE_63BIT) == 0x7fffffffffffffffULL, "63-bit EOF");
	CHECK(cookie_decode(0x7fffffff, 31, &d) == 0 && d.eof && d.width == COOKIE_31BIT, "decode 31-bit EOF");
	CHECK(cookie_decode(0x7fffffffffffffffULL, 63, &d) == 0 && d.eof, "decode 63-bit EOF");
	CHECK(cookie_decode(0x7fffffff, 63, &d) == 0 && !d.eof && d.major == 0 && d.minor == 0x7fffffff,
	      "0x7fffffff as a 63-bit cookie is (0, 0x7fffffff), not EOF");
	CHECK(cookie_decode(0x80000000ULL, 31, &d) == -1, "31-bit: d_off above EOF refused");
	CHECK(cookie_decode(0x8000000000000000ULL, 63, &d) == -1, "63-bit: negative off_t refused");
	CHECK(cookie_decode(0x123456789aULL, 0, &d) == 0 && d.width == COOKIE_63BIT &&
	      d.major == 0x24 && d.minor == 0x3456789a, "inferred width: > 31 bits is a 63-bit cookie");
	CHECK(cookie_decode(0x1234, 0, &d) == 0 && d.width == COOKIE_31BIT && d.major == 0x2468,
	      "inferred width: <= 31 bits taken as 31-bit");
	CHECK(cookie_decode(1, 48, &d) == -1, "width 48 refused");
	CHECK(cookie_decode(1, 32, &d) == -1 && cookie_decode(1, 64, &d) == -1,
	      "widths 32 and 64 refused: a cookie has 31 or 63 bits");
	CHECK(cookie_bits(0) == 0 && cookie_bits(1) == 1 && cookie_bits(0x7fffffff) == 31 &&
	      cookie_bits(0x7fffffffffffffffULL) == 63 && cookie_bits(UINT64_MAX) == 64, "cookie_bits");

	/* The hash never yields the major whose 31-bit cookie is EOF. */
	CHECK(ext4hash_finish_major(0xfffffffe) == 0xfffffffc, "0xfffffffe moves down");
	CHECK(ext4hash_finish_major(0xffffffff) == 0xfffffffc, "0xffffffff (bit 0 dropped) moves down");
	CHECK(ext4hash_finish_major(0xfffffffd) == 0xfffffffc, "0xfffffffd keeps 0xfffffffc");
	CHECK(ext4hash_finish_major(0x12345679) == 0x12345678, "bit 0 dropped");
	CHECK(cookie_hash2pos(COOKIE_31BIT, ext4hash_finish_major(0xffffffff), 0) == 0x7ffffffe,
	      "largest real 31-bit cookie is EOF-1");
	printf("codec: EOF values, decoding, EOF adjustment: done\n");
}

struct kat {
	int alg;
	const char *seed; /* NULL: none */
	const char *name;
	uint32_t major, minor;
};

/* Answers from `debugfs -R "dx_hash -h N [-s SEED] NAME"` (e2fsprogs 1.47.0). */
static const struct kat kats[] = {
	{ 1, "01234567-89ab-cdef-0123-456789abcdef", "hello", 0xa26e4a80, 0x97e5b7f7 },
	{ 0, NULL, "hello", 0x32252546, 0 },
	{ 0, NULL, "h\xe9llo\xff", 0xbdbc7c5e, 0 },
	{ 3, NULL, "h\xe9llo\xff", 0x729c6054, 0 },
	{ 1, NULL, "h\xe9llo\xff", 0x67bb2376, 0xec4ac060 },
	{ 4, NULL, "h\xe9llo\xff", 0xd8bfff52, 0x501bc43d },
	{ 2, NULL, "h\xe9llo\xff", 0x71b17e08, 0xf811ad18 },
	{ 5, NULL, "h\xe9llo\xff", 0x26508c1e, 0xa3b9428e },
	{ 1, NULL, "a b", 0x45735802, 0x2a2aba85 },
	{ 1, NULL, "#x", 0xafe09514, 0x1dda792b },
	{ 1, NULL, "-abc", 0xf8f94906, 0xd7ca4e1c },
};

static void check_hash(void)
{
	unsigned long before = failures;
	struct ext4hash_seed seed, zero = { { 0 } };
	struct ext4hash h, h0, hz;
	char txt[37];

	for (size_t i = 0; i < sizeof(kats) / sizeof(kats[0]); i++) {
		const struct kat *k = &kats[i];

		if (k->seed)
			CHECK(ext4hash_seed_parse(k->seed, &seed) == 0, "parse %s", k->seed);
		CHECK(ext4hash_compute(k->alg, k->seed ? &seed : NULL, k->name, strlen(k->name), &h) == 0,
		      "compute");
		CHECK(h.major == k->major && h.minor == k->minor,
		      "%s(%s): got 0x%08" PRIx32 "/0x%08" PRIx32 ", debugfs says 0x%08" PRIx32 "/0x%08" PRIx32,
		      ext4hash_alg_name(k->alg), k->name, h.major, h.minor, k->major, k->minor);
	}
	/* All-zero seed and no seed are the same thing. */
	for (int alg = 0; alg < EXT4HASH_NALGS; alg++) {
		ext4hash_compute(alg, NULL, "some-name", 9, &h0);
		ext4hash_compute(alg, &zero, "some-name", 9, &hz);
		CHECK(h0.major == hz.major && h0.minor == hz.minor, "zero seed == default, %s",
		      ext4hash_alg_name(alg));
		CHECK(ext4hash_alg_parse(ext4hash_alg_name(alg)) == alg, "alg name round trip");
	}
	CHECK(ext4hash_compute(EXT4HASH_SIPHASH, NULL, "x", 1, &h) == -1, "siphash refused");
	CHECK(ext4hash_compute(42, NULL, "x", 1, &h) == -1, "alg 42 refused");
	CHECK(ext4hash_alg_parse("md5") == -1 && ext4hash_alg_parse("") == -1, "unknown alg names refused");
	CHECK(ext4hash_seed_parse("0fcd2a53-0de4-4fb7-9c4f-5cc2a1e33f4b", &seed) == 0, "good UUID");
	ext4hash_seed_format(&seed, txt);
	CHECK(strcmp(txt, "0fcd2a53-0de4-4fb7-9c4f-5cc2a1e33f4b") == 0, "UUID round trip (%s)", txt);
	CHECK(seed.w[0] == 0x532acd0f, "seed word 0 is bytes 0..3 little-endian (0x%08" PRIx32 ")", seed.w[0]);
	static const char *const bad[] = { "", "zz", "0fcd2a53-0de4-4fb7-9c4f-5cc2a1e33f4", "0fcd2a53-0de4-4fb7-9c4f-5cc2a1e33f4bb",
		"0fcd2a53x0de4-4fb7-9c4f-5cc2a1e33f4b", "0fcd2a53-0de4-4fb7-9c4f-5cc2a1e33f4g" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(ext4hash_seed_parse(bad[i], &seed) == -1, "bad UUID '%s' refused", bad[i]);
	printf("hash: %zu debugfs known answers, zero seed, names, UUIDs: %s\n",
	       sizeof(kats) / sizeof(kats[0]), failures == before ? "ok" : "FAILED");
}

static void check_superblock(void)
{
	unsigned long before = failures;
	uint8_t raw[1024];
	struct ext4sb_info sb;
	char err[512];

	memset(raw, 0, sizeof(raw));
	CHECK(ext4sb_parse(raw, 500, "img", &sb, err, sizeof(err)) == -1 && strstr(err, "truncated"),
	      "short superblock: %s", err);
	CHECK(ext4sb_parse(raw, sizeof(raw), "img", &sb, err, sizeof(err)) == -1 &&
	      strstr(err, "not an ext2/3/4"), "no magic: %s", err);
	raw[0x38] = 0x53;
	raw[0x39] = 0xef;
	raw[0x4c] = 1;
	raw[0x5c] = 0x20;
	for (int i = 0; i < 16; i++)
		raw[0xec + i] = (uint8_t)(i + 1);
	raw[0xfc] = 2;          /* tea */
	raw[0x160] = 2;         /* unsigned */
	CHECK(ext4sb_parse(raw, sizeof(raw), "img", &sb, err, sizeof(err)) == 0, "valid: %s", err);
	CHECK(sb.alg == EXT4HASH_TEA_UNSIGNED && sb.hash_unsigned && sb.dir_index, "tea + unsigned flag = tea_unsigned");
	CHECK(sb.hash_seed.w[0] == 0x04030201 && sb.hash_seed.w[3] == 0x100f0e0d, "seed words");
	raw[0x160] = 1;
	ext4sb_parse(raw, sizeof(raw), "img", &sb, err, sizeof(err));
	CHECK(sb.alg == EXT4HASH_TEA && !sb.hash_unsigned, "signed flag = tea");
	raw[0x160] = 0;
	ext4sb_parse(raw, sizeof(raw), "img", &sb, err, sizeof(err));
	CHECK(sb.alg == EXT4HASH_TEA, "no flag = signed (x86)");
	raw[0xfc] = 6;
	CHECK(ext4sb_parse(raw, sizeof(raw), "img", &sb, err, sizeof(err)) == -1 && strstr(err, "siphash"),
	      "siphash default refused: %s", err);
	printf("superblock: truncated, foreign, flags, seed: %s\n", failures == before ? "ok" : "FAILED");
}

static void oom_malloc(void)
{
	ck_xmalloc(SIZE_MAX);
}

static void oom_calloc(void)
{
	ck_xcalloc(SIZE_MAX / 2, 4);    /* the product overflows */
}

static void oom_realloc(void)
{
	ck_xrealloc(NULL, SIZE_MAX);    /* a block here would be a leak to LSan */
}

/* Run fn in a child; its exit status (-1 if it did not exit), stderr in msg. */
static int child_exit(void (*fn)(void), char *msg, size_t size)
{
	int fds[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	msg[0] = 0;
	fflush(stdout);
	if (pipe(fds) || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], 2);
		close(fds[0]);
		fn();
		_exit(0);   /* fn returned: the allocation did not fail */
	}
	close(fds[1]);
	/* To the end: a child writing into a closed pipe would die of SIGPIPE. */
	while ((n = read(fds[0], msg + len, size - 1 - len)) > 0)
		len += n;
	msg[len] = 0;
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void check_alloc(void)
{
	static const struct { const char *what; void (*fn)(void); } oom[] = {
		{ "ck_xmalloc(SIZE_MAX)", oom_malloc },
		{ "ck_xcalloc overflowing", oom_calloc },
		{ "ck_xrealloc(NULL, SIZE_MAX)", oom_realloc },
	};
	static const char want[] = "lib-check: out of memory\n";
	unsigned long before = failures;
	char msg[1024];
	char *s;

	for (size_t i = 0; i < sizeof(oom) / sizeof(oom[0]); i++) {
		int rc = child_exit(oom[i].fn, msg, sizeof(msg));
		size_t len = strlen(msg), wlen = strlen(want);
		/* The last line: ASan warns of the failed allocation first. */
		int last = len >= wlen && !strcmp(msg + len - wlen, want) &&
			   (len == wlen || msg[len - wlen - 1] == '\n');

		CHECK(rc == 1 && last, "%s: exit %d, stderr '%s'", oom[i].what, rc, msg);
	}
	/* Size 0 is no failure: realloc(p, 0) would free p and return NULL. */
	s = ck_xmalloc(0);
	CHECK(s != NULL, "ck_xmalloc(0) gives a block");
	s = ck_xrealloc(s, 0);
	CHECK(s != NULL, "ck_xrealloc(p, 0) gives a block");
	free(s);
	s = ck_xcalloc(0, 8);
	CHECK(s != NULL, "ck_xcalloc(0, n) gives a block");
	free(s);
	s = ck_xstrdup("name\twith tab");
	CHECK(!strcmp(s, "name\twith tab"), "ck_xstrdup copies");
	free(s);
	printf("alloc: out of memory exits 1 with the program's name, size 0: %s\n",
	       failures == before ? "ok" : "FAILED");
}

static void check_parse(void)
{
	static const struct { const char *s; uint64_t min, max; int ok; uint64_t v; } cases[] = {
		{ "16M", 4096, 1 << 30, 1, 16 << 20 },
		{ "64k", 0, 1 << 30, 1, 64 << 10 },
		{ "0x400", 0, 1 << 30, 0, 0 },		/* a size is decimal */
		{ "010K", 0, 1 << 30, 1, 10 << 10 },	/* decimal: not octal */
		{ "08", 0, 1 << 30, 1, 8 },
		{ " 4096", 4096, 1 << 30, 1, 4096 },
		{ "1G", 0, UINT64_MAX, 0, 0 },
		{ "1024M", 0, 1 << 30, 1, 1 << 30 },
		{ "1025M", 0, 1 << 30, 0, 0 },
		{ "3K", 4096, 1 << 30, 0, 0 },
		{ "17592186044417M", 0, UINT64_MAX, 0, 0 },	/* 2^64 + 1M: refused, not wrapped */
		{ "16777215M", 0, UINT64_MAX, 1, 16777215ULL << 20 },
		{ "M", 0, 1 << 30, 0, 0 },
		{ "", 0, 1 << 30, 0, 0 },
		{ "-1K", 0, 1 << 30, 0, 0 },
		{ "+4K", 0, 1 << 30, 0, 0 },
		{ "4KK", 0, 1 << 30, 0, 0 },
		{ "4K ", 0, 1 << 30, 0, 0 },
		{ "4 K", 0, 1 << 30, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 0;
		int ok = !ck_parse_size(cases[i].s, cases[i].min, cases[i].max, &v);

		CHECK(ok == cases[i].ok && (!ok || v == cases[i].v), "ck_parse_size(\"%s\", %" PRIu64
		      ", %" PRIu64 "): %s %" PRIu64, cases[i].s, cases[i].min, cases[i].max,
		      ok ? "took" : "refused", v);
	}
	/* Counts are decimal, leading zeros and all; only hashes and cookies take 0x. */
	static const struct { const char *s; int hash, ok; uint64_t v; } nums[] = {
		{ "010", 0, 1, 10 }, { "08", 0, 1, 8 }, { "0100", 0, 1, 100 }, { "0", 0, 1, 0 },
		{ "0x10", 0, 0, 0 }, { "1e3", 0, 0, 0 }, { "-1", 0, 0, 0 }, { "+1", 0, 0, 0 },
		{ "18446744073709551615", 0, 1, UINT64_MAX }, { "18446744073709551616", 0, 0, 0 },
		{ "0x10", 1, 1, 16 }, { "0X7fffffff", 1, 1, 0x7fffffff }, { "010", 1, 1, 10 },
		{ "0x", 1, 0, 0 }, { "0x-1", 1, 0, 0 }, { "0x+1", 1, 0, 0 }, { "ff", 1, 0, 0 },
		{ "0xffffffffffffffff", 1, 1, UINT64_MAX }, { "0x10000000000000000", 1, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		uint64_t v = 0;
		int ok = !(nums[i].hash ? ck_parse_hash_u64 : ck_parse_u64)(nums[i].s, 0, UINT64_MAX, &v);

		CHECK(ok == nums[i].ok && (!ok || v == nums[i].v), "%s(\"%s\"): %s %" PRIu64,
		      nums[i].hash ? "ck_parse_hash_u64" : "ck_parse_u64", nums[i].s,
		      ok ? "took" : "refused", v);
	}
}

int main(void)
{
	check_codec();
	check_parse();
	check_hash();
	check_superblock();
	check_alloc();
	printf("%lu checks, %lu failed\n", checks, failures);
	return failures ? 1 : 0;
}
