/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The many-lane hash kernels, written once over a GCC vector type and
 * compiled once per SIMD path: lib/ext4hash_lanes.c includes this file
 * under "#pragma GCC target" with
 *   VT   a vector of NL uint32_t lanes (two SSE2 or AVX2 registers wide, so
 *        two independent dependency chains are in flight; one AVX-512 one),
 *   NL   its number of lanes,
 *   SFX  the path's name, appended to every function defined here,
 *   LN_BSWAP(v)  v with the bytes of every lane reversed,
 *   LN_GATHER(v, base, idx), LN_GATHER_INDEX(idx, stride, n)  optional: load
 *        the 32-bit word at base + lane offset into each lane; declare idx,
 *        the lane offsets (i * stride, lane 0's past n),
 *   LN_TRANSPOSE(m, names, stride, n, off, rows)  optional: m[4r..4r+3] =
 *        the words of bytes off + 16r .. off + 16r + 15 of every name,
 *   LN_BYTECOLS(col, names, stride, n, off, is_unsigned)  optional: col[k] =
 *        byte off + k of every name, sign- or zero-extended (k < 16).
 * Each lane computes exactly what ext4hash.c computes for one name; the
 * round structure and constants are the kernel's (fs/ext4/hash.c), see
 * ext4hash.c for what each step means.
 */
#define LN_CAT2(a, b) a##_##b
#define LN_CAT(a, b) LN_CAT2(a, b)
#define LN(name) LN_CAT(name, SFX)

/* Macros, not functions: a vector passed by value would be an ABI question. */
#define LN_ROTL(v, n) (((v) << (n)) | ((v) >> (32 - (n))))
#define LN_SPLAT(x) ((VT){ 0 } + (uint32_t)(x))
#define LN_LOAD(v, p) memcpy(&(v), (p), sizeof(VT))

#define LN_F(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define LN_G(x, y, z) (((x) & (y)) + (((x) ^ (y)) & (z)))
#define LN_H(x, y, z) ((x) ^ (y) ^ (z))
#define LN_STEP(f, a, b, c, d, x, s) ((a) = LN_ROTL((a) + f((b), (c), (d)) + (x), (s)))

static inline void LN(half_md4_block)(VT st[4], const VT m[8])
{
	const uint32_t k2 = 0x5a827999, k3 = 0x6ed9eba1;
	VT a = st[0], b = st[1], c = st[2], d = st[3];

	LN_STEP(LN_F, a, b, c, d, m[0], 3);
	LN_STEP(LN_F, d, a, b, c, m[1], 7);
	LN_STEP(LN_F, c, d, a, b, m[2], 11);
	LN_STEP(LN_F, b, c, d, a, m[3], 19);
	LN_STEP(LN_F, a, b, c, d, m[4], 3);
	LN_STEP(LN_F, d, a, b, c, m[5], 7);
	LN_STEP(LN_F, c, d, a, b, m[6], 11);
	LN_STEP(LN_F, b, c, d, a, m[7], 19);

	LN_STEP(LN_G, a, b, c, d, m[1] + k2, 3);
	LN_STEP(LN_G, d, a, b, c, m[3] + k2, 5);
	LN_STEP(LN_G, c, d, a, b, m[5] + k2, 9);
	LN_STEP(LN_G, b, c, d, a, m[7] + k2, 13);
	LN_STEP(LN_G, a, b, c, d, m[0] + k2, 3);
	LN_STEP(LN_G, d, a, b, c, m[2] + k2, 5);
	LN_STEP(LN_G, c, d, a, b, m[4] + k2, 9);
	LN_STEP(LN_G, b, c, d, a, m[6] + k2, 13);

	LN_STEP(LN_H, a, b, c, d, m[3] + k3, 3);
	LN_STEP(LN_H, d, a, b, c, m[7] + k3, 9);
	LN_STEP(LN_H, c, d, a, b, m[2] + k3, 11);
	LN_STEP(LN_H, b, c, d, a, m[6] + k3, 15);
	LN_STEP(LN_H, a, b, c, d, m[1] + k3, 3);
	LN_STEP(LN_H, d, a, b, c, m[5] + k3, 9);
	LN_STEP(LN_H, c, d, a, b, m[0] + k3, 11);
	LN_STEP(LN_H, b, c, d, a, m[4] + k3, 15);

	st[0] += a;
	st[1] += b;
	st[2] += c;
	st[3] += d;
}

static inline void LN(tea_block)(VT st[4], const VT k[4])
{
	VT x = st[0], y = st[1];
	uint32_t sum = 0;

#pragma GCC unroll 16
	for (int cycle = 0; cycle < 16; cycle++) {
		sum += 0x9e3779b9;
		x += ((y << 4) + k[0]) ^ (y + sum) ^ ((y >> 5) + k[1]);
		y += ((x << 4) + k[2]) ^ (x + sum) ^ ((x >> 5) + k[3]);
	}
	st[0] += x;
	st[1] += y;
}

/*
 * The message words of one block as columns: m[w] is word w of every lane.
 * All lanes have one length, so which words are whole name bytes, which
 * one is partial and which are pure pad is the same in every lane
 * (pack_words() in ext4hash_impl.h does one name for the scalar code).
 * The words are loaded as they lie in memory, the fastest way the path
 * has: LN_TRANSPOSE (16-byte rows of every lane, transposed in registers;
 * only where those rows stay inside each name's stride-byte slot), else
 * LN_GATHER (a gather instruction), else scalar stores into a column array.
 * The vector unit then turns them big-endian, fixes signed bytes and puts
 * the pad above the partial word's bytes.  Lanes past n repeat lane 0.
 */
static inline void LN(pack)(const unsigned char *names, size_t stride, size_t n, size_t off,
			    size_t len, int nwords, int is_unsigned, VT *m, const void *gidx)
{
	size_t rem = len - off, take = rem < (size_t)nwords * 4 ? rem : (size_t)nwords * 4;
	int full = (int)(take / 4), rest = (int)(take % 4), j;
	uint32_t pad = (uint32_t)rem * 0x01010101u; /* rem <= 255 in every byte */
	/* the partial word: 0 built whole, 1 the 4 bytes from its start, 2 the 4 ending the name */
	int part = 0, done = 0;

	(void)gidx;
#ifdef LN_TRANSPOSE
	int rows = (full + (rest > 0) + 3) / 4;

	if (off + 16 * (size_t)rows <= stride) {
		LN_TRANSPOSE(m, names, stride, n, off, rows);
		part = 1;
		done = 1;
	}
#endif
#ifdef LN_GATHER
	if (!done && (rest == 0 || off + take >= 4)) {
		for (j = 0; j < full; j++)
			LN_GATHER(m[j], names + off + 4 * j, gidx);
		if (rest)
			LN_GATHER(m[full], names + off + take - 4, gidx);
		part = 2;
		done = 1;
	}
#endif
	if (!done) {
		uint32_t col[8][NL] __attribute__((aligned(64)));

		for (int i = 0; i < NL; i++) {
			const unsigned char *p = names + ((size_t)i < n ? (size_t)i : 0) * stride + off;

			for (j = 0; j < full; j++)
				memcpy(&col[j][i], p + 4 * j, 4);
			if (rest)
				col[full][i] = shift_in(p + 4 * full, rest, pad, is_unsigned);
		}
		for (j = 0; j < full + (rest > 0); j++)
			LN_LOAD(m[j], col[j]);
	}
	for (j = 0; j < full; j++) {
		m[j] = LN_BSWAP(m[j]);
		if (!is_unsigned)
			m[j] -= ((m[j] & 0x80808080u) >> 7) << 8;
	}
	if (rest && part) {
		VT v = LN_BSWAP(m[full]);

		/* the name's `rest` bytes as the low bytes, big-endian */
		if (part == 1)
			v >>= 8 * (4 - rest);
		else
			v &= 0xffffffffu >> (32 - 8 * rest);
		if (!is_unsigned)
			v -= ((v & 0x80808080u) >> 7) << 8;
		m[full] = v + (pad << (8 * rest));
	}
	for (j = full + (rest > 0); j < nwords; j++)
		m[j] = LN_SPLAT(pad);
}

/* One byte of every lane (b: the column, widened as the kernel does) into the recurrence. */
#define LN_LEGACY_STEP(cur, prev, b)                                                         \
	do {                                                                                 \
		VT next_ = (prev) + ((cur) ^ ((b) * 7152373u));                              \
		VT top_ = next_ >> 31;                                                       \
		/* next - 0x7fffffff where bit 31 is set: 0x7fffffff = 2^31 - 1 */           \
		next_ = next_ - (top_ << 31) + top_;                                         \
		(prev) = (cur);                                                              \
		(cur) = next_;                                                               \
	} while (0)

/*
 * The bytes of one position in every lane make a column.  With
 * LN_BYTECOLS (16-byte rows of every lane transposed in registers, where
 * the rows stay inside each name's slot) a row's 16 columns come at once;
 * else each column is gathered byte by byte.
 */
static void LN(legacy)(const unsigned char *names, size_t stride, size_t n, size_t len,
		       int is_unsigned, uint32_t *major)
{
	VT cur = LN_SPLAT(0x12a3fe2d), prev = LN_SPLAT(0x37abe8f9), b;
	size_t j = 0;

#ifdef LN_BYTECOLS
	if (16 * ((len + 15) / 16) <= stride) {
		for (; j < len; j += 16) {
			VT col[16];
			size_t m = len - j < 16 ? len - j : 16;

			LN_BYTECOLS(col, names, stride, n, j, is_unsigned);
			for (size_t k = 0; k < m; k++)
				LN_LEGACY_STEP(cur, prev, col[k]);
		}
	}
#endif
	for (; j < len; j++) {
		uint32_t col[NL] __attribute__((aligned(64)));

		for (int i = 0; i < NL; i++)
			col[i] = name_byte(names + ((size_t)i < n ? (size_t)i : 0) * stride + j,
					   is_unsigned);
		LN_LOAD(b, col);
		LN_LEGACY_STEP(cur, prev, b);
	}
	cur <<= 1;
	memcpy(major, &cur, sizeof(cur));
}

/* n (1..NL) names through one algorithm; st0 is the seed (default resolved). */
static void LN(hash)(enum ext4hash_alg alg, const uint32_t st0[4], const unsigned char *names,
		     size_t stride, size_t len, size_t n, struct ext4hash *out)
{
	uint32_t major[NL] __attribute__((aligned(64))), minor[NL] __attribute__((aligned(64)));
	int is_unsigned = alg >= EXT4HASH_LEGACY_UNSIGNED;
	VT st[4], m[8];
#ifdef LN_GATHER
	LN_GATHER_INDEX(gidx_, stride, n);
	const void *gidx = &gidx_;
#else
	const void *gidx = NULL;
#endif

	for (int i = 0; i < 4; i++)
		st[i] = LN_SPLAT(st0[i]);
	switch (alg) {
	case EXT4HASH_LEGACY:
	case EXT4HASH_LEGACY_UNSIGNED:
		LN(legacy)(names, stride, n, len, is_unsigned, major);
		memset(minor, 0, sizeof(minor));
		break;
	case EXT4HASH_HALF_MD4:
	case EXT4HASH_HALF_MD4_UNSIGNED:
		for (size_t off = 0; off < len; off += 32) {
			LN(pack)(names, stride, n, off, len, 8, is_unsigned, m, gidx);
			LN(half_md4_block)(st, m);
		}
		memcpy(major, &st[1], sizeof(st[1]));
		memcpy(minor, &st[2], sizeof(st[2]));
		break;
	default: /* TEA, both */
		for (size_t off = 0; off < len; off += 16) {
			LN(pack)(names, stride, n, off, len, 4, is_unsigned, m, gidx);
			LN(tea_block)(st, m);
		}
		memcpy(major, &st[0], sizeof(st[0]));
		memcpy(minor, &st[1], sizeof(st[1]));
		break;
	}
	for (size_t i = 0; i < n; i++) {
		out[i].major = ext4hash_finish_major(major[i]);
		out[i].minor = minor[i];
	}
}

#undef LN_STEP
#undef LN_LEGACY_STEP
#undef LN_ROTL
#undef LN_SPLAT
#undef LN_LOAD
#undef LN_F
#undef LN_G
#undef LN_H
#undef LN
#undef LN_CAT
#undef LN_CAT2
