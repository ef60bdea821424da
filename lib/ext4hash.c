// SPDX-License-Identifier: GPL-2.0
/*
 * ext4 directory name hashes.  Behaviour follows the kernel's
 * fs/ext4/hash.c bit for bit (that is what the differential test against
 * debugfs checks); the code is cookiekit's own.
 */
#include "ext4hash.h"
#include "ext4hash_impl.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/*
 * TEA with 16 cycles over a 4-word key (the message) and a 2-word block
 * (the running state's first two words), fed forward into the state.
 */
static void tea_block(uint32_t st[4], const uint32_t k[4])
{
	const uint32_t golden = 0x9e3779b9;
	uint32_t x = st[0], y = st[1], sum = 0;

	for (int cycle = 0; cycle < 16; cycle++) {
		sum += golden;
		x += ((y << 4) + k[0]) ^ (y + sum) ^ ((y >> 5) + k[1]);
		y += ((x << 4) + k[2]) ^ (x + sum) ^ ((x >> 5) + k[3]);
	}
	st[0] += x;
	st[1] += y;
}

/* The three MD4 boolean functions: choose, majority, parity. */
static inline uint32_t md4_choose(uint32_t x, uint32_t y, uint32_t z)
{
	return z ^ (x & (y ^ z));
}

static inline uint32_t md4_majority(uint32_t x, uint32_t y, uint32_t z)
{
	return (x & y) + ((x ^ y) & z);
}

static inline uint32_t md4_parity(uint32_t x, uint32_t y, uint32_t z)
{
	return x ^ y ^ z;
}

/*
 * "Half MD4": MD4's three rounds cut down to 8 steps each over an
 * 8-word message.  Each round visits the message words in its own order
 * with its own additive constant and rotation amounts; the state words
 * rotate roles after every step, which is what the v[] indexing does.
 */
static void half_md4_block(uint32_t st[4], const uint32_t m[8])
{
	static const uint8_t order[3][8] = {
		{ 0, 1, 2, 3, 4, 5, 6, 7 },
		{ 1, 3, 5, 7, 0, 2, 4, 6 },
		{ 3, 7, 2, 6, 1, 5, 0, 4 },
	};
	static const uint8_t shift[3][4] = {
		{ 3, 7, 11, 19 }, { 3, 5, 9, 13 }, { 3, 9, 11, 15 },
	};
	/* sqrt(2) and sqrt(3) scaled by 2^30, as in MD4 (octal in the kernel). */
	static const uint32_t add[3] = { 0, 0x5a827999, 0x6ed9eba1 };
	uint32_t v[4] = { st[0], st[1], st[2], st[3] };

#pragma GCC unroll 8
	for (int s = 0; s < 8; s++) {
		uint32_t *a = &v[(4 - s % 4) % 4], b = v[(5 - s % 4) % 4],
			 c = v[(6 - s % 4) % 4], d = v[(7 - s % 4) % 4];
		*a = rotl32(*a + md4_choose(b, c, d) + m[order[0][s]] + add[0],
			    shift[0][s % 4]);
	}
#pragma GCC unroll 8
	for (int s = 0; s < 8; s++) {
		uint32_t *a = &v[(4 - s % 4) % 4], b = v[(5 - s % 4) % 4],
			 c = v[(6 - s % 4) % 4], d = v[(7 - s % 4) % 4];
		*a = rotl32(*a + md4_majority(b, c, d) + m[order[1][s]] + add[1],
			    shift[1][s % 4]);
	}
#pragma GCC unroll 8
	for (int s = 0; s < 8; s++) {
		uint32_t *a = &v[(4 - s % 4) % 4], b = v[(5 - s % 4) % 4],
			 c = v[(6 - s % 4) % 4], d = v[(7 - s % 4) % 4];
		*a = rotl32(*a + md4_parity(b, c, d) + m[order[2][s]] + add[2],
			    shift[2][s % 4]);
	}
	for (int i = 0; i < 4; i++)
		st[i] += v[i];
}

/*
 * The original ext3 htree hash: a Fibonacci-like recurrence over the
 * bytes, folded back below 2^31 after every byte.  It takes no seed and
 * yields no minor hash.
 */
static uint32_t legacy_hash(const unsigned char *p, size_t len, int is_unsigned)
{
	uint32_t cur = 0x12a3fe2d, prev = 0x37abe8f9;

	for (size_t i = 0; i < len; i++) {
		uint32_t next = prev + (cur ^ (name_byte(p + i, is_unsigned) * 7152373u));

		if (next & 0x80000000u)
			next -= 0x7fffffffu;
		prev = cur;
		cur = next;
	}
	return cur << 1;
}

uint32_t ext4hash_finish_major(uint32_t raw)
{
	/*
	 * 0xfffffffe >> 1 is 0x7fffffff, the 31-bit end-of-directory cookie;
	 * a real entry must never produce it, so it moves one step down.
	 */
	raw &= ~1u;
	if (raw == 0xfffffffeu)
		raw = 0xfffffffcu;
	return raw;
}

int ext4hash_compute(enum ext4hash_alg alg, const struct ext4hash_seed *seed,
		     const void *name, size_t len, struct ext4hash *out)
{
	const unsigned char *p = name;
	uint32_t st[4], m[8];
	uint32_t major, minor = 0;
	int is_unsigned = alg >= EXT4HASH_LEGACY_UNSIGNED;

	memcpy(st, ext4hash_default_seed, sizeof(st));
	if (seed && !ext4hash_seed_is_zero(seed))
		memcpy(st, seed->w, sizeof(st));

	switch (alg) {
	case EXT4HASH_LEGACY:
	case EXT4HASH_LEGACY_UNSIGNED:
		major = legacy_hash(p, len, is_unsigned);
		break;
	case EXT4HASH_HALF_MD4:
	case EXT4HASH_HALF_MD4_UNSIGNED:
		/* 32-byte blocks; an empty name leaves the seed untouched. */
		for (size_t off = 0; off < len; off += 32) {
			pack_words(p + off, len - off, m, 8, is_unsigned);
			half_md4_block(st, m);
		}
		major = st[1];
		minor = st[2];
		break;
	case EXT4HASH_TEA:
	case EXT4HASH_TEA_UNSIGNED:
		for (size_t off = 0; off < len; off += 16) {
			pack_words(p + off, len - off, m, 4, is_unsigned);
			tea_block(st, m);
		}
		major = st[0];
		minor = st[1];
		break;
	default:
		out->major = out->minor = 0;
		return -1;
	}
	out->major = ext4hash_finish_major(major);
	out->minor = minor;
	return 0;
}

static const char *const alg_names[EXT4HASH_NALGS] = {
	"legacy", "half_md4", "tea",
	"legacy_unsigned", "half_md4_unsigned", "tea_unsigned",
};

int ext4hash_alg_parse(const char *s)
{
	for (int i = 0; i < EXT4HASH_NALGS; i++)
		if (strcmp(s, alg_names[i]) == 0)
			return i;
	return -1;
}

const char *ext4hash_alg_name(int alg)
{
	if (alg == EXT4HASH_SIPHASH)
		return "siphash";
	if (alg < 0 || alg >= EXT4HASH_NALGS)
		return "unknown";
	return alg_names[alg];
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int ext4hash_seed_parse(const char *text, struct ext4hash_seed *out)
{
	uint8_t bytes[16];
	int nbytes = 0;

	if (strlen(text) != 36)
		return -1;
	for (int i = 0; i < 36;) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (text[i] != '-')
				return -1;
			i++;
			continue;
		}
		int hi = hexval((unsigned char)text[i]), lo = hexval((unsigned char)text[i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		bytes[nbytes++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	ext4hash_seed_from_bytes(bytes, out);
	return 0;
}

void ext4hash_seed_from_bytes(const uint8_t b[16], struct ext4hash_seed *out)
{
	for (int i = 0; i < 4; i++)
		out->w[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
			    (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
}

void ext4hash_seed_format(const struct ext4hash_seed *seed, char out[37])
{
	uint8_t b[16];

	for (int i = 0; i < 16; i++)
		b[i] = (uint8_t)(seed->w[i / 4] >> (8 * (i % 4)));
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
		 b[10], b[11], b[12], b[13], b[14], b[15]);
}

int ext4hash_seed_is_zero(const struct ext4hash_seed *seed)
{
	return !(seed->w[0] | seed->w[1] | seed->w[2] | seed->w[3]);
}
