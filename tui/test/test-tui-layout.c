// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * Layout is a pure function of (rows, cols): for every size from 80x24 to
 * 300x100 and both views, the panes stay on screen, never overlap, and keep
 * a usable size; below 80x24 the layout says it is too small.  A frame is
 * rendered at a sample of sizes, to check it fills exactly the canvas.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layout.h"
#include "render.h"

static int failed, checked;

static void fail(int rows, int cols, int view, const char *what)
{
	if (failed++ < 20)
		printf("FAIL: %dx%d view %d: %s\n", cols, rows, view, what);
}

static int overlap(const struct rect *a, const struct rect *b)
{
	return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

static void check(int rows, int cols, enum layout_view view)
{
	struct layout l;
	layout_compute(rows, cols, view, &l);
	checked++;
	if (l.too_small) {
		fail(rows, cols, view, "too small at a supported size");
		return;
	}
	int area = 0;
	for (int p = 0; p < PANE_N; p++) {
		const struct rect *r = &l.pane[p];
		if (r->h <= 0 || r->w <= 0) {
			fail(rows, cols, view, layout_pane_name(p));
			continue;
		}
		if (r->y < 0 || r->x < 0 || r->y + r->h > rows || r->x + r->w > cols)
			fail(rows, cols, view, "pane off screen");
		/* every table pane: a title, a header and at least 2 rows (strip: title + 2) */
		if (p != PANE_STATUS && p != PANE_KEYS && r->h < (p == PANE_STRIP ? 3 : 4))
			fail(rows, cols, view, "pane too short");
		if (r->w < 80 && !(p == PANE_COLLS && cols >= 160) && !(p == PANE_DIRS && cols >= 160))
			fail(rows, cols, view, "pane narrower than 80 columns");
		for (int q = p + 1; q < PANE_N; q++)
			if (l.pane[q].h > 0 && l.pane[q].w > 0 && overlap(r, &l.pane[q]))
				fail(rows, cols, view, "panes overlap");
		area += r->h * r->w;
	}
	if (area != rows * cols)
		fail(rows, cols, view, "panes do not cover the screen exactly");
}

int main(void)
{
	for (int rows = 24; rows <= 100; rows++)
		for (int cols = 80; cols <= 300; cols++) {
			check(rows, cols, LAYOUT_MAIN);
			check(rows, cols, LAYOUT_DIR);
		}
	printf("%s: %d layouts from 80x24 to 300x100, both views: on screen, no overlaps, full cover\n",
	       failed ? "FAIL" : "ok", checked);

	int small_ok = 1;
	int small[][2] = { { 23, 80 }, { 24, 79 }, { 10, 40 }, { 1, 1 }, { 0, 0 } };
	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
		struct layout l;
		layout_compute(small[i][0], small[i][1], LAYOUT_MAIN, &l);
		small_ok &= l.too_small && (small[i][0] < 1 || l.pane[PANE_STATUS].w == small[i][1]);
		for (int p = 1; p < PANE_N; p++)
			small_ok &= l.pane[p].w == 0;
	}
	printf("%s: below 80x24 only a status line (it says the terminal is too small)\n", small_ok ? "ok" : "FAIL");
	failed += !small_ok;

	/* frames at a sample of sizes: the canvas is exactly filled, the too-small text shows */
	struct tm_model *m = calloc(1, sizeof(*m));
	struct ui u;
	struct canvas c = { 0 };
	struct render_cache rc = { 0 };
	struct render_shown shown;
	tm_init(m, 0, 0);
	render_ui_init(&u);
	int frames = 0, frames_ok = 1;
	for (int rows = 24; rows <= 100; rows += 19)
		for (int cols = 80; cols <= 300; cols += 55) {
			struct layout l;
			layout_compute(rows, cols, LAYOUT_MAIN, &l);
			canvas_resize(&c, rows, cols);
			render_frame(m, &u, &l, &rc, &c, &shown);
			frames_ok &= memmem(c.ch, cols, "cookie-top", 10) != NULL;
			frames++;
		}
	struct layout l;
	layout_compute(20, 70, LAYOUT_MAIN, &l);
	canvas_resize(&c, 20, 70);
	render_frame(m, &u, &l, &rc, &c, &shown);
	int says = memmem(c.ch, 70, "too small", 9) != NULL;
	printf("%s: %d frames rendered; a 70x20 frame says 'too small'\n", frames_ok && says ? "ok" : "FAIL", frames);
	failed += !(frames_ok && says);

	/* The status line keeps LIVE/PAUSED at every width from 80 on, however long
	 * the source and its state are (a replay path, a socket waiting for a VM). */
	int widths[] = { 80, 100, 120, 200 }, state_ok = 1;
	snprintf(u.source, sizeof(u.source), "replay /home/someone/traces/lab-collide-2026-12-04.ckr x1");
	snprintf(u.state, sizeof(u.state), "disconnected (VM stopped?); waiting");
	m->records = 123456789;
	m->nnames = 4000000;
	m->names_untracked = 1;
	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		for (int paused = 0; paused <= 1; paused++) {
			const char *want = paused ? "PAUSED" : "LIVE";
			int cols = widths[i];
			u.paused = paused;
			layout_compute(24, cols, LAYOUT_MAIN, &l);
			canvas_resize(&c, 24, cols);
			render_frame(m, &u, &l, &rc, &c, &shown);
			if (!memmem(c.ch, cols, want, strlen(want))) {
				printf("FAIL: %dx24 status line has no %s: %.*s\n", cols, want, cols, c.ch);
				state_ok = 0;
			}
		}
	u.paused = 0;
	printf("%s: the status line shows LIVE and PAUSED at 80, 100, 120 and 200 columns\n",
	       state_ok ? "ok" : "FAIL");
	failed += !state_ok;
	canvas_free(&c);
	render_cache_free(&rc);
	tm_free(m);
	free(m);
	return failed != 0;
}
