/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a tool's names get their hash: --alg ALG [--hash-seed UUID], or
 * --image IMG (seed and algorithm from its superblock; --alg / --hash-seed
 * still override).  Shared by cookie-hash and cookie-collide so the options
 * parse, complain and resolve the same way.
 */
#ifndef CK_HASHSRC_H
#define CK_HASHSRC_H

#include <argp.h>

#include "ext4hash.h"
#include "ext4sb.h"

struct ck_hashsrc {
	int alg;                   /* -1 until --alg: then from the image */
	int have_seed;
	struct ext4hash_seed seed;
	const char *image;
	int have_sb;               /* set by ck_hashsrc_resolve() with --image */
	struct ext4sb_info sb;
};

#define CK_HASHSRC_INIT { .alg = -1 }

/* The argp keys this module handles: 'a' (--alg), 's' (--hash-seed), 'i' (--image). */
error_t ck_hashsrc_parse(struct ck_hashsrc *h, int key, char *arg, struct argp_state *state);

/* With neither --alg nor --image: argp_error() naming what to give. */
void ck_hashsrc_check(const struct ck_hashsrc *h, struct argp_state *state);

/*
 * After parsing: read the image's superblock if there is one, then decide the
 * algorithm and seed (--alg / --hash-seed win over the image).  Returns 0, or
 * -1 after printing "PROG: --image: why" on stderr.
 */
int ck_hashsrc_resolve(struct ck_hashsrc *h, const char *prog, int *alg,
		       struct ext4hash_seed *seed);

#endif
