// SPDX-License-Identifier: GPL-2.0
/* A screen as plain characters and attributes; see canvas.h.  No curses here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "canvas.h"

int canvas_resize(struct canvas *c, int rows, int cols)
{
	if (rows < 1)
		rows = 1;
	if (cols < 1)
		cols = 1;
	if (rows == c->rows && cols == c->cols && c->ch)
		return 0;
	char *ch = malloc((size_t)rows * cols);
	uint8_t *at = malloc((size_t)rows * cols);
	if (!ch || !at) {
		free(ch);
		free(at);
		return -1;
	}
	free(c->ch);
	free(c->at);
	c->ch = ch;
	c->at = at;
	c->rows = rows;
	c->cols = cols;
	canvas_clear(c);
	return 0;
}

void canvas_free(struct canvas *c)
{
	free(c->ch);
	free(c->at);
	memset(c, 0, sizeof(*c));
}

void canvas_clear(struct canvas *c)
{
	memset(c->ch, ' ', (size_t)c->rows * c->cols);
	memset(c->at, 0, (size_t)c->rows * c->cols);
}

int canvas_put(struct canvas *c, int y, int x, int maxw, uint8_t attr, const char *s)
{
	int n = 0;

	if (y < 0 || y >= c->rows || x < 0)
		return 0;
	for (; s[n] && n < maxw && x + n < c->cols; n++) {
		unsigned char ch = s[n];
		c->ch[(size_t)y * c->cols + x + n] = ch >= 0x20 && ch < 0x7f ? ch : '?';
		c->at[(size_t)y * c->cols + x + n] = attr;
	}
	return n;
}

void canvas_print(const struct canvas *c, FILE *f)
{
	for (int y = 0; y < c->rows; y++) {
		const char *row = c->ch + (size_t)y * c->cols;
		int n = c->cols;
		while (n > 0 && row[n - 1] == ' ')
			n--;
		fwrite(row, 1, n, f);
		fputc('\n', f);
	}
}
