// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include "hashsrc.h"

error_t ck_hashsrc_parse(struct ck_hashsrc *h, int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'a':
		h->alg = ext4hash_alg_parse(arg);
		if (h->alg < 0)
			argp_error(state, "--alg: unknown algorithm '%s' (legacy, half_md4, tea, "
				   "legacy_unsigned, half_md4_unsigned, tea_unsigned)", arg);
		return 0;
	case 's':
		if (ext4hash_seed_parse(arg, &h->seed))
			argp_error(state, "--hash-seed: '%s' is not a UUID "
				   "(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)", arg);
		h->have_seed = 1;
		return 0;
	case 'i':
		h->image = arg;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

void ck_hashsrc_check(const struct ck_hashsrc *h, struct argp_state *state)
{
	if (h->alg < 0 && !h->image)
		argp_error(state, "give --alg ALG (and --hash-seed UUID) or --image IMG");
}

int ck_hashsrc_resolve(struct ck_hashsrc *h, const char *prog, int *alg,
		       struct ext4hash_seed *seed)
{
	char err[512];

	*alg = h->alg;
	*seed = (struct ext4hash_seed){ { 0 } };
	if (h->image) {
		if (ext4sb_read(h->image, &h->sb, err, sizeof(err))) {
			fprintf(stderr, "%s: --image: %s\n", prog, err);
			return -1;
		}
		h->have_sb = 1;
		*seed = h->sb.hash_seed;
		if (*alg < 0)
			*alg = h->sb.alg;
	}
	if (h->have_seed)
		*seed = h->seed;
	return 0;
}
