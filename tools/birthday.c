// SPDX-License-Identifier: GPL-2.0
/*
 * birthday: how likely a directory of n names holds two with the same
 * readdir cookie, when cookies are b bits wide; and, with --measure, how
 * often it really happens with the ext4 hash and random seeds.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ckutil.h"
#include "collide.h"
#include "cookie.h"
#include "ext4hash.h"
#include "ext4hash_lanes.h"

#define MAX_MEASURE 16

static struct env {
	int bits;
	uint64_t ns[64];
	int nns;
	uint64_t measure[MAX_MEASURE];
	int nmeasure;
	uint64_t trials;
	int alg;
	uint64_t rng_seed;
	int have_rng_seed;
	double confidence;
	const char *plot;
} env = { .bits = 31, .trials = 100, .alg = EXT4HASH_HALF_MD4, .confidence = 0.99 };

void (*argp_program_version_hook)(FILE *, struct argp_state *) = ck_argp_version;
static const char doc[] =
"Probability that n directory entries include two with the same b-bit cookie.\n"
"\n"
"USAGE: birthday [--bits B] [N...]\n"
"       birthday --measure N[,N...] [--trials T] [--alg ALG] [--bits B] [--plot FILE.png]\n"
"\n"
"With no N, prints the article's figures (LWN, 2013: 2,000 entries ~0.1%,\n"
"32,768 >20%, 100,000 >90% with 31 bits; 1,000,000 with 63 bits < 1 in 4\n"
"million) and exits non-zero if any is not reproduced.\n"
"Columns: exact P = 1 - prod(1 - i/2^b), the approximation\n"
"1 - exp(-n(n-1)/2^(b+1)), and the expected number of colliding pairs\n"
"n(n-1)/2^(b+1).\n"
"\n"
"--measure draws T directories of N random names, each under a fresh random\n"
"hash seed, hashes them with the library, counts directories with a cookie\n"
"collision and compares with theory: the exact P must lie in the Wilson\n"
"interval of the observed rate at --confidence (default 0.99), and the pair\n"
"count within the same confidence of its Poisson expectation.  Exit 1 if not.\n"
"--bits below 31 uses the top B bits of the 31-bit cookie (a smaller space).\n"
"Numbers are decimal: a leading zero is not octal (010 is ten), and 0x is refused.\n"
"\n"
"EXAMPLES:\n"
"  birthday\n"
"  birthday --bits 63 1000000 10000000\n"
"  birthday --measure 20000,50000,77000,100000 --trials 200 --plot birthday.png\n";

enum { OPT_CONF = 256 };

static const struct argp_option options[] = {
	{ "bits", 'b', "B", 0, "Cookie width in bits, 8..63 (default 31)", 0 },
	{ "measure", 'm', "N[,N...]", 0, "Measure the collision rate for these directory sizes", 0 },
	{ "trials", 't', "T", 0, "Directories per size (default 100)", 0 },
	{ "alg", 'a', "ALG", 0, "Hash for --measure (default half_md4, the mkfs default)", 0 },
	{ "rng-seed", 'r', "N", 0, "Seed for names and hash seeds (default: random, shown)", 0 },
	{ "confidence", OPT_CONF, "C", 0, "Confidence level of the comparison (default 0.99)", 0 },
	{ "plot", 'p', "FILE.png", 0, "Draw theory (and measurements) with gnuplot", 0 },
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	uint64_t v;

	switch (key) {
	case 'b':
		if (ck_parse_u64(arg, 8, 63, &v))
			argp_error(state, "--bits: '%s' is not a number in 8..63", arg);
		env.bits = (int)v;
		break;
	case 'm': {
		char *copy = ck_xstrdup(arg), *save = NULL;

		for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (env.nmeasure == MAX_MEASURE || ck_parse_u64(tok, 2, 10000000, &v))
				argp_error(state, "--measure: '%s' is not a list of up to %d sizes in 2..10000000",
					   arg, MAX_MEASURE);
			env.measure[env.nmeasure++] = v;
		}
		free(copy);
		if (!env.nmeasure)
			argp_error(state, "--measure: no size in '%s'", arg);
		break;
	}
	case 't':
		if (ck_parse_u64(arg, 1, 1000000, &v))
			argp_error(state, "--trials: '%s' is not a number in 1..1000000", arg);
		env.trials = v;
		break;
	case 'a':
		env.alg = ext4hash_alg_parse(arg);
		if (env.alg < 0)
			argp_error(state, "--alg: unknown algorithm '%s' (legacy, half_md4, tea, "
				   "legacy_unsigned, half_md4_unsigned, tea_unsigned)", arg);
		break;
	case 'r':
		if (ck_parse_u64(arg, 0, UINT64_MAX, &v))
			argp_error(state, "--rng-seed: '%s' is not an unsigned 64-bit number", arg);
		env.rng_seed = v;
		env.have_rng_seed = 1;
		break;
	case OPT_CONF:
		if (ck_parse_double(arg, 0.5, 0.999999, &env.confidence))
			argp_error(state, "--confidence: '%s' is not a number in 0.5..0.999999", arg);
		break;
	case 'p':
		env.plot = arg;
		break;
	case ARGP_KEY_ARG:
		if (env.nns == 64 || ck_parse_u64(arg, 1, UINT64_MAX, &v))
			argp_error(state, "N: '%s' is not a positive number (at most 64 of them)", arg);
		env.ns[env.nns++] = v;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ----------------------------------------------------------------- theory */

