// SPDX-License-Identifier: GPL-2.0
/*
 * collide-check: the collision core (lib/collide.h) on its own.
 *   - the id table: every id found again through growing, with all keys
 *     equal (one long probe run), across the wrap from the last slot to the
 *     first, ids a table leaves out when it grows, the one slot kept empty;
 *   - the grouping rule: a group forms, grows, keeps arrival order; a name
 *     read again is nothing new; directories and width classes apart;
 *     names with any bytes; the name and directory caps;
 *   - 2*10^5 random names against a count by sorting (cookie-top and
 *     cookie-groups count with this rule, birthday by sorting).
 * Run by tests/unit/test-collide-core, natively and under ASan+UBSan.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckcheck.h"
#include "ckutil.h"
#include "collide.h"

/* ---- the table, over an array of keys; key_mask makes keys collide on purpose */

struct keys {
	uint64_t *key;
	uint64_t key_mask;
	int skip_odd;      /* ids with odd numbers are not in the table */
};

static int keys_key_of(const void *ctx, uint32_t id, uint64_t *key)
{
	const struct keys *k = ctx;

	if (k->skip_odd && (id & 1))
		return 0;
	*key = k->key[id] & k->key_mask;
	return 1;
}

/* The id with this key, or -1; *end gets the slot the probe ended on. */
static int64_t find(const struct ck_idtab *t, const struct keys *k, uint64_t key, uint32_t **end)
{
	uint32_t *s;

	for (s = ck_idtab_first(t, key & k->key_mask); *s; s = ck_idtab_next(t, s))
		if (k->key[*s - 1] == key)
			return *s - 1;
	*end = s;
	return -1;
}

static void check_table_run(const char *what, uint32_t n, uint64_t key_mask, int skip_odd)
{
	struct keys k = { .key = malloc(n * sizeof(uint64_t)), .key_mask = key_mask,
			  .skip_odd = skip_odd };
	struct ck_idtab t;
	uint64_t state = 42;
	unsigned long before = failures;
	uint32_t stored = 0, *s;

	CHECK(k.key && ck_idtab_init(&t, 16) == 0, "%s: init", what);
	for (uint32_t i = 0; i < n; i++)
		k.key[i] = ck_splitmix64(&state);
	for (uint32_t i = 0; i < n; i++) {
		if (skip_odd && (i & 1))
			continue;
		CHECK(find(&t, &k, k.key[i], &s) == -1, "%s: id %u not there before its put", what, i);
		CHECK(ck_idtab_put(&t, s, i, keys_key_of, &k) == 0, "%s: put %u", what, i);
		stored++;
		CHECK(t.count == stored && (uint64_t)t.count * 2 <= (uint64_t)t.mask + 1,
		      "%s: %u stored, table at most half full (%u slots)", what, t.count, t.mask + 1);
	}
	for (uint32_t i = 0; i < n; i++) {
		int64_t got = find(&t, &k, k.key[i], &s);
		CHECK(got == (skip_odd && (i & 1) ? -1 : (int64_t)i), "%s: id %u found as %" PRId64,
		      what, i, got);
	}
	printf("table: %s, %u ids, %u slots: %s\n", what, n, t.mask + 1,
	       failures == before ? "ok" : "FAILED");
	ck_idtab_free(&t);
	free(k.key);
}

static void check_table(void)
{
	struct keys k = { .key = (uint64_t[]){ 15, 15 | 1ULL << 40, 31 }, .key_mask = ~0ULL };
	struct ck_idtab t;
	uint32_t *s;

	check_table_run("random keys", 100000, ~0ULL, 0);
	check_table_run("all keys equal", 3000, 0, 0);
	check_table_run("odd ids left out when growing", 20000, ~0ULL, 1);

	/* The last slot's neighbour is the first. */
	CHECK(ck_idtab_init(&t, 16) == 0 && t.mask == 15, "16 slots");
	for (uint32_t i = 0; i < 3; i++) {
		CHECK(find(&t, &k, k.key[i], &s) == -1, "wrap: %u not there", i);
		ck_idtab_put(&t, s, i, keys_key_of, &k);
	}
	CHECK(t.slot[15] == 1 && t.slot[0] == 2 && t.slot[1] == 3,
	      "wrap: keys of slot 15 go on at slots 0 and 1 (%u %u %u)", t.slot[15], t.slot[0], t.slot[1]);
	for (uint32_t i = 0; i < 3; i++)
		CHECK(find(&t, &k, k.key[i], &s) == (int64_t)i, "wrap: %u found", i);

	/* One slot always stays empty (it ends every probe): 15 of 16 is full. */
	t.count = 14;
	CHECK(!ck_idtab_full(&t), "14 of 16: a put is taken");
	t.count = 15;
	CHECK(ck_idtab_full(&t), "15 of 16 (growing must have failed): full");
	CHECK(find(&t, &k, 47, &s) == -1 && ck_idtab_put(&t, s, 3, keys_key_of, &k) == -1 &&
	      t.count == 15 && !*s,
	      "a put into a full table is refused and stores nothing");
	ck_idtab_free(&t);
	printf("table: wrap-around, the empty slot: %s\n", failures ? "FAILED" : "ok");
}

