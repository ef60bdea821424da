// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * cookie-top model on synthetic streams with known answers: exact counts,
 * collision groups and their members' hashes, width reasons, the loop
 * detector, the birthday expectation, bounded memory, the tail ageing out
 * while counts stay exact, a frame of a hostile name rendered safely, and
 * rendering as a function of its inputs (what a frame showed comes back
 * explicitly, a second render of the same inputs draws the same frame), and
 * unchecked names told apart from a full table.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cookie.h"
#include "model.h"
#include "record.h"
#include "render.h"

static int failed;
#define CHECK(cond, ...) do { if (cond) { printf("ok: "); } else { printf("FAIL: "); failed = 1; } \
	printf(__VA_ARGS__); printf("\n"); } while (0)

static struct ck_rec base(uint32_t flags, uint64_t ino)
{
	struct ck_rec r;
	memset(&r, 0, sizeof(r));
	r.pid = r.tgid = 100;
	strcpy(r.comm, "probe");
	r.flags = flags;
	r.dev = 8 << 20 | 16;
	r.dir_ino = ino;
	r.ts_ns = 1;
	return r;
}

static void fill(struct tm_model *m, struct ck_rec r, const char *name, uint32_t major,
		 uint32_t minor, int width)
{
	r.kind = CK_REC_FILLDIR;
	r.major = major;
	r.minor = minor;
	r.cookie = cookie_hash2pos(width == 63 ? COOKIE_63BIT : COOKIE_31BIT, major, minor);
	r.name_len = strlen(name);
	memcpy(r.name, name, r.name_len);
	tm_ingest(m, &r, 0);
}

static void seekto(struct tm_model *m, struct ck_rec r, uint64_t off)
{
	r.kind = CK_REC_LLSEEK_ENTRY;
	r.offset = off;
	r.cookie = 0;
	tm_ingest(m, &r, 0);
}

static struct tm_model *fresh(uint32_t max_names)
{
	struct tm_model *m = calloc(1, sizeof(*m));
	if (!m || tm_init(m, max_names, 0)) {
		printf("FAIL: out of memory\n");
		exit(1);
	}
	return m;
}

static void done(struct tm_model *m)
{
	tm_free(m);
	free(m);
}

static const char *member(const struct tm_model *m, const struct tm_group *g, int k, uint32_t *maj, uint32_t *min)
{
	static char buf[256];
	uint32_t i = g->first + 1;
	for (; i && k; k--)
		i = m->names[i - 1].next;
	if (!i)
		return "";
	const struct tm_name *n = &m->names[i - 1];
	memcpy(buf, tm_name_bytes(m, n), n->name_len);
	buf[n->name_len] = 0;
	*maj = n->major;
	*min = n->minor;
	return buf;
}