/*
 * log P(no collision) = sum_{i<n} log(1 - i/N).  Summed term by term (with
 * compensation) up to 10^7 names; beyond, from the series
 * -sum_k S_k(n-1) / (k N^k) with power sums S_k, which converges fast
 * while n << N, the only case where P is not simply 1 to double precision.
 */
static double log_p_none(double n, double space)
{
	if (n > space)
		return -INFINITY;
	if (n <= 1e7) {
		double sum = 0, c = 0;

		for (double i = 1; i < n; i++) {
			double y = log1p(-i / space) - c, t = sum + y;

			c = (t - sum) - y;
			sum = t;
		}
		return sum;
	}
	double m = n - 1, r = m / space;

	if (r > 0.01)
		return -INFINITY; /* n(n-1)/2N is in the thousands: P(none) underflows */
	/* S_1 = m(m+1)/2, S_2 = m(m+1)(2m+1)/6, S_3 = S_1^2. */
	double s1 = m * (m + 1) / 2, s2 = m * (m + 1) * (2 * m + 1) / 6, s3 = s1 * s1;

	return -(s1 / space + s2 / (2 * space * space) + s3 / (3 * space * space * space));
}

static double p_exact(double n, int bits)
{
	return -expm1(log_p_none(n, ldexp(1.0, bits)));
}

/*
 * p_exact along a curve of rising n (the plot's ~430 points): the exact
 * sum carried on from the last point instead of begun again, the same
 * terms added in the same order, so the same values.  Begun again at
 * every point, the sums up to 10^7 terms made --plot take 2.3 s.
 */
struct curve {
	double space, next, sum, c, last;	/* next: the next term's i */
};

static void curve_init(struct curve *k, int bits)
{
	*k = (struct curve){ .space = ldexp(1.0, bits), .next = 1 };
}

static double curve_p(struct curve *k, double n)
{
	if (n > k->space || n > 1e7 || n < k->last)
		return -expm1(log_p_none(n, k->space));
	k->last = n;
	for (; k->next < n; k->next++) {
		double y = log1p(-k->next / k->space) - k->c, t = k->sum + y;

		k->c = (t - k->sum) - y;
		k->sum = t;
	}
	return -expm1(k->sum);
}

static double p_approx(double n, int bits)
{
	return -expm1(-n * (n - 1) / ldexp(2.0, bits));
}

