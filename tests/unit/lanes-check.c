// SPDX-License-Identifier: GPL-2.0
/*
 * lanes-check: the many-lane hash paths (lib/ext4hash_lanes.h) against the
 * one-name library (ext4hash_compute), bit for bit.
 *
 *   lanes-check random ROUNDS RNG-SEED
 *	ROUNDS rounds of: a random algorithm (0..5), a random seed (none,
 *	all-zero or 128 random bits), a random length 1..255, 1..16 names of
 *	random bytes (0x00..0xff), a stride (tight, 16-aligned or random:
 *	every way a path loads words is taken); every available path
 *	hashes the batch and must match the library on every name.  Every
 *	length 1..255 and every algorithm is covered in the first 6 * 255
 *	rounds.  Prints which paths ran and the comparison counts.
 *   lanes-check hash PATH ALG [UUID]
 *	Hash names given on stdin, one a line in hex, on PATH (scalar, sse2,
 *	avx2, avx512), in batches of up to 16 equal-length names; prints
 *	"MAJOR MINOR" in hex a line (tests/unit/test-hash-lanes compares them
 *	with debugfs dx_hash).  Exit 2 if the path is not available here.
 * Run by tests/unit/test-hash-lanes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckcheck.h"
#include "ckutil.h"
#include "ext4hash.h"
#include "ext4hash_lanes.h"

#define MAXSTRIDE 300

static int random_mode(unsigned long rounds, uint64_t rng_seed)
{
	static unsigned char names[EXT4HASH_LANES * MAXSTRIDE];
	unsigned long per_path[EXT4HASH_NPATHS] = { 0 }, per_alg[EXT4HASH_NALGS] = { 0 };
	struct ck_rng rng;
	int paths = 0;

	ck_rng_seed(&rng, rng_seed);
	printf("paths on this machine:");
	for (int p = 0; p < EXT4HASH_NPATHS; p++)
		if (ext4hash_path_available(p)) {
			printf(" %s", ext4hash_path_name(p));
			paths++;
		}
	printf(" (best: %s)\n", ext4hash_path_name(ext4hash_path_best()));
	for (unsigned long r = 0; r < rounds; r++) {
		int alg = r < 6 * 255 ? (int)(r % 6) : (int)ck_rng_below(&rng, 6);
		size_t len = r < 6 * 255 ? r / 6 + 1 : 1 + ck_rng_below(&rng, 255);
		size_t n = 1 + ck_rng_below(&rng, EXT4HASH_LANES);
		/*
		 * Names packed tight (no 16-byte row fits: gathers, byte by
		 * byte), in 16-byte-aligned slots (rows transposed), or anything
		 * in between: each way of loading words is taken.
		 */
		size_t stride = r % 3 == 0 ? len : r % 3 == 1 ? (len + 15) & ~(size_t)15 :
				len + ck_rng_below(&rng, MAXSTRIDE - len + 1);
		struct ext4hash_seed seed = { { 0 } };
		const struct ext4hash_seed *sp = &seed;
		struct ext4hash want[EXT4HASH_LANES], got[EXT4HASH_LANES];

		switch (ck_rng_below(&rng, 4)) {
		case 0:
			sp = NULL;
			break;
		case 1:
			break; /* all-zero: the default */
		default:
			for (int i = 0; i < 4; i++)
				seed.w[i] = (uint32_t)ck_rng_next(&rng);
		}
		for (size_t i = 0; i < sizeof(names); i++)
			names[i] = (unsigned char)ck_rng_next(&rng);
		/* Some batches all high bytes, where the signed variants borrow most. */
		if (ck_rng_below(&rng, 8) == 0)
			for (size_t i = 0; i < sizeof(names); i++)
				names[i] |= 0x80;
		for (size_t i = 0; i < n; i++)
			ext4hash_compute(alg, sp, names + i * stride, len, &want[i]);
		for (int p = 0; p < EXT4HASH_NPATHS; p++) {
			if (!ext4hash_path_available(p))
				continue;
			memset(got, 0xa5, sizeof(got));
			CHECK(ext4hash_lanes(p, alg, sp, names, stride, len, n, got) == 0,
			      "%s refused alg %d", ext4hash_path_name(p), alg);
			for (size_t i = 0; i < n; i++) {
				CHECK(got[i].major == want[i].major && got[i].minor == want[i].minor,
				      "%s %s len %zu lane %zu/%zu: 0x%08" PRIx32 "/0x%08" PRIx32
				      ", library 0x%08" PRIx32 "/0x%08" PRIx32, ext4hash_path_name(p),
				      ext4hash_alg_name(alg), len, i, n, got[i].major, got[i].minor,
				      want[i].major, want[i].minor);
				per_path[p]++;
				per_alg[alg]++;
			}
		}
	}
	/* What must be refused. */
	struct ext4hash out[EXT4HASH_LANES + 1];
	CHECK(ext4hash_lanes(EXT4HASH_PATH_SCALAR, EXT4HASH_SIPHASH, NULL, names, 8, 8, 1, out) == -1,
	      "siphash accepted");
	CHECK(ext4hash_lanes(ext4hash_path_best(), EXT4HASH_HALF_MD4, NULL, names, 8, 8,
			     EXT4HASH_LANES + 1, out) == -1, "17 lanes accepted");
	CHECK(ext4hash_lanes(EXT4HASH_NPATHS, EXT4HASH_HALF_MD4, NULL, names, 8, 8, 1, out) == -1,
	      "an unknown path accepted");
	CHECK(ext4hash_path_parse("auto") == ext4hash_path_best(), "auto is not the best path");
	CHECK(ext4hash_path_parse("off") == EXT4HASH_PATH_SCALAR, "off is not scalar");
	CHECK(ext4hash_path_parse("avx1024") == -1, "avx1024 parsed");
	CHECK(ext4hash_path_parse("avx512") == EXT4HASH_PATH_AVX512, "avx512 not parsed");
	for (int p = 0; p < EXT4HASH_NPATHS; p++)
		if (ext4hash_path_available(p))
			printf("  %-6s %lu names compared\n", ext4hash_path_name(p), per_path[p]);
	for (int a = 0; a < EXT4HASH_NALGS; a++)
		printf("  %-18s %lu names compared (all paths)\n", ext4hash_alg_name(a), per_alg[a]);
	printf("%lu rounds, %d paths: %lu checks, %lu failed\n", rounds, paths, checks, failures);
	return failures ? 1 : 0;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void flush_batch(int path, int alg, const struct ext4hash_seed *seed,
			unsigned char (*batch)[256], size_t len, size_t n)
{
	struct ext4hash h[EXT4HASH_LANES];

	ext4hash_lanes(path, alg, seed, batch, 256, len, n, h);
	for (size_t i = 0; i < n; i++)
		printf("%08" PRIx32 " %08" PRIx32 "\n", h[i].major, h[i].minor);
}

