// SPDX-License-Identifier: GPL-2.0
/*
 * mkstream: write synthetic cookie-trace record streams with the shared
 * writer (lib/record.h), for cookie-top's tests and benchmark.  Hashes are
 * the real ext4 ones (lib/ext4hash, half_md4 under the lab disks' seed), so a
 * stream built from vm/names/collide.txt shows the lab's crafted pairs with
 * the hashes the guest would report.
 *
 *   mkstream [OPTIONS] pairs FILE...   names of lab pair files (+ --filler N)
 *   mkstream [OPTIONS] random N        N random names (benchmark)
 * Options:
 *   --width 31|63   cookie width ext4 gives this reader (default 31)
 *   --flags native|compat|nfsd32|nfsd64|pre34   how the reader asked (default: by width)
 *   --loop K        then a seekdir(telldir()) loop: K seeks back to the first pair's cookie
 *   --filler N      N more ordinary names (pairs mode)
 *   --dev MAJ:MIN --ino N --comm NAME --pid N    the directory and the reader
 *   --damage truncated|garbage|version|ff-name|all   break the stream on purpose
 *   --seed UUID     hash seed (default: the lab disks')
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ckutil.h"
#include "cookie.h"
#include "ext4hash.h"
#include "record.h"

#define LAB_SEED "0fcd2a53-0de4-4fb7-9c4f-5cc2a1e33f4b"

struct ent {
	char name[256];
	uint8_t len;
	uint32_t major, minor;
};

static struct ent *ents;
static size_t nents, cap;
static struct ext4hash_seed seed;

static void add(const char *name, size_t len)
{
	struct ext4hash h;

	if (nents == cap) {
		cap = cap ? cap * 2 : 1024;
		ents = realloc(ents, cap * sizeof(*ents));
		if (!ents) {
			perror("mkstream");
			exit(1);
		}
	}
	struct ent *e = &ents[nents++];
	memcpy(e->name, name, len);
	e->len = len;
	ext4hash_compute(EXT4HASH_HALF_MD4, &seed, name, len, &h);
	e->major = h.major;
	e->minor = h.minor;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	return x->minor < y->minor ? -1 : x->minor > y->minor;
}

static void read_pairs(const char *path, char first_pair[2][256])
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t linecap = 0;
	ssize_t n;
	int pairs = 0;

	if (!f) {
		fprintf(stderr, "mkstream: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	/* lib/ckname's line format, as dirfill reads it. */
	while ((n = getline(&line, &linecap, f)) >= 0) {
		char *names[CK_NAMES_MAX];
		size_t lens[CK_NAMES_MAX];
		const char *why;

		if (n > 0 && line[n - 1] == '\n')
			n--;
		int k = ck_names_split(line, (size_t)n, names, lens, CK_NAMES_MAX, &why);
		if (k < 0) {
			fprintf(stderr, "mkstream: %s: %s\n", path, why);
			exit(1);
		}
		if (!k)
			continue;
		for (int i = 0; i < k; i++) {
			size_t len = lens[i] < 255 ? lens[i] : 255;

			if (!pairs && i < 2) {
				memcpy(first_pair[i], names[i], len);
				first_pair[i][len] = 0;
			}
			add(names[i], len);
		}
		pairs++;
	}
	free(line);
	fclose(f);
}

static struct ck_rec ev;
static uint64_t ts = 1000000000;

static void emit(FILE *out, int kind)
{
	ev.kind = kind;
	ev.ts_ns = ts;
	ts += 20000; /* 20 us between events: replay at x1 is quick and still paced */
	if (ck_rec_write(out, &ev)) {
		perror("mkstream: write");
		exit(1);
	}
}

static void filldir(FILE *out, const struct ent *e, int width, uint32_t chain_len, uint32_t chain_idx)
{
	ev.major = e->major;
	ev.minor = e->minor;
	ev.cookie = cookie_hash2pos(width == 63 ? COOKIE_63BIT : COOKIE_31BIT, e->major, e->minor);
	ev.name_len = e->len;
	memcpy(ev.name, e->name, e->len);
	ev.ino = 1000 + (e - ents);
	ev.chain_len = chain_len;
	ev.chain_index = chain_idx;
	ev.offset = ev.whence = 0;
	ev.result = 0;
	emit(out, CK_REC_FILLDIR);
}

