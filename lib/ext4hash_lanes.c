// SPDX-License-Identifier: GPL-2.0
/*
 * Many names at once: the SIMD paths of the ext4 name hashes (see
 * ext4hash_lanes.h).  The kernels are in ext4hash_lanes_body.h, compiled
 * here once per path under that path's target; the rest of the library,
 * and every program, stays built for the baseline CPU.
 */
#include <string.h>

/* GCC on x86: clang has no "#pragma GCC target"; other compilers and CPUs get the scalar path. */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__clang__)
#define CK_LANES_X86 1
#include <immintrin.h>
#endif

#include "ext4hash_impl.h"
#include "ext4hash_lanes.h"

#ifdef CK_LANES_X86

typedef uint32_t ck_v8u32 __attribute__((vector_size(32)));
typedef uint32_t ck_v16u32 __attribute__((vector_size(64)));

/*
 * Byte order of every 32-bit lane reversed (little-endian loads to
 * big-endian words).  Shifts, not a byte shuffle: SSE2 has none, and GCC
 * splits a 64-byte shuffle for AVX2 into single elements.
 */
#define CK_BSWAP_SHIFTS(v) \
	(((v) << 24) | (((v) & 0xff00u) << 8) | (((v) >> 8) & 0xff00u) | ((v) >> 24))

/* Four rows of four 32-bit words transposed in place (SSE2 unpacks). */
#define CK_TR4(a, b, c, d)                                                                   \
	do {                                                                                 \
		__m128i t0_ = _mm_unpacklo_epi32(a, b), t1_ = _mm_unpackhi_epi32(a, b);      \
		__m128i t2_ = _mm_unpacklo_epi32(c, d), t3_ = _mm_unpackhi_epi32(c, d);      \
		a = _mm_unpacklo_epi64(t0_, t2_);                                            \
		b = _mm_unpackhi_epi64(t0_, t2_);                                            \
		c = _mm_unpacklo_epi64(t1_, t3_);                                            \
		d = _mm_unpackhi_epi64(t1_, t3_);                                            \
	} while (0)

/* Row r (16 bytes at off + 16r) of the name in lane i (lane 0's past n). */
#define CK_ROW(names, stride, n, off, i, r)                                                  \
	_mm_loadu_si128((const __m128i *)(const void *)((names) +                            \
		((size_t)(i) < (n) ? (size_t)(i) : 0) * (stride) + (off) + 16 * (size_t)(r)))

/* 8 lanes: two groups of four rows; m[w] = group 0's word w, then group 1's. */
#define CK_TRANSPOSE8(m, names, stride, n, off, rows)                                        \
	do {                                                                                 \
		for (int r_ = 0; r_ < (rows); r_++) {                                        \
			__m128i x_[8];                                                       \
			for (int i_ = 0; i_ < 8; i_++)                                       \
				x_[i_] = CK_ROW(names, stride, n, off, i_, r_);             \
			CK_TR4(x_[0], x_[1], x_[2], x_[3]);                                  \
			CK_TR4(x_[4], x_[5], x_[6], x_[7]);                                  \
			for (int w_ = 0; w_ < 4; w_++) {                                     \
				memcpy(&(m)[4 * r_ + w_], &x_[w_], 16);                      \
				memcpy((char *)&(m)[4 * r_ + w_] + 16, &x_[4 + w_], 16);     \
			}                                                                    \
		}                                                                            \
	} while (0)

/*
 * The same for 8 lanes with SSE2 only: three rounds of unpacks leave bytes
 * k and k + 1 (k even) of the 8 lanes in one register; SSE2 has no
 * vpmovsxbd, so bytes widen by unpacking (with zero, or with themselves and
 * an arithmetic shift for the signed hash).
 */
#define CK_WIDEN8(v, x, is_unsigned)                                                         \
	do {                                                                                 \
		__m128i w_, lo_, hi_, z_ = _mm_setzero_si128();                              \
		if (is_unsigned) {                                                           \
			w_ = _mm_unpacklo_epi8(x, z_);                                       \
			lo_ = _mm_unpacklo_epi16(w_, z_);                                    \
			hi_ = _mm_unpackhi_epi16(w_, z_);                                    \
		} else {                                                                     \
			w_ = _mm_srai_epi16(_mm_unpacklo_epi8(x, x), 8);                     \
			lo_ = _mm_srai_epi32(_mm_unpacklo_epi16(w_, w_), 16);                \
			hi_ = _mm_srai_epi32(_mm_unpackhi_epi16(w_, w_), 16);                \
		}                                                                            \
		memcpy(&(v), &lo_, 16);                                                      \
		memcpy((char *)&(v) + 16, &hi_, 16);                                         \
	} while (0)
