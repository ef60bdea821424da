/* SPDX-License-Identifier: GPL-2.0 */
/* The curses front end: the only part of cookie-top that includes curses. */
#ifndef CK_TUI_TERM_H
#define CK_TUI_TERM_H

#include "canvas.h"

#define TERM_KEY_NONE   (-1)
#define TERM_KEY_RESIZE 0x1000
#define TERM_KEY_UP     0x1001
#define TERM_KEY_DOWN   0x1002
#define TERM_KEY_PGUP   0x1003
#define TERM_KEY_PGDN   0x1004
#define TERM_KEY_ENTER  '\n'
#define TERM_KEY_ESC    27
#define TERM_KEY_BACKSPACE 0x1005

int term_open(char *err, size_t errsize); /* on /dev/tty, so stdin can carry the stream */
void term_close(void);
int term_fd(void);
void term_size(int *rows, int *cols);
int term_key(void);                       /* TERM_KEY_NONE when none is waiting */
void term_draw(const struct canvas *c);

#endif
