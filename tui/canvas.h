/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-top's screen as a plain character canvas: a character and an
 * attribute per cell.  render.c draws into it, term.c (curses) copies it to
 * the terminal, batch mode prints it as text, tests read it.  Only
 * printable ASCII is ever stored in it.
 */
#ifndef CK_TUI_CANVAS_H
#define CK_TUI_CANVAS_H

#include <stdint.h>
#include <stdio.h>

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

#endif
