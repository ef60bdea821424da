/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Many names at once: the ext4 name hashes (ext4hash.h) over up to
 * EXT4HASH_LANES names of one length, with SIMD where the CPU has it.
 *
 * Paths: "scalar" is ext4hash_compute() name by name; "sse2" works on two
 * 4-lane registers at a time, "avx2" on two 8-lane ones (two independent
 * registers keep the add-rotate chains of half_md4 and TEA overlapping),
 * "avx512" (AVX-512F) on one 16-lane register with a rotate instruction.
 * The SIMD code is compiled under "#pragma GCC target" (function-level
 * target attributes for every function of a path), so the
 * library builds for any x86 (i386 included) and a path is only run when
 * __builtin_cpu_supports says the CPU has it.  Results are bit-identical
 * to ext4hash_compute() on every path (tests/unit/test-hash-lanes).
 */
#ifndef CK_EXT4HASH_LANES_H
#define CK_EXT4HASH_LANES_H

#include <stddef.h>

#include "ext4hash.h"

/* Names one call takes at most. */
#define EXT4HASH_LANES 16

enum ext4hash_path {
	EXT4HASH_PATH_SCALAR = 0,
	EXT4HASH_PATH_SSE2 = 1,
	EXT4HASH_PATH_AVX2 = 2,
	EXT4HASH_PATH_AVX512 = 3,
	EXT4HASH_NPATHS = 4,
};

/* Whether this build and this CPU can run the path. */
int ext4hash_path_available(int path);
/* The fastest available path. */
int ext4hash_path_best(void);
/* "off"/"scalar", "sse2", "avx2", "avx512" -> path; "auto" -> the best; -1 if unknown. */
int ext4hash_path_parse(const char *s);
const char *ext4hash_path_name(int path);

/*
 * Hash n (0..EXT4HASH_LANES) names, each `len` bytes, the i-th at
 * names + i * stride, with algorithm `alg` (0..5) and `seed` (NULL or zero:
 * the default) on `path` (which must be available): out[i] is what
 * ext4hash_compute() gives for name i.  All n slots of `stride` bytes must
 * be readable (a path may load a whole 16-byte row that stays inside a
 * slot); with stride a multiple of 16 the SIMD paths are fastest.
 * Returns 0, or -1 for an algorithm or path it cannot run (out untouched).
 */
int ext4hash_lanes(int path, enum ext4hash_alg alg, const struct ext4hash_seed *seed,
		   const void *names, size_t stride, size_t len, size_t n, struct ext4hash *out);

#endif
