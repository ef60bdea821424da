// SPDX-License-Identifier: GPL-2.0
/* cookie-top model: see model.h for what it keeps and what it costs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"

int tm_wclass_bits(int wclass)
{
	return ck_wclass_bits(wclass);
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
	if (ck_groups_init(&m->grp, max_names ? max_names : TM_NAMES_DEFAULT,
			   max_dirs ? max_dirs : TM_DIRS_DEFAULT)) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void tm_free(struct tm_model *m)
{
	ck_groups_free(&m->grp);
	free(m->dirs);
	m->dirs = NULL;
	m->names = NULL;
	m->groups = NULL;
}

size_t tm_memory(const struct tm_model *m)
{
	return ck_groups_memory(&m->grp) + (size_t)m->dirs_cap * sizeof(struct tm_dir) + sizeof(*m);
}

void tm_input_error(struct tm_model *m, uint64_t offset, const char *msg)
{
	m->errors++;
	snprintf(m->last_error, sizeof(m->last_error), "input offset %llu: %s",
		 (unsigned long long)offset, msg);
}

/* ---- directories */

/* Index of the directory, created on first sight; -1 past max_dirs. */
static int64_t dir_get(struct tm_model *m, uint32_t dev, uint64_t ino)
{
	/* Room first: the core's index and ours must stay one. */
	if (m->ndirs == m->dirs_cap) {
		uint32_t ncap = m->dirs_cap ? m->dirs_cap * 2 : 16;
		struct tm_dir *nd = realloc(m->dirs, ncap * sizeof(*nd));
		if (!nd)
			return -1;
		m->dirs = nd;
		m->dirs_cap = ncap;
	}
	int64_t i = ck_groups_dir(&m->grp, dev, ino);
	if (i == m->ndirs) {
		struct tm_dir *d = &m->dirs[m->ndirs++];
		memset(d, 0, sizeof(*d));
		d->dev = dev;
		d->ino = ino;
	}
	return i;
}

/* ---- names and collisions */

/* What a directory shows for a width: see struct tm_dir. */
static void dir_shown(struct tm_dir *d, int wc)
{
	d->names[wc] = d->tracked[wc] > d->summary_names[wc] ? d->tracked[wc] : d->summary_names[wc];
	d->cookies[wc] = d->names[wc] - d->grouped[wc];
}

/* Track a filldir's name; returns its index, or -1 (untracked). */
static int64_t name_track(struct tm_model *m, struct tm_dir *d, uint32_t dir,
			  const struct ck_rec *r, int wc, double now)
{
	int64_t idx;
	enum ck_added what = ck_groups_add(&m->grp, dir, r->cookie, r->major, r->minor, r->name,
					   r->name_len, m->records, now, &idx);

	m->names = m->grp.names;
	m->groups = m->grp.groups;
	m->nnames = m->grp.nnames;
	m->ngroups = m->grp.ngroups;
	if (what == CK_ADD_UNTRACKED) {
		m->names_untracked++;
		return -1;
	}
	if (what == CK_ADD_SEEN)
		return idx;
	d->tracked[wc]++;
	if (what == CK_ADD_GROUP)
		d->grouped[wc]++;
	dir_shown(d, wc);

	uint32_t bucket = (uint32_t)((wc == TM_W63 ? r->cookie >> 32 : r->cookie) &
				     0x7fffffff) / (0x80000000u / TM_STRIP_BUCKETS);
	if (m->strip[wc][bucket] < UINT32_MAX)
		m->strip[wc][bucket]++;
	if (what == CK_ADD_COOKIE)
		return idx;
	/* Same cookie, different name: a collision, one new pair with each member before. */
	const struct tm_group *g = &m->groups[m->names[idx].group - 1];
	if (g->members == 2)
		d->groups[wc]++;
	d->pairs[wc] += g->members - 1;
	m->strip_coll[wc][bucket] = 1;
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
		/*
		 * A reader the stream shows no names of (a collision stream):
		 * its progress is the file position it seeks from, where its
		 * reads left it.  A looping reader comes back from one place.
		 */
		if ((m->collision_stream || !rd->filldirs) && r->cookie > rd->high)
			rd->high = r->cookie;
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
	if (r->kind == CK_REC_FILLDIR && wc == TM_W31 && ck_rec_width(r) == 63 &&
	    (r->major >> 1) != 0)
		why |= TM_R_PRE34;
	return why;
}