#define CK_BYTECOLS8(col, names, stride, n, off, is_unsigned)                                \
	do {                                                                                 \
		__m128i a_[8], b_[8];                                                        \
		for (int i_ = 0; i_ < 8; i_++)                                               \
			a_[i_] = CK_ROW(names, stride, n, off, i_, 0);                      \
		for (int p_ = 0; p_ < 4; p_++) {                                             \
			b_[2 * p_] = _mm_unpacklo_epi8(a_[2 * p_], a_[2 * p_ + 1]);          \
			b_[2 * p_ + 1] = _mm_unpackhi_epi8(a_[2 * p_], a_[2 * p_ + 1]);      \
		}                                                                            \
		for (int q_ = 0; q_ < 2; q_++) {                                             \
			a_[4 * q_] = _mm_unpacklo_epi16(b_[4 * q_], b_[4 * q_ + 2]);         \
			a_[4 * q_ + 1] = _mm_unpackhi_epi16(b_[4 * q_], b_[4 * q_ + 2]);     \
			a_[4 * q_ + 2] = _mm_unpacklo_epi16(b_[4 * q_ + 1], b_[4 * q_ + 3]); \
			a_[4 * q_ + 3] = _mm_unpackhi_epi16(b_[4 * q_ + 1], b_[4 * q_ + 3]); \
		}                                                                            \
		for (int t_ = 0; t_ < 4; t_++) {                                             \
			b_[2 * t_] = _mm_unpacklo_epi32(a_[t_], a_[4 + t_]);                 \
			b_[2 * t_ + 1] = _mm_unpackhi_epi32(a_[t_], a_[4 + t_]);             \
		}                                                                            \
		for (int u_ = 0; u_ < 8; u_++) {                                             \
			CK_WIDEN8((col)[2 * u_], b_[u_], is_unsigned);                       \
			CK_WIDEN8((col)[2 * u_ + 1], _mm_srli_si128(b_[u_], 8), is_unsigned); \
		}                                                                            \
	} while (0)

#pragma GCC push_options
#pragma GCC target("sse2")
#define VT ck_v8u32
#define NL 8
#define SFX sse2
#define LN_BSWAP CK_BSWAP_SHIFTS
#define LN_TRANSPOSE CK_TRANSPOSE8
#define LN_BYTECOLS CK_BYTECOLS8
#include "ext4hash_lanes_body.h"
#undef VT
#undef NL
#undef SFX
#undef LN_BSWAP
#undef LN_TRANSPOSE
#undef LN_BYTECOLS
#pragma GCC pop_options

/* 16 lanes: four groups of four rows, two groups to a 256-bit register. */
#define CK_TRANSPOSE16(m, names, stride, n, off, rows)                                       \
	do {                                                                                 \
		for (int r_ = 0; r_ < (rows); r_++) {                                        \
			__m128i x_[16];                                                      \
			for (int i_ = 0; i_ < 16; i_++)                                      \
				x_[i_] = CK_ROW(names, stride, n, off, i_, r_);             \
			CK_TR4(x_[0], x_[1], x_[2], x_[3]);                                  \
			CK_TR4(x_[4], x_[5], x_[6], x_[7]);                                  \
			CK_TR4(x_[8], x_[9], x_[10], x_[11]);                                \
			CK_TR4(x_[12], x_[13], x_[14], x_[15]);                              \
			for (int w_ = 0; w_ < 4; w_++) {                                     \
				__m256i lo_ = _mm256_set_m128i(x_[4 + w_], x_[w_]);          \
				__m256i hi_ = _mm256_set_m128i(x_[12 + w_], x_[8 + w_]);     \
				memcpy(&(m)[4 * r_ + w_], &lo_, 32);                         \
				memcpy((char *)&(m)[4 * r_ + w_] + 32, &hi_, 32);            \
			}                                                                    \
		}                                                                            \
	} while (0)

