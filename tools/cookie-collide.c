// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-collide: names whose ext4 readdir cookies collide.
 *
 * --bits 31: names with equal major hashes (equal 31-bit cookies).  A plain
 *   birthday search: about 2^16 random names give the first pair.
 * --bits 63: names with equal major AND minor hashes, so even the 63-bit
 *   cookies of Linux >= 3.4 collide.  Storing 2^31.5 names is out of the
 *   question, so this is van Oorschot and Wiener's parallel collision
 *   search with distinguished points: every thread walks x -> f(x), where
 *   f hashes the name derived from x and returns its 63-bit cookie, until
 *   x is "distinguished" (low DP-bits zero); only those end points are
 *   stored.  Two walks that reach the same end point merged somewhere, and
 *   re-walking them from their starts finds the two names where they met.
 *   Expected work sqrt(pi/2 * 2^63) ~ 3.8e9 hashes; memory ~ work / 2^DP-bits.
 *
 * Both searches hash EXT4HASH_LANES names at a time (lib/ext4hash_lanes.h:
 * AVX2, SSE2 or name by name, --simd); the 63-bit walks advance that many
 * trails in step, so a run's walks, and with one thread its output, are
 * the same on every path.
 *
 * Every pair is re-hashed with the library before it is printed.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ckutil.h"
#include "collide.h"
#include "cookie.h"
#include "ext4hash.h"
#include "ext4hash_lanes.h"
#include "ext4sb.h"
#include "hashsrc.h"

#define DEFAULT_ALPHABET "abcdefghijklmnopqrstuvwxyz0123456789"
#define MASK63 0x7fffffffffffffffULL

static struct env {
	int bits;
	struct ck_hashsrc src;   /* --alg, --hash-seed, --image */
	uint64_t count;
	uint64_t rng_seed;
	int have_rng_seed;
	const char *prefix;
	size_t prefix_len;
	unsigned long len;
	const char *alphabet;
	size_t alen;
	unsigned long threads;
	unsigned int dp_bits;
	unsigned int search_bits;
	int quiet;
	double progress_every;
	int simd;                /* an ext4hash_path */
	double stage_secs;       /* --stage-times: benchmark the walk's stages, then exit */
} env = {
	.src = CK_HASHSRC_INIT, .count = 1, .prefix = "", .alphabet = DEFAULT_ALPHABET,
	.dp_bits = 12, .search_bits = 63, .progress_every = -1, .simd = -1,
};

void (*argp_program_version_hook)(FILE *, struct argp_state *) = ck_argp_version;
static const char doc[] =
"Find names whose ext4 readdir cookies collide.\n"
"\n"
"USAGE: cookie-collide --bits 31|63 (--alg ALG [--hash-seed UUID] | --image IMG)\n"
"                      [--count N] [--rng-seed N] [--prefix P] [--len L]\n"
"                      [--simd auto|avx512|avx2|sse2|off]\n"
"\n"
"Prints one colliding group per line: the names, tab-separated, then the\n"
"shared hashes in hex (31 bits: the major hash; 63 bits: major and minor).\n"
"Names are escaped as dirfill --names and cookie-hash --names-from read them\n"
"back (\\\\, \\t, \\n, \\xNN; a leading 0x or # escaped; see lib/ckname.h).\n"
"Names are PREFIX followed by L characters of the alphabet.\n"
"\n"
"--bits 31 is instant (a birthday search in memory).  --bits 63 runs a\n"
"parallel distinguished-point search on all cores: ~3.8e9 hashes expected,\n"
"well under a minute on two cores with SIMD, minutes without; progress\n"
"(rate, expected remaining work) goes to stderr.\n"
"The same --rng-seed, --threads and settings repeat the same walks, on\n"
"every --simd path (SIMD hashes are bit-identical to the scalar code).\n"
"Numbers are decimal: a leading zero is not octal (010 is ten), and 0x is refused.\n"
"\n"
"EXAMPLES:\n"
"  cookie-collide --bits 31 --alg half_md4 --hash-seed 0fcd2a53-0de4-4fb7-9c4f-5cc2a1e33f4b --count 8\n"
"  cookie-collide --bits 31 --image lab.img --prefix file- --len 6\n"
"  cookie-collide --bits 63 --image lab.img --rng-seed 1\n"
"  cookie-collide --bits 63 --image lab.img --stage-times 1\n";

enum { OPT_ALPHABET = 256, OPT_THREADS, OPT_DP_BITS, OPT_PROGRESS, OPT_SEARCH_BITS, OPT_SIMD,
       OPT_STAGE_TIMES };