static void test_groups(void)
{
	struct tm_model *m = fresh(0);
	struct ck_rec r = base(CK_REC_F_COMPAT, 12);
	/* a and b: same major, different minor -> same 31-bit cookie; c, d, e distinct */
	for (int pass = 0; pass < 3; pass++) {
		fill(m, r, "a", 0x3ace69f6, 0x11111111, 31);
		fill(m, r, "b", 0x3ace69f6, 0x22222222, 31);
		fill(m, r, "c", 0x10000000, 0x1, 31);
		fill(m, r, "d", 0x20000000, 0x2, 31);
		fill(m, r, "e", 0x30000000, 0x3, 31);
		/* a three-member group: x y z share a major (bit 0 differs: same major>>1) */
		fill(m, r, "x", 0x7000000a, 0x5, 31);
		fill(m, r, "y", 0x7000000a, 0x6, 31);
		fill(m, r, "z", 0x7000000b, 0x7, 31);
	}
	const struct tm_dir *d = &m->dirs[0];
	CHECK(m->ndirs == 1, "one directory (%u)", m->ndirs);
	CHECK(m->filldirs == 24 && d->filldirs == 24, "24 filldir events counted exactly (%llu)",
	      (unsigned long long)d->filldirs);
	CHECK(d->names[TM_W31] == 8, "8 distinct names over 3 passes (%llu)", (unsigned long long)d->names[TM_W31]);
	CHECK(d->cookies[TM_W31] == 5, "5 distinct cookies (%llu)", (unsigned long long)d->cookies[TM_W31]);
	CHECK(d->groups[TM_W31] == 2 && m->ngroups == 2, "2 collision groups (%llu)", (unsigned long long)d->groups[TM_W31]);
	CHECK(d->pairs[TM_W31] == 1 + 3, "4 colliding pairs: 1 + C(3,2) (%llu)", (unsigned long long)d->pairs[TM_W31]);
	uint32_t maj = 0, min = 0;
	const struct tm_group *g = &m->groups[0];
	CHECK(g->members == 2 && g->cookie == 0x3ace69f6 >> 1, "group 1: 2 members, cookie 0x%llx",
	      (unsigned long long)g->cookie);
	const char *n0 = member(m, g, 0, &maj, &min);
	CHECK(!strcmp(n0, "a") && maj == 0x3ace69f6 && min == 0x11111111, "group 1 member a with its major/minor");
	const char *n1 = member(m, g, 1, &maj, &min);
	CHECK(!strcmp(n1, "b") && maj == 0x3ace69f6 && min == 0x22222222, "group 1 member b with its major/minor");
	g = &m->groups[1];
	CHECK(g->members == 3, "group 2: 3 members (%u)", g->members);
	CHECK(!strcmp(member(m, g, 2, &maj, &min), "z") && maj == 0x7000000b, "group 2 third member z, major 0x7000000b");
	done(m);
}

static void test_widths(void)
{
	struct tm_model *m = fresh(0);
	/* 63-bit: same major, different minor is NOT a collision; same both is */
	struct ck_rec r = base(0, 20);
	fill(m, r, "a", 0x3ace69f6, 0x1, 63);
	fill(m, r, "b", 0x3ace69f6, 0x2, 63);
	fill(m, r, "p", 0xd6c89ecc, 0xa8dff2fc, 63);
	fill(m, r, "q", 0xd6c89ecc, 0xa8dff2fc, 63);
	const struct tm_dir *d = &m->dirs[0];
	CHECK(d->names[TM_W63] == 4 && d->cookies[TM_W63] == 3 && d->pairs[TM_W63] == 1,
	      "63-bit: 4 names, 3 cookies, 1 pair (only the full-hash twins)");
	CHECK(d->reasons == TM_R_NATIVE, "63-bit reader: reason '64-bit task' only (0x%x)", d->reasons);
	/* the same names read by a compat task: 31-bit, now a and b collide too */
	struct ck_rec c = base(CK_REC_F_COMPAT, 20);
	c.tgid = c.pid = 101;
	fill(m, c, "a", 0x3ace69f6, 0x1, 31);
	fill(m, c, "b", 0x3ace69f6, 0x2, 31);
	CHECK(d->names[TM_W31] == 2 && d->pairs[TM_W31] == 1, "31-bit view of the same dir: a/b collide");
	CHECK((d->reasons & TM_R_COMPAT) && !(d->reasons & TM_R_PRE34), "compat task reason, not pre-3.4");
	/* before-3.4 kernel: a native task gets 31 bits */
	struct ck_rec b = base(0, 21);
	fill(m, b, "a", 0x3ace69f6, 0x1, 31);
	CHECK(m->dirs[1].reasons == (TM_R_NATIVE | TM_R_PRE34), "native task with a 31-bit cookie: pre-3.4 (0x%x)",
	      m->dirs[1].reasons);
	struct ck_rec n = base(CK_REC_F_NFSD | CK_REC_F_FMODE32, 22);
	fill(m, n, "a", 0x3ace69f6, 0x1, 31);
	CHECK(m->dirs[2].reasons == (TM_R_NFSD | TM_R_FMODE32), "nfsd with FMODE_32BITHASH (0x%x)", m->dirs[2].reasons);
	/* "." has major 0: its cookie is 0 for every reader, not pre-3.4 evidence */
	struct ck_rec dot = base(0, 23);
	fill(m, dot, ".", 0, 0, 63);
	CHECK(m->dirs[3].reasons == TM_R_NATIVE, "'.' (cookie 0) read by a 64-bit task: not pre-3.4 (0x%x)",
	      m->dirs[3].reasons);
	char text[200];
	tm_reasons_text(m->dirs[2].reasons, text, sizeof(text));
	CHECK(!strcmp(text, "nfsd, FMODE_32BITHASH"), "reason text '%s'", text);
	done(m);
}

