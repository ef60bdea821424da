// SPDX-License-Identifier: GPL-2.0
/* ext2/3/4 superblock reader for the directory-hash fields. */
#include "ext4sb.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Byte offsets inside struct ext4_super_block (fs/ext4/ext4.h). */
enum {
	SB_MAGIC = 0x38,
	SB_REV_LEVEL = 0x4c,
	SB_FEATURE_COMPAT = 0x5c,
	SB_UUID = 0x68,
	SB_HASH_SEED = 0xec,
	SB_DEF_HASH_VERSION = 0xfc,
	SB_FLAGS = 0x160,
};

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int ext4sb_parse(const uint8_t *raw, size_t len, const char *what,
		 struct ext4sb_info *out, char *err, size_t errlen)
{
	if (len < EXT4SB_SIZE) {
		snprintf(err, errlen,
			 "%s: truncated: only %zu of the superblock's %d bytes are there "
			 "(is this the whole image?)", what, len, EXT4SB_SIZE);
		return -1;
	}
	if (le16(raw + SB_MAGIC) != EXT4SB_MAGIC) {
		snprintf(err, errlen,
			 "%s: not an ext2/3/4 file system: magic 0x%04x at byte %d, "
			 "expected 0x%04x (give an image made by mkfs.ext4)",
			 what, le16(raw + SB_MAGIC), EXT4SB_OFFSET + SB_MAGIC, EXT4SB_MAGIC);
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->rev_level = le32(raw + SB_REV_LEVEL);
	/* Revision 0 superblocks end before the feature and hash fields. */
	if (out->rev_level >= 1) {
		out->feature_compat = le32(raw + SB_FEATURE_COMPAT);
		memcpy(out->uuid, raw + SB_UUID, 16);
		ext4hash_seed_from_bytes(raw + SB_HASH_SEED, &out->hash_seed);
		out->def_hash_version = raw[SB_DEF_HASH_VERSION];
		out->flags = le32(raw + SB_FLAGS);
	}
	out->dir_index = !!(out->feature_compat & EXT4SB_COMPAT_DIR_INDEX);
	out->hash_unsigned = !!(out->flags & EXT4SB_FLAG_UNSIGNED_HASH);
	out->alg = out->def_hash_version;
	if (out->alg <= EXT4HASH_TEA && out->hash_unsigned)
		out->alg += 3;
	if (out->alg >= EXT4HASH_NALGS) {
		snprintf(err, errlen,
			 "%s: default directory hash %u (%s) is not one this kit computes "
			 "(legacy, half_md4, tea and their unsigned forms)",
			 what, out->def_hash_version, ext4hash_alg_name(out->alg));
		return -1;
	}
	return 0;
}

int ext4sb_read(const char *path, struct ext4sb_info *out, char *err, size_t errlen)
{
	uint8_t raw[EXT4SB_SIZE];
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open image %s: %s", path, strerror(errno));
		return -1;
	}
	while (got < sizeof(raw)) {
		ssize_t n = pread(fd, raw + got, sizeof(raw) - got, EXT4SB_OFFSET + (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "cannot read image %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	return ext4sb_parse(raw, got, path, out, err, errlen);
}