static double pairs_expected(double n, int bits)
{
	return n * (n - 1) / ldexp(2.0, bits);
}

static void print_row(double n, int bits)
{
	double pe = p_exact(n, bits);

	printf("%12.0f %4d  %13.6g %11.5f%%  %13.6g  %13.6g  %s%.3g\n", n, bits, pe, 100 * pe,
	       p_approx(n, bits), pairs_expected(n, bits), pe > 0 ? "1 in " : "", pe > 0 ? 1 / pe : 0);
}

static void print_header(void)
{
	printf("%12s %4s  %13s %12s  %13s  %13s  %s\n", "entries", "bits", "P exact", "P exact",
	       "P approx", "E[pairs]", "odds");
}

struct claim {
	double n;
	int bits;
	const char *text;
	double lo, hi; /* P must lie in [lo, hi] */
};

/* LWN, "Widening ext4's readdir() cookie", 2013-03-27. */
static const struct claim claims[] = {
	{ 2000, 31, "around 0.1%", 0.0005, 0.0015 },
	{ 32768, 31, "somewhat more than 20%", 0.20, 0.30 },
	{ 100000, 31, "over 90%", 0.90, 1.0 },
	{ 1000000, 63, "less than one chance in four million", 0, 1.0 / 4e6 },
};

static int article_table(void)
{
	int bad = 0;

	print_header();
	for (size_t i = 0; i < sizeof(claims) / sizeof(claims[0]); i++)
		print_row(claims[i].n, claims[i].bits);
	printf("\nthe article's figures:\n");
	for (size_t i = 0; i < sizeof(claims) / sizeof(claims[0]); i++) {
		const struct claim *c = &claims[i];
		double p = p_exact(c->n, c->bits);
		int ok = p >= c->lo && p <= c->hi;

		printf("  %9.0f entries, %d bits: \"%s\": P = %.4g%% -> %s\n", c->n, c->bits, c->text,
		       100 * p, ok ? "reproduced" : "NOT reproduced");
		bad += !ok;
	}
	return bad ? 1 : 0;
}

/* ------------------------------------------------------------ measurement */

struct measured {
	uint64_t n, trials, hits, pairs;
	double p, lo, hi;        /* theory and the Wilson interval of hits/trials */
	double pairs_exp, pairs_lo, pairs_hi;
	int ok;
};

static int cookie_key_of(const void *ctx, uint32_t id, uint64_t *key)
{
	*key = ck_mix64(((const uint64_t *)ctx)[id]);
	return 1;
}

/*
 * Pairs among n cookies sharing a value: a group of m adds m(m-1)/2, one
 * for each earlier member as each member arrives.  The collision core's
 * table (lib/collide) finds a cookie's group; count[] (n slots) holds each
 * group's size at its first member.
 */
static uint64_t pairs_among(const uint64_t *cookies, uint32_t *count, uint64_t n)
{
	struct ck_idtab t;
	uint64_t pairs = 0;

	if (ck_idtab_init(&t, (uint32_t)(2 * n + 2))) {
		fprintf(stderr, "birthday: out of memory\n");
		exit(2);
	}
	for (uint64_t i = 0; i < n; i++) {
		uint32_t *s;

		for (s = ck_idtab_first(&t, ck_mix64(cookies[i])); *s; s = ck_idtab_next(&t, s))
			if (cookies[*s - 1] == cookies[i])
				break;
		if (*s) {
			pairs += count[*s - 1]++;
			continue;
		}
		count[i] = 1;
		if (ck_idtab_put(&t, s, (uint32_t)i, cookie_key_of, cookies)) {
			fprintf(stderr, "birthday: out of memory\n");
			exit(2);
		}
	}
	ck_idtab_free(&t);
	return pairs;
}

