// SPDX-License-Identifier: GPL-2.0
/* cookie-top model: see model.h for what it keeps and what it costs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"

#define K1 0x9e3779b97f4a7c15ULL
#define K2 0xc2b2ae3d27d4eb4fULL

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* Word-at-a-time hash of a name: names are short, this is the ingest hot path. */
static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
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
	return mix64(h);
}

static uint64_t name_key(const uint8_t *p, size_t n, uint32_t dir, int wc)
{
	return hash_bytes(p, n) ^ mix64(((uint64_t)dir << 2 | (uint64_t)wc) + K1);
}

static uint64_t cookie_key(uint64_t cookie, uint32_t dir, int wc)
{
	return mix64(cookie ^ mix64(((uint64_t)dir << 2 | (uint64_t)wc) + K2));
}

static uint64_t dir_key(uint32_t dev, uint64_t ino)
{
	return mix64(ino ^ ((uint64_t)dev * K1));
}

int tm_wclass_bits(int wclass)
{
	return wclass == TM_W63 ? 63 : 31;
}

double tm_birthday_pairs(uint64_t n, int bits)
{
	double dn = (double)n;
	return n < 2 ? 0.0 : dn * (dn - 1.0) / 2.0 / ldexp(1.0, bits);
}

double tm_birthday_p(uint64_t n, int bits)
{
	return -expm1(-tm_birthday_pairs(n, bits));
}

void tm_reasons_text(uint32_t r, char *buf, size_t size)
{
	static const struct { uint32_t bit; const char *text; } words[] = {
		{ TM_R_NFSD, "nfsd" },
		{ TM_R_FMODE32, "FMODE_32BITHASH" },
		{ TM_R_FMODE64, "FMODE_64BITHASH" },
		{ TM_R_COMPAT, "compat task" },
		{ TM_R_NATIVE, "64-bit task" },
		{ TM_R_PRE34, "pre-3.4 kernel: 31 bits for all" },
	};
	size_t used = 0;

	if (!size)
		return;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!(r & words[i].bit))
			continue;
		int k = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", words[i].text);
		if (k < 0 || (size_t)k >= size - used)
			break;
		used += k;
	}
	if (!used)
		snprintf(buf, size, "-");
}

