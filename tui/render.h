/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-top's drawing, into a plain character canvas (canvas.h; htop's
 * meters write into a text buffer the same way): render_frame() is a
 * function of the model, the view state and the layout; it keeps nothing of
 * its own (no statics) and writes only what it is given to write: the
 * canvas, the caller's cache, and what the frame showed.  The curses front
 * end (term.c) copies the canvas to the terminal, batch mode prints it as
 * text, and tests read it.  Names are escaped here (\xNN), so no byte of a
 * traced name ever reaches the terminal raw.
 */
#ifndef CK_TUI_RENDER_H
#define CK_TUI_RENDER_H

#include <stddef.h>
#include <stdint.h>
#include "canvas.h"
#include "layout.h"
#include "model.h"

enum sort_key { SORT_EVENTS, SORT_NAMES, SORT_PAIRS, SORT_RATIO, SORT_DIR, SORT_N };
const char *render_sort_name(enum sort_key k);

/* One line of the help box: the keys ("Up/Down, k/j") and what they do. */
struct render_key_help {
	const char *keys, *does;
};

/* View state: what the keys change, the frame's input.  No model data in here. */
struct ui {
	enum layout_view view;
	enum sort_key sort;
	char filter[64];
	int paused, help, prompt;     /* prompt: typing a filter */
	char prompt_buf[64];
	int sel;                      /* selected row of the directory table */
	uint32_t dir;                 /* drilled-into directory (LAYOUT_DIR) */
	int scroll;                   /* first name row in LAYOUT_DIR; -1: the first collision */
	double now;                   /* host time, for highlighting new collisions */
	double highlight_secs;        /* a collision newer than this is highlighted */
	char source[160];             /* "socket build/vm/trace.sock", "replay t.ckr x4" */
	char state[96];               /* "connected", "waiting: no VM (…)", "end of file" */
	double rate;                  /* records/s, recent */
	char msg[200];                /* one-shot message for the keys line */
	/* the keys, from cookie-top's key table: the help box's lines, the keys line */
	const struct render_key_help *keys;
	int nkeys;
	char hints[160];              /* "q quit  h help  ..." */
};

/*
 * What render_frame keeps between frames, owned by the caller so that
 * rendering has no state of its own: the sort orders' arrays (a warm frame
 * allocates nothing) and the drilled-into directory's names sorted by
 * cookie (re-sorted when the directory grew, at most once a second).
 * Zero is a valid empty cache.
 */
struct render_cache {
	uint32_t *dir_order, dir_order_cap;
	uint32_t *group_order, group_order_cap;
	uint32_t *dir_names;
	uint32_t ndir_names, dir_names_cap;
	uint64_t dir_names_for;       /* (dir+1)<<32 | names tracked when sorted */
	double dir_names_at;
};

void render_cache_free(struct render_cache *rc);

/*
 * What a frame showed that the keys act on, in the ui's terms: the caller
 * takes it back into its ui (render_frame never writes the ui), so Enter
 * drills into the directory that was on the selected row, and a selection
 * or scroll past the end stops at the end.
 */
struct render_shown {
	enum layout_view view;        /* LAYOUT_MAIN when the drilled-into directory is gone */
	int sel;                      /* the selected row, within the rows there are */
	uint32_t dir;                 /* the directory on the selected row (or drilled into) */
	int dir_rows;                 /* rows the directory table showed; -1: not drawn */
	int scroll;                   /* the drill-in's first name row, within the names */
};

void render_ui_init(struct ui *u);

/* The whole frame: writes only the canvas, the cache and what it showed. */
void render_frame(const struct tm_model *m, const struct ui *u, const struct layout *l,
		  struct render_cache *rc, struct canvas *c, struct render_shown *shown);
/* Just the status and keys lines (a paused frame keeps its panes). */
void render_status(const struct tm_model *m, const struct ui *u, const struct layout *l,
		   struct canvas *c);

/* Escape a name for one line: printable ASCII as is, '\\' and others as \\ and \xNN. */
size_t render_name_escape(const uint8_t *s, size_t n, char *out, size_t size);
/* "8:16/12" */
void render_dir_text(uint32_t dev, uint64_t ino, char *buf, size_t size);

/* JSON snapshot of the model (the 'e' key and --json). */
int snapshot_json(const struct tm_model *m, const struct ui *u, FILE *f);

#endif