/* The two-sided normal quantile for a confidence level (bisection on erfc). */
static double z_of(double conf)
{
	double lo = 0, hi = 10;

	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (erfc(mid / M_SQRT2) > 1 - conf)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static void measure_one(struct ck_rng *rng, uint64_t n, struct measured *m)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
	uint64_t *keys = ck_xmalloc(n * sizeof(*keys));
	uint32_t *count = ck_xmalloc(n * sizeof(*count));
	double z = z_of(env.confidence);
	int path = ext4hash_path_best();
	/* A batch of names for ext4hash_lanes(), one 32-byte slot each. */
	char batch[EXT4HASH_LANES][32] __attribute__((aligned(16)));
	size_t lens[EXT4HASH_LANES];
	struct ext4hash hs[EXT4HASH_LANES];

	memset(m, 0, sizeof(*m));
	m->n = n;
	m->trials = env.trials;
	for (uint64_t t = 0; t < env.trials; t++) {
		struct ext4hash_seed seed;
		uint64_t pairs = 0;

		for (int i = 0; i < 4; i++)
			seed.w[i] = (uint32_t)ck_rng_next(rng);
		for (uint64_t i0 = 0; i0 < n; i0 += EXT4HASH_LANES) {
			size_t nb = n - i0 < EXT4HASH_LANES ? (size_t)(n - i0) : EXT4HASH_LANES;

			for (size_t k = 0; k < nb; k++) {
				/* 16 random characters, then the index: names are distinct. */
				uint64_t r = ck_rng_next(rng), r2 = ck_rng_next(rng);
				char *name = batch[k];
				int len = 0;

				for (int j = 0; j < 10; j++, r >>= 6)
					name[len++] = abc[r & 63];
				for (int j = 0; j < 6; j++, r2 >>= 6)
					name[len++] = abc[r2 & 63];
				len += snprintf(name + len, sizeof(batch[k]) - (size_t)len, ".%" PRIu64, i0 + k);
				lens[k] = (size_t)len;
			}
			/* Names of one length at a time (the index's digits change rarely). */
			for (size_t k = 0, e; k < nb; k = e) {
				for (e = k + 1; e < nb && lens[e] == lens[k]; e++)
					;
				if (ext4hash_lanes(path, env.alg, &seed, batch[k], sizeof(batch[k]), lens[k],
						   e - k, hs + k))
					for (size_t j = k; j < e; j++)
						ext4hash_compute(env.alg, &seed, batch[j], lens[j], &hs[j]);
			}
			for (size_t k = 0; k < nb; k++)
				keys[i0 + k] = env.bits <= 31
					? cookie_hash2pos(COOKIE_31BIT, hs[k].major, hs[k].minor) >> (31 - env.bits)
					: cookie_hash2pos(COOKIE_63BIT, hs[k].major, hs[k].minor) >> (63 - env.bits);
		}
		pairs = pairs_among(keys, count, n);
		m->hits += pairs > 0;
		m->pairs += pairs;
	}
	free(keys);
	free(count);

	double T = (double)m->trials, ph = (double)m->hits / T, z2 = z * z;
	double centre = (ph + z2 / (2 * T)) / (1 + z2 / T);
	double half = z / (1 + z2 / T) * sqrt(ph * (1 - ph) / T + z2 / (4 * T * T));

	m->p = p_exact((double)n, env.bits);
	m->lo = fmax(0, centre - half);
	m->hi = fmin(1, centre + half);
	m->pairs_exp = T * pairs_expected((double)n, env.bits);
	/* Normal approximation to the Poisson count, with a floor for tiny means. */
	m->pairs_lo = fmax(0, m->pairs_exp - z * sqrt(m->pairs_exp) - 1);
	m->pairs_hi = m->pairs_exp + z * sqrt(m->pairs_exp) + 1 + z2;
	m->ok = m->p >= m->lo && m->p <= m->hi &&
		(double)m->pairs >= m->pairs_lo && (double)m->pairs <= m->pairs_hi;
}

/* ------------------------------------------------------------------- plot */

/* The work directory's files; gnuplot runs in it and sees only these names. */
static const char *const plot_files[] = { "theory", "measured", "article", "plot.gp", "plot.png" };

