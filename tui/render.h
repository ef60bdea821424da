/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-top's drawing, into a plain character canvas (htop's meters write
 * into a text buffer the same way): render() is pure, the curses front end
 * (term.c) copies the canvas to the terminal, batch mode prints it as text,
 * and tests read it.  Names are escaped here (\xNN), so no byte of a
 * traced name ever reaches the terminal raw.
 */
#ifndef CK_TUI_RENDER_H
#define CK_TUI_RENDER_H

#include <stddef.h>
#include <stdint.h>
#include "layout.h"
#include "model.h"

enum { AT_BOLD = 1, AT_REV = 2, AT_HI = 4, AT_DIM = 8, AT_WARN = 16, AT_TITLE = 32 };

struct canvas {
	int rows, cols;
	char *ch;
	uint8_t *at;
};

int canvas_resize(struct canvas *c, int rows, int cols); /* 0 or -1 */
void canvas_free(struct canvas *c);
void canvas_clear(struct canvas *c);
/* Write text at (y, x), clipped to the canvas and to maxw columns; returns columns used. */
int canvas_put(struct canvas *c, int y, int x, int maxw, uint8_t attr, const char *s);
void canvas_print(const struct canvas *c, FILE *f); /* rows as text, trailing blanks trimmed */

enum sort_key { SORT_EVENTS, SORT_NAMES, SORT_PAIRS, SORT_RATIO, SORT_DIR, SORT_N };
const char *sort_name(enum sort_key k);

/* View state: what the keys change.  No model data in here. */
struct ui {
	enum layout_view view;
	enum sort_key sort;
	char filter[64];
	int paused, help, prompt;     /* prompt: typing a filter */
	char prompt_buf[64];
	int sel;                      /* selected row of the directory table */
	uint32_t dir;                 /* drilled-into directory (LAYOUT_DIR) */
	int scroll;                   /* first name row in LAYOUT_DIR */
	double now;                   /* host time, for highlighting new collisions */
	double highlight_secs;        /* a collision newer than this is highlighted */
	char source[160];             /* "socket build/vm/trace.sock", "replay t.ckr x4" */
	char state[96];               /* "connected", "waiting: no VM (…)", "end of file" */
	double rate;                  /* records/s, recent */
	char msg[200];                /* one-shot message for the keys line */
	/* filled by render: the directory table's rows, so Enter knows what is selected */
	uint32_t rows_dir[512];
	int nrows_dir;
	/* cache of a drilled directory's names sorted by cookie */
	uint32_t *dir_names;
	uint32_t ndir_names, dir_names_cap;
	uint64_t dir_names_for;       /* (dir+1)<<32 | names tracked when sorted */
	double dir_names_at;
};

void ui_init(struct ui *u);
void ui_free(struct ui *u);

/* The whole frame. */
void render(const struct tm_model *m, struct ui *u, const struct layout *l, struct canvas *c);
/* Just the status and keys lines (a paused frame keeps its panes). */
void render_status(const struct tm_model *m, const struct ui *u, const struct layout *l,
		   struct canvas *c);

/* Escape a name for one line: printable ASCII as is, '\\' and others as \\ and \xNN. */
size_t name_escape(const uint8_t *s, size_t n, char *out, size_t size);
/* "8:16/12" */
void dir_text(uint32_t dev, uint64_t ino, char *buf, size_t size);

/* JSON snapshot of the model (the 'e' key and --json). */
int snapshot_json(const struct tm_model *m, const struct ui *u, FILE *f);

#endif
