// SPDX-License-Identifier: GPL-2.0
/*
 * hashbench: the library's hash rate, names per second, per algorithm, name
 * length and path (scalar: ext4hash_compute name by name; sse2, avx2:
 * ext4hash_lanes, 16 names a call), on one thread.  A benchmark, not a
 * test: it prints figures.
 *   hashbench [SECONDS-PER-CELL]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ckutil.h"
#include "ext4hash.h"
#include "ext4hash_lanes.h"

#define NNAMES 4096

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const size_t lens[] = { 8, 13, 32, 255 };
	static char names[NNAMES][256];
	double secs = 0.3;
	struct ext4hash_seed seed;
	struct ck_rng rng;
	volatile uint32_t sink = 0;

	if (argc > 1 && (ck_parse_double(argv[1], 0, 60, &secs) || secs == 0)) {
		fprintf(stderr, "usage: hashbench [SECONDS-PER-CELL (0..60]]\n");
		return 64;
	}
	ext4hash_seed_parse("0fcd2a53-0de4-4fb7-9c4f-5cc2a1e33f4b", &seed);
	ck_rng_seed(&rng, 1);
	for (int i = 0; i < NNAMES; i++)
		for (int j = 0; j < 255; j++)
			names[i][j] = "abcdefghijklmnopqrstuvwxyz0123456789"[ck_rng_below(&rng, 36)];
	printf("%-26s", "names/s (1 thread)");
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
		printf(" %9zu B", lens[l]);
	printf("\n");
	for (int alg = 0; alg < EXT4HASH_NALGS; alg++) {
		for (int path = 0; path < EXT4HASH_NPATHS; path++) {
			if (!ext4hash_path_available(path)) {
				printf("%-18s %-7s (not on this CPU)\n", ext4hash_alg_name(alg),
				       ext4hash_path_name(path));
				continue;
			}
			printf("%-18s %-7s", ext4hash_alg_name(alg), ext4hash_path_name(path));
			for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
				unsigned long n = 0;
				double t0 = now(), t;

				do {
					for (int i = 0; i < NNAMES; i += EXT4HASH_LANES) {
						struct ext4hash h[EXT4HASH_LANES];

						if (path == EXT4HASH_PATH_SCALAR)
							for (int k = 0; k < EXT4HASH_LANES; k++)
								ext4hash_compute(alg, &seed, names[i + k], lens[l], &h[k]);
						else
							ext4hash_lanes(path, alg, &seed, names[i], sizeof(names[0]),
								       lens[l], EXT4HASH_LANES, h);
						for (int k = 0; k < EXT4HASH_LANES; k++)
							sink ^= h[k].major ^ h[k].minor;
					}
					n += NNAMES;
				} while ((t = now() - t0) < secs);
				printf(" %9.2fM", n / t / 1e6);
			}
			printf("\n");
		}
	}
	return sink == 0x12345678; /* keep the work */
}
