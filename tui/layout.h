/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where cookie-top's panes go: a pure function of the terminal size (and of
 * which view is up), so tests check every size from 80x24 to 300x100 for
 * panes that overlap or leave the screen.
 */
#ifndef CK_TUI_LAYOUT_H
#define CK_TUI_LAYOUT_H

#define LAYOUT_MIN_ROWS 24
#define LAYOUT_MIN_COLS 80

struct rect {
	int y, x, h, w; /* h or w 0: the pane is not shown */
};

enum layout_view { LAYOUT_MAIN, LAYOUT_DIR };

enum pane {
	PANE_STATUS,  /* one row: source, rate, drops, paused/live */
	PANE_DIRS,    /* MAIN: directory table | DIR: the directory's summary */
	PANE_COLLS,   /* MAIN: collision groups | DIR: this directory's names by cookie */
	PANE_STRIP,   /* occupancy of the hash space */
	PANE_TAIL,    /* MAIN: event tail | DIR: readers of this directory */
	PANE_KEYS,    /* one row: key hints or the prompt/message */
	PANE_N
};

struct layout {
	int rows, cols;
	int too_small;          /* below 80x24: only PANE_STATUS is set, it says so */
	struct rect pane[PANE_N];
};

void layout_compute(int rows, int cols, enum layout_view view, struct layout *out);
const char *layout_pane_name(enum pane p);

#endif
