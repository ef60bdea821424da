/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names as text: the one escaping every cookiekit program uses where a file
 * name (or a comm, or other text that came from the traced system) is
 * printed, and the one line format of name lists.
 *
 * Escaping.  '\' becomes "\\", tab "\t", newline "\n"; every other byte
 * below 0x20, DEL, and every byte >= 0x80 that is not part of a well-formed
 * UTF-8 character of U+00A0 or above becomes "\xNN" (lower-case hex).  So an
 * escaped name holds no C0, DEL or C1 control (nothing a terminal acts on,
 * no line or field break), UTF-8 text stays readable, and unescaping gives
 * back the exact bytes.  CK_NAME_ASCII escapes every byte >= 0x80 as well,
 * for displays that count one byte as one column (cookie-top).
 *
 * Line format (written by cookie-collide and cookie-hash, read by dirfill,
 * cookie-hash --names-from and tui/test/mkstream):
 *   - empty lines and lines starting with '#' are skipped;
 *   - fields are separated by tabs;
 *   - the leading fields are names, escaped as above; the first field that
 *     is "0x" followed by hex digits ends them: it and the fields after it
 *     are data (hashes, cookies) that name readers ignore.
 * A name field never looks like data or a comment: as a field, a name that
 * begins with "0x"/"0X" or '#' has its first byte escaped too ("\x30x...",
 * "\x23...").  A line without escapes or tabs is a plain name, so a list
 * written by hand still reads as it looks.
 */
#ifndef CK_CKNAME_H
#define CK_CKNAME_H

#include <stddef.h>
#include <stdio.h>

enum {
	CK_NAME_FIELD = 1,	/* a field of the line format: guard a leading "0x" or '#' */
	CK_NAME_ASCII = 2,	/* also escape bytes >= 0x80 that form valid UTF-8 */
};

/*
 * NAME (len bytes, any bytes) escaped into out (size bytes, NUL-terminated
 * when size > 0).  An escape that does not fit is left out whole, with
 * everything after it.  Returns the length written (without the NUL).
 */
size_t ck_name_escape(const void *name, size_t len, unsigned flags, char *out, size_t size);

/* The same to a stream (any length).  Returns the bytes written, or -1 (ferror). */
long ck_name_fprint(FILE *f, const void *name, size_t len, unsigned flags);

/* For people and logs: ck_name_fprint with no flags. */
void ck_print_name(FILE *f, const char *name, size_t len);

/* Names on one line at most: a colliding group, and room to spare. */
#define CK_NAMES_MAX 64

/*
 * Split one line of the line format (line, n bytes, no newline) in place
 * into its names: names[i] points into line, unescaped, lens[i] its length
 * (a name may then hold any byte, NUL included).  Returns the number of
 * names, 0 for a skipped line, or -1 with *why saying what is wrong (a bad
 * escape, an empty field, more than max names).
 */
int ck_names_split(char *line, size_t n, char **names, size_t *lens, int max, const char **why);

#endif
