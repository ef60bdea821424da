// SPDX-License-Identifier: GPL-2.0
/* Pane placement, pure: no curses, no globals (see layout.h). */
#include <string.h>
#include "layout.h"

static struct rect r(int y, int x, int h, int w)
{
	struct rect v = { y, x, h, w };
	return v;
}

const char *layout_pane_name(enum pane p)
{
	static const char *names[PANE_N] = { "status", "dirs", "colls", "strip", "tail", "keys" };
	return p < PANE_N ? names[p] : "?";
}

void layout_compute(int rows, int cols, enum layout_view view, struct layout *out)
{
	memset(out, 0, sizeof(*out));
	out->rows = rows;
	out->cols = cols;
	if (rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS) {
		out->too_small = 1;
		if (rows > 0 && cols > 0)
			out->pane[PANE_STATUS] = r(0, 0, 1, cols);
		return;
	}
	out->pane[PANE_STATUS] = r(0, 0, 1, cols);
	out->pane[PANE_KEYS] = r(rows - 1, 0, 1, cols);
	int body = rows - 2;               /* rows 1 .. rows-2 */
	int strip_h = rows >= 40 ? 4 : 3;  /* title row + 2..3 rows of buckets */

	if (view == LAYOUT_DIR) {
		int head = 4;
		int rest = body - head - strip_h;
		int names_h = rest * 3 / 5;
		out->pane[PANE_DIRS] = r(1, 0, head, cols);
		out->pane[PANE_STRIP] = r(1 + head, 0, strip_h, cols);
		out->pane[PANE_COLLS] = r(1 + head + strip_h, 0, names_h, cols);
		out->pane[PANE_TAIL] = r(1 + head + strip_h + names_h, 0, rest - names_h, cols);
		return;
	}
	/* MAIN: tables on top (side by side when wide), strip, tail below. */
	int top = (body - strip_h) / 2;
	int tail_h = body - strip_h - top;
	if (cols >= 160) {
		int lw = cols * 11 / 20;
		out->pane[PANE_DIRS] = r(1, 0, top, lw);
		out->pane[PANE_COLLS] = r(1, lw, top, cols - lw);
	} else {
		/* directories are few, collision groups take two lines each */
		int dh = top / 3 > 4 ? top / 3 : 4;
		out->pane[PANE_DIRS] = r(1, 0, dh, cols);
		out->pane[PANE_COLLS] = r(1 + dh, 0, top - dh, cols);
	}
	out->pane[PANE_STRIP] = r(1 + top, 0, strip_h, cols);
	out->pane[PANE_TAIL] = r(1 + top + strip_h, 0, tail_h, cols);
}