static void test_loop(void)
{
	struct tm_model *m = fresh(0);
	struct ck_rec r = base(CK_REC_F_COMPAT, 30);
	uint64_t c = 0x3ace69f6 >> 1;

	seekto(m, r, 0);
	fill(m, r, "c", 0x10000000, 1, 31);
	fill(m, r, "a", 0x3ace69f6, 1, 31);
	fill(m, r, "b", 0x3ace69f6, 2, 31);
	for (int k = 0; k < TM_LOOP_REPEATS; k++) {
		seekto(m, r, c);
		fill(m, r, "a", 0x3ace69f6, 1, 31);
		fill(m, r, "b", 0x3ace69f6, 2, 31);
		CHECK(!m->readers[0].looping, "seek back #%d: not yet a loop", k + 1);
	}
	seekto(m, r, c);
	CHECK(m->readers[0].looping && m->loops == 1 && m->dirs[0].loops == 1 && m->readers[0].loop_cookie == c,
	      "seek back #%d to 0x%llx without progress: loop flagged", TM_LOOP_REPEATS + 1, (unsigned long long)c);
	CHECK(m->readers[0].dup_cookies >= 1, "reader saw one cookie for two names (%u times)", m->readers[0].dup_cookies);

	/* a healthy seekdir(telldir()) walk: each seek goes further */
	struct ck_rec h = base(0, 31);
	h.pid = h.tgid = 200;
	for (uint32_t i = 1; i < 50; i++) {
		seekto(m, h, (uint64_t)i << 32);
		fill(m, h, (char[]){ 'n', (char)('0' + i % 10), (char)('a' + i / 10), 0 }, i << 1, i, 63);
	}
	CHECK(m->loops == 1, "a healthy walk with 49 seeks is not flagged");
	/* repeated rewinds (seek to 0) are passes, not loops */
	for (int k = 0; k < 10; k++)
		seekto(m, h, 0);
	CHECK(m->loops == 1, "ten rewinddir()s are not a loop");
	done(m);
}

static void test_birthday(void)
{
	/* classic: 77163 values in 2^32 give P = 0.5; 2^31 needs 54562 */
	double p32 = tm_birthday_p(77163, 32), p31 = tm_birthday_p(54562, 31);
	CHECK(fabs(p32 - 0.5) < 0.001, "birthday P(77163, 2^32) = %.4f ~ 0.5", p32);
	CHECK(fabs(p31 - 0.5) < 0.001, "birthday P(54562, 2^31) = %.4f ~ 0.5", p31);
	double e = tm_birthday_pairs(100000, 31);
	CHECK(fabs(e - 100000.0 * 99999 / 2 / 2147483648.0) < 1e-9, "expected pairs for 10^5 names, 31 bits: %.4f", e);
	CHECK(tm_birthday_pairs(1000000, 63) < 1e-6, "10^6 names at 63 bits: %.3g pairs expected",
	      tm_birthday_pairs(1000000, 63));
	CHECK(tm_birthday_pairs(1, 31) == 0 && tm_birthday_pairs(0, 31) == 0, "no pairs from one name");
}

static void test_bounds(void)
{
	struct tm_model *m = fresh(10);
	struct ck_rec r = base(0, 40);
	char name[32];

	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "name%d", i);
		fill(m, r, name, (uint32_t)i << 8, i, 63);
	}
	CHECK(m->nnames == 10 && m->names_untracked == 10, "cap 10 names: 10 tracked, 10 counted as untracked");
	CHECK(m->filldirs == 20, "and all 20 events counted");
	for (int i = 0; i < TM_TAIL + 500; i++)
		fill(m, r, "name1", 1 << 8, 1, 63);
	CHECK(m->events == 20 + TM_TAIL + 500, "%llu events counted exactly after the tail wrapped",
	      (unsigned long long)m->events);
	CHECK(tm_tail_get(m, TM_TAIL) == NULL && tm_tail_get(m, TM_TAIL - 1) != NULL,
	      "the tail keeps the last %d events", TM_TAIL);
	CHECK(tm_tail_get(m, 0)->seq == m->records, "newest tail event is the last record");
	struct ck_rec d = base(0, 0);
	d.kind = CK_REC_DROP;
	d.lost = 5;
	tm_ingest(m, &d, 0);
	tm_ingest(m, &d, 0);
	CHECK(m->drops == 10, "drops summed from DROP records (%llu)", (unsigned long long)m->drops);
	done(m);
}