static int hash_mode(const char *pathname, const char *algname, const char *uuid)
{
	static unsigned char batch[EXT4HASH_LANES][256];
	struct ext4hash_seed seed = { { 0 } };
	int path = ext4hash_path_parse(pathname), alg = ext4hash_alg_parse(algname);
	char line[1024];
	size_t n = 0, blen = 0;

	if (path < 0 || alg < 0 || (uuid && ext4hash_seed_parse(uuid, &seed))) {
		fprintf(stderr, "lanes-check: bad path, algorithm or seed\n");
		return 64;
	}
	if (!ext4hash_path_available(path)) {
		fprintf(stderr, "lanes-check: path %s not available on this CPU\n", pathname);
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		unsigned char name[256];
		size_t len = 0;

		for (char *p = line; hexval(p[0]) >= 0 && hexval(p[1]) >= 0 && len < 255; p += 2)
			name[len++] = (unsigned char)(hexval(p[0]) << 4 | hexval(p[1]));
		if (n && (len != blen || n == EXT4HASH_LANES)) {
			flush_batch(path, alg, &seed, batch, blen, n);
			n = 0;
		}
		memcpy(batch[n++], name, len);
		blen = len;
	}
	if (n)
		flush_batch(path, alg, &seed, batch, blen, n);
	return ck_fclose_checked(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t rounds, seed;

	if (argc == 4 && !strcmp(argv[1], "random") && !ck_parse_u64(argv[2], 1, 100000000, &rounds) &&
	    !ck_parse_u64(argv[3], 0, UINT64_MAX, &seed))
		return random_mode((unsigned long)rounds, seed);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "hash"))
		return hash_mode(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	fprintf(stderr, "usage: lanes-check random ROUNDS RNG-SEED | hash PATH ALG [UUID] < hex-names\n");
	return 64;
}