static void seek(FILE *out, uint64_t off)
{
	ev.major = ev.minor = 0;
	ev.name_len = 0;
	ev.ino = 0;
	ev.cookie = off;
	ev.offset = off;
	ev.whence = 0;
	emit(out, CK_REC_LLSEEK_ENTRY);
	ev.result = off;
	emit(out, CK_REC_LLSEEK_EXIT);
	ev.result = 0;
}

/* A record with its header patched (version), CRC recomputed so it is "whole". */
static void write_patched(FILE *out, int version, uint16_t name_len_override)
{
	uint8_t buf[CK_REC_MAX_LEN];
	struct ck_rec r = ev;

	r.kind = CK_REC_FILLDIR;
	int n = ck_rec_encode(&r, buf, sizeof(buf));
	if (n < 0)
		exit(1);
	if (version >= 0)
		buf[2] = version;
	if (name_len_override) {
		buf[12 + 104] = name_len_override & 0xff;
		buf[12 + 105] = name_len_override >> 8;
	}
	uint32_t crc = ck_rec_crc32(0, buf, 8);
	crc = ck_rec_crc32(crc, buf + 12, n - 12);
	buf[8] = crc;
	buf[9] = crc >> 8;
	buf[10] = crc >> 16;
	buf[11] = crc >> 24;
	fwrite(buf, 1, n, out);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "width", required_argument, NULL, 'w' }, { "flags", required_argument, NULL, 'f' },
		{ "loop", required_argument, NULL, 'l' }, { "filler", required_argument, NULL, 'F' },
		{ "dev", required_argument, NULL, 'D' }, { "ino", required_argument, NULL, 'i' },
		{ "comm", required_argument, NULL, 'c' }, { "pid", required_argument, NULL, 'p' },
		{ "damage", required_argument, NULL, 'd' }, { "seed", required_argument, NULL, 's' },
		{ "start-ns", required_argument, NULL, 'S' },
		{ 0 }
	};
	int width = 31, c;
	const char *flags = NULL, *damage = "", *seed_text = LAB_SEED, *comm = "dirprobe";
	uint64_t loop = 0, filler = 0, ino = 12, pid = 4242;
	unsigned dmaj = 8, dmin = 16;
	char first_pair[2][256] = { "", "" };

	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 'w': width = atoi(optarg); break;
		case 'f': flags = optarg; break;
		case 'l': ck_parse_u64(optarg, 0, 1000000, &loop); break;
		case 'F': ck_parse_u64(optarg, 0, 100000000, &filler); break;
		case 'D': if (sscanf(optarg, "%u:%u", &dmaj, &dmin) != 2) return 2; break;
		case 'i': ck_parse_u64(optarg, 1, UINT64_MAX, &ino); break;
		case 'c': comm = optarg; break;
		case 'p': ck_parse_u64(optarg, 1, UINT32_MAX, &pid); break;
		case 'd': damage = optarg; break;
		case 's': seed_text = optarg; break;
		/* the first record's time: two streams cat'ed with a gap between them */
		case 'S': if (ck_parse_u64(optarg, 1, UINT64_MAX / 2, &ts)) return 2; break;
		default: return 2;
		}
	}
	if (optind >= argc || (width != 31 && width != 63) || ext4hash_seed_parse(seed_text, &seed)) {
		fprintf(stderr, "usage: mkstream [--width 31|63] [--flags ...] [--loop K] [--filler N] "
			"[--damage ...] [--start-ns NS] pairs FILE... | random N\n");
		return 2;
	}
	if (!strcmp(argv[optind], "pairs")) {
		for (int i = optind + 1; i < argc; i++)
			read_pairs(argv[i], first_pair);
	} else if (!strcmp(argv[optind], "random") && optind + 1 < argc) {
		if (ck_parse_u64(argv[optind + 1], 1, 100000000, &filler))
			return 2;
	} else {
		fprintf(stderr, "mkstream: say 'pairs FILE...' or 'random N'\n");
		return 2;
	}
	struct ck_rng rng;
	ck_rng_seed(&rng, 1);
	for (uint64_t i = 0; i < filler; i++) {
		char name[32];
		uint64_t x = ck_rng_next(&rng);
		int n = snprintf(name, sizeof(name), "f-%08llx%04llx", (unsigned long long)i,
				 (unsigned long long)(x & 0xffff));
		add(name, n);
	}
	qsort(ents, nents, sizeof(*ents), ent_cmp);

	memset(&ev, 0, sizeof(ev));
	ev.pid = ev.tgid = pid;
	snprintf(ev.comm, sizeof(ev.comm), "%s", comm);
	ev.dev = dmaj << 20 | dmin;
	ev.dir_ino = ino;
	if (!flags)
		flags = width == 63 ? "native" : "compat";
	if (!strcmp(flags, "native") || !strcmp(flags, "pre34"))
		ev.flags = 0;
	else if (!strcmp(flags, "compat"))
		ev.flags = CK_REC_F_COMPAT;
	else if (!strcmp(flags, "nfsd32"))
		ev.flags = CK_REC_F_NFSD | CK_REC_F_FMODE32, ev.f_mode = 0x200;
	else if (!strcmp(flags, "nfsd64"))
		ev.flags = CK_REC_F_NFSD | CK_REC_F_FMODE64, ev.f_mode = 0x400;
	else
		return 2;

	FILE *out = stdout;
	static char obuf[1 << 20];
	setvbuf(out, obuf, _IOFBF, sizeof(obuf));
	int all = !strcmp(damage, "all");
	ck_rec_write_hello(out, ts, CK_REC_H_FENTRY, "writer=mkstream kernel=synthetic");
	seek(out, 0);
	for (size_t i = 0; i < nents; i++) {
		uint32_t len = 1, idx = 0;
		/* names sharing both hashes form one fname chain in ext4 */
		while (i + len < nents && ents[i + len].major == ents[i].major && ents[i + len].minor == ents[i].minor)
			len++;
		for (idx = 0; idx < len; idx++)
			filldir(out, &ents[i + idx], width, len, idx);
		i += len - 1;
		if (i == nents / 2 && (all || !strcmp(damage, "garbage"))) {
			fwrite("\x00\x01garbage ck\x63\x6b\x01\x02\xff\xff junk", 1, 27, out);
			fflush(out);
		}
		if (i == nents / 2 && (all || !strcmp(damage, "version"))) {
			write_patched(out, CK_REC_VERSION + 1, 0);	/* a known-good record of a future version */
			write_patched(out, 200, 0);	/* not a version at all: garbage */
		}
		if (i == nents / 2 && (all || !strcmp(damage, "ff-name"))) {
			struct ent e;
			memset(e.name, 0xff, 255);
			e.len = 255;
			e.major = 0x12345678;
			e.minor = 0x9abcdef0;
			struct ent *save = ents;
			(void)save;
			ev.major = e.major;
			ev.minor = e.minor;
			ev.cookie = cookie_hash2pos(width == 63 ? COOKIE_63BIT : COOKIE_31BIT, e.major, e.minor);
			ev.name_len = 255;
			memset(ev.name, 0xff, 255);
			emit(out, CK_REC_FILLDIR);
			write_patched(out, -1, 256);	/* a name_len the format forbids */
		}
	}
	/* seekdir(telldir()) loop on the first crafted pair's cookie */
	if (loop && first_pair[0][0]) {
		struct ent *a = NULL, *b = NULL;
		for (size_t i = 0; i < nents; i++) {
			if (!strcmp(ents[i].name, first_pair[0]))
				a = &ents[i];
			if (!strcmp(ents[i].name, first_pair[1]))
				b = &ents[i];
		}
		if (a && b) {
			struct ent *lo = a < b ? a : b, *hi = a < b ? b : a;
			uint64_t c2 = cookie_hash2pos(width == 63 ? COOKIE_63BIT : COOKIE_31BIT, hi->major, hi->minor);
			for (uint64_t k = 0; k < loop; k++) {
				seek(out, c2);
				filldir(out, lo, width, 1, 0);
				filldir(out, hi, width, 1, 0);
			}
		}
	}
	ck_rec_write_drop(out, ts, 3, 3);
	if (all || !strcmp(damage, "truncated")) {
		uint8_t buf[CK_REC_MAX_LEN];
		ev.kind = CK_REC_FILLDIR;
		int n = ck_rec_encode(&ev, buf, sizeof(buf));
		fwrite(buf, 1, n / 2, out);
	}
	if (fflush(out)) {
		perror("mkstream");
		return 1;
	}
	return 0;
}