/* ---- the grouping rule */

static const char *member(const struct ck_groups *g, const struct ck_group *gr, int k)
{
	static char buf[300];
	uint32_t i = gr->first + 1;

	while (k-- > 0 && i)
		i = g->names[i - 1].next;
	if (!i)
		return "(none)";
	const struct ck_name *n = &g->names[i - 1];
	memcpy(buf, ck_name_bytes(g, n), n->name_len);
	buf[n->name_len] = 0;
	return buf;
}

static enum ck_added add(struct ck_groups *g, uint32_t dir, uint64_t cookie, const char *name,
			 uint64_t seq, int64_t *idx)
{
	return ck_groups_add(g, dir, cookie, 0xa0000000u | seq, 0x0b000000u | seq,
			     (const uint8_t *)name, strlen(name), seq, seq / 10.0, idx);
}

static void check_groups(void)
{
	struct ck_groups g;
	int64_t i, da, db;
	unsigned long before = failures;

	CHECK(ck_groups_init(&g, 0, 0) == 0, "init");
	da = ck_groups_dir(&g, 8 << 20 | 16, 12);
	db = ck_groups_dir(&g, 8 << 20 | 16, 13);
	CHECK(da == 0 && db == 1 && g.ndirs == 2, "two directories: 0 and 1");
	CHECK(ck_groups_dir(&g, 8 << 20 | 16, 12) == 0 && ck_groups_dir(&g, 8 << 20 | 17, 12) == 2,
	      "same inode on another device: another directory");
	CHECK(ck_groups_dir(&g, 8 << 20 | 16, 13) == 1 && ck_groups_dir(&g, 8 << 20 | 16, 12) == 0,
	      "found again, in any order");

	CHECK(add(&g, 0, 0x580fd48, "c31-elzuy7b4", 1, &i) == CK_ADD_COOKIE && i == 0, "first name: a cookie");
	CHECK(add(&g, 0, 0x1111, "other", 2, &i) == CK_ADD_COOKIE && i == 1, "another cookie");
	CHECK(add(&g, 0, 0x580fd48, "c31-56lp5zzj", 3, &i) == CK_ADD_GROUP && i == 2 && g.ngroups == 1,
	      "second name with the cookie: a group");
	const struct ck_group *gr = &g.groups[0];
	CHECK(gr->members == 2 && gr->cookie == 0x580fd48 && gr->dir == 0 && gr->wclass == CK_W31 &&
	      gr->created_seq == 3 && gr->updated_seq == 3 && gr->updated_at == 0.3,
	      "group: 2 members, cookie, dir, 31-bit, stamps");
	CHECK(g.names[0].group == 1 && g.names[2].group == 1 && g.names[1].group == 0,
	      "members point at the group, the other name at none");
	CHECK(add(&g, 0, 0x580fd48, "c31-third", 4, &i) == CK_ADD_GROUP && i == 3 && g.ngroups == 1 &&
	      g.groups[0].members == 3 && ck_pairs(g.groups[0].members) == 3,
	      "third name: the group grows, 3 pairs");
	CHECK(!strcmp(member(&g, &g.groups[0], 0), "c31-elzuy7b4") &&
	      !strcmp(member(&g, &g.groups[0], 1), "c31-56lp5zzj") &&
	      !strcmp(member(&g, &g.groups[0], 2), "c31-third") &&
	      !strcmp(member(&g, &g.groups[0], 3), "(none)"), "members in arrival order");
	CHECK(g.names[g.groups[0].first].major == 0xa0000001u && g.names[2].minor == 0x0b000003u,
	      "members keep their own major and minor");

	CHECK(add(&g, 0, 0x580fd48, "c31-56lp5zzj", 9, &i) == CK_ADD_SEEN && i == 2 &&
	      g.groups[0].members == 3 && g.groups[0].seen_seq == 9 && g.groups[0].updated_seq == 4,
	      "a name read again: nothing new, the group was seen");
	CHECK(add(&g, 0, 0x2222, "c31-third", 10, &i) == CK_ADD_SEEN && i == 3,
	      "a known name keeps its first cookie");
	CHECK(add(&g, 1, 0x580fd48, "c31-elzuy7b4", 11, &i) == CK_ADD_COOKIE && g.ngroups == 1,
	      "the same name and cookie in another directory: apart");
	CHECK(add(&g, 0, 0x580fd48ULL << 32 | 7, "c31-elzuy7b4", 12, &i) == CK_ADD_COOKIE &&
	      g.names[i].wclass == CK_W63, "the same name as a 63-bit cookie: its own width class");
	CHECK(add(&g, 0, 0x580fd48ULL << 32 | 7, "w63-b", 13, &i) == CK_ADD_GROUP &&
	      g.ngroups == 2 && g.groups[1].wclass == CK_W63, "a 63-bit group");
	CHECK(add(&g, 0, 0x7fffffff, "top31", 14, &i) == CK_ADD_COOKIE && g.names[i].wclass == CK_W31 &&
	      add(&g, 0, 0x80000000, "low63", 15, &i) == CK_ADD_COOKIE && g.names[i].wclass == CK_W63,
	      "0x7fffffff is 31-bit, 0x80000000 63-bit");
	CHECK(ck_wclass_bits(CK_W31) == 31 && ck_wclass_bits(CK_W63) == 63, "width classes are 31 and 63 bits");

	/* Names are bytes: NUL, 0xff, the longest, the empty one. */
	uint8_t odd[255];
	memset(odd, 0xff, sizeof(odd));
	odd[3] = 0;
	CHECK(ck_groups_add(&g, 2, 0x3333, 0, 0, odd, 255, 16, 0, &i) == CK_ADD_COOKIE &&
	      g.names[i].name_len == 255 && !memcmp(ck_name_bytes(&g, &g.names[i]), odd, 255),
	      "255 bytes with a NUL: kept whole");
	CHECK(ck_groups_add(&g, 2, 0x3333, 0, 0, odd, 4, 17, 0, &i) == CK_ADD_GROUP,
	      "its first 4 bytes are another name");
	CHECK(ck_groups_add(&g, 2, 0x3333, 0, 0, odd, 255, 18, 0, &i) == CK_ADD_SEEN, "and the long one is found again");
	CHECK(ck_groups_add(&g, 2, 0x4444, 0, 0, odd, 0, 19, 0, &i) == CK_ADD_COOKIE &&
	      ck_groups_add(&g, 2, 0x4444, 0, 0, odd, 0, 20, 0, &i) == CK_ADD_SEEN, "the empty name");
	CHECK(ck_groups_add(&g, 2, 0x4444, 0, 0, odd, 256, 21, 0, &i) == CK_ADD_UNTRACKED && i == -1,
	      "a name over 255 bytes is not kept");
	ck_groups_free(&g);

	/* Caps: names past max_names and directories past max_dirs are not kept. */
	CHECK(ck_groups_init(&g, 3, 2) == 0, "init with caps");
	CHECK(ck_groups_dir(&g, 1, 1) == 0 && ck_groups_dir(&g, 1, 2) == 1 && ck_groups_dir(&g, 1, 3) == -1 &&
	      ck_groups_dir(&g, 1, 2) == 1, "third directory past a cap of 2: -1; the others still found");
	for (int k = 0; k < 5; k++) {
		char nm[8];
		snprintf(nm, sizeof(nm), "n%d", k);
		enum ck_added a = add(&g, 0, 0x10, nm, k, &i);
		CHECK(k < 3 ? (a == (k ? CK_ADD_GROUP : CK_ADD_COOKIE) && i == k) :
			      (a == CK_ADD_UNTRACKED && i == -1), "cap 3: name %d", k);
	}
	CHECK(g.nnames == 3 && g.groups[0].members == 3 && add(&g, 0, 0x10, "n1", 9, &i) == CK_ADD_SEEN,
	      "cap 3: 3 kept, a kept one still found");
	CHECK(ck_groups_memory(&g) > 0, "memory counted");
	ck_groups_free(&g);
	printf("groups: form, grow, order, seen, directories, widths, bytes, caps: %s\n",
	       failures == before ? "ok" : "FAILED");
}

