/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kit's one collision core: one hash table and one grouping rule.
 *
 * ck_idtab — a table of ids (the caller's array indices) found by a 64-bit
 *   key: open addressing, linear probing, power-of-two slots kept at most
 *   half full, doubling as it fills.  A slot is 4 bytes (id + 1, 0 empty),
 *   so the records stay in the caller's array, and the caller says what
 *   "equal" means: the key only says where to start looking, so keys that
 *   are hashes of longer things (names, (dev, inode) pairs) work as well as
 *   exact ones.  Growing asks the caller for each stored id's key again.
 *
 * ck_groups — which names share a cookie.  Per directory and cookie width
 *   class: each distinct name is kept once (the first cookie it came with;
 *   a name read again in a later pass is nothing new); two or more names
 *   with one cookie are a collision group, its members in arrival order; a
 *   group of k names is C(k,2) colliding pairs.  cookie-top's model and
 *   cookie-groups both count with this, so they agree on every stream.
 *
 * The width class is what the recorded cookie is, not what the reader's
 * flags ask: a 'before' kernel gives every reader 31 bits, and a cookie
 * above 0x7fffffff can only be a 63-bit one.
 */
#ifndef CK_COLLIDE_H
#define CK_COLLIDE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* ---- the table */

struct ck_idtab {
	uint32_t *slot;  /* id + 1; 0 = empty */
	uint32_t mask;   /* number of slots - 1 */
	uint32_t count;  /* ids stored */
	uint32_t id_end; /* largest id stored + 1 */
};

/*
 * What growing needs: whether id is in this table (1) or not (0), and its
 * key.  Growing asks for every id from 0 to the largest stored, in order,
 * so the caller's records are read front to back, not in slot order (a
 * cache miss each).
 */
typedef int ck_idtab_key_fn(const void *ctx, uint32_t id, uint64_t *key);

/* At least min_slots slots (rounded up to a power of two).  0, or -1 (ENOMEM). */
int ck_idtab_init(struct ck_idtab *t, uint32_t min_slots);
void ck_idtab_free(struct ck_idtab *t);

/*
 * The probe loop, written out by the caller so the comparison inlines:
 *
 *	uint32_t *s;
 *	for (s = ck_idtab_first(t, key); *s; s = ck_idtab_next(t, s))
 *		if (same(records[*s - 1]))
 *			return *s - 1;
 *	ck_idtab_put(t, s, new_id, key_of, ctx);
 *
 * The loop ends on a match or on the empty slot where the key belongs.
 */
static inline uint32_t *ck_idtab_first(const struct ck_idtab *t, uint64_t key)
{
	return &t->slot[key & t->mask];
}

static inline uint32_t *ck_idtab_next(const struct ck_idtab *t, uint32_t *s)
{
	return s == &t->slot[t->mask] ? t->slot : s + 1;
}

/* Whether a put would be refused (to check before a change of several steps). */
static inline int ck_idtab_full(const struct ck_idtab *t)
{
	return (uint64_t)t->count + 2 > (uint64_t)t->mask + 1;
}

/* Slots are uint32_t, indexed by a uint32_t mask: doubling stops here. */
#define CK_IDTAB_MAX_MASK ((1u << 31) - 1)

/*
 * Growing and putting are inline so that key_of (a constant at each call
 * site) inlines too: growing is most of a put's cost in tables that only
 * grow (cookie-collide's 31-bit search, a first pass over a directory).
 */
static inline void ck_idtab_grow(struct ck_idtab *t, ck_idtab_key_fn *key_of, const void *ctx)
{
	uint32_t mask = t->mask * 2 + 1;
	uint32_t *slot = (uint32_t *)calloc((size_t)mask + 1, sizeof(*slot));
	uint64_t key;

	if (!slot)
		return; /* no memory: the table works on, fuller */
	for (uint32_t id = 0; id < t->id_end; id++) {
		if (!key_of(ctx, id, &key))
			continue;
		uint32_t j = key & mask;
		while (slot[j])
			j = (j + 1) & mask;
		slot[j] = id + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->mask = mask;
}

/*
 * Store id in the empty slot a probe ended on (no other change to the table
 * in between), then double the table if it is more than half full.  0, or
 * -1 if the table is full (growing found no memory, and one slot must stay
 * empty to end every probe): id is not stored.
 */
static inline int ck_idtab_put(struct ck_idtab *t, uint32_t *slot, uint32_t id,
			       ck_idtab_key_fn *key_of, const void *ctx)
{
	if (ck_idtab_full(t))
		return -1; /* the last empty slot ends every probe */
	*slot = id + 1;
	t->count++;
	if (id >= t->id_end)
		t->id_end = id + 1;
	if ((uint64_t)t->count * 2 > (uint64_t)t->mask + 1 && t->mask < CK_IDTAB_MAX_MASK)
		ck_idtab_grow(t, key_of, ctx);
	return 0;
}

/* Bytes the slots take. */
size_t ck_idtab_memory(const struct ck_idtab *t);

/* A strong 64-bit mixer (MurmurHash3's finalizer) and a fast name hash. */
uint64_t ck_mix64(uint64_t x);
uint64_t ck_hash_bytes(const void *p, size_t n);

/* ---- the grouping rule */

/* Cookie width classes: what the recorded cookie is. */
enum ck_wclass { CK_W31 = 0, CK_W63 = 1, CK_NW = 2 };

static inline int ck_cookie_wclass(uint64_t cookie)
{
	return cookie > 0x7fffffffULL ? CK_W63 : CK_W31;
}

static inline int ck_wclass_bits(int wclass)
{
	return wclass == CK_W63 ? 63 : 31;
}

/* One distinct name in one directory and width class. */
struct ck_name {
	uint64_t cookie;
	uint32_t major, minor;
	uint32_t dir;        /* the directory's index (ck_groups_dir) */
	uint32_t name_off;   /* into the arena */
	uint32_t next;       /* next member of the same collision group, index+1; 0 = end */
	uint32_t group;      /* collision group index+1; 0 = none */
	uint8_t name_len;
	uint8_t wclass;
	uint16_t pad;
};

/* Two or more names with one cookie. */
struct ck_group {
	uint64_t cookie;
	uint32_t dir;
	uint32_t first, last; /* members' name indices, in arrival order */
	uint32_t members;
	uint8_t wclass;
	/* the caller's sequence numbers (ck_groups_add's seq): made, grew, a member read */
	uint64_t created_seq, updated_seq, seen_seq;
	double updated_at;    /* the caller's clock when it grew (ck_groups_add's now) */
};

struct ck_dir_id {
	uint32_t dev;
	uint64_t ino;
};

struct ck_groups {
	struct ck_name *names;
	uint32_t nnames, names_cap, max_names;
	uint8_t *arena;
	size_t arena_len, arena_cap;
	struct ck_idtab name_tab;   /* (dir, width class, name bytes) -> name */
	struct ck_idtab cookie_tab; /* (dir, width class, cookie) -> its first name */

	struct ck_group *groups;
	uint32_t ngroups, groups_cap;

	struct ck_dir_id *dirs;
	uint32_t ndirs, dirs_cap, max_dirs;
	uint32_t last_dir;          /* the one ck_groups_dir found last */
	struct ck_idtab dir_tab;
};

/* max_names / max_dirs: caps on what is tracked (0: no cap but memory). */
int ck_groups_init(struct ck_groups *g, uint32_t max_names, uint32_t max_dirs);
void ck_groups_free(struct ck_groups *g);

/* The directory's index, made on first sight (then == ndirs - 1); -1 past max_dirs or memory. */
int64_t ck_groups_dir(struct ck_groups *g, uint32_t dev, uint64_t ino);

enum ck_added {
	CK_ADD_UNTRACKED, /* a new name past max_names (or no memory): not kept */
	CK_ADD_SEEN,      /* the name was known: nothing new (its group's seen_seq moves) */
	CK_ADD_COOKIE,    /* a new name, the first with its cookie */
	CK_ADD_GROUP,     /* a new name with a known cookie: a group formed (2 members) or grew */
};

/*
 * Take one name the directory handed out.  *name_idx gets the name's index
 * (-1 if untracked).  seq and now stamp the group (ck_group).
 */
enum ck_added ck_groups_add(struct ck_groups *g, uint32_t dir, uint64_t cookie, uint32_t major,
			    uint32_t minor, const uint8_t *name, size_t name_len, uint64_t seq,
			    double now, int64_t *name_idx);

static inline const uint8_t *ck_name_bytes(const struct ck_groups *g, const struct ck_name *n)
{
	return g->arena + n->name_off;
}

/* Colliding pairs of a group of k: each new member pairs with every one before. */
static inline uint64_t ck_pairs(uint64_t members)
{
	return members < 2 ? 0 : members * (members - 1) / 2;
}

/* Bytes held (what a memory statement counts). */
size_t ck_groups_memory(const struct ck_groups *g);

#endif
