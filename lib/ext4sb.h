/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the ext2/3/4 superblock to hash names the way the
 * kernel will on that file system: the hash seed, the default hash
 * algorithm and the signed/unsigned flag.  Reads an image file or a block
 * device, never mounts anything.
 */
#ifndef CK_EXT4SB_H
#define CK_EXT4SB_H

#include <stddef.h>
#include <stdint.h>

#include "ext4hash.h"

#define EXT4SB_OFFSET 1024 /* the primary superblock, whatever the block size */
#define EXT4SB_SIZE 1024
#define EXT4SB_MAGIC 0xef53

/* s_flags bits */
#define EXT4SB_FLAG_SIGNED_HASH 0x0001
#define EXT4SB_FLAG_UNSIGNED_HASH 0x0002

#define EXT4SB_COMPAT_DIR_INDEX 0x0020

struct ext4sb_info {
	struct ext4hash_seed hash_seed; /* as stored; all zero = default */
	uint8_t def_hash_version;       /* s_def_hash_version, as stored */
	uint32_t flags;                 /* s_flags */
	uint32_t feature_compat;
	uint32_t rev_level;
	uint8_t uuid[16];
	int dir_index;          /* the dir_index feature is on */
	int hash_unsigned;      /* the kernel adds 3 to legacy/half_md4/tea */
	int alg;                /* what new htree directories will use */
};

/*
 * Read the superblock of `path`.  Returns 0, or -1 with a one-line
 * explanation (naming the file, the cause and what to do) in err.
 * The unsigned flag follows ext4_fill_super(): UNSIGNED_HASH set means
 * unsigned; otherwise signed (x86, where char is signed).
 */
int ext4sb_read(const char *path, struct ext4sb_info *out, char *err, size_t errlen);

/* Parse a raw 1024-byte superblock (for tests); same contract. */
int ext4sb_parse(const uint8_t *raw, size_t len, const char *what,
		 struct ext4sb_info *out, char *err, size_t errlen);

#endif