/*
 * 16 lanes' 16-byte rows (bytes off..off+15) transposed into 16 columns,
 * byte k of every lane in col[k], widened to 32 bits (vpmovsxbd/vpmovzxbd,
 * as the signed or unsigned hash reads the byte).  A 16x16 byte transpose is
 * four rounds of SSE2 unpacks: bytes, 16-bit, 32-bit, 64-bit units.
 */
#define CK_BYTECOLS16(col, names, stride, n, off, is_unsigned)                               \
	do {                                                                                 \
		__m128i a_[16], b_[16];                                                      \
		for (int i_ = 0; i_ < 16; i_++)                                              \
			a_[i_] = CK_ROW(names, stride, n, off, i_, 0);                      \
		for (int p_ = 0; p_ < 8; p_++) {                                             \
			b_[2 * p_] = _mm_unpacklo_epi8(a_[2 * p_], a_[2 * p_ + 1]);          \
			b_[2 * p_ + 1] = _mm_unpackhi_epi8(a_[2 * p_], a_[2 * p_ + 1]);      \
		}                                                                            \
		for (int q_ = 0; q_ < 4; q_++) {                                             \
			a_[4 * q_] = _mm_unpacklo_epi16(b_[4 * q_], b_[4 * q_ + 2]);         \
			a_[4 * q_ + 1] = _mm_unpackhi_epi16(b_[4 * q_], b_[4 * q_ + 2]);     \
			a_[4 * q_ + 2] = _mm_unpacklo_epi16(b_[4 * q_ + 1], b_[4 * q_ + 3]); \
			a_[4 * q_ + 3] = _mm_unpackhi_epi16(b_[4 * q_ + 1], b_[4 * q_ + 3]); \
		}                                                                            \
		for (int s_ = 0; s_ < 2; s_++)                                               \
			for (int t_ = 0; t_ < 4; t_++) {                                     \
				b_[8 * s_ + 2 * t_] = _mm_unpacklo_epi32(a_[8 * s_ + t_],    \
									 a_[8 * s_ + 4 + t_]); \
				b_[8 * s_ + 2 * t_ + 1] = _mm_unpackhi_epi32(a_[8 * s_ + t_], \
									     a_[8 * s_ + 4 + t_]); \
			}                                                                    \
		for (int u_ = 0; u_ < 8; u_++) {                                             \
			a_[2 * u_] = _mm_unpacklo_epi64(b_[u_], b_[8 + u_]);                 \
			a_[2 * u_ + 1] = _mm_unpackhi_epi64(b_[u_], b_[8 + u_]);             \
		}                                                                            \
		for (int k_ = 0; k_ < 16; k_++) {                                            \
			__m128i h_ = _mm_srli_si128(a_[k_], 8);                              \
			__m256i lo_ = (is_unsigned) ? _mm256_cvtepu8_epi32(a_[k_])           \
						    : _mm256_cvtepi8_epi32(a_[k_]);          \
			__m256i hi_ = (is_unsigned) ? _mm256_cvtepu8_epi32(h_)               \
						    : _mm256_cvtepi8_epi32(h_);              \
			memcpy(&(col)[k_], &lo_, 32);                                        \
			memcpy((char *)&(col)[k_] + 32, &hi_, 32);                           \
		}                                                                            \
	} while (0)

/* vpgatherdd, twice: 16 lanes are two 8-lane registers. */
struct ck_gidx {
	__m256i lo, hi;
};
#define CK_GATHER_INDEX(idx, stride, n)                                                      \
	struct ck_gidx idx;                                                                  \
	do {                                                                                 \
		int o_[16];                                                                  \
		for (int i_ = 0; i_ < 16; i_++)                                              \
			o_[i_] = (size_t)i_ < (n) ? i_ * (int)(stride) : 0;                   \
		memcpy(&idx.lo, o_, 32);                                                     \
		memcpy(&idx.hi, o_ + 8, 32);                                                 \
	} while (0)
#define CK_GATHER(v, base, idx)                                                              \
	do {                                                                                 \
		const struct ck_gidx *g_ = (idx);                                            \
		__m256i lo_ = _mm256_i32gather_epi32((const int *)(const void *)(base), g_->lo, 1); \
		__m256i hi_ = _mm256_i32gather_epi32((const int *)(const void *)(base), g_->hi, 1); \
		memcpy(&(v), &lo_, 32);                                                      \
		memcpy((char *)&(v) + 32, &hi_, 32);                                         \
	} while (0)

