// SPDX-License-Identifier: GPL-2.0
/*
 * Helper of tests/unit/test-escape (issue 17, defect 5).
 *
 *   escape-check stream   write a record stream whose comm, HELLO text and
 *                         names carry terminal controls (ESC, BEL, CSI as C1,
 *                         C1 inside UTF-8), with a collision group, to stdout
 *   escape-check text     print that stream's records with ck_rec_print_text
 *                         (cookie-trace's and cookie-groups' text format)
 *
 * test-escape checks the programs' output bytes; this file only makes input.
 */
#include <stdio.h>
#include <string.h>

#include "ckutil.h"
#include "record.h"

static const char *const hostile_names[] = {
	"esc\x1b[2Jclear", "bel\x07", "csi\x9b" "31m", "c1-in-utf8\xc2\x9b" "1m",
	"tab\tnl\nname", "del\x7f", "utf8-\xc3\xa9t\xc3\xa9", "bad\xff\xfe",
};

static int make(struct ck_rec *recs)
{
	int n = 0;
	struct ck_rec *h = &recs[n++];

	ck_rec_hello_start(h, 1000, 0);
	ck_rec_hello_add(h, "writer=escape-check dir=/tmp/\x1b]0;pwned\x07/\x9b" "2J");
	for (size_t i = 0; i < sizeof(hostile_names) / sizeof(hostile_names[0]); i++) {
		struct ck_rec *r = &recs[n++];

		*r = (struct ck_rec){ .kind = CK_REC_FILLDIR, .ts_ns = 2000 + i, .pid = 42, .tgid = 42,
				      .flags = CK_REC_F_FMODE64, .dev = 8 << 20 | 16, .dir_ino = 12,
				      .ino = 100 + i, .major = 0x12345678, .minor = 0x9abcdef0,
				      /* every name the same cookie: one growing collision group */
				      .cookie = 0x091a2b3c9abcdef0ULL, .chain_index = 0, .chain_len = 1 };
		snprintf(r->comm, sizeof(r->comm), "%s", i & 1 ? "ls\x1b[?1049h" : "\x1b]2;t\x07\x9b");
		r->name_len = (uint16_t)strlen(hostile_names[i]);
		memcpy(r->name, hostile_names[i], r->name_len);
	}
	return n;
}

int main(int argc, char **argv)
{
	static struct ck_rec recs[16];
	int n = make(recs);

	if (argc == 2 && !strcmp(argv[1], "stream")) {
		for (int i = 0; i < n; i++)
			if (ck_rec_write(stdout, &recs[i]))
				return 1;
		return fflush(stdout) ? 1 : 0;
	}
	if (argc == 2 && !strcmp(argv[1], "text")) {
		for (int i = 0; i < n; i++)
			ck_rec_print_text(stdout, &recs[i]);
		return fflush(stdout) ? 1 : 0;
	}
	fprintf(stderr, "usage: escape-check stream|text\n");
	return 64;
}
