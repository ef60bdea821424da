// SPDX-License-Identifier: GPL-2.0
/* Names as text: escaping and the name-list line format; see ckname.h. */
#include <stdint.h>
#include <string.h>

#include "ckname.h"

/*
 * Length of the well-formed UTF-8 character at s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0.  U+0080..U+009F, the
 * C1 controls, count as not printable: 0 as well.
 */
static size_t utf8_printable(const uint8_t *s, size_t n)
{
	uint8_t c = s[0];
	size_t len;
	uint8_t lo = 0x80, hi = 0xbf;	/* the second byte's range */

	if (c >= 0xc2 && c <= 0xdf)
		len = 2, lo = c == 0xc2 ? 0xa0 : 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/*
 * The text for the bytes at s (n left, at offset i of the name): into esc,
 * returns its length and sets *used to the bytes of s it stands for.
 */
static size_t escape_one(const uint8_t *s, size_t n, size_t i, unsigned flags, char esc[4], size_t *used)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t c = s[0];
	size_t u;

	*used = 1;
	if (c == '\\' || c == '\t' || c == '\n') {
		esc[0] = '\\';
		esc[1] = c == '\\' ? '\\' : c == '\t' ? 't' : 'n';
		return 2;
	}
	if (i == 0 && (flags & CK_NAME_FIELD) &&
	    (c == '#' || (c == '0' && n > 1 && (s[1] == 'x' || s[1] == 'X'))))
		goto hex;
	if (c >= 0x20 && c < 0x7f) {
		esc[0] = (char)c;
		return 1;
	}
	if (c >= 0x80 && !(flags & CK_NAME_ASCII) && (u = utf8_printable(s, n))) {
		memcpy(esc, s, u);
		*used = u;
		return u;
	}
hex:
	esc[0] = '\\';
	esc[1] = 'x';
	esc[2] = hex[c >> 4];
	esc[3] = hex[c & 15];
	return 4;
}

size_t ck_name_escape(const void *name, size_t len, unsigned flags, char *out, size_t size)
{
	const uint8_t *s = name;
	size_t o = 0, used;
	char esc[4];

	if (!size)
		return 0;
	for (size_t i = 0; i < len; i += used) {
		size_t e = escape_one(s + i, len - i, i, flags, esc, &used);

		if (o + e >= size)
			break;
		memcpy(out + o, esc, e);
		o += e;
	}
	out[o] = 0;
	return o;
}

long ck_name_fprint(FILE *f, const void *name, size_t len, unsigned flags)
{
	const uint8_t *s = name;
	size_t used;
	long total = 0;
	char esc[4];

	for (size_t i = 0; i < len; i += used) {
		size_t e = escape_one(s + i, len - i, i, flags, esc, &used);

		fwrite(esc, 1, e, f);
		total += (long)e;
	}
	return ferror(f) ? -1 : total;
}

void ck_print_name(FILE *f, const char *name, size_t len)
{
	ck_name_fprint(f, name, len, 0);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int is_data(const char *f, size_t n)
{
	if (n < 3 || f[0] != '0' || (f[1] != 'x' && f[1] != 'X'))
		return 0;
	for (size_t i = 2; i < n; i++)
		if (hexval(f[i]) < 0)
			return 0;
	return 1;
}

/* Unescape f[0..n) in place; the new length, or -1 with *why. */
static long unescape(char *f, size_t n, const char **why)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (f[i] != '\\') {
			f[o++] = f[i];
			continue;
		}
		if (++i == n) {
			*why = "a '\\' ends the field (write a backslash as \\\\)";
			return -1;
		}
		switch (f[i]) {
		case '\\': f[o++] = '\\'; break;
		case 't':  f[o++] = '\t'; break;
		case 'n':  f[o++] = '\n'; break;
		case 'x':
			if (n - i < 3 || hexval(f[i + 1]) < 0 || hexval(f[i + 2]) < 0) {
				*why = "\\x needs two hex digits";
				return -1;
			}
			f[o++] = (char)(hexval(f[i + 1]) << 4 | hexval(f[i + 2]));
			i += 2;
			break;
		default:
			*why = "unknown escape (known: \\\\ \\t \\n \\xNN)";
			return -1;
		}
	}
	return (long)o;
}

int ck_names_split(char *line, size_t n, char **names, size_t *lens, int max, const char **why)
{
	int k = 0;
	size_t start = 0;

	if (n == 0 || line[0] == '#')
		return 0;
	while (start <= n) {
		char *tab = memchr(line + start, '\t', n - start);
		size_t end = tab ? (size_t)(tab - line) : n;
		long len;

		if (is_data(line + start, end - start))
			break;
		if (end == start) {
			*why = "empty field (two tabs, or a tab at an end of the line)";
			return -1;
		}
		if (k == max) {
			*why = "too many names on one line";
			return -1;
		}
		len = unescape(line + start, end - start, why);
		if (len < 0)
			return -1;
		names[k] = line + start;
		lens[k++] = (size_t)len;
		start = end + 1;
	}
	if (k == 0) {
		*why = "no name before the data fields (a name that begins with 0x is written \\x30x...)";
		return -1;
	}
	return k;
}
