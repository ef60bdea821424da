/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pieces of the ext4 name hashes that the one-name code (ext4hash.c)
 * and the many-lane code (ext4hash_lanes.c) share: the default seed and
 * how name bytes become message words.  Private to lib/.
 */
#ifndef CK_EXT4HASH_IMPL_H
#define CK_EXT4HASH_IMPL_H

#include <stddef.h>
#include <stdint.h>

/* MD4's initial state; also the seed used when the file system has none. */
static const uint32_t ext4hash_default_seed[4] = {
	0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476,
};

static inline uint32_t rotl32(uint32_t v, unsigned int n)
{
	return (v << n) | (v >> (32 - n));
}

/*
 * A name byte as the kernel sees it.  The "signed" algorithms read names
 * through `signed char`, so bytes >= 0x80 become negative and, once added
 * to a 32-bit word, borrow from the bits above them.
 */
static inline uint32_t name_byte(const unsigned char *p, int is_unsigned)
{
	return is_unsigned ? (uint32_t)*p : (uint32_t)(int32_t)(int8_t)*p;
}

/*
 * `n` (1..4) name bytes shifted, one by one, into the low end of `pad`:
 * the big-endian value of the bytes above what is left of the pad.  For
 * the signed variants every byte >= 0x80 at bit offset s also adds the
 * sign extension 0xffffff00 << s, i.e. takes 1 << (s + 8) away; the byte
 * entering last at the top (s = 24) borrows beyond bit 31, which is lost.
 */
static inline uint32_t shift_in(const unsigned char *p, int n, uint32_t pad, int is_unsigned)
{
	uint32_t v = 0;

	for (int k = 0; k < n; k++)
		v = v << 8 | p[k];
	if (!is_unsigned)
		v -= ((v & 0x80808080u) >> 7) << 8;
	return n == 4 ? v : (pad << (8 * n)) + v;
}

/*
 * Pack up to 4*nwords bytes of the name into message words.  Each word
 * starts from a pad made of the (remaining) length repeated in every byte,
 * and shifts name bytes in from the right; words after the end of the
 * name are pure pad.  `len` is the whole remaining length, not just this
 * block's share, because the pad encodes it.
 */
static inline void pack_words(const unsigned char *msg, size_t len, uint32_t *words,
			      int nwords, int is_unsigned)
{
	uint32_t pad = (uint32_t)len | ((uint32_t)len << 8);
	size_t take = len < (size_t)nwords * 4 ? len : (size_t)nwords * 4;
	int full = (int)(take / 4), rest = (int)(take % 4), filled;

	pad |= pad << 16;
	for (filled = 0; filled < full; filled++)
		words[filled] = shift_in(msg + 4 * filled, 4, pad, is_unsigned);
	/* A partial last word still carries the pad in its upper bytes. */
	if (filled < nwords)
		words[filled++] = rest ? shift_in(msg + 4 * full, rest, pad, is_unsigned) : pad;
	while (filled < nwords)
		words[filled++] = pad;
}

#endif