/* ---- against a count by sorting */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void check_against_sorting(void)
{
	enum { N = 200000, DIRS = 3 };
	struct ck_groups g;
	struct ck_rng rng;
	uint64_t *keys = malloc(N * sizeof(*keys));
	uint64_t pairs = 0, ngroups = 0, ncookies = 0, cookies_core = 0;
	uint64_t want_pairs = 0, want_groups = 0, want_cookies = 0;
	unsigned long before = failures;
	uint32_t nkeys = 0;
	int64_t i;

	CHECK(keys && ck_groups_init(&g, 0, 0) == 0, "init");
	for (uint32_t d = 0; d < DIRS; d++)
		CHECK(ck_groups_dir(&g, 8 << 20, 100 + d) == d, "directory %u", d);
	ck_rng_seed(&rng, 7);
	for (uint32_t k = 0, dir = 0; k < N; k++) {
		char nm[24];
		/* each name twice in a row, the second time with another cookie */
		uint32_t j = k / 2;
		int len = snprintf(nm, sizeof(nm), "f%" PRIu32, j);
		/* 2^16 cookies per directory and width: groups of 2, 3 and more */
		uint64_t c = ck_rng_below(&rng, 1 << 16);
		if (j & 1)
			c = (c + 1) << 32 | 0x5a5a; /* a 63-bit cookie (major>>1 0 would be 31-bit) */
		if (!(k & 1))
			dir = (uint32_t)ck_rng_below(&rng, DIRS);
		CHECK(ck_groups_dir(&g, 8 << 20, 100 + dir) == dir, "directory %u", dir);
		enum ck_added a = ck_groups_add(&g, dir, c, 0, 0, (const uint8_t *)nm, len, k, 0, &i);
		CHECK((k & 1) == (a == CK_ADD_SEEN), "name %u read %s", j, k & 1 ? "again" : "first");
		if (a == CK_ADD_SEEN)
			continue;
		keys[nkeys++] = (uint64_t)dir << 62 | (uint64_t)ck_cookie_wclass(c) << 61 | c;
		if (a == CK_ADD_COOKIE)
			cookies_core++;
		if (a == CK_ADD_GROUP) {
			const struct ck_group *gr = &g.groups[g.names[i].group - 1];
			pairs += gr->members - 1;
			ngroups += gr->members == 2;
		}
	}
	ncookies = g.cookie_tab.count;
	qsort(keys, nkeys, sizeof(*keys), cmp_u64);
	for (uint32_t k = 1, run = 1; k <= nkeys; k++) {
		if (k < nkeys && keys[k] == keys[k - 1]) {
			run++;
			continue;
		}
		want_cookies++;
		want_pairs += ck_pairs(run);
		want_groups += run >= 2;
		run = 1;
	}
	CHECK(g.nnames == N / 2 && nkeys == N / 2, "names kept: %u of %u", g.nnames, N / 2);
	CHECK(ncookies == want_cookies && cookies_core == want_cookies,
	      "distinct cookies %" PRIu64 " (table %" PRIu64 "), by sorting %" PRIu64,
	      cookies_core, ncookies, want_cookies);
	CHECK(ngroups == want_groups && g.ngroups == want_groups, "groups %" PRIu64 ", by sorting %" PRIu64,
	      ngroups, want_groups);
	CHECK(pairs == want_pairs && want_pairs > 1000, "pairs %" PRIu64 ", by sorting %" PRIu64,
	      pairs, want_pairs);
	uint64_t members = 0;
	for (uint32_t k = 0; k < g.ngroups; k++) {
		uint32_t len = 0;
		for (uint32_t m = g.groups[k].first + 1; m; m = g.names[m - 1].next, len++)
			CHECK(g.names[m - 1].group == k + 1 && g.names[m - 1].cookie == g.groups[k].cookie,
			      "group %u: member %u belongs", k, m - 1);
		CHECK(len == g.groups[k].members, "group %u: list of %u, members %u", k, len,
		      g.groups[k].members);
		members += len;
	}
	printf("groups: %u names, %u groups of %" PRIu64 " members, %" PRIu64 " pairs, as by sorting: %s\n",
	       g.nnames, g.ngroups, members, pairs, failures == before ? "ok" : "FAILED");
	ck_groups_free(&g);
	free(keys);
}

int main(void)
{
	check_table();
	check_groups();
	check_against_sorting();
	printf("%lu checks, %lu failed\n", checks, failures);
	return failures ? 1 : 0;
}
