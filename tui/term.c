// SPDX-License-Identifier: GPL-2.0
/* curses: copy a canvas to the terminal, read keys.  Nothing else calls curses. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "term.h"

static SCREEN *screen;
static FILE *tty;
static int have_color;

int term_open(char *err, size_t errsize)
{
	tty = fopen("/dev/tty", "r+");
	if (!tty) {
		snprintf(err, errsize, "cannot open /dev/tty: no terminal (use -b for batch mode)");
		return -1;
	}
	screen = newterm(NULL, tty, tty);
	if (!screen) {
		snprintf(err, errsize, "terminal type '%s' unknown to curses (set TERM, or use -b)",
			 getenv("TERM") ? getenv("TERM") : "");
		fclose(tty);
		tty = NULL;
		return -1;
	}
	set_term(screen);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_RED, -1);
		init_pair(2, COLOR_YELLOW, -1);
		init_pair(3, COLOR_CYAN, -1);
		have_color = 1;
	}
	return 0;
}

void term_close(void)
{
	if (!screen)
		return;
	curs_set(1);
	endwin();
	delscreen(screen);
	screen = NULL;
	fclose(tty);
	tty = NULL;
}

int term_fd(void)
{
	return tty ? fileno(tty) : -1;
}

void term_size(int *rows, int *cols)
{
	getmaxyx(stdscr, *rows, *cols);
}

int term_key(void)
{
	int k = getch();

	switch (k) {
	case ERR: return TERM_KEY_NONE;
	case KEY_RESIZE: return TERM_KEY_RESIZE;
	case KEY_UP: return TERM_KEY_UP;
	case KEY_DOWN: return TERM_KEY_DOWN;
	case KEY_PPAGE: return TERM_KEY_PGUP;
	case KEY_NPAGE: return TERM_KEY_PGDN;
	case KEY_ENTER: case '\r': case '\n': return TERM_KEY_ENTER;
	case KEY_BACKSPACE: case 127: case 8: return TERM_KEY_BACKSPACE;
	}
	return k;
}

static attr_t attr_of(uint8_t a)
{
	attr_t r = 0;

	if (a & AT_BOLD)
		r |= A_BOLD;
	if (a & AT_REV)
		r |= A_REVERSE;
	if (a & AT_DIM)
		r |= A_DIM;
	if (a & AT_HI)
		r |= A_BOLD | (have_color ? COLOR_PAIR(1) : A_STANDOUT);
	else if (a & AT_WARN)
		r |= have_color ? COLOR_PAIR(2) : A_BOLD;
	if (a & AT_TITLE)
		r |= A_BOLD | (have_color ? COLOR_PAIR(3) : A_UNDERLINE);
	return r;
}

void term_draw(const struct canvas *c)
{
	int rows, cols;

	getmaxyx(stdscr, rows, cols);
	for (int y = 0; y < c->rows && y < rows; y++) {
		int w = c->cols < cols ? c->cols : cols;
		/* the bottom-right cell would scroll some terminals: leave it */
		if (y == rows - 1 && w == cols)
			w--;
		for (int x = 0; x < w;) {
			uint8_t a = c->at[(size_t)y * c->cols + x];
			int e = x;
			while (e < w && c->at[(size_t)y * c->cols + e] == a)
				e++;
			attrset(attr_of(a));
			mvaddnstr(y, x, c->ch + (size_t)y * c->cols + x, e - x);
			x = e;
		}
	}
	attrset(A_NORMAL);
	wnoutrefresh(stdscr);
	doupdate();
}
