// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-groups: read a cookie-trace record stream and print collision
 * groups as they happen: two or more different names that one directory
 * handed out with the same cookie (at the same width).  Those are the names
 * a seekdir(telldir()) or an NFS client cannot tell apart.
 *
 *   cookie-trace -f record | cookie-groups
 *   cookie-groups trace.ckr
 *   socat -u UNIX-CONNECT:build/vm/trace.sock - | cookie-groups   (on the host)
 *
 * Output, one line per event: "group N new: ..." with both names when a
 * group forms, "group N grows: ... +NAME" with the one new name when it
 * grows (the whole group again only with --full-groups: that is quadratic
 * in a group's size), and a summary at the end listing each group once.  Parse problems and DROP records go to stderr,
 * since a group may be missing events that were lost.
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckutil.h"
#include "collide.h"
#include "record.h"

static struct env {
	const char *input;	/* NULL or "-": stdin */
	bool quiet;		/* summary only */
	bool full_groups;	/* every growth prints the whole group, not the new name */
	int dump;		/* 0, or 't'/'j': print every record instead */
} env;

void (*argp_program_version_hook)(FILE *, struct argp_state *) = ck_argp_version;
static const char doc[] =
"Print collision groups (same cookie, different names, same directory) from a\n"
"cookie-trace record stream, as they happen, then a summary.  A collision\n"
"stream (cookie-trace --collisions) gives the same groups; its summaries'\n"
"counts are added at the end, and a full table is said on stderr.\n"
"\n"
"USAGE: cookie-groups [-q] [--full-groups] [--dump text|json] [FILE|-]\n"
"\n"
"EXAMPLES:\n"
"    cookie-trace -f record | cookie-groups\n"
"    cookie-groups /tmp/t.ckr\n"
"    cookie-groups --dump json /tmp/t.ckr   # every record as JSON Lines (replay)\n"
"\n"
"EXIT STATUS (as cookie-top -b):\n"
"    0 the input was clean; 1 a read, write or setup error; 3 the input had\n"
"    damaged records, which were reported and skipped; 64 a usage error";

static const struct argp_option opts[] = {
	{ "quiet", 'q', NULL, 0, "Only the summary line at the end: no group, live or final", 0 },
	{ "dump", 'd', "FMT", 0, "Print every record (text or json), no groups", 0 },
	{ "full-groups", 'F', NULL, 0, "When a group grows, print all its names, not just the "
	  "new one (output grows as the square of a group's size)", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'q':
		env.quiet = true;
		break;
	case 'F':
		env.full_groups = true;
		break;
	case 'd':
		if (strcmp(arg, "text") && strcmp(arg, "json")) {
			fprintf(stderr, "--dump %s: use text or json\n", arg);
			argp_usage(state);
		}
		env.dump = arg[0];
		break;
	case ARGP_KEY_ARG:
		if (env.input)
			argp_usage(state);
		env.input = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The names and groups (lib/collide); ino[i] is name i's inode, for the output. */
static struct ck_groups grp;
static uint64_t *ino;
static uint32_t ino_cap;
static uint64_t nevents, nlost;

/* A collision stream (cookie-trace --collisions): its records and each directory's last SUMMARY. */
struct dir_summary {
	uint32_t dev, bits;
	uint64_t ino, names, unchecked;
	uint32_t distinct, sflags;
};
static struct dir_summary *sums;
static size_t nsums, sums_cap;
static uint64_t ncollisions, nsummaries;

static void print_member(FILE *f, uint32_t idx, const char *mark)
{
	const struct ck_name *n = &grp.names[idx];

	fprintf(f, " %s", mark);
	ck_print_name(f, (const char *)ck_name_bytes(&grp, n), n->name_len);
	fprintf(f, "(ino %" PRIu64 ")", ino[idx]);
}

/* A group's line: all its members, or (only >= 0) just that new one, "+NAME". */
static void print_group(FILE *f, const struct ck_group *g, const char *what, int64_t only)
{
	const struct ck_name *first = &grp.names[g->first];
	const struct ck_dir_id *d = &grp.dirs[g->dir];

	fprintf(f, "group %td %s: dev=%u:%u dir=%" PRIu64 " cookie=%#" PRIx64 " (%d-bit) "
		"major=%08x minor=%08x names=%u:", g - grp.groups + 1, what, d->dev >> 20,
		d->dev & 0xfffff, d->ino, g->cookie, ck_wclass_bits(g->wclass), first->major,
		first->minor, g->members);
	if (only >= 0)
		print_member(f, (uint32_t)only, "+");
	for (uint32_t i = g->first + 1; only < 0 && i; i = grp.names[i - 1].next)
		print_member(f, i - 1, "");
	fputc('\n', f);
}

/*
 * One name a directory handed out: a filldir, or either name of a
 * COLLISION (the earlier one first, as a per-name stream brings them).
 * 0, or -1 out of memory.
 */
static int add_name(const struct ck_rec *r, uint64_t cookie, uint32_t major, uint32_t minor,
		    const uint8_t *name, size_t name_len, uint64_t name_ino)
{
	int64_t dir, idx;

	if (grp.nnames == ino_cap) {
		ino_cap = ino_cap ? ino_cap * 2 : 1024;
		ino = ck_xrealloc(ino, (size_t)ino_cap * sizeof(*ino));
	}
	/* The width is the cookie's ('before' gives everyone 31 bits, whatever the flags say). */
	dir = ck_groups_dir(&grp, r->dev, r->dir_ino);
	if (dir < 0)
		return -1;
	switch (ck_groups_add(&grp, dir, cookie, major, minor, name, name_len, nevents, 0, &idx)) {
	case CK_ADD_UNTRACKED:
		return -1;
	case CK_ADD_SEEN:	/* the same name again (a later pass): nothing new */
		return 0;
	case CK_ADD_COOKIE:
		ino[idx] = name_ino;
		return 0;
	case CK_ADD_GROUP:
		ino[idx] = name_ino;
		if (!env.quiet) {
			const struct ck_group *g = &grp.groups[grp.names[idx].group - 1];
			int grows = g->members > 2;
			print_group(stdout, g, grows ? "grows" : "new",
				    grows && !env.full_groups ? idx : -1);
			ck_xflush(stdout, NULL);
		}
		return 0;
	}
	return 0;
}

/* The last SUMMARY of each directory and width; a full table said once, on stderr. */
static void on_summary(const struct ck_rec *r)
{
	struct dir_summary *d = NULL;

	nsummaries++;
	for (size_t i = 0; i < nsums && !d; i++)
		if (sums[i].dev == r->dev && sums[i].ino == r->dir_ino && sums[i].bits == r->bits)
			d = &sums[i];
	if (!d) {
		if (nsums == sums_cap) {
			sums_cap = sums_cap ? sums_cap * 2 : 16;
			sums = ck_xrealloc(sums, sums_cap * sizeof(*sums));
		}
		d = &sums[nsums++];
		memset(d, 0, sizeof(*d));
		d->dev = r->dev;
		d->ino = r->dir_ino;
		d->bits = r->bits;
	}
	if ((r->sflags & CK_REC_S_FULL) && !(d->sflags & CK_REC_S_FULL))
		fprintf(stderr, "cookie-groups: dev=%u:%u dir=%" PRIu64 " (%u-bit): the tracer's "
			"collision table is full: names are going unchecked, groups may be incomplete\n",
			r->dev >> 20, r->dev & 0xfffff, r->dir_ino, r->bits);
	d->names = r->names;
	d->unchecked = r->unchecked;
	d->distinct = r->distinct;
	d->sflags |= r->sflags;
}

static int on_record(void *arg, const struct ck_rec *r)
{
	(void)arg;
	if (env.dump) {
		if ((env.dump == 'j' ? ck_rec_print_json : ck_rec_print_text)(stdout, r))
			ck_xflush(stdout, NULL);	/* a write error, not a read error */
		return 0;
	}
	if (r->kind == CK_REC_DROP) {
		nlost += r->lost;
		fprintf(stderr, "cookie-groups: the tracer lost %" PRIu64 " events (%" PRIu64
			" in all): groups may be incomplete\n", r->lost, r->lost_total);
		return 0;
	}
	if (r->kind == CK_REC_SUMMARY) {
		on_summary(r);
		return 0;
	}
	if (r->kind == CK_REC_COLLISION) {
		/* An earlier name the tracer no longer had in memory: named by its inode. */
		char other[32];
		const uint8_t *on = r->other_name;
		size_t olen = r->other_name_len;

		ncollisions++;
		if (!olen) {
			olen = (size_t)snprintf(other, sizeof(other), "?ino=%" PRIu64, r->other_ino);
			on = (const uint8_t *)other;
		}
		if (add_name(r, r->cookie, r->other_major, r->other_minor, on, olen, r->other_ino) ||
		    add_name(r, r->cookie, r->major, r->minor, r->name, r->name_len, r->ino))
			goto nomem;
		return 0;
	}
	if (r->kind != CK_REC_FILLDIR)
		return 0;
	nevents++;
	if (add_name(r, r->cookie, r->major, r->minor, r->name, r->name_len, r->ino))
		goto nomem;
	return 0;
nomem:	/* lib/collide reports, it does not exit (cookie-top's model goes on without) */
	fprintf(stderr, "cookie-groups: out of memory\n");
	return -1;
}

static int on_error(void *arg, uint64_t off, const char *msg)
{
	(void)arg;
	fprintf(stderr, "cookie-groups: input offset %" PRIu64 ": %s\n", off, msg);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	struct ck_rec_stats st;
	FILE *in = stdin;
	int err;

	ck_output_init();
	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return err;
	if (env.input && !(in = ck_open_input(env.input))) {
		fprintf(stderr, "cookie-groups: cannot open %s: %s\n", env.input, ck_input_strerror(errno));
		return 1;
	}
	if (ck_groups_init(&grp, 0, 0)) {
		fprintf(stderr, "cookie-groups: out of memory\n");
		return 1;
	}
	err = ck_rec_parse_file(in, on_record, on_error, NULL, &st);
	if (err < 0)
		fprintf(stderr, "cookie-groups: read error: %s\n", strerror(errno));
	/* Damaged input is not a clean run: 3, as cookie-top -b says it (tui/README.md). */
	int status = err < 0 ? 1 : st.errors ? 3 : 0;
	if (env.dump)
		return status;
	printf("summary: %" PRIu64 " filldir events, %u distinct cookies, %u collision group%s, "
	       "%" PRIu64 " events lost, %" PRIu64 " parse errors\n", nevents, grp.cookie_tab.count,
	       grp.ngroups, grp.ngroups == 1 ? "" : "s", nlost, st.errors);
	if (ncollisions || nsummaries) {
		uint64_t names = 0, unchecked = 0, distinct = 0, full = 0;

		for (size_t i = 0; i < nsums; i++) {
			names += sums[i].names;
			unchecked += sums[i].unchecked;
			distinct += sums[i].distinct;
			full += !!(sums[i].sflags & CK_REC_S_FULL);
		}
		printf("collision stream: %" PRIu64 " collision records, %" PRIu64 " summaries; "
		       "last summaries: %" PRIu64 " names checked, %" PRIu64 " distinct, %" PRIu64
		       " unchecked, table full in %" PRIu64 " of %zu directory widths\n", ncollisions,
		       nsummaries, names, distinct, unchecked, full, nsums);
	}
	/* -q: the summary line only (lab 04 and the tests read it alone). */
	for (uint32_t i = 0; !env.quiet && i < grp.ngroups; i++)
		print_group(stdout, &grp.groups[i], "", -1);
	return status;
}
