// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-top frames into a character canvas; see render.h.  No curses here,
 * and no state: what a frame needs from the last one is in the caller's
 * struct render_cache, what it showed goes into struct render_shown.
 */
#define _GNU_SOURCE /* qsort_r: the sort orders take the model as an argument */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ckname.h"
#include "render.h"

static int cprintf(struct canvas *c, int y, int x, int maxw, uint8_t attr, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
static int cprintf(struct canvas *c, int y, int x, int maxw, uint8_t attr, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return canvas_put(c, y, x, maxw, attr, buf);
}

static void fill_attr(struct canvas *c, int y, int x, int w, uint8_t attr)
{
	for (int i = 0; i < w && x + i < c->cols; i++)
		if (y >= 0 && y < c->rows && x + i >= 0)
			c->at[(size_t)y * c->cols + x + i] |= attr;
}

/* ---- text helpers */

/* lib/ckname's escaping; ASCII only, since the canvas counts a byte as a column. */
size_t render_name_escape(const uint8_t *s, size_t n, char *out, size_t size)
{
	return ck_name_escape(s, n, CK_NAME_ASCII, out, size);
}

void render_dir_text(uint32_t dev, uint64_t ino, char *buf, size_t size)
{
	snprintf(buf, size, "%u:%u/%" PRIu64, dev >> 20, dev & 0xfffff, ino);
}

/* 1234 -> "1234", 12345 -> "12.3k", ... fits 6 columns */
static void human(double v, char *buf, size_t size)
{
	if (v < 10000)
		snprintf(buf, size, "%.0f", v);
	else if (v < 1e6)
		snprintf(buf, size, "%.1fk", v / 1e3);
	else if (v < 1e9)
		snprintf(buf, size, "%.2fM", v / 1e6);
	else
		snprintf(buf, size, "%.2fG", v / 1e9);
}

const char *render_sort_name(enum sort_key k)
{
	static const char *const n[SORT_N] = { "events", "names", "pairs", "pairs/expected", "dir" };
	return k < SORT_N ? n[k] : "?";
}

void render_ui_init(struct ui *u)
{
	memset(u, 0, sizeof(*u));
	u->highlight_secs = 5.0;
}

void render_cache_free(struct render_cache *rc)
{
	free(rc->dir_order);
	free(rc->group_order);
	free(rc->dir_names);
	memset(rc, 0, sizeof(*rc));
}

/* Grow one of the cache's index arrays to hold n; 0 or -1. */
static int order_reserve(uint32_t **order, uint32_t *cap, uint32_t n)
{
	if (*cap >= n)
		return 0;
	uint32_t *grown = realloc(*order, n * sizeof(*grown));
	if (!grown)
		return -1;
	*order = grown;
	*cap = n;
	return 0;
}

static int contains(const char *hay, const char *needle)
{
	return !needle[0] || strstr(hay, needle) != NULL;
}

static uint64_t dsum(const uint64_t v[TM_NW])
{
	return v[TM_W31] + v[TM_W63];
}

static double dir_expected(const struct tm_dir *d)
{
	return tm_birthday_pairs(d->names[TM_W31], 31) + tm_birthday_pairs(d->names[TM_W63], 63);
}

static const char *dir_width(const struct tm_dir *d)
{
	int a = d->names[TM_W31] > 0, b = d->names[TM_W63] > 0;
	return a && b ? "31+63" : a ? "31" : b ? "63" : "-";
}

/* ---- panes */

static void pane_title(struct canvas *c, const struct rect *p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void pane_title(struct canvas *c, const struct rect *p, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	canvas_put(c, p->y, p->x, p->w, AT_TITLE, buf);
	fill_attr(c, p->y, p->x, p->w, AT_TITLE);
}

struct dir_sort {
	const struct tm_model *m;
	enum sort_key by;
};

static int dir_cmp(const void *a, const void *b, void *arg)
{
	const struct dir_sort *k = arg;
	const struct tm_dir *x = &k->m->dirs[*(const uint32_t *)a];
	const struct tm_dir *y = &k->m->dirs[*(const uint32_t *)b];
	double vx = 0, vy = 0;

	switch (k->by) {
	case SORT_EVENTS: vx = x->events; vy = y->events; break;
	case SORT_NAMES: vx = dsum(x->names); vy = dsum(y->names); break;
	case SORT_PAIRS: vx = dsum(x->pairs); vy = dsum(y->pairs); break;
	case SORT_RATIO:
		vx = dsum(x->pairs) / (dir_expected(x) + 1e-300);
		vy = dsum(y->pairs) / (dir_expected(y) + 1e-300);
		break;
	case SORT_DIR:
	default:
		if (x->dev != y->dev)
			return x->dev < y->dev ? -1 : 1;
		return x->ino < y->ino ? -1 : x->ino > y->ino;
	}
	if (vx != vy)
		return vx > vy ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int dir_matches(const struct tm_model *m, const struct ui *u, uint32_t i)
{
	char t[64];

	if (!u->filter[0])
		return 1;
	render_dir_text(m->dirs[i].dev, m->dirs[i].ino, t, sizeof(t));
	return contains(t, u->filter) || contains(m->dirs[i].last_comm, u->filter);
}

static void pane_dirs(const struct tm_model *m, const struct ui *u, const struct rect *p,
		      struct render_cache *rc, struct canvas *c, struct render_shown *shown)
{
	struct dir_sort by = { m, u->sort };
	uint32_t n = 0;

	pane_title(c, p, " Directories (%u, sort: %s%s%s)", m->ndirs, render_sort_name(u->sort),
		   u->filter[0] ? ", filter: " : "", u->filter);
	if (p->h < 2 || order_reserve(&rc->dir_order, &rc->dir_order_cap, m->ndirs))
		return;
	uint32_t *idx = rc->dir_order;
	for (uint32_t i = 0; i < m->ndirs; i++)
		if (dir_matches(m, u, i))
			idx[n++] = i;
	if (n > 1)
		qsort_r(idx, n, sizeof(*idx), dir_cmp, &by);

	cprintf(c, p->y + 1, p->x, p->w, AT_BOLD, "%-16s %7s %7s %5s %6s %9s %5s %4s %-8s %s",
		"DIR", "NAMES", "COOKIES", "GRPS", "PAIRS", "EXPECTED", "WIDTH", "LOOP", "COMM", "WHY");
	int rows = p->h - 2, sel = u->sel, drawn = 0;
	if (sel >= (int)n)
		sel = n ? (int)n - 1 : 0;
	if (sel < 0)
		sel = 0;
	int first = sel >= rows ? sel - rows + 1 : 0;
	for (int r = 0; r < rows && first + r < (int)n; r++, drawn++) {
		const struct tm_dir *d = &m->dirs[idx[first + r]];
		char dt[40], nm[12], ck[12], pr[12], why[160], comm[40];
		render_dir_text(d->dev, d->ino, dt, sizeof(dt));
		human(dsum(d->names), nm, sizeof(nm));
		human(dsum(d->cookies), ck, sizeof(ck));
		human(dsum(d->pairs), pr, sizeof(pr));
		tm_reasons_text(d->reasons, why, sizeof(why));
		render_name_escape((const uint8_t *)d->last_comm, strlen(d->last_comm), comm, sizeof(comm));
		uint8_t at = dsum(d->pairs) ? AT_WARN : 0;
		if (first + r == sel)
			at |= AT_REV;
		cprintf(c, p->y + 2 + r, p->x, p->w, at, "%-16.16s %7s %7s %5" PRIu64 " %6s %9.3g %5s %4s %-8.8s %s",
			dt, nm, ck, dsum(d->groups), pr, dir_expected(d), dir_width(d),
			d->loops ? "LOOP" : "-", comm, why);
		if (first + r == sel)
			fill_attr(c, p->y + 2 + r, p->x, p->w, AT_REV);
	}
	shown->sel = sel;
	shown->dir_rows = drawn;
	/* the selected directory, even when the table scrolled to it */
	if (sel - first < drawn)
		shown->dir = idx[sel];
	if (!n)
		canvas_put(c, p->y + 2, p->x, p->w, AT_DIM,
			   m->ndirs ? "  (no directory matches the filter)" : "  (no directory events yet)");
}

static int group_matches(const struct tm_model *m, const struct ui *u, const struct tm_group *g)
{
	char t[1100];

	if (!u->filter[0])
		return 1;
	render_dir_text(m->dirs[g->dir].dev, m->dirs[g->dir].ino, t, sizeof(t));
	if (contains(t, u->filter))
		return 1;
	for (uint32_t i = g->first + 1; i; i = m->names[i - 1].next) {
		const struct tm_name *n = &m->names[i - 1];
		render_name_escape(tm_name_bytes(m, n), n->name_len, t, sizeof(t));
		if (contains(t, u->filter))
			return 1;
	}
	return 0;
}

/* One line per member: the group's first line carries cookie, width, directory. */
static int draw_group(const struct tm_model *m, const struct ui *u, const struct tm_group *g,
		      struct canvas *c, int y, int x, int w, int maxlines)
{
	int line = 0;
	int fresh = u->now - g->updated_at < u->highlight_secs;
	char dt[40];

	render_dir_text(m->dirs[g->dir].dev, m->dirs[g->dir].ino, dt, sizeof(dt));
	for (uint32_t i = g->first + 1; i && line < maxlines; i = m->names[i - 1].next, line++) {
		const struct tm_name *n = &m->names[i - 1];
		char nm[1100], head[80];
		render_name_escape(tm_name_bytes(m, n), n->name_len, nm, sizeof(nm));
		if (!line)
			snprintf(head, sizeof(head), "%c %016" PRIx64 " %2d", fresh ? '*' : ' ',
				 g->cookie, tm_wclass_bits(g->wclass));
		else
			snprintf(head, sizeof(head), "%*s", 1 + 1 + 16 + 1 + 2, "");
		/* the name and its hashes first: a side-by-side pane may be narrow */
		cprintf(c, y + line, x, w, fresh ? AT_HI : 0, "%s %-20s %08x %08x %s",
			head, nm, n->major, n->minor, line ? "" : dt);
	}
	return line;
}

static int group_cmp(const void *a, const void *b, void *arg)
{
	const struct tm_model *m = arg;
	const struct tm_group *x = &m->groups[*(const uint32_t *)a];
	const struct tm_group *y = &m->groups[*(const uint32_t *)b];
	uint64_t ux = x->seen_seq, uy = y->seen_seq; /* most recently read first */
	return ux != uy ? (ux > uy ? -1 : 1) : 0;
}

static void pane_colls(const struct tm_model *m, const struct ui *u, const struct rect *p,
		       struct render_cache *rc, struct canvas *c)
{
	uint64_t pairs = 0;
	double expect = 0;
	uint32_t n = 0;

	for (uint32_t i = 0; i < m->ndirs; i++) {
		pairs += dsum(m->dirs[i].pairs);
		expect += dir_expected(&m->dirs[i]);
	}
	pane_title(c, p, " Collisions (most recently read first): %u groups, %" PRIu64 " pairs observed, %.3g expected by chance (birthday)",
		   m->ngroups, pairs, expect);
	if (p->h < 2 || order_reserve(&rc->group_order, &rc->group_order_cap, m->ngroups))
		return;
	uint32_t *idx = rc->group_order;
	for (uint32_t i = 0; i < m->ngroups; i++)
		if (group_matches(m, u, &m->groups[i]))
			idx[n++] = i;
	if (n > 1)
		qsort_r(idx, n, sizeof(*idx), group_cmp, (void *)m);
	cprintf(c, p->y + 1, p->x, p->w, AT_BOLD, "  %-16s %2s %-20s %-8s %-8s %s", "COOKIE", "W", "NAME",
		"MAJOR", "MINOR", "DIR");
	int y = p->y + 2, end = p->y + p->h;
	for (uint32_t k = 0; k < n && y < end; k++)
		y += draw_group(m, u, &m->groups[idx[k]], c, y, p->x, p->w, end - y);
	if (!n)
		canvas_put(c, p->y + 2, p->x, p->w, AT_DIM, "  (none: no two names share a cookie)");
}

static const char strip_chars[] = " .:-=+*#%@";

/* counts[b] over TM_STRIP_BUCKETS, marks[b]: a collision in the bucket */
static void draw_strip_row(struct canvas *c, int y, int x, int w, const char *label,
			   const uint32_t *counts, const uint8_t *marks)
{
	int lw = canvas_put(c, y, x, w, AT_BOLD, label);
	int cells = w - lw - 1;
	uint32_t max = 0;

	if (cells < 1)
		return;
	for (int b = 0; b < TM_STRIP_BUCKETS; b++)
		if (counts[b] > max)
			max = counts[b];
	for (int i = 0; i < cells; i++) {
		int b0 = (int)((int64_t)i * TM_STRIP_BUCKETS / cells);
		int b1 = (int)((int64_t)(i + 1) * TM_STRIP_BUCKETS / cells);
		uint64_t sum = 0;
		int mark = 0;
		if (b1 <= b0)
			b1 = b0 + 1;
		for (int b = b0; b < b1; b++) {
			sum += counts[b];
			mark |= marks[b];
		}
		double per = (double)sum / (b1 - b0);
		char ch[2] = { ' ', 0 };
		if (mark)
			ch[0] = 'X';
		else if (sum)
			ch[0] = strip_chars[1 + (int)(per * 8.999 / (max ? max : 1))];
		canvas_put(c, y, x + lw + 1 + i, 1, mark ? AT_HI : AT_DIM, ch);
	}
}

static void pane_strip(const struct rect *p, struct canvas *c,
		       const uint32_t (*counts)[TM_STRIP_BUCKETS],
		       const uint8_t (*marks)[TM_STRIP_BUCKETS], const char *what)
{
	pane_title(c, p, " Hash space occupancy %s: cookie's major>>1 from 0 to 2^31, left to right; X = collision",
		   what);
	int row = p->y + 1;
	if (row < p->y + p->h)
		draw_strip_row(c, row++, p->x, p->w, "31-bit", counts[TM_W31], marks[TM_W31]);
	if (row < p->y + p->h)
		draw_strip_row(c, row++, p->x, p->w, "63-bit", counts[TM_W63], marks[TM_W63]);
}

static int tail_matches(const struct ui *u, const struct tm_tail_ev *e, const char *name)
{
	char t[64];

	if (!u->filter[0])
		return 1;
	render_dir_text(e->dev, e->dir_ino, t, sizeof(t));
	return contains(name, u->filter) || contains(e->comm, u->filter) || contains(t, u->filter);
}

static void tail_line(const struct tm_tail_ev *e, const char *name, char *buf, size_t size)
{
	char dt[40], comm[40];

	render_dir_text(e->dev, e->dir_ino, dt, sizeof(dt));
	render_name_escape((const uint8_t *)e->comm, strnlen(e->comm, CK_REC_COMM_LEN), comm, sizeof(comm));
	int k = snprintf(buf, size, "%12.6f %-10.10s %7u%s %-10s %-14.14s ", e->ts_ns / 1e9, comm,
			 e->pid, e->nfsd ? "n" : " ", ck_rec_kind_name(e->kind), dt);
	if (k < 0 || (size_t)k >= size)
		return;
	if (e->kind == CK_REC_FILLDIR)
		snprintf(buf + k, size - k, "%016" PRIx64 " %08x %08x %2d %s", e->cookie, e->major,
			 e->minor, e->width, name);
	else if (e->kind == CK_REC_LLSEEK_ENTRY)
		snprintf(buf + k, size - k, "%016" PRIx64 " seek to 0x%" PRIx64 " whence %u",
			 e->cookie, (uint64_t)e->offset, e->whence);
	else
		snprintf(buf + k, size - k, "%016" PRIx64 " seek returned %" PRId64, e->cookie, e->result);
}

static void pane_tail(const struct tm_model *m, const struct ui *u, const struct rect *p, struct canvas *c)
{
	pane_title(c, p, " Events (last %d kept; %" PRIu64 " in all)%s%s", TM_TAIL, m->events,
		   u->filter[0] ? ", filter: " : "", u->filter);
	if (p->h < 2)
		return;
	cprintf(c, p->y + 1, p->x, p->w, AT_BOLD, "%12s %-10s %8s %-10s %-14s %-16s %-8s %-8s %2s %s",
		"TIME", "COMM", "PID", "KIND", "DIR", "COOKIE/POS", "MAJOR", "MINOR", "W", "NAME");
	int rows = p->h - 2;
	/* newest at the bottom: collect up to `rows` matching events, newest first */
	const struct tm_tail_ev *evs[256];
	int n = 0;
	char name[1100];
	for (uint64_t back = 0; n < rows && n < 256; back++) {
		const struct tm_tail_ev *e = tm_tail_get(m, back);
		if (!e)
			break;
		render_name_escape(e->name, e->name_len, name, sizeof(name));
		if (tail_matches(u, e, name))
			evs[n++] = e;
	}
	for (int i = 0; i < n; i++) {
		const struct tm_tail_ev *e = evs[n - 1 - i];
		char line[1400];
		render_name_escape(e->name, e->name_len, name, sizeof(name));
		tail_line(e, name, line, sizeof(line));
		canvas_put(c, p->y + 2 + i, p->x, p->w, 0, line);
	}
}

/* ---- drill-in: one directory */

static int name_cmp(const void *a, const void *b, void *arg)
{
	const struct tm_model *m = arg;
	const struct tm_name *x = &m->names[*(const uint32_t *)a];
	const struct tm_name *y = &m->names[*(const uint32_t *)b];
	if (x->wclass != y->wclass)
		return x->wclass < y->wclass ? -1 : 1;
	if (x->cookie != y->cookie)
		return x->cookie < y->cookie ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void dir_names_refresh(const struct tm_model *m, uint32_t dir, double now,
			      struct render_cache *rc)
{
	const struct tm_dir *d = &m->dirs[dir];
	uint64_t key = ((uint64_t)dir + 1) << 32 | (uint32_t)dsum(d->names);

	/* re-sort when the directory grew, at most once a second */
	if (key == rc->dir_names_for || (rc->dir_names && now - rc->dir_names_at < 1.0 &&
					 (rc->dir_names_for >> 32) == (uint64_t)dir + 1))
		return;
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->nnames; i++) {
		if (m->names[i].dir != dir)
			continue;
		if (n == rc->dir_names_cap &&
		    order_reserve(&rc->dir_names, &rc->dir_names_cap, n ? n * 2 : 1024))
			break;
		rc->dir_names[n++] = i;
	}
	if (n > 1)
		qsort_r(rc->dir_names, n, sizeof(*rc->dir_names), name_cmp, (void *)m);
	rc->ndir_names = n;
	rc->dir_names_for = key;
	rc->dir_names_at = now;
}

static void render_dir(const struct tm_model *m, const struct ui *u, const struct layout *l,
		       struct render_cache *rc, struct canvas *c, struct render_shown *shown)
{
	const struct rect *p = &l->pane[PANE_DIRS];
	const struct tm_dir *d = &m->dirs[u->dir];
	char dt[40], why[200];

	render_dir_text(d->dev, d->ino, dt, sizeof(dt));
	tm_reasons_text(d->reasons, why, sizeof(why));
	pane_title(c, p, " Directory %s  (Enter or Esc: back)", dt);
	cprintf(c, p->y + 1, p->x, p->w, 0, "events %" PRIu64 "  filldir %" PRIu64 "  seeks %" PRIu64
		"  readers flagged looping %u   width %s: %s", d->events, d->filldirs, d->seeks,
		d->loops, dir_width(d), why);
	for (int w = 0; w < TM_NW; w++) {
		int bits = tm_wclass_bits(w);
		char tail[48] = "";
		/* Unchecked: past a full table, or (without FULL) racing another CPU's insert. */
		if (d->unchecked[w])
			snprintf(tail, sizeof(tail), "%s%" PRIu64, d->full & (1u << w) ?
				 "; table FULL, unchecked " : "; unchecked ", d->unchecked[w]);
		else if (d->full & (1u << w))
			snprintf(tail, sizeof(tail), "; table FULL");
		cprintf(c, p->y + 2 + w, p->x, p->w, d->pairs[w] ? AT_WARN : 0,
			"%d-bit cookies: %" PRIu64 " names, %" PRIu64 " distinct cookies, %" PRIu64
			" groups, %" PRIu64 " pairs; by chance %.3g pairs expected, P(>=1) %.3g%s",
			bits, d->names[w], d->cookies[w], d->groups[w], d->pairs[w],
			tm_birthday_pairs(d->names[w], bits), tm_birthday_p(d->names[w], bits), tail);
	}

	/* this directory's strip */
	uint32_t counts[TM_NW][TM_STRIP_BUCKETS] = { { 0 } };
	uint8_t marks[TM_NW][TM_STRIP_BUCKETS] = { { 0 } };
	dir_names_refresh(m, u->dir, u->now, rc);
	for (uint32_t k = 0; k < rc->ndir_names; k++) {
		const struct tm_name *n = &m->names[rc->dir_names[k]];
		uint32_t b = (uint32_t)((n->wclass == TM_W63 ? n->cookie >> 32 : n->cookie) & 0x7fffffff) /
			     (0x80000000u / TM_STRIP_BUCKETS);
		counts[n->wclass][b]++;
		if (n->group)
			marks[n->wclass][b] = 1;
	}
	pane_strip(&l->pane[PANE_STRIP], c, counts, marks, "of this directory");

	p = &l->pane[PANE_COLLS];
	pane_title(c, p, " Names by cookie (%u; arrows/PgUp/PgDn scroll; * = shares its cookie)",
		   rc->ndir_names);
	cprintf(c, p->y + 1, p->x, p->w, AT_BOLD, "  %-16s %2s %-8s %-8s %s", "COOKIE", "W", "MAJOR",
		"MINOR", "NAME");
	int rows = p->h - 2, scroll = u->scroll;
	if (scroll < 0) {	/* just drilled in: start at the first collision */
		scroll = 0;
		for (uint32_t k = 0; k < rc->ndir_names; k++)
			if (m->names[rc->dir_names[k]].group) {
				scroll = k;
				break;
			}
	}
	if (scroll > (int)rc->ndir_names - rows)
		scroll = (int)rc->ndir_names - rows;
	if (scroll < 0)
		scroll = 0;
	shown->scroll = scroll;
	int r = 0;
	for (uint32_t k = scroll; r < rows && k < rc->ndir_names; k++) {
		const struct tm_name *n = &m->names[rc->dir_names[k]];
		char nm[1100];
		render_name_escape(tm_name_bytes(m, n), n->name_len, nm, sizeof(nm));
		if (u->filter[0] && !contains(nm, u->filter))
			continue;
		cprintf(c, p->y + 2 + r++, p->x, p->w, n->group ? AT_WARN : 0, "%c %016" PRIx64 " %2d %08x %08x %s",
			n->group ? '*' : ' ', n->cookie, tm_wclass_bits(n->wclass), n->major, n->minor, nm);
	}

	p = &l->pane[PANE_TAIL];
	pane_title(c, p, " Readers of this directory (loop: %d seeks back to one cookie without progress)",
		   TM_LOOP_REPEATS);
	cprintf(c, p->y + 1, p->x, p->w, AT_BOLD, "%-16s %8s %9s %7s %6s %-5s %s", "COMM", "PID",
		"FILLDIRS", "SEEKS", "DUPS", "LOOP", "LAST SEEK");
	int y = p->y + 2;
	for (uint32_t i = 0; i < m->nreaders && y < p->y + p->h; i++) {
		const struct tm_reader *rd = &m->readers[i];
		char comm[40];
		if (rd->dir != u->dir)
			continue;
		render_name_escape((const uint8_t *)rd->comm, strlen(rd->comm), comm, sizeof(comm));
		cprintf(c, y++, p->x, p->w, rd->looping ? AT_HI : 0,
			"%-16s %7u%s %9" PRIu64 " %7" PRIu64 " %6u %-5s 0x%" PRIx64 " (x%u)%s", comm,
			rd->nfsd ? 0 : rd->tgid, rd->nfsd ? "n" : " ", rd->filldirs, rd->seeks,
			rd->dup_cookies, rd->looping ? "LOOP" : "-", rd->seek_off, rd->repeats + 1,
			rd->looping ? "  readdir loop: keeps seeking back to the same cookie" : "");
	}
}

/* ---- whole frame */

void render_status(const struct tm_model *m, const struct ui *u, const struct layout *l,
		   struct canvas *c)
{
	const struct rect *s = &l->pane[PANE_STATUS];
	char rec[16], rate[16];

	if (!s->w)
		return;
	for (int x = 0; x < s->w; x++) {
		c->ch[(size_t)s->y * c->cols + s->x + x] = ' ';
		c->at[(size_t)s->y * c->cols + s->x + x] = AT_REV;
	}
	if (l->too_small) {
		cprintf(c, s->y, s->x, s->w, AT_REV | AT_WARN,
			"cookie-top: terminal %dx%d is too small; it needs %dx%d", l->cols, l->rows,
			LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
		return;
	}
	human(m->records, rec, sizeof(rec));
	human(u->rate, rate, sizeof(rate));
	char unchecked[16];
	human(m->unchecked, unchecked, sizeof(unchecked));
	/* LIVE/PAUSED owns the right end: a long source path or state cuts the
	 * counts, never the one thing that says whether the panes are frozen. */
	const char *run = u->paused ? "PAUSED" : "LIVE";
	int run_w = (int)strlen(run) + 2;
	cprintf(c, s->y, s->x, s->w - run_w, AT_REV,
		" cookie-top | %s (%s) | %s rec, %s/s | names %u%s | dirs %u | drops %" PRIu64
		" | errors %" PRIu64 " | loops %u%s%s%s%s",
		u->source, u->state, rec, rate, m->nnames, m->names_untracked ? "+" : "",
		m->ndirs, m->drops, m->errors, m->loops,
		m->collision_stream ? " | collision stream" : "",
		m->table_full ? ", table FULL" : "", m->unchecked ? ", unchecked " : "",
		m->unchecked ? unchecked : "");
	cprintf(c, s->y, s->x + s->w - run_w, run_w, AT_REV | AT_BOLD | (u->paused ? AT_WARN : 0),
		" %s ", run);
	const struct rect *k = &l->pane[PANE_KEYS];
	if (!k->w)
		return;
	for (int i = 0; i < k->w; i++) {
		c->ch[(size_t)k->y * c->cols + k->x + i] = ' ';
		c->at[(size_t)k->y * c->cols + k->x + i] = 0;
	}
	if (u->prompt)
		cprintf(c, k->y, k->x, k->w, AT_BOLD, "filter (name, dir or comm; Enter: apply, Esc: clear): %s_",
			u->prompt_buf);
	else if (u->msg[0])
		canvas_put(c, k->y, k->x, k->w, AT_BOLD, u->msg);
	else if (m->last_error[0])
		cprintf(c, k->y, k->x, k->w, AT_WARN, "%s (resynchronised; h: help)", m->last_error);
	else
		canvas_put(c, k->y, k->x, k->w, AT_DIM, u->hints);
}

/* What the columns mean; the keys' lines come from the caller's key table. */
static const char *const help_glossary[] = {
	"A collision: two names of one directory with the same cookie (d_off).",
	"31-bit cookies are major>>1; 63-bit are (major>>1)<<32 | minor.",
	"EXPECTED: pairs a random hash would give for that many names (birthday).",
	"LOOP: a reader seeking back to one cookie without progress (NFS: ELOOP).",
};

static void render_help(const struct ui *u, const struct layout *l, struct canvas *c)
{
	int nglossary = sizeof(help_glossary) / sizeof(help_glossary[0]);
	int n = 2 + u->nkeys + 1 + nglossary; /* title, blank, keys, blank, glossary */
	int w = 84 < l->cols - 2 ? 84 : l->cols - 2;
	int h = n + 2 < l->rows - 2 ? n + 2 : l->rows - 2;
	int y0 = (l->rows - h) / 2, x0 = (l->cols - w) / 2;

	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			c->ch[(size_t)(y0 + y) * c->cols + x0 + x] =
				(y == 0 || y == h - 1) ? '-' : (x == 0 || x == w - 1) ? '|' : ' ';
			c->at[(size_t)(y0 + y) * c->cols + x0 + x] = AT_BOLD;
		}
	}
	for (int i = 0; i < n && i < h - 2; i++) {
		int y = y0 + 1 + i, k = i - 2, g = i - 3 - u->nkeys;
		if (i == 0)
			canvas_put(c, y, x0 + 2, w - 4, AT_BOLD,
				   "cookie-top: ext4 readdir cookies, hashes and collisions, live");
		else if (k >= 0 && k < u->nkeys)
			cprintf(c, y, x0 + 2, w - 4, 0, "%-12s %s", u->keys[k].keys, u->keys[k].does);
		else if (g >= 0)
			canvas_put(c, y, x0 + 2, w - 4, 0, help_glossary[g]);
	}
}

void render_frame(const struct tm_model *m, const struct ui *u, const struct layout *l,
		  struct render_cache *rc, struct canvas *c, struct render_shown *shown)
{
	*shown = (struct render_shown){ .view = u->view, .sel = u->sel, .dir = u->dir,
					.dir_rows = -1, .scroll = u->scroll };
	canvas_clear(c);
	if (!l->too_small) {
		if (u->view == LAYOUT_DIR && u->dir < m->ndirs) {
			render_dir(m, u, l, rc, c, shown);
		} else {
			shown->view = LAYOUT_MAIN;
			pane_dirs(m, u, &l->pane[PANE_DIRS], rc, c, shown);
			pane_colls(m, u, &l->pane[PANE_COLLS], rc, c);
			pane_strip(&l->pane[PANE_STRIP], c, (const uint32_t (*)[TM_STRIP_BUCKETS])m->strip,
				   (const uint8_t (*)[TM_STRIP_BUCKETS])m->strip_coll, "(all directories)");
			pane_tail(m, u, &l->pane[PANE_TAIL], c);
		}
		if (u->help)
			render_help(u, l, c);
	}
	render_status(m, u, l, c);
}