#pragma GCC push_options
#pragma GCC target("avx2")
#define VT ck_v16u32
#define NL 16
#define SFX avx2
#define LN_BSWAP CK_BSWAP_SHIFTS
#define LN_GATHER CK_GATHER
#define LN_GATHER_INDEX CK_GATHER_INDEX
#define LN_TRANSPOSE CK_TRANSPOSE16
#define LN_BYTECOLS CK_BYTECOLS16
#include "ext4hash_lanes_body.h"
#undef VT
#undef NL
#undef SFX
#undef LN_BSWAP
#undef LN_GATHER
#undef LN_GATHER_INDEX
#undef LN_TRANSPOSE
#undef LN_BYTECOLS
#pragma GCC pop_options

/*
 * The same 16 lanes in one 512-bit register: AVX-512F rotates in one
 * instruction (vprold, where AVX2 needs two shifts and an or) and has 32
 * registers, so no message word is spilled.
 */
#pragma GCC push_options
#pragma GCC target("avx512f")
#define VT ck_v16u32
#define NL 16
#define SFX avx512
#define LN_BSWAP CK_BSWAP_SHIFTS
#define LN_GATHER CK_GATHER
#define LN_GATHER_INDEX CK_GATHER_INDEX
#define LN_TRANSPOSE CK_TRANSPOSE16
#define LN_BYTECOLS CK_BYTECOLS16
#include "ext4hash_lanes_body.h"
#undef VT
#undef NL
#undef SFX
#undef LN_BSWAP
#undef LN_GATHER
#undef LN_GATHER_INDEX
#undef LN_TRANSPOSE
#undef LN_BYTECOLS
#pragma GCC pop_options
#endif

static const char *const path_names[EXT4HASH_NPATHS] = { "scalar", "sse2", "avx2", "avx512" };

int ext4hash_path_available(int path)
{
	switch (path) {
	case EXT4HASH_PATH_SCALAR:
		return 1;
#ifdef CK_LANES_X86
	case EXT4HASH_PATH_SSE2:
		__builtin_cpu_init();
		return __builtin_cpu_supports("sse2");
	case EXT4HASH_PATH_AVX2:
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx2");
	case EXT4HASH_PATH_AVX512:
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx512f");
#endif
	default:
		return 0;
	}
}

int ext4hash_path_best(void)
{
	for (int p = EXT4HASH_NPATHS - 1; p > 0; p--)
		if (ext4hash_path_available(p))
			return p;
	return EXT4HASH_PATH_SCALAR;
}

int ext4hash_path_parse(const char *s)
{
	if (!strcmp(s, "auto"))
		return ext4hash_path_best();
	if (!strcmp(s, "off"))
		return EXT4HASH_PATH_SCALAR;
	for (int p = 0; p < EXT4HASH_NPATHS; p++)
		if (!strcmp(s, path_names[p]))
			return p;
	return -1;
}

const char *ext4hash_path_name(int path)
{
	return path >= 0 && path < EXT4HASH_NPATHS ? path_names[path] : "unknown";
}

int ext4hash_lanes(int path, enum ext4hash_alg alg, const struct ext4hash_seed *seed,
		   const void *names, size_t stride, size_t len, size_t n, struct ext4hash *out)
{
	const unsigned char *p = names;
	const uint32_t *st0 = seed && !ext4hash_seed_is_zero(seed) ? seed->w : ext4hash_default_seed;

	(void)st0; /* only the SIMD paths take the resolved seed */

	if ((int)alg < 0 || alg >= EXT4HASH_NALGS || n > EXT4HASH_LANES ||
	    !ext4hash_path_available(path))
		return -1;
	switch (path) {
#ifdef CK_LANES_X86
	case EXT4HASH_PATH_SSE2:
		for (size_t i = 0; i < n; i += 8)
			hash_sse2(alg, st0, p + i * stride, stride, len, n - i < 8 ? n - i : 8, out + i);
		return 0;
	case EXT4HASH_PATH_AVX2:
		if (n)
			hash_avx2(alg, st0, p, stride, len, n, out);
		return 0;
	case EXT4HASH_PATH_AVX512:
		if (n)
			hash_avx512(alg, st0, p, stride, len, n, out);
		return 0;
#endif
	default:
		for (size_t i = 0; i < n; i++)
			ext4hash_compute(alg, seed, p + i * stride, len, &out[i]);
		return 0;
	}
}