int tm_init(struct tm_model *m, uint32_t max_names, uint32_t max_dirs)
{
	memset(m, 0, sizeof(*m));
	m->max_names = max_names ? max_names : TM_NAMES_DEFAULT;
	m->max_dirs = max_dirs ? max_dirs : TM_DIRS_DEFAULT;
	m->tab_mask = 1023;
	m->name_tab = calloc(m->tab_mask + 1, sizeof(uint32_t));
	m->cookie_tab = calloc(m->tab_mask + 1, sizeof(uint32_t));
	m->dir_mask = 255;
	m->dir_tab = calloc(m->dir_mask + 1, sizeof(uint32_t));
	if (!m->name_tab || !m->cookie_tab || !m->dir_tab) {
		tm_free(m);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void tm_free(struct tm_model *m)
{
	free(m->names);
	free(m->name_tab);
	free(m->cookie_tab);
	free(m->arena);
	free(m->groups);
	free(m->dirs);
	free(m->dir_tab);
	m->names = NULL;
	m->name_tab = m->cookie_tab = m->dir_tab = NULL;
	m->arena = NULL;
	m->groups = NULL;
	m->dirs = NULL;
}

size_t tm_memory(const struct tm_model *m)
{
	return (size_t)m->names_cap * sizeof(struct tm_name) + m->arena_cap +
	       2 * (size_t)(m->tab_mask + 1) * sizeof(uint32_t) +
	       (size_t)m->groups_cap * sizeof(struct tm_group) +
	       (size_t)m->dirs_cap * sizeof(struct tm_dir) +
	       (size_t)(m->dir_mask + 1) * sizeof(uint32_t) + sizeof(*m);
}

void tm_input_error(struct tm_model *m, uint64_t offset, const char *msg)
{
	m->errors++;
	snprintf(m->last_error, sizeof(m->last_error), "input offset %llu: %s",
		 (unsigned long long)offset, msg);
}

/* ---- directories */

static void dir_rehash(struct tm_model *m, uint32_t mask)
{
	uint32_t *tab = calloc((size_t)mask + 1, sizeof(uint32_t));

	if (!tab)
		return; /* keep the old, fuller table: still correct */
	for (uint32_t i = 0; i < m->ndirs; i++) {
		uint32_t s = dir_key(m->dirs[i].dev, m->dirs[i].ino) & mask;
		while (tab[s])
			s = (s + 1) & mask;
		tab[s] = i + 1;
	}
	free(m->dir_tab);
	m->dir_tab = tab;
	m->dir_mask = mask;
}

/* Index of the directory, created on first sight; -1 past max_dirs. */
static int64_t dir_get(struct tm_model *m, uint32_t dev, uint64_t ino)
{
	uint32_t s = dir_key(dev, ino) & m->dir_mask;

	for (; m->dir_tab[s]; s = (s + 1) & m->dir_mask) {
		struct tm_dir *d = &m->dirs[m->dir_tab[s] - 1];
		if (d->ino == ino && d->dev == dev)
			return m->dir_tab[s] - 1;
	}
	if (m->ndirs >= m->max_dirs)
		return -1;
	if (m->ndirs == m->dirs_cap) {
		uint32_t ncap = m->dirs_cap ? m->dirs_cap * 2 : 16;
		struct tm_dir *nd = realloc(m->dirs, ncap * sizeof(*nd));
		if (!nd)
			return -1;
		m->dirs = nd;
		m->dirs_cap = ncap;
	}
	struct tm_dir *d = &m->dirs[m->ndirs];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	d->ino = ino;
	m->dir_tab[s] = ++m->ndirs;
	if (m->ndirs * 2 > m->dir_mask + 1)
		dir_rehash(m, m->dir_mask * 2 + 1);
	return m->ndirs - 1;
}

/* ---- names and collisions */

static int tabs_grow(struct tm_model *m)
{
	uint32_t mask = m->tab_mask * 2 + 1;
	uint32_t *nt = calloc((size_t)mask + 1, sizeof(uint32_t));
	uint32_t *ct = calloc((size_t)mask + 1, sizeof(uint32_t));

	if (!nt || !ct) {
		free(nt);
		free(ct);
		return -1;
	}
	for (uint32_t i = 0; i < m->nnames; i++) {
		const struct tm_name *n = &m->names[i];
		uint32_t s = name_key(tm_name_bytes(m, n), n->name_len, n->dir, n->wclass) & mask;
		while (nt[s])
			s = (s + 1) & mask;
		nt[s] = i + 1;
		/* only the first name of a cookie is in the cookie table */
		if (n->group && m->groups[n->group - 1].first != i)
			continue;
		s = cookie_key(n->cookie, n->dir, n->wclass) & mask;
		while (ct[s])
			s = (s + 1) & mask;
		ct[s] = i + 1;
	}
	free(m->name_tab);
	free(m->cookie_tab);
	m->name_tab = nt;
	m->cookie_tab = ct;
	m->tab_mask = mask;
	return 0;
}

static int64_t group_new(struct tm_model *m, uint32_t first, const struct tm_name *n)
{
	if (m->ngroups == m->groups_cap) {
		uint32_t ncap = m->groups_cap ? m->groups_cap * 2 : 64;
		struct tm_group *ng = realloc(m->groups, ncap * sizeof(*ng));
		if (!ng)
			return -1;
		m->groups = ng;
		m->groups_cap = ncap;
	}
	struct tm_group *g = &m->groups[m->ngroups];
	memset(g, 0, sizeof(*g));
	g->cookie = n->cookie;
	g->dir = n->dir;
	g->first = first;
	g->members = 1;
	g->wclass = n->wclass;
	g->created_seq = m->records;
	return m->ngroups++;
}

/* Track a filldir's name; returns its index, or -1 (untracked). */
static int64_t name_track(struct tm_model *m, struct tm_dir *d, uint32_t dir,
			  const struct ck_rec *r, int wc, double now)
{
	uint64_t key = name_key(r->name, r->name_len, dir, wc);
	uint32_t s = key & m->tab_mask;

	for (; m->name_tab[s]; s = (s + 1) & m->tab_mask) {
		const struct tm_name *n = &m->names[m->name_tab[s] - 1];
		if (n->name_len == r->name_len && n->dir == dir && n->wclass == wc &&
		    !memcmp(tm_name_bytes(m, n), r->name, r->name_len)) {
			if (n->group)
				m->groups[n->group - 1].seen_seq = m->records;
			return m->name_tab[s] - 1;
		}
	}
	if (m->nnames >= m->max_names) {
		m->names_untracked++;
		return -1;
	}
	if (m->nnames == m->names_cap) {
		uint32_t ncap = m->names_cap ? m->names_cap * 2 : 1024;
		if (ncap > m->max_names)
			ncap = m->max_names;
		struct tm_name *nn = realloc(m->names, (size_t)ncap * sizeof(*nn));
		if (!nn) {
			m->names_untracked++;
			return -1;
		}
		m->names = nn;
		m->names_cap = ncap;
	}
	if (m->arena_len + r->name_len > m->arena_cap) {
		size_t ncap = m->arena_cap ? m->arena_cap * 2 : 16384;
		uint8_t *na;
		if (ncap > UINT32_MAX || !(na = realloc(m->arena, ncap))) {
			m->names_untracked++;
			return -1;
		}
		m->arena = na;
		m->arena_cap = ncap;
	}
	uint32_t idx = m->nnames;
	struct tm_name *n = &m->names[idx];
	memset(n, 0, sizeof(*n));
	n->cookie = r->cookie;
	n->major = r->major;
	n->minor = r->minor;
	n->dir = dir;
	n->name_off = m->arena_len;
	n->name_len = r->name_len;
	n->wclass = wc;
	memcpy(m->arena + m->arena_len, r->name, r->name_len);
	m->arena_len += r->name_len;
	m->name_tab[s] = idx + 1;
	m->nnames++;
	d->names[wc]++;

	uint32_t bucket = (uint32_t)((wc == TM_W63 ? r->cookie >> 32 : r->cookie) &
				     0x7fffffff) / (0x80000000u / TM_STRIP_BUCKETS);
	if (m->strip[wc][bucket] < UINT32_MAX)
		m->strip[wc][bucket]++;

	/* Same cookie, different name: a collision. */
	uint32_t cs = cookie_key(r->cookie, dir, wc) & m->tab_mask;
	for (; m->cookie_tab[cs]; cs = (cs + 1) & m->tab_mask) {
		const struct tm_name *o = &m->names[m->cookie_tab[cs] - 1];
		if (o->cookie == r->cookie && o->dir == dir && o->wclass == wc)
			break;
	}
	if (!m->cookie_tab[cs]) {
		m->cookie_tab[cs] = idx + 1;
		d->cookies[wc]++;
	} else {
		uint32_t first = m->cookie_tab[cs] - 1;
		struct tm_name *f = &m->names[first];
		if (!f->group) {
			int64_t g = group_new(m, first, f);
			if (g >= 0) {
				f->group = g + 1;
				d->groups[wc]++;
			}
		}
		if (f->group) {
			struct tm_group *g = &m->groups[f->group - 1];
			d->pairs[wc] += g->members; /* one new pair with each member */
			g->members++;
			g->updated_seq = g->seen_seq = m->records;
			g->updated_at = now;
			n->group = f->group;
			/* append, so members list in arrival order */
			struct tm_name *t = f;
			while (t->next)
				t = &m->names[t->next - 1];
			t->next = idx + 1;
			m->strip_coll[wc][bucket] = 1;
		}
	}
	if ((uint64_t)m->nnames * 2 > (uint64_t)m->tab_mask + 1 && m->tab_mask < (1u << 30))
		tabs_grow(m);
	return idx;
}

/* ---- readers */

static uint32_t reader_tgid(const struct ck_rec *r)
{
	/* nfsd threads serve one client's requests in turn: one reader per directory */
	return r->flags & CK_REC_F_NFSD ? 0 : r->tgid;
}

static struct tm_reader *reader_get(struct tm_model *m, const struct ck_rec *r, uint32_t dir)
{
	uint32_t tgid = reader_tgid(r);
	uint8_t nfsd = !!(r->flags & CK_REC_F_NFSD);
	struct tm_reader *oldest = NULL;

	if (m->last_reader < m->nreaders) {
		struct tm_reader *rd = &m->readers[m->last_reader];
		if (rd->tgid == tgid && rd->dir == dir && rd->nfsd == nfsd)
			return rd;
	}
	/* Readers are few and recently active ones are at the end of the scan order. */
	for (uint32_t i = m->nreaders; i-- > 0;) {
		struct tm_reader *rd = &m->readers[i];
		if (rd->tgid == tgid && rd->dir == dir && rd->nfsd == nfsd) {
			m->last_reader = i;
			return rd;
		}
		if (!oldest || rd->last_seq < oldest->last_seq)
			oldest = rd;
	}
	struct tm_reader *rd = m->nreaders < TM_READERS_MAX ? &m->readers[m->nreaders++] : oldest;
	memset(rd, 0, sizeof(*rd));
	rd->tgid = tgid;
	rd->dir = dir;
	rd->nfsd = nfsd;
	rd->used = 1;
	m->last_reader = rd - m->readers;
	return rd;
}

static void reader_event(struct tm_model *m, struct tm_dir *d, uint32_t dir,
			 const struct ck_rec *r, int64_t name_idx)
{
	struct tm_reader *rd = reader_get(m, r, dir);

	rd->pid = r->pid;
	memcpy(rd->comm, r->comm, sizeof(rd->comm));
	rd->last_seq = m->records;
	if (r->kind == CK_REC_FILLDIR) {
		if (rd->filldirs && r->cookie == rd->last_cookie &&
		    (name_idx < 0 || (uint32_t)name_idx + 1 != rd->last_name))
			rd->dup_cookies++;
		rd->filldirs++;
		rd->last_cookie = r->cookie;
		rd->last_name = name_idx < 0 ? 0 : (uint32_t)name_idx + 1;
		if (r->cookie > rd->high)
			rd->high = r->cookie;
	} else if (r->kind == CK_REC_LLSEEK_ENTRY && r->whence == 0) {
		uint64_t off = (uint64_t)r->offset;
		rd->seeks++;
		if (off == 0) {		/* rewinddir: a new pass */
			rd->high = 0;
			rd->repeats = 0;
		} else if (off == rd->seek_off && rd->high == rd->high_at_seek) {
			if (++rd->repeats >= TM_LOOP_REPEATS && !rd->looping) {
				rd->looping = 1;
				rd->loop_cookie = off;
				d->loops++;
				m->loops++;
			}
		} else {
			rd->repeats = 0;
		}
		rd->seek_off = off;
		rd->high_at_seek = rd->high;
	}
}

/* ---- events */

static void tail_push(struct tm_model *m, const struct ck_rec *r, int width)
{
	struct tm_tail_ev *e = &m->tail[m->tail_seq % TM_TAIL];

	e->seq = m->records;
	e->ts_ns = r->ts_ns;
	e->cookie = r->cookie;
	e->dir_ino = r->dir_ino;
	e->offset = r->offset;
	e->result = r->result;
	e->pid = r->pid;
	e->dev = r->dev;
	e->major = r->major;
	e->minor = r->minor;
	e->whence = r->whence;
	e->kind = r->kind;
	e->width = width;
	e->nfsd = !!(r->flags & CK_REC_F_NFSD);
	e->name_len = r->name_len > CK_REC_NAME_MAX ? CK_REC_NAME_MAX : r->name_len;
	memcpy(e->comm, r->comm, sizeof(e->comm));
	memcpy(e->name, r->name, e->name_len);
	m->tail_seq++;
}

const struct tm_tail_ev *tm_tail_get(const struct tm_model *m, uint64_t back)
{
	if (back >= m->tail_seq || back >= TM_TAIL)
		return NULL;
	return &m->tail[(m->tail_seq - 1 - back) % TM_TAIL];
}

static uint32_t reasons_of(const struct ck_rec *r, int wc)
{
	uint32_t why = 0;

	if (r->flags & CK_REC_F_FMODE32)
		why |= TM_R_FMODE32;
	else if (r->flags & CK_REC_F_FMODE64)
		why |= TM_R_FMODE64;
	else if (r->flags & CK_REC_F_COMPAT)
		why |= TM_R_COMPAT;
	else
		why |= TM_R_NATIVE;
	if (r->flags & CK_REC_F_NFSD)
		why |= TM_R_NFSD;
	/* A 64-bit reader given a 31-bit cookie: pre-3.4 ext4.  Not for "."
	 * (major 0), whose 63-bit cookie is 0 on every kernel. */
	if (r->kind == CK_REC_FILLDIR && wc == TM_W31 && ck_rec_width(r) == 64 &&
	    (r->major >> 1) != 0)
		why |= TM_R_PRE34;
	return why;
}

void tm_ingest(struct tm_model *m, const struct ck_rec *r, double now)
{
	m->records++;
	switch (r->kind) {
	case CK_REC_HELLO:
		m->hellos++;
		{
			size_t n = r->text_len < sizeof(m->hello) - 1 ? r->text_len : sizeof(m->hello) - 1;
			memcpy(m->hello, r->text, n);
			m->hello[n] = 0;
		}
		return;
	case CK_REC_DROP:
		m->drops += r->lost;
		return;
	case CK_REC_FILLDIR:
	case CK_REC_LLSEEK_ENTRY:
	case CK_REC_LLSEEK_EXIT:
		break;
	default:
		return;
	}
	m->events++;
	if (!m->first_ts)
		m->first_ts = r->ts_ns;
	m->last_ts = r->ts_ns;
	int wc = r->cookie > 0x7fffffffULL ? TM_W63 : TM_W31;
	tail_push(m, r, r->kind == CK_REC_FILLDIR ? tm_wclass_bits(wc) : 0);

	int64_t dir = dir_get(m, r->dev, r->dir_ino);
	if (dir < 0) {
		m->dirs_untracked++;
		return;
	}
	struct tm_dir *d = &m->dirs[dir];
	d->events++;
	d->last_seq = m->records;
	memcpy(d->last_comm, r->comm, sizeof(d->last_comm));
	int64_t idx = -1;
	if (r->kind == CK_REC_FILLDIR) {
		m->filldirs++;
		d->filldirs++;
		d->reasons |= reasons_of(r, wc);
		idx = name_track(m, d, dir, r, wc, now);
	} else if (r->kind == CK_REC_LLSEEK_ENTRY) {
		m->seeks++;
		d->seeks++;
	}
	reader_event(m, d, dir, r, idx);
}
