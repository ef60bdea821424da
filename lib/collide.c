// SPDX-License-Identifier: GPL-2.0
/* The collision core: see collide.h for the table and the grouping rule. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collide.h"

#define K1 0x9e3779b97f4a7c15ULL
#define K2 0xc2b2ae3d27d4eb4fULL

uint64_t ck_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* Word at a time: names are short, and hashing them is cookie-top's ingest hot path. */
uint64_t ck_hash_bytes(const void *data, size_t n)
{
	const uint8_t *p = data;
	uint64_t h = n * K1;

	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ w) * K2;
		h ^= h >> 29;
		p += 8;
		n -= 8;
	}
	if (n) {
		uint64_t w = 0;
		memcpy(&w, p, n);
		h = (h ^ w) * K2;
	}
	return ck_mix64(h);
}

/* ---- the table */

int ck_idtab_init(struct ck_idtab *t, uint32_t min_slots)
{
	uint32_t slots = 16;

	while (slots < min_slots && slots <= CK_IDTAB_MAX_MASK / 2)
		slots *= 2;
	t->slot = calloc(slots, sizeof(*t->slot));
	t->mask = slots - 1;
	t->count = t->id_end = 0;
	if (!t->slot) {
		t->mask = 0;
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void ck_idtab_free(struct ck_idtab *t)
{
	free(t->slot);
	t->slot = NULL;
	t->mask = t->count = t->id_end = 0;
}

size_t ck_idtab_memory(const struct ck_idtab *t)
{
	return t->slot ? ((size_t)t->mask + 1) * sizeof(*t->slot) : 0;
}

/* ---- keys: where each record starts its probe */

static uint64_t dir_key(uint32_t dev, uint64_t ino)
{
	return ck_mix64(ino ^ ((uint64_t)dev * K1));
}

static uint64_t name_key(const uint8_t *p, size_t n, uint32_t dir, int wc)
{
	return ck_hash_bytes(p, n) ^ ck_mix64(((uint64_t)dir << 2 | (uint64_t)wc) + K1);
}

static uint64_t cookie_key(uint64_t cookie, uint32_t dir, int wc)
{
	return ck_mix64(cookie ^ ck_mix64(((uint64_t)dir << 2 | (uint64_t)wc) + K2));
}

static int dir_key_of(const void *ctx, uint32_t id, uint64_t *key)
{
	const struct ck_groups *g = ctx;

	*key = dir_key(g->dirs[id].dev, g->dirs[id].ino);
	return 1;
}

static int name_key_of(const void *ctx, uint32_t id, uint64_t *key)
{
	const struct ck_groups *g = ctx;
	const struct ck_name *n = &g->names[id];

	*key = name_key(ck_name_bytes(g, n), n->name_len, n->dir, n->wclass);
	return 1;
}

/* Only the first name of a cookie is in the cookie table. */
static int cookie_key_of(const void *ctx, uint32_t id, uint64_t *key)
{
	const struct ck_groups *g = ctx;
	const struct ck_name *n = &g->names[id];

	if (n->group && g->groups[n->group - 1].first != id)
		return 0;
	*key = cookie_key(n->cookie, n->dir, n->wclass);
	return 1;
}

/* ---- the grouping rule */

int ck_groups_init(struct ck_groups *g, uint32_t max_names, uint32_t max_dirs)
{
	memset(g, 0, sizeof(*g));
	g->max_names = max_names ? max_names : UINT32_MAX - 1;
	g->max_dirs = max_dirs ? max_dirs : UINT32_MAX - 1;
	if (ck_idtab_init(&g->name_tab, 1024) || ck_idtab_init(&g->cookie_tab, 1024) ||
	    ck_idtab_init(&g->dir_tab, 256)) {
		ck_groups_free(g);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void ck_groups_free(struct ck_groups *g)
{
	free(g->names);
	free(g->arena);
	free(g->groups);
	free(g->dirs);
	ck_idtab_free(&g->name_tab);
	ck_idtab_free(&g->cookie_tab);
	ck_idtab_free(&g->dir_tab);
	g->names = NULL;
	g->arena = NULL;
	g->groups = NULL;
	g->dirs = NULL;
	g->nnames = g->ngroups = g->ndirs = 0;
}

size_t ck_groups_memory(const struct ck_groups *g)
{
	return (size_t)g->names_cap * sizeof(*g->names) + g->arena_cap +
	       (size_t)g->groups_cap * sizeof(*g->groups) + (size_t)g->dirs_cap * sizeof(*g->dirs) +
	       ck_idtab_memory(&g->name_tab) + ck_idtab_memory(&g->cookie_tab) +
	       ck_idtab_memory(&g->dir_tab);
}

/* Room for one more element of an array that doubles; 0, or -1 (no memory, or past cap). */
static int room_for_one(void *arrayp, uint32_t n, uint32_t *cap, uint32_t first_cap,
			uint32_t max, size_t size)
{
	void **array = arrayp;

	if (n < *cap)
		return 0;
	if (n >= max)
		return -1;
	uint64_t ncap = *cap ? (uint64_t)*cap * 2 : first_cap;
	if (ncap > max)
		ncap = max;
	void *na = realloc(*array, ncap * size);
	if (!na)
		return -1;
	*array = na;
	*cap = ncap;
	return 0;
}

int64_t ck_groups_dir(struct ck_groups *g, uint32_t dev, uint64_t ino)
{
	uint32_t *s;

	/* Readers read one directory at a time: most events are the last one's. */
	if (g->ndirs && g->dirs[g->last_dir].ino == ino && g->dirs[g->last_dir].dev == dev)
		return g->last_dir;
	for (s = ck_idtab_first(&g->dir_tab, dir_key(dev, ino)); *s; s = ck_idtab_next(&g->dir_tab, s)) {
		const struct ck_dir_id *d = &g->dirs[*s - 1];
		if (d->ino == ino && d->dev == dev)
			return g->last_dir = *s - 1;
	}
	if (g->ndirs >= g->max_dirs || ck_idtab_full(&g->dir_tab) ||
	    room_for_one(&g->dirs, g->ndirs, &g->dirs_cap, 16, g->max_dirs, sizeof(*g->dirs)))
		return -1;
	g->dirs[g->ndirs] = (struct ck_dir_id){ .dev = dev, .ino = ino };
	ck_idtab_put(&g->dir_tab, s, g->ndirs, dir_key_of, g);
	return g->last_dir = g->ndirs++;
}

enum ck_added ck_groups_add(struct ck_groups *g, uint32_t dir, uint64_t cookie, uint32_t major,
			    uint32_t minor, const uint8_t *name, size_t name_len, uint64_t seq,
			    double now, int64_t *name_idx)
{
	int wc = ck_cookie_wclass(cookie);
	uint32_t *s, *cs;

	*name_idx = -1;
	if (name_len > UINT8_MAX)
		return CK_ADD_UNTRACKED;
	for (s = ck_idtab_first(&g->name_tab, name_key(name, name_len, dir, wc)); *s;
	     s = ck_idtab_next(&g->name_tab, s)) {
		const struct ck_name *n = &g->names[*s - 1];
		if (n->name_len == name_len && n->dir == dir && n->wclass == wc &&
		    !memcmp(ck_name_bytes(g, n), name, name_len)) {
			if (n->group)
				g->groups[n->group - 1].seen_seq = seq;
			*name_idx = *s - 1;
			return CK_ADD_SEEN;
		}
	}
	for (cs = ck_idtab_first(&g->cookie_tab, cookie_key(cookie, dir, wc)); *cs;
	     cs = ck_idtab_next(&g->cookie_tab, cs)) {
		const struct ck_name *o = &g->names[*cs - 1];
		if (o->cookie == cookie && o->dir == dir && o->wclass == wc)
			break;
	}
	/* All room first, so that a name is either kept whole or not at all. */
	if (ck_idtab_full(&g->name_tab) || (!*cs && ck_idtab_full(&g->cookie_tab)) ||
	    room_for_one(&g->names, g->nnames, &g->names_cap, 1024, g->max_names, sizeof(*g->names)) ||
	    (*cs && room_for_one(&g->groups, g->ngroups, &g->groups_cap, 64, UINT32_MAX,
				 sizeof(*g->groups))))
		return CK_ADD_UNTRACKED;
	/*
	 * Allocated for the first name even if it is empty: ck_name_bytes()
	 * is then never NULL + offset, nor memcpy/memcmp given NULL (UB).
	 */
	if (!g->arena || g->arena_len + name_len > g->arena_cap) {
		size_t ncap = g->arena_cap ? g->arena_cap * 2 : 16384;
		uint8_t *na;
		if (ncap > UINT32_MAX || !(na = realloc(g->arena, ncap)))
			return CK_ADD_UNTRACKED;
		g->arena = na;
		g->arena_cap = ncap;
	}

	uint32_t idx = g->nnames++;
	struct ck_name *n = &g->names[idx];
	*n = (struct ck_name){ .cookie = cookie, .major = major, .minor = minor, .dir = dir,
			       .name_off = g->arena_len, .name_len = name_len, .wclass = wc };
	memcpy(g->arena + g->arena_len, name, name_len);
	g->arena_len += name_len;
	*name_idx = idx;

	if (!*cs) {
		ck_idtab_put(&g->cookie_tab, cs, idx, cookie_key_of, g);
		ck_idtab_put(&g->name_tab, s, idx, name_key_of, g);
		return CK_ADD_COOKIE;
	}
	struct ck_name *f = &g->names[*cs - 1];
	if (!f->group) {
		struct ck_group *gr = &g->groups[g->ngroups];
		*gr = (struct ck_group){ .cookie = cookie, .dir = dir, .first = *cs - 1,
					 .last = *cs - 1, .members = 1, .wclass = wc,
					 .created_seq = seq };
		f->group = ++g->ngroups;
	}
	struct ck_group *gr = &g->groups[f->group - 1];
	gr->members++;
	gr->updated_seq = gr->seen_seq = seq;
	gr->updated_at = now;
	n->group = f->group;
	g->names[gr->last].next = idx + 1;
	gr->last = idx;
	ck_idtab_put(&g->name_tab, s, idx, name_key_of, g);
	return CK_ADD_GROUP;
}