static FILE *plot_open(const char *dir, const char *name)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "w")))
		fprintf(stderr, "birthday: --plot: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

/* Close a file of gnuplot's input: 0, or -1 said as a write error. */
static int plot_close(FILE *f, const char *dir, const char *name)
{
	if (!ck_fclose_checked(f))
		return 0;
	fprintf(stderr, "birthday: write error: %s/%s: %s\n", dir, name, strerror(errno));
	return -1;
}

static void plot_cleanup(const char *dir)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(plot_files) / sizeof(plot_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, plot_files[i]);
		unlink(path);
	}
	rmdir(dir);
}

/*
 * No byte of OUT reaches gnuplot: the data, the script and the picture live
 * under fixed names in a work directory made next to OUT (same file system),
 * gnuplot runs there, and the picture is renamed to OUT from C.  A path with
 * a quote and a newline could otherwise end 'set output' and run 'system'.
 */
static int plot(const char *out, const struct measured *ms, int nms)
{
	const char *slash = strrchr(out, '/');
	char dir[PATH_MAX], png[PATH_MAX + 16];
	struct stat st;
	FILE *f;
	int rc, status;
	pid_t pid;
	struct curve k31, k63, kb;

	/* Before the fork (its child must not write our buffer again). */
	ck_xflush(stdout, NULL);
	if (lstat(out, &st) == 0 && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "birthday: --plot %s: exists and is not a regular file; give a .png path\n", out);
		return -1;
	}
	if ((size_t)snprintf(dir, sizeof(dir), "%.*s.birthday-plot.XXXXXX",
			     slash ? (int)(slash - out + 1) : 0, out) >= sizeof(dir)) {
		fprintf(stderr, "birthday: --plot: path too long: %s\n", out);
		return -1;
	}
	if (!mkdtemp(dir)) {
		fprintf(stderr, "birthday: --plot %s: cannot make a work directory %s next to it: %s\n",
			out, dir, strerror(errno));
		return -1;
	}
	if (!(f = plot_open(dir, "theory")))
		goto fail;
	/* Theory for 31 bits, 63 bits and, if different, the measured width. */
	curve_init(&k31, 31);
	curve_init(&k63, 63);
	curve_init(&kb, env.bits);
	for (double x = 1e2; x <= 1e11; x *= 1.05)
		fprintf(f, "%g %g %g %g\n", x, curve_p(&k31, x), curve_p(&k63, x),
			env.bits != 31 && env.bits != 63 ? curve_p(&kb, x) : NAN);
	if (plot_close(f, dir, "theory"))
		goto fail;
	if (!(f = plot_open(dir, "measured")))
		goto fail;
	for (int i = 0; i < nms; i++)
		fprintf(f, "%" PRIu64 " %g %g %g\n", ms[i].n, (double)ms[i].hits / ms[i].trials, ms[i].lo, ms[i].hi);
	if (plot_close(f, dir, "measured"))
		goto fail;
	if (!(f = plot_open(dir, "article")))
		goto fail;
	for (size_t i = 0; i < sizeof(claims) / sizeof(claims[0]); i++)
		fprintf(f, "%g %g\n", claims[i].n, p_exact(claims[i].n, claims[i].bits));
	if (plot_close(f, dir, "article"))
		goto fail;
	if (!(f = plot_open(dir, "plot.gp")))
		goto fail;
	fprintf(f,
		"set terminal pngcairo size 1000,620 font ',11'\n"
		"set output 'plot.png'\n"
		"set title 'P(two entries share a readdir cookie) vs. directory size'\n"
		"set logscale x\nset format x '10^{%%L}'\nset xrange [100:1e11]\nset yrange [0:1.05]\n"
		"set xlabel 'entries in the directory'\nset ylabel 'P(at least one collision)'\n"
		"set key right center box opaque\nset grid\n"
		"plot 'theory' using 1:2 with lines lw 2 title '31-bit cookies (before 3.4, 32-bit callers, NFSv2)', \\\n"
		"     'theory' using 1:3 with lines lw 2 title '63-bit cookies (64-bit callers since 3.4)', \\\n"
		"     'article' using 1:2 with points pt 7 ps 1.5 title 'the article''s figures'");
	if (env.bits != 31 && env.bits != 63)
		fprintf(f, ", \\\n     'theory' using 1:4 with lines lw 2 dt 2 title '%d-bit theory'", env.bits);
	if (nms)
		fprintf(f, ", \\\n     'measured' using 1:2:3:4 with yerrorbars pt 5 ps 1 lc rgb 'black' "
			"title 'measured, %s, %" PRIu64 " directories per size (%.0f%% Wilson)' noenhanced",
			ext4hash_alg_name(env.alg), env.trials, 100 * env.confidence);
	fprintf(f, "\n");
	if (plot_close(f, dir, "plot.gp"))
		goto fail;

	pid = fork();
	if (pid == 0) {
		if (chdir(dir)) {
			fprintf(stderr, "birthday: --plot: cannot enter %s: %s\n", dir, strerror(errno));
			_exit(127);
		}
		execlp("gnuplot", "gnuplot", "plot.gp", (char *)NULL);
		fprintf(stderr, "birthday: --plot: cannot run gnuplot: %s (install gnuplot-nox: make deps)\n",
			strerror(errno));
		_exit(127);
	}
	rc = pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) ? -1 : 0;
	if (rc) {
		fprintf(stderr, "birthday: --plot: gnuplot failed; script kept in %s/plot.gp\n", dir);
		return -1;
	}
	snprintf(png, sizeof(png), "%s/plot.png", dir);
	if (rename(png, out)) {
		fprintf(stderr, "birthday: --plot: cannot put the plot at %s: %s\n", out, strerror(errno));
		goto fail;
	}
	plot_cleanup(dir);
	fprintf(stderr, "birthday: wrote %s\n", out);
	return 0;