static void test_hostile_name(void)
{
	struct tm_model *m = fresh(0);
	struct ck_rec r = base(0, 50);
	struct canvas c = { 0 };
	struct render_cache rc = { 0 };
	struct render_shown shown;
	struct layout l;
	struct ui u;
	char ff[256];

	memset(ff, 0xff, 255);
	ff[255] = 0;
	fill(m, r, ff, 0x12345678, 0x9abcdef0, 63);
	fill(m, r, "tw\x1b[2Jin", 0x12345678, 0x9abcdef0, 63); /* an escape sequence as a name */
	render_ui_init(&u);
	snprintf(u.source, sizeof(u.source), "test");
	canvas_resize(&c, 24, 80);
	layout_compute(24, 80, LAYOUT_MAIN, &l);
	render_frame(m, &u, &l, &rc, &c, &shown);
	int bad = 0, found = 0;
	for (int i = 0; i < c.rows * c.cols; i++)
		bad |= c.ch[i] < 0x20 || c.ch[i] > 0x7e;
	for (int y = 0; y < c.rows; y++)
		found |= memmem(c.ch + y * c.cols, c.cols, "\\xff\\xff", 8) != NULL;
	CHECK(!bad, "every cell of the frame is printable ASCII");
	CHECK(found, "the 0xff name shows as \\xff escapes");
	int esc = 0;
	for (int y = 0; y < c.rows; y++)
		esc |= memmem(c.ch + y * c.cols, c.cols, "tw\\x1b[2Jin", 11) != NULL;
	CHECK(esc, "an ESC in a name shows as \\x1b");
	canvas_free(&c);
	render_cache_free(&rc);
	done(m);
}

/*
 * An empty name (name_len 0) is a name like any other: the first one into an
 * empty table, then again, then a second empty name on another cookie.  Under
 * UBSan this is where a NULL arena reached memcpy/memcmp (issue 17, defect 9).
 */
static void test_empty_name(void)
{
	struct tm_model *m = fresh(0);
	struct ck_rec r = base(0, 60);
	uint32_t maj, min;

	fill(m, r, "", 0x2468ace0, 0x13579bdf, 63);
	fill(m, r, "", 0x2468ace0, 0x13579bdf, 63);	/* seen again: no new name */
	fill(m, r, "x", 0x2468ace0, 0x13579bdf, 63);	/* same cookie: a group with "" */
	const struct tm_dir *d = &m->dirs[0];
	CHECK(m->filldirs == 3 && d->names[TM_W63] == 2 && d->pairs[TM_W63] == 1,
	      "empty name: 3 filldirs, 2 names, 1 pair (%" PRIu64 ", %" PRIu64 ", %" PRIu64 ")",
	      m->filldirs, (uint64_t)d->names[TM_W63], (uint64_t)d->pairs[TM_W63]);
	CHECK(m->ngroups == 1 && !strcmp(member(m, &m->groups[0], 0, &maj, &min), "") &&
	      !strcmp(member(m, &m->groups[0], 1, &maj, &min), "x"),
	      "empty name: the group's members are \"\" then \"x\"");
	done(m);
}

/* Two directories, the second selected past the end: the frame says which
 * row it selected and which directory is there; the same inputs with a
 * fresh cache draw the same frame (nothing kept between frames but the cache). */