static const struct argp_option options[] = {
	{ "bits", 'b', "31|63", 0, "Collide 31-bit cookies (major hash) or 63-bit ones (major and minor)", 0 },
	{ "alg", 'a', "ALG", 0, "legacy, half_md4, tea, or *_unsigned", 0 },
	{ "hash-seed", 's', "UUID", 0, "Hash seed (default: none = the algorithm's default)", 0 },
	{ "image", 'i', "IMG", 0, "Take seed and algorithm from this ext4 image", 0 },
	{ "count", 'n', "N", 0, "Number of groups to print (default 1)", 0 },
	{ "rng-seed", 'r', "N", 0, "Seed for the search's own randomness (default: random, shown on stderr)", 0 },
	{ "prefix", 'p', "P", 0, "Start every name with P", 0 },
	{ "len", 'l', "L", 0, "Random characters after the prefix (default 8 for 31 bits, the least that holds 63 bits for 63)", 0 },
	{ "alphabet", OPT_ALPHABET, "CHARS", 0, "Characters for the random part (default a-z0-9)", 0 },
	{ "threads", OPT_THREADS, "T", 0, "63 bits: worker threads (default: all online CPUs)", 0 },
	{ "dp-bits", OPT_DP_BITS, "K", 0, "63 bits: a point is distinguished when its low K bits are 0 (default 12)", 0 },
	{ "progress", OPT_PROGRESS, "SECONDS", 0, "63 bits: progress line interval (default 1 on a terminal, else 10)", 0 },
	{ "quiet", 'q', NULL, 0, "No progress or summary on stderr", 0 },
	{ "search-bits", OPT_SEARCH_BITS, "B", 0, "63 bits, for tests: collide only the low B (32..63) bits "
	  "of the 63-bit cookie, so the distinguished-point machinery finishes in seconds", 0 },
	{ "simd", OPT_SIMD, "PATH", 0, "Hash with auto (default: the best this CPU has), avx512, "
	  "avx2, sse2 or off (one name at a time); the results are the same", 0 },
	{ "stage-times", OPT_STAGE_TIMES, "SECONDS", 0, "Benchmark: time each stage of a walk step "
	  "(name, hash, cookie check) on every path for about SECONDS each, print, exit", 0 },
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	uint64_t v;
	double d;

	switch (key) {
	case 'b':
		if (ck_parse_u64(arg, 0, 1000, &v) || (v != 31 && v != 63))
			argp_error(state, "--bits: '%s' is not 31 or 63 (the cookie widths ext4 hands out)", arg);
		env.bits = (int)v;
		break;
	case 'a':
	case 's':
	case 'i':
		return ck_hashsrc_parse(&env.src, key, arg, state);
	case 'n':
		if (ck_parse_u64(arg, 1, 100000, &v))
			argp_error(state, "--count: '%s' is not a number in 1..100000", arg);
		env.count = v;
		break;
	case 'r':
		if (ck_parse_u64(arg, 0, UINT64_MAX, &v))
			argp_error(state, "--rng-seed: '%s' is not an unsigned 64-bit number", arg);
		env.rng_seed = v;
		env.have_rng_seed = 1;
		break;
	case 'p':
		if (strchr(arg, '/'))
			argp_error(state, "--prefix: '%s' contains '/', which no file name can", arg);
		env.prefix = arg;
		break;
	case 'l':
		if (ck_parse_u64(arg, 1, EXT4_NAME_MAX, &v))
			argp_error(state, "--len: '%s' is not a number in 1..%d", arg, EXT4_NAME_MAX);
		env.len = (unsigned long)v;
		break;
	case OPT_ALPHABET: {
		size_t n = strlen(arg);

		if (n < 2 || strchr(arg, '/'))
			argp_error(state, "--alphabet: '%s' needs at least 2 characters and no '/'", arg);
		for (size_t i = 0; i < n; i++)
			if (memchr(arg, arg[i], i))
				argp_error(state, "--alphabet: '%c' appears twice", arg[i]);
		env.alphabet = arg;
		break;
	}
	case OPT_THREADS:
		if (ck_parse_u64(arg, 1, 1024, &v))
			argp_error(state, "--threads: '%s' is not a number in 1..1024", arg);
		env.threads = (unsigned long)v;
		break;
	case OPT_DP_BITS:
		if (ck_parse_u64(arg, 4, 24, &v))
			argp_error(state, "--dp-bits: '%s' is not a number in 4..24", arg);
		env.dp_bits = (unsigned int)v;
		break;
	case OPT_PROGRESS:
		if (ck_parse_double(arg, 0.1, 3600, &d))
			argp_error(state, "--progress: '%s' is not a number of seconds in 0.1..3600", arg);
		env.progress_every = d;
		break;
	case 'q':
		env.quiet = 1;
		break;
	case OPT_SIMD:
		env.simd = ext4hash_path_parse(arg);
		if (env.simd < 0)
			argp_error(state, "--simd: '%s' is not auto, avx512, avx2, sse2 or off", arg);
		if (!ext4hash_path_available(env.simd))
			argp_error(state, "--simd: this CPU cannot run %s (best here: %s)", arg,
				   ext4hash_path_name(ext4hash_path_best()));
		break;
	case OPT_STAGE_TIMES:
		if (ck_parse_double(arg, 0.01, 60, &d))
			argp_error(state, "--stage-times: '%s' is not a number of seconds in 0.01..60", arg);
		env.stage_secs = d;
		break;
	case OPT_SEARCH_BITS:
		if (ck_parse_u64(arg, 32, 63, &v))
			argp_error(state, "--search-bits: '%s' is not a number in 32..63", arg);
		env.search_bits = (unsigned int)v;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (!env.bits)
			argp_error(state, "--bits 31 or --bits 63 is required");
		ck_hashsrc_check(&env.src, state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int alg;
static struct ext4hash_seed seed;
/* The cookie bits that must agree: all 63, unless --search-bits says fewer. */
static uint64_t out_mask = MASK63;

/* ------------------------------------------------------------------ names */

/*
 * The name of a 64-bit value v: the prefix, then the first L base-A digits
 * of the fraction v / 2^64; the names of values that differ by at least
 * 2^64 / A^L differ.  Two digits at a time: the high word of v * A^2 is
 * the next two digits (a number below A^2, spelled by pair_tab) and the
 * low word what is left of the fraction, so each pair costs one 64x64->128
 * multiply (the same digits as one multiply by A per digit).
 */
static char (*pair_tab)[2];
static uint64_t alen2;

static void names_init(void)
{
	alen2 = (uint64_t)env.alen * env.alen;
	pair_tab = ck_xmalloc(alen2 * sizeof(*pair_tab));
	for (uint64_t h = 0; h < alen2; h++) {
		pair_tab[h][0] = env.alphabet[h / env.alen];
		pair_tab[h][1] = env.alphabet[h % env.alen];
	}
}

/*
 * v * m as a 128-bit product: the high word returned, the low one in *v.
 * On x86-64 one mul instruction; GCC's unsigned __int128 code round-trips
 * the product through the stack, which made the digits a third of a walk
 * step.
 */
static inline uint64_t mul_hi_lo(uint64_t *v, uint64_t m)
{
#if defined(__x86_64__)
	uint64_t hi, lo;

	__asm__("mulq %3" : "=a"(lo), "=d"(hi) : "a"(*v), "rm"(m) : "cc");
	*v = lo;
	return hi;
#else
	unsigned __int128 t = (unsigned __int128)*v * m;

	*v = (uint64_t)t;
	return (uint64_t)(t >> 64);
#endif
}

/* The L digits alone, at p (no prefix, no terminating NUL). */
static inline void digits_of(uint64_t v, char *p)
{
	unsigned long i;

	for (i = 0; i + 2 <= env.len; i += 2)
		memcpy(p + i, pair_tab[mul_hi_lo(&v, alen2)], 2);
	if (i < env.len)
		p[i] = env.alphabet[mul_hi_lo(&v, env.alen)];
}

static size_t name_of(uint64_t v, char *buf)
{
	memcpy(buf, env.prefix, env.prefix_len);
	digits_of(v, buf + env.prefix_len);
	buf[env.prefix_len + env.len] = 0;
	return env.prefix_len + env.len;
}

/*
 * EXT4HASH_LANES name buffers, `stride` bytes apart, each holding the
 * prefix already: digits_of() fills in the rest, ext4hash_lanes() hashes.
 */
struct lanebuf {
	char *names;
	size_t stride, name_len;
};

static void lanebuf_init(struct lanebuf *b)
{
	b->name_len = env.prefix_len + env.len;
	b->stride = (b->name_len + 1 + 15) & ~(size_t)15;
	b->names = ck_xcalloc(EXT4HASH_LANES, b->stride);
	for (int l = 0; l < EXT4HASH_LANES; l++)
		memcpy(b->names + l * b->stride, env.prefix, env.prefix_len);
}

static inline char *lane_name(const struct lanebuf *b, int l)
{
	return b->names + (size_t)l * b->stride;
}

static int valid_name(const char *n)
{
	return strcmp(n, ".") && strcmp(n, "..");
}

/* Re-hash both names with the library, as the kernel would, and compare. */
static int verify_pair(const char *a, const char *b, struct ext4hash *shared)
{
	struct ext4hash ha, hb;

	if (!strcmp(a, b) || !valid_name(a) || !valid_name(b))
		return 0;
	ext4hash_compute(alg, &seed, a, strlen(a), &ha);
	ext4hash_compute(alg, &seed, b, strlen(b), &hb);
	if (env.bits == 31 && ha.major != hb.major)
		return 0;
	if (env.bits == 63 && ((cookie_hash2pos(COOKIE_63BIT, ha.major, ha.minor) ^
				cookie_hash2pos(COOKIE_63BIT, hb.major, hb.minor)) & out_mask))
		return 0;
	*shared = ha;
	return 1;
}

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void print_pair(const char *a, const char *b, const struct ext4hash *h)
{
	ck_name_fprint(stdout, a, strlen(a), CK_NAME_FIELD);
	putchar('\t');
	ck_name_fprint(stdout, b, strlen(b), CK_NAME_FIELD);
	if (env.bits == 31)
		printf("\t0x%08" PRIx32 "\n", h->major);
	else
		printf("\t0x%08" PRIx32 "\t0x%08" PRIx32 "\n", h->major, h->minor);
	/* Each pair as it is found; a full disk stops the search, not minutes later. */
	ck_xflush(stdout, NULL);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --------------------------------------------------------------- 31 bits */

/*
 * Random names into a table keyed by the 31-bit cookie; a second name with
 * a cookie already there is a pair.  Each cookie is used by one printed
 * pair at most, so the pairs stay independent when put in one directory.
 * Also serves --bits 63 for the legacy hashes, whose minor hash is always 0.
 */
struct drawn31 {
	uint64_t v;       /* the value whose name was drawn */
	uint32_t cookie;  /* its name's major >> 1 */
	uint32_t used;    /* already printed as part of a pair */
};

/* The cookie is a hash already: one multiply spreads it enough. */
static inline uint64_t cookie31_key(uint32_t cookie)
{
	return cookie * 0x9e3779b1u;
}

static int drawn31_key_of(const void *ctx, uint32_t id, uint64_t *key)
{
	*key = cookie31_key(((const struct drawn31 *)ctx)[id].cookie);
	return 1;
}

static int collide31(void)
{
	struct ck_idtab tab;
	struct drawn31 *drawn = NULL;
	uint32_t n = 0, cap = 0;
	struct ck_rng rng;
	char other[EXT4_NAME_MAX + 1];
	uint64_t found = 0, hashes = 0, vs[EXT4HASH_LANES];
	struct ext4hash hs[EXT4HASH_LANES];
	struct lanebuf lb;
	double t0 = now();
	int rc = 1, l = EXT4HASH_LANES;

	lanebuf_init(&lb);
	if (ck_idtab_init(&tab, 1 << 16))
		goto nomem;
	ck_rng_seed(&rng, env.rng_seed);
	/* Names drawn and hashed a batch at a time, taken one by one in order. */
	while (found < env.count) {
		if (l == EXT4HASH_LANES) {
			for (l = 0; l < EXT4HASH_LANES; l++) {
				vs[l] = ck_rng_next(&rng);
				digits_of(vs[l], lane_name(&lb, l) + env.prefix_len);
			}
			ext4hash_lanes(env.simd, alg, &seed, lb.names, lb.stride, lb.name_len,
				       EXT4HASH_LANES, hs);
			l = 0;
		}
		uint64_t v = vs[l];
		const char *name = lane_name(&lb, l);
		struct ext4hash h = hs[l++];
		uint32_t cookie, *s;

		if (!valid_name(name))
			continue;
		hashes++;
		cookie = h.major >> 1;
		for (s = ck_idtab_first(&tab, cookie31_key(cookie)); *s; s = ck_idtab_next(&tab, s))
			if (drawn[*s - 1].cookie == cookie)
				break;
		if (*s) {
			struct drawn31 *d = &drawn[*s - 1];
			struct ext4hash shared;

			name_of(d->v, other);
			if (d->used || !verify_pair(other, name, &shared))
				continue;   /* same name drawn twice, or cookie taken */
			print_pair(other, name, &shared);
			d->used = 1;
			found++;
			continue;
		}
		if (n == cap) {
			if (cap > UINT32_MAX / 2)
				goto nomem; /* the table's ids are 32-bit */
			cap = cap ? cap * 2 : 1 << 15;
			drawn = ck_xrealloc(drawn, (size_t)cap * sizeof(*drawn));
		}
		drawn[n] = (struct drawn31){ .v = v, .cookie = cookie };
		if (ck_idtab_put(&tab, s, n, drawn31_key_of, drawn))
			goto nomem;
		n++;
	}
	if (!env.quiet)
		fprintf(stderr, "cookie-collide: %" PRIu64 " group(s) from %" PRIu64 " names in %.3f s, "
			"table %zu MiB\n", found, hashes, now() - t0,
			(ck_idtab_memory(&tab) + (size_t)cap * sizeof(*drawn)) >> 20);
	rc = 0;
	goto out;
nomem:
	/* ck_idtab reports, it does not exit (cookie-top's model goes on without) */
	fprintf(stderr, "cookie-collide: out of memory after %" PRIu32 " names\n", n);
out:
	ck_idtab_free(&tab);
	free(drawn);
	free(lb.names);
	return rc;
}

/* --------------------------------------------------------------- 63 bits */

static uint64_t key_mix, key_start;

/*
 * A bijection of [0, 2^63), keyed by --rng-seed so that each seed walks a
 * different function.  The points are cookies, as random as the hash makes
 * them, so one multiply (odd: a bijection mod 2^63) is enough to let every
 * bit reach the leading digits, which matters when --search-bits leaves
 * the top bits 0; a second multiply-xorshift round here cost a sixth of a
 * step.
 */
static inline uint64_t mix63(uint64_t x)
{
	return ((x ^ key_mix) * 0x9e3779b97f4a7c15ULL) & MASK63;
}

/* f: a 63-bit point -> its name -> that name's 63-bit cookie. */
static inline uint64_t step63(uint64_t x, char *buf)
{
	struct ext4hash h;
	size_t len = name_of(mix63(x) << 1, buf);

	ext4hash_compute(alg, &seed, buf, len, &h);
	return cookie_hash2pos(COOKIE_63BIT, h.major, h.minor) & out_mask;
}

/* Trail starts are numbered; the number is all the table needs to keep. */
static inline uint64_t start_point(uint32_t id)
{
	uint64_t s = key_start + id;

	return ck_splitmix64(&s) & MASK63;
}

/*
 * The distinguished-point store is not lib/collide's ck_idtab: it is a
 * bounded store, not a growing index.  It fills to 9/10 at its cap
 * (max_slots) instead of 1/2, the record (end point, trail number,
 * length) is the slot, so a lookup under the lock is one cache miss, not
 * two, and there is nothing to keep beside it.
 */
struct dp_slot {
	uint64_t dp;    /* end point | 1<<63, 0 = empty */
	uint32_t id;    /* trail start number */
	uint32_t len;   /* steps from start to end point */
};

static struct {
	pthread_mutex_t lock;
	struct dp_slot *tab;
	size_t nslots, n, max_slots;
	uint64_t dp_mask;
	uint32_t max_len;
	atomic_uint next_id;
	atomic_int stop;
	atomic_uint_fast64_t hashes, trails, abandoned, robin_hoods, merges;
	uint64_t found;
	char (*pairs)[2][EXT4_NAME_MAX + 1];
	int table_full;
} s63 = { .lock = PTHREAD_MUTEX_INITIALIZER };

static size_t dp_index(uint64_t dp, size_t nslots)
{
	return (size_t)((dp * 0x9e3779b97f4a7c15ULL) >> 20) & (nslots - 1);
}

/* Insert; on a hit return the other trail (1), else 0.  Caller holds lock. */
static int dp_insert(uint64_t dp, uint32_t id, uint32_t len, struct dp_slot *other)
{
	uint64_t key = dp | 1ULL << 63;
	size_t j;

	if (s63.n * 2 >= s63.nslots && s63.nslots < s63.max_slots) {
		size_t nn = s63.nslots * 2;
		/* Not ck_xcalloc: a table that cannot double still works, only fuller. */
		struct dp_slot *nt = calloc(nn, sizeof(*nt));

		if (nt) {
			for (size_t i = 0; i < s63.nslots; i++) {
				if (!s63.tab[i].dp)
					continue;
				size_t k = dp_index(s63.tab[i].dp, nn);

				while (nt[k].dp)
					k = (k + 1) & (nn - 1);
				nt[k] = s63.tab[i];
			}
			free(s63.tab);
			s63.tab = nt;
			s63.nslots = nn;
		}
	}
	if (s63.n * 10 >= s63.nslots * 9) {
		s63.table_full = 1;
		return 0;
	}
	j = dp_index(key, s63.nslots);
	while (s63.tab[j].dp && s63.tab[j].dp != key)
		j = (j + 1) & (s63.nslots - 1);
	if (s63.tab[j].dp) {
		*other = s63.tab[j];
		return 1;
	}
	s63.tab[j] = (struct dp_slot){ key, id, len };
	s63.n++;
	return 0;
}

/*
 * Two trails end at the same point.  Walk the longer one until both are
 * the same distance from it, then step both until their next points
 * agree: the two current points are different names with one cookie.
 * If the points themselves meet first, one start lay on the other trail
 * ("Robin Hood") and there is no collision to gain.
 */
static uint64_t resolve(uint32_t id_a, uint32_t len_a, uint32_t id_b, uint32_t len_b,
			char *na, char *nb)
{
	uint64_t a = start_point(id_a), b = start_point(id_b), fa, fb;

	for (; len_a > len_b; len_a--)
		a = step63(a, na);
	for (; len_b > len_a; len_b--)
		b = step63(b, nb);
	if (a == b)
		return 0;
	for (uint32_t i = 0; i <= len_a; i++) {
		fa = step63(a, na);
		fb = step63(b, nb);
		if (fa == fb)
			return 1; /* na, nb hold the names of a and b */
		a = fa;
		b = fb;
		if (a == b)
			return 0;
	}
	return 0;
}

static void record_pair(const char *na, const char *nb)
{
	struct ext4hash shared;
	const char *lo = strcmp(na, nb) < 0 ? na : nb, *hi = lo == na ? nb : na;

	if (!verify_pair(lo, hi, &shared)) {
		fprintf(stderr, "cookie-collide: internal error: %s / %s do not verify, skipped\n", lo, hi);
		return;
	}
	pthread_mutex_lock(&out_lock);
	for (uint64_t i = 0; i < s63.found; i++)
		if (!strcmp(s63.pairs[i][0], lo) && !strcmp(s63.pairs[i][1], hi)) {
			pthread_mutex_unlock(&out_lock);
			return; /* found again through other trails */
		}
	if (s63.found < env.count) {
		strcpy(s63.pairs[s63.found][0], lo);
		strcpy(s63.pairs[s63.found][1], hi);
		s63.found++;
		if (!env.quiet && isatty(2))
			fputc('\n', stderr);
		print_pair(lo, hi, &shared);
		if (s63.found >= env.count)
			atomic_store(&s63.stop, 1);
	}
	pthread_mutex_unlock(&out_lock);
}

/* A trail that reached a distinguished point: store it, resolve a merge. */
static void trail_end(uint64_t x, uint32_t id, uint32_t len, char *na, char *nb)
{
	struct dp_slot other;
	int hit;

	if (len >= s63.max_len) {
		/* Probably a cycle without a distinguished point: drop it. */
		atomic_fetch_add(&s63.abandoned, 1);
		return;
	}
	atomic_fetch_add(&s63.trails, 1);
	pthread_mutex_lock(&s63.lock);
	hit = dp_insert(x, id, len, &other);
	if (s63.table_full)
		atomic_store(&s63.stop, 1);
	pthread_mutex_unlock(&s63.lock);
	if (!hit)
		return;
	atomic_fetch_add(&s63.merges, 1);
	if (resolve(other.id, other.len, id, len, na, nb))
		record_pair(na, nb);
	else
		atomic_fetch_add(&s63.robin_hoods, 1);
}

/*
 * EXT4HASH_LANES trails walk in step: every round names each lane's point,
 * hashes all the names in one ext4hash_lanes() call and moves each lane to
 * its cookie; a lane whose trail ends starts the next trail number.
 */
static void *worker63(void *arg)
{
	char na[EXT4_NAME_MAX + 1], nb[EXT4_NAME_MAX + 1];
	uint64_t x[EXT4HASH_LANES];
	uint32_t id[EXT4HASH_LANES], len[EXT4HASH_LANES];
	struct ext4hash h[EXT4HASH_LANES];
	struct lanebuf lb;
	unsigned int rounds = 0;

	(void)arg;
	lanebuf_init(&lb);
	for (int l = 0; l < EXT4HASH_LANES; l++) {
		id[l] = atomic_fetch_add(&s63.next_id, 1);
		x[l] = start_point(id[l]);
		len[l] = 0;
	}
	while (1) {
		for (int l = 0; l < EXT4HASH_LANES; l++)
			digits_of(mix63(x[l]) << 1, lane_name(&lb, l) + env.prefix_len);
		ext4hash_lanes(env.simd, alg, &seed, lb.names, lb.stride, lb.name_len, EXT4HASH_LANES, h);
		for (int l = 0; l < EXT4HASH_LANES; l++) {
			/* cookie_hash2pos(COOKIE_63BIT, ...), inline */
			x[l] = ((uint64_t)(h[l].major >> 1) << 32 | h[l].minor) & out_mask;
			len[l]++;
			if ((x[l] & s63.dp_mask) && len[l] < s63.max_len)
				continue;
			trail_end(x[l], id[l], len[l], na, nb);
			id[l] = atomic_fetch_add(&s63.next_id, 1);
			x[l] = start_point(id[l]);
			len[l] = 0;
		}
		if (++rounds % 256 == 0) {
			atomic_fetch_add_explicit(&s63.hashes, 256 * EXT4HASH_LANES, memory_order_relaxed);
			if (atomic_load_explicit(&s63.stop, memory_order_relaxed))
				break;
		}
	}
	free(lb.names);
	return NULL;
}

/*
 * Expected further work until the next collision, given w points computed:
 * for the first, the birthday tail E[W - w | W > w] with P(W > w) =
 * exp(-w^2 / 2N); for later ones about N / w (each new point meets one of
 * the w old ones with probability w / N).  Plus one trail to the DP.
 */
static double expected_remaining(double w, double n, uint64_t found)
{
	double tail = 1.0 / (double)(s63.dp_mask + 1);

	if (found == 0) {
		double x = w / sqrt(2 * n);

		if (x > 25)
			return sqrt(2 * n) / (2 * x) + 1 / tail;
		return sqrt(M_PI * n / 2) * exp(x * x) * erfc(x) + 1 / tail;
	}
	return n / (w > 1 ? w : 1) + 1 / tail;
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static int collide63(void)
{
	pthread_t *tids;
	double t0 = now(), last = t0, n = ldexp(1.0, (int)env.search_bits);
	double every = env.progress_every > 0 ? env.progress_every : isatty(2) ? 1 : 10;
	int tty = isatty(2);

	uint64_t sm = env.rng_seed;

	key_mix = ck_splitmix64(&sm);
	key_start = ck_splitmix64(&sm);
	s63.dp_mask = (1ULL << env.dp_bits) - 1;
	s63.max_len = 20u << env.dp_bits;
	s63.nslots = 1 << 16;
	/* 2^24 slots of 16 bytes: 256 MiB, 384 MiB while doubling into it. */
	s63.max_slots = 1 << 24;
	s63.tab = ck_xcalloc(s63.nslots, sizeof(*s63.tab));
	s63.pairs = ck_xcalloc(env.count, sizeof(*s63.pairs));
	tids = ck_xcalloc(env.threads, sizeof(*tids));
	for (unsigned long i = 0; i < env.threads; i++)
		if (pthread_create(&tids[i], NULL, worker63, NULL)) {
			fprintf(stderr, "cookie-collide: cannot start thread %lu: %s\n", i, strerror(errno));
			atomic_store(&s63.stop, 1);
			env.threads = i;
			break;
		}
	while (!atomic_load(&s63.stop)) {
		usleep(50000);
		double t = now();

		if (env.quiet || t - last < every)
			continue;
		last = t;
		double w = (double)atomic_load(&s63.hashes), rate = w / (t - t0);
		double rem = expected_remaining(w, n, s63.found);

		/* A random search has no fixed end: "done" is the share of the
		 * expected work (done + expected remaining), time left its rest. */
		fprintf(stderr, "%scookie-collide: %.0f%% of the expected work, %.3g hashes, %.1f M/s, %"
			PRIu64 "/%" PRIu64 " found, %zu DPs, expected remaining %.2g hashes (~%.0f s)%s",
			tty ? "\r" : "", 100 * w / (w + rem), w, rate / 1e6, s63.found, env.count, s63.n,
			rem, rem / (rate > 0 ? rate : 1), tty ? "   " : "\n");
	}
	for (unsigned long i = 0; i < env.threads; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	if (!env.quiet) {
		double t = now() - t0, w = (double)atomic_load(&s63.hashes);

		fprintf(stderr, "%scookie-collide: %" PRIu64 " group(s) in %.1f s: %.3g hashes "
			"(%.2f x the expected %.3g for the first), %.1f M/s on %lu threads (%s); "
			"%" PRIu64 " trails, %zu DPs stored, %" PRIu64 " merges (%" PRIu64 " Robin Hood), "
			"%" PRIu64 " abandoned; table %zu MiB, peak RSS %ld MiB; rng-seed %" PRIu64 "\n",
			tty ? "\n" : "", s63.found, t, w, w / sqrt(M_PI / 2 * n), sqrt(M_PI / 2 * n),
			w / t / 1e6, env.threads, ext4hash_path_name(env.simd), (uint64_t)s63.trails, s63.n, (uint64_t)s63.merges,
			(uint64_t)s63.robin_hoods, (uint64_t)s63.abandoned,
			s63.nslots * sizeof(*s63.tab) >> 20, rss_kib() / 1024, env.rng_seed);
	}
	if (s63.table_full) {
		fprintf(stderr, "cookie-collide: distinguished-point table full (%zu entries) after %" PRIu64
			" of %" PRIu64 " groups; use a larger --dp-bits or a smaller --count\n",
			s63.n, s63.found, env.count);
		return 1;
	}
	free(s63.tab);
	free(s63.pairs);
	return 0;
}

/*
 * --stage-times: where a walk step's time goes, per path.  Each stage runs
 * alone over 16 lanes for about env.stage_secs: the name (mix63 and the
 * digits), the hash of the 16 names, the cookie and the distinguished-point
 * test; then the whole step as worker63 runs it (without the rare trail
 * ends).  Figures, not a test: nanoseconds per name on one thread.
 */
static double time_stage(int stage, int path, struct lanebuf *lb, uint64_t *sink)
{
	uint64_t x[EXT4HASH_LANES], acc = 0, rounds = 0;
	struct ext4hash h[EXT4HASH_LANES];
	double t0 = now(), t;

	for (int l = 0; l < EXT4HASH_LANES; l++) {
		x[l] = start_point(l);
		h[l].major = (uint32_t)x[l];
		h[l].minor = (uint32_t)(x[l] >> 32);
	}
	do {
		for (int r = 0; r < 1024; r++, rounds++) {
			if (stage == 0 || stage == 3)
				for (int l = 0; l < EXT4HASH_LANES; l++)
					digits_of(mix63(x[l]) << 1, lane_name(lb, l) + env.prefix_len);
			if (stage == 1 || stage == 3)
				ext4hash_lanes(path, alg, &seed, lb->names, lb->stride, lb->name_len,
					       EXT4HASH_LANES, h);
			if (stage == 2 || stage == 3)
				for (int l = 0; l < EXT4HASH_LANES; l++) {
					x[l] = ((uint64_t)(h[l].major >> 1) << 32 | h[l].minor) & out_mask;
					acc += !(x[l] & s63.dp_mask);
				}
			if (stage == 0)
				for (int l = 0; l < EXT4HASH_LANES; l++)
					x[l] += 0x9e3779b97f4a7c15ULL;
			if (stage == 1)
				lb->names[r % lb->name_len] ^= 1; /* a new name every round */
			if (stage == 2)
				for (int l = 0; l < EXT4HASH_LANES; l++)
					h[l].minor += h[(l + 1) % EXT4HASH_LANES].major;
		}
	} while ((t = now() - t0) < env.stage_secs);
	*sink += acc + (unsigned char)lb->names[0];
	return t * 1e9 / (double)(rounds * EXT4HASH_LANES);
}

static int stage_times(void)
{
	static const char *const stage[] = { "name (mix63 + digits)", "hash (16 names a call)",
					      "cookie + DP test", "whole step" };
	struct lanebuf lb;
	uint64_t sink = 0;

	s63.dp_mask = (1ULL << env.dp_bits) - 1;
	lanebuf_init(&lb);
	printf("stage times, ns per name, one thread; alg %s, names %zu bytes\n",
	       ext4hash_alg_name(alg), lb.name_len);
	printf("%-24s", "stage");
	for (int p = 0; p < EXT4HASH_NPATHS; p++)
		if (ext4hash_path_available(p))
			printf(" %10s", ext4hash_path_name(p));
	printf("\n");
	for (int st = 0; st < 4; st++) {
		printf("%-24s", stage[st]);
		for (int p = 0; p < EXT4HASH_NPATHS; p++) {
			if (!ext4hash_path_available(p))
				continue;
			/* The name and cookie stages do not depend on the path: once. */
			if ((st == 0 || st == 2) && p > 0) {
				printf(" %10s", "\"");
				continue;
			}
			printf(" %10.2f", time_stage(st, p, &lb, &sink));
			ck_xflush(stdout, NULL);
		}
		printf("\n");
	}
	printf("%-24s", "whole step, M names/s");
	for (int p = 0; p < EXT4HASH_NPATHS; p++)
		if (ext4hash_path_available(p))
			printf(" %10.2f", 1e3 / time_stage(3, p, &lb, &sink));
	printf("\n");
	free(lb.names);
	return sink == 42; /* keep the work; ck_close_stdout checks the output at exit */
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, NULL, doc, 0, 0, 0 };

	ck_output_init();
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 1;
	if (ck_hashsrc_resolve(&env.src, "cookie-collide", &alg, &seed))
		return 1;
	if (!env.have_rng_seed)
		env.rng_seed = ck_random_seed();
	env.prefix_len = strlen(env.prefix);
	env.alen = strlen(env.alphabet);
	if (env.simd < 0)
		env.simd = ext4hash_path_best();
	/* The least length that holds 63 bits (31-bit searches need far less). */
	unsigned long need63 = (unsigned long)ceil(63.0 / log2((double)env.alen) - 1e-9);

	if (!env.len)
		env.len = env.bits == 63 ? need63 : 8;
	if (env.prefix_len + env.len > EXT4_NAME_MAX) {
		fprintf(stderr, "cookie-collide: --prefix plus --len make %zu bytes, over the %d of a name\n",
			env.prefix_len + env.len, EXT4_NAME_MAX);
		return 1;
	}
	/*
	 * S names hold about S^2 / 2^32 colliding pairs; with fewer than 2^25
	 * there are too few to find many quickly, and names repeat a lot.
	 */
	double space = env.len * log2((double)env.alen);

	if (env.bits == 31 && (space < 25 || ldexp(1.0, (int)(2 * space - 34)) < (double)env.count)) {
		fprintf(stderr, "cookie-collide: --len %lu over %zu characters gives only 2^%.1f names, "
			"too few for %" PRIu64 " pairs; use a longer --len\n", env.len, env.alen, space, env.count);
		return 1;
	}
	if (env.bits == 63 && alg != EXT4HASH_LEGACY && alg != EXT4HASH_LEGACY_UNSIGNED && env.len < need63) {
		fprintf(stderr, "cookie-collide: --len %lu is too short for --bits 63: %zu characters need "
			"at least %lu to name 2^63 points\n", env.len, env.alen, need63);
		return 1;
	}
	names_init();
	if (env.stage_secs > 0)
		return stage_times();
	if (!env.threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		env.threads = n > 0 ? (unsigned long)n : 1;
	}
	if (!env.quiet) {
		char seedtxt[37];

		ext4hash_seed_format(&seed, seedtxt);
		fprintf(stderr, "cookie-collide: %d-bit cookies, alg %s, seed %s%s, names %s+%lu of %zu chars, "
			"rng-seed %" PRIu64 ", hashing %s\n", env.bits, ext4hash_alg_name(alg), seedtxt,
			ext4hash_seed_is_zero(&seed) ? " (default)" : "", env.prefix, env.len, env.alen,
			env.rng_seed, ext4hash_path_name(env.simd));
	}
	if (env.search_bits < 63) {
		if (env.bits != 63 || env.dp_bits + 8 > env.search_bits) {
			fprintf(stderr, "cookie-collide: --search-bits needs --bits 63 and --dp-bits "
				"at most B - 8\n");
			return 1;
		}
		out_mask = (1ULL << env.search_bits) - 1;
		if (!env.quiet)
			fprintf(stderr, "cookie-collide: test mode: only the low %u cookie bits must agree\n",
				env.search_bits);
	}
	if (env.bits == 31)
		return collide31();
	if (alg == EXT4HASH_LEGACY || alg == EXT4HASH_LEGACY_UNSIGNED) {
		/* minor is always 0: equal majors are equal 63-bit cookies. */
		if (!env.quiet)
			fprintf(stderr, "cookie-collide: %s has no minor hash, so a 31-bit pair is a 63-bit pair\n",
				ext4hash_alg_name(alg));
		return collide31();
	}
	return collide63();
}