/*
 * A COLLISION: the earlier name, then the later one, as a per-name stream
 * would have brought them (the earlier one is usually known already).  An
 * earlier name whose bytes the writer no longer had is named by its inode.
 */
static void collision(struct tm_model *m, struct tm_dir *d, uint32_t dir, const struct ck_rec *r,
		      int wc, double now)
{
	static struct ck_rec o;	/* 1.4 KB: not on the stack */

	o = *r;
	o.ino = r->other_ino;
	o.major = r->other_major;
	o.minor = r->other_minor;
	if (r->other_name_len) {
		o.name_len = r->other_name_len;
		memcpy(o.name, r->other_name, r->other_name_len);
	} else {
		o.name_len = (uint16_t)snprintf((char *)o.name, sizeof(o.name), "?ino=%llu",
						(unsigned long long)r->other_ino);
	}
	name_track(m, d, dir, &o, wc, now);
	name_track(m, d, dir, r, wc, now);
}

/* A SUMMARY: the directory's distinct names and what its table could not check. */
static void summary(struct tm_model *m, const struct ck_rec *r)
{
	int wc = r->bits == 63 ? TM_W63 : TM_W31;
	int64_t dir;

	m->collision_stream = 1;
	m->summaries++;
	dir = dir_get(m, r->dev, r->dir_ino);
	if (dir < 0) {
		m->dirs_untracked++;
		return;
	}
	struct tm_dir *d = &m->dirs[dir];
	m->unchecked += r->unchecked - d->unchecked[wc];
	d->unchecked[wc] = r->unchecked;
	d->checked[wc] = r->names;
	d->summary_names[wc] = r->distinct;
	if (r->sflags & CK_REC_S_FULL) {
		d->full |= 1u << wc;
		m->table_full = 1;
	}
	d->summary_seeks = r->seeks;
	d->seeks = d->seek_records > d->summary_seeks ? d->seek_records : d->summary_seeks;
	dir_shown(d, wc);
}

void tm_ingest(struct tm_model *m, const struct ck_rec *r, double now)
{
	m->records++;
	switch (r->kind) {
	case CK_REC_HELLO:
		m->hellos++;
		if (r->text_len && strstr(r->text, "mode=collisions"))
			m->collision_stream = 1;
		{
			size_t n = r->text_len < sizeof(m->hello) - 1 ? r->text_len : sizeof(m->hello) - 1;
			memcpy(m->hello, r->text, n);
			m->hello[n] = 0;
		}
		return;
	case CK_REC_DROP:
		m->drops += r->lost;
		return;
	case CK_REC_SUMMARY:
		summary(m, r);
		return;
	case CK_REC_COLLISION:
		m->collision_stream = 1;
		m->collisions++;
		break;
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
	int wc = ck_cookie_wclass(r->cookie);
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
	if (r->kind == CK_REC_COLLISION) {
		collision(m, d, dir, r, wc, now);
		return;		/* not a reader's progress: the reader's stream is not here */
	}
	if (r->kind == CK_REC_FILLDIR) {
		m->filldirs++;
		d->filldirs++;
		d->reasons |= reasons_of(r, wc);
		idx = name_track(m, d, dir, r, wc, now);
	} else if (r->kind == CK_REC_LLSEEK_ENTRY) {
		m->seeks++;
		d->seek_records++;
		d->seeks = d->seek_records > d->summary_seeks ? d->seek_records : d->summary_seeks;
	}
	reader_event(m, d, dir, r, idx);
}
