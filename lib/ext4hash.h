/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext4 directory-entry name hash, as the kernel computes it for htree
 * directories (fs/ext4/hash.c), written afresh for cookiekit.
 *
 * The kernel turns the (major, minor) pair returned here into a readdir
 * cookie; see cookie.h for that step.
 */
#ifndef CK_EXT4HASH_H
#define CK_EXT4HASH_H

#include <stddef.h>
#include <stdint.h>

/* The on-disk numbering (dx_root.info.hash_version, s_def_hash_version). */
enum ext4hash_alg {
	EXT4HASH_LEGACY = 0,
	EXT4HASH_HALF_MD4 = 1,
	EXT4HASH_TEA = 2,
	EXT4HASH_LEGACY_UNSIGNED = 3,
	EXT4HASH_HALF_MD4_UNSIGNED = 4,
	EXT4HASH_TEA_UNSIGNED = 5,
	EXT4HASH_SIPHASH = 6, /* casefold + encryption only; not computable here */
	EXT4HASH_NALGS = 6,   /* algorithms this library computes: 0..5 */
};

/* A name longer than this cannot be a directory entry. */
#define EXT4_NAME_MAX 255

/* The 128-bit per-file-system secret, as four host-order words. */
struct ext4hash_seed {
	uint32_t w[4];
};

struct ext4hash {
	uint32_t major; /* bit 0 always clear; never 0xfffffffe (see below) */
	uint32_t minor; /* 0 for the legacy algorithms */
};

/*
 * Hash `len` bytes of `name` with algorithm `alg` (0..5) and `seed`
 * (NULL or all-zero: the algorithm's built-in default).  Returns 0, or -1
 * for an algorithm this library does not compute.  Any byte values are
 * accepted; the "signed" variants sign-extend bytes >= 0x80 as the kernel
 * does on x86 (char is signed there), the "unsigned" ones do not.
 */
int ext4hash_compute(enum ext4hash_alg alg, const struct ext4hash_seed *seed,
		     const void *name, size_t len, struct ext4hash *out);

/*
 * The last step of every algorithm: drop bit 0 and keep the result away
 * from the value whose 31-bit cookie would be the end-of-directory marker.
 */
uint32_t ext4hash_finish_major(uint32_t raw);

/* "legacy", "half_md4", "tea", "legacy_unsigned", ... <-> enum; -1 if unknown. */
int ext4hash_alg_parse(const char *s);
const char *ext4hash_alg_name(int alg);

/*
 * Parse a seed in UUID form (8-4-4-4-12 hex digits), as mkfs.ext4 -E
 * hash_seed= and dumpe2fs print it.  The 16 bytes are the on-disk bytes of
 * s_hash_seed, so word i is bytes 4i..4i+3 read little-endian.
 * Returns 0, or -1 if the text is not a UUID.
 */
int ext4hash_seed_parse(const char *text, struct ext4hash_seed *out);
void ext4hash_seed_format(const struct ext4hash_seed *seed, char out[37]);
void ext4hash_seed_from_bytes(const uint8_t bytes[16], struct ext4hash_seed *out);
int ext4hash_seed_is_zero(const struct ext4hash_seed *seed);

#endif