fail:
	plot_cleanup(dir);
	return -1;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, "[N...]", doc, 0, 0, 0 };
	struct measured ms[MAX_MEASURE];
	struct ck_rng rng;
	int rc = 0;

	ck_output_init();
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 64;
	if (env.nns) {
		print_header();
		for (int i = 0; i < env.nns; i++)
			print_row((double)env.ns[i], env.bits);
	} else if (!env.nmeasure) {
		rc = article_table();
	}
	if (env.nmeasure) {
		if (!env.have_rng_seed)
			env.rng_seed = ck_random_seed();
		ck_rng_seed(&rng, env.rng_seed);
		printf("measured: %" PRIu64 " directories per size, random names and hash seeds, %s, "
		       "%d-bit cookies, rng-seed %" PRIu64 ", %.3g%% confidence\n", env.trials,
		       ext4hash_alg_name(env.alg), env.bits, env.rng_seed, 100 * env.confidence);
		printf("%10s %9s %10s %23s %9s %10s %21s  %s\n", "entries", "hits", "observed",
		       "interval", "theory", "pairs", "expected (range)", "verdict");
		for (int i = 0; i < env.nmeasure; i++) {
			struct measured *m = &ms[i];

			measure_one(&rng, env.measure[i], m);
			printf("%10" PRIu64 " %9" PRIu64 " %10.4f   [%8.4f, %8.4f] %9.4f %10" PRIu64
			       " %8.1f (%4.0f-%4.0f)  %s\n", m->n, m->hits, (double)m->hits / m->trials,
			       m->lo, m->hi, m->p, m->pairs, m->pairs_exp, m->pairs_lo, m->pairs_hi,
			       m->ok ? "consistent" : "INCONSISTENT");
			if (!m->ok)
				rc = 1;
		}
	}
	if (env.plot && plot(env.plot, ms, env.nmeasure))
		rc = rc ? rc : 2;
	return rc;
}