static void test_render_pure(void)
{
	struct tm_model *m = fresh(0);
	struct canvas c1 = { 0 }, c2 = { 0 };
	struct render_cache rc1 = { 0 }, rc2 = { 0 };
	struct render_shown s1, s2;
	struct layout l;
	struct ui u;

	fill(m, base(0, 50), "a", 0x10, 0x20, 31);
	fill(m, base(0, 51), "b", 0x30, 0x40, 31);
	fill(m, base(0, 51), "c", 0x50, 0x60, 31);
	render_ui_init(&u);
	snprintf(u.source, sizeof(u.source), "test");
	u.sort = SORT_NAMES;
	u.sel = 7;
	canvas_resize(&c1, 24, 80);
	canvas_resize(&c2, 24, 80);
	layout_compute(24, 80, LAYOUT_MAIN, &l);
	struct ui before = u;
	render_frame(m, &u, &l, &rc1, &c1, &s1);
	render_frame(m, &u, &l, &rc2, &c2, &s2);
	CHECK(!memcmp(&before, &u, sizeof(u)), "render leaves the view state as it was");
	CHECK(!memcmp(c1.ch, c2.ch, 24 * 80) && !memcmp(c1.at, c2.at, 24 * 80),
	      "the same inputs draw the same frame");
	CHECK(s1.view == LAYOUT_MAIN && s1.dir_rows == 2 && s1.sel == 1 && s1.dir == 0 &&
	      !memcmp(&s1, &s2, sizeof(s1)),
	      "selection past the end shows the last row: sel %d of %d rows, dir %u", s1.sel,
	      s1.dir_rows, s1.dir);
	u.view = LAYOUT_DIR;
	u.dir = 1;
	u.scroll = -1;
	layout_compute(24, 80, LAYOUT_DIR, &l);
	render_frame(m, &u, &l, &rc1, &c1, &s1);
	CHECK(s1.view == LAYOUT_DIR && s1.scroll == 0 && s1.dir_rows == -1 && rc1.ndir_names == 2,
	      "drill-in: scroll resolved to %d, its 2 names sorted in the cache", s1.scroll);
	canvas_free(&c1);
	canvas_free(&c2);
	render_cache_free(&rc1);
	render_cache_free(&rc2);
	done(m);
}

/* A status line, wide enough that nothing is cut, as one string. */
static void status_line(const struct tm_model *m, char *out, size_t size)
{
	struct canvas c = { 0 };
	struct render_cache rc = { 0 };
	struct render_shown sh;
	struct layout l;
	struct ui u;

	render_ui_init(&u);
	snprintf(u.source, sizeof(u.source), "test");
	canvas_resize(&c, 24, 200);
	layout_compute(24, 200, LAYOUT_MAIN, &l);
	render_frame(m, &u, &l, &rc, &c, &sh);
	snprintf(out, size, "%.200s", c.ch);
	canvas_free(&c);
	render_cache_free(&rc);
}

static void summary(struct tm_model *m, uint32_t sflags, uint64_t names, uint64_t unchecked)
{
	struct ck_rec r = base(0, 60);

	r.kind = CK_REC_SUMMARY;
	r.bits = 63;
	r.sflags = sflags;
	r.names = names;
	r.distinct = names;
	r.unchecked = unchecked;
	tm_ingest(m, &r, 0);
}

/* Unchecked names without FULL (racing another CPU's insert) are not a full table. */
static void test_unchecked(void)
{
	struct tm_model *m = fresh(0);
	char line[256];

	summary(m, 0, 100, 3);
	status_line(m, line, sizeof(line));
	CHECK(m->unchecked == 3 && !m->table_full && strstr(line, "unchecked 3") &&
	      !strstr(line, "FULL"), "3 unchecked without FULL: \"unchecked 3\", no \"table FULL\"");
	summary(m, CK_REC_S_FULL, 100, 8);
	status_line(m, line, sizeof(line));
	CHECK(m->unchecked == 8 && m->table_full && strstr(line, "table FULL, unchecked 8"),
	      "then a FULL summary with 8: \"table FULL, unchecked 8\" (%llu)",
	      (unsigned long long)m->unchecked);
	done(m);
}

int main(void)
{
	test_groups();
	test_widths();
	test_loop();
	test_birthday();
	test_bounds();
	test_hostile_name();
	test_empty_name();
	test_render_pure();
	test_unchecked();
	printf(failed ? "model: FAILED\n" : "model: all checks passed\n");
	return failed;
}
