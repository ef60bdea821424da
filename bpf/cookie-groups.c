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
 * Output, one line per event: "group N: ..." when a group forms or grows,
 * and a summary at the end.  Parse problems and DROP records go to stderr,
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
#include "record.h"

static struct env {
	const char *input;	/* NULL or "-": stdin */
	bool quiet;		/* summary only */
	int dump;		/* 0, or 't'/'j': print every record instead */
} env;

const char *argp_program_version = "cookie-groups 1 (record format 1)";
static const char doc[] =
"Print collision groups (same cookie, different names, same directory) from a\n"
"cookie-trace record stream, as they happen, then a summary.\n"
"\n"
"USAGE: cookie-groups [-q] [--dump text|json] [FILE|-]\n"
"\n"
"EXAMPLES:\n"
"    cookie-trace -f record | cookie-groups\n"
"    cookie-groups /tmp/t.ckr\n"
"    cookie-groups --dump json /tmp/t.ckr   # every record as JSON Lines (replay)";

static const struct argp_option opts[] = {
	{ "quiet", 'q', NULL, 0, "Only the summary at the end", 0 },
	{ "dump", 'd', "FMT", 0, "Print every record (text or json), no groups", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'q':
		env.quiet = true;
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

struct name {
	struct name *next;
	uint64_t ino;
	uint16_t len;
	uint8_t bytes[];
};

/* One (directory, width, cookie): the names seen with it. */
struct slot {
	bool used;
	uint32_t dev;
	uint8_t width;
	uint64_t dir_ino, cookie;
	uint32_t major, minor;	/* of the first name */
	unsigned nnames;
	int group;		/* 0 until a second name makes it a group */
	struct name *names;
};

static struct slot *slots;
static size_t nslots, used;
static int ngroups;
static uint64_t nevents, nlost;

static uint64_t key_hash(uint32_t dev, uint64_t ino, uint64_t cookie, int width)
{
	uint64_t s = dev ^ ino * 0x9e3779b97f4a7c15ULL ^ cookie * 0xbf58476d1ce4e5b9ULL ^ width;
	return ck_splitmix64(&s);
}

static struct slot *find_slot(uint32_t dev, uint64_t ino, uint64_t cookie, int width)
{
	if (used * 2 >= nslots) {
		struct slot *old = slots;
		size_t oldn = nslots;

		nslots = nslots ? nslots * 2 : 4096;
		slots = calloc(nslots, sizeof(*slots));
		if (!slots) {
			fprintf(stderr, "cookie-groups: out of memory\n");
			exit(1);
		}
		for (size_t i = 0; i < oldn; i++) {
			if (!old[i].used)
				continue;
			size_t j = key_hash(old[i].dev, old[i].dir_ino, old[i].cookie, old[i].width) & (nslots - 1);
			while (slots[j].used)
				j = (j + 1) & (nslots - 1);
			slots[j] = old[i];
		}
		free(old);
	}
	size_t j = key_hash(dev, ino, cookie, width) & (nslots - 1);
	while (slots[j].used && !(slots[j].dev == dev && slots[j].dir_ino == ino &&
				  slots[j].cookie == cookie && slots[j].width == width))
		j = (j + 1) & (nslots - 1);
	return &slots[j];
}

static void print_group(FILE *f, const struct slot *s, const char *what)
{
	fprintf(f, "group %d %s: dev=%u:%u dir=%" PRIu64 " cookie=%#" PRIx64 " (%d-bit) "
		"major=%08x minor=%08x names=%u:", s->group, what, s->dev >> 20, s->dev & 0xfffff,
		s->dir_ino, s->cookie, s->width, s->major, s->minor, s->nnames);
	for (const struct name *n = s->names; n; n = n->next) {
		fputc(' ', f);
		ck_print_name(f, (const char *)n->bytes, n->len);
		fprintf(f, "(ino %" PRIu64 ")", n->ino);
	}
	fputc('\n', f);
}

static int on_record(void *arg, const struct ck_rec *r)
{
	(void)arg;
	if (env.dump)
		return (env.dump == 'j' ? ck_rec_print_json : ck_rec_print_text)(stdout, r) ? -1 : 0;
	if (r->kind == CK_REC_DROP) {
		nlost += r->lost;
		fprintf(stderr, "cookie-groups: the tracer lost %" PRIu64 " events (%" PRIu64
			" in all): groups may be incomplete\n", r->lost, r->lost_total);
		return 0;
	}
	if (r->kind != CK_REC_FILLDIR)
		return 0;
	nevents++;
	int width = ck_rec_width(r);
	/* 'before' gives everyone 31 bits whatever the flags say: trust the value. */
	if (r->cookie <= 0x7fffffff)
		width = 32;
	struct slot *s = find_slot(r->dev, r->dir_ino, r->cookie, width);
	if (!s->used) {
		*s = (struct slot){ .used = true, .dev = r->dev, .width = width, .dir_ino = r->dir_ino,
				    .cookie = r->cookie, .major = r->major, .minor = r->minor };
		used++;
	}
	for (const struct name *n = s->names; n; n = n->next)
		if (n->len == r->name_len && !memcmp(n->bytes, r->name, n->len))
			return 0;	/* the same name again (a later pass): nothing new */
	struct name *n = malloc(sizeof(*n) + r->name_len);
	if (!n) {
		fprintf(stderr, "cookie-groups: out of memory\n");
		return -1;
	}
	n->ino = r->ino;
	n->len = r->name_len;
	memcpy(n->bytes, r->name, r->name_len);
	/* Append, so names print in the order the directory gave them. */
	struct name **tail = &s->names;
	while (*tail)
		tail = &(*tail)->next;
	n->next = NULL;
	*tail = n;
	s->nnames++;
	if (s->nnames == 2)
		s->group = ++ngroups;
	if (s->nnames >= 2 && !env.quiet) {
		print_group(stdout, s, s->nnames == 2 ? "new" : "grows");
		fflush(stdout);
	}
	return 0;
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

	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return err;
	if (env.input && strcmp(env.input, "-") && !(in = fopen(env.input, "rb"))) {
		fprintf(stderr, "cookie-groups: cannot open %s: %s\n", env.input, strerror(errno));
		return 1;
	}
	err = ck_rec_parse_file(in, on_record, on_error, NULL, &st);
	if (err < 0)
		fprintf(stderr, "cookie-groups: read error: %s\n", strerror(errno));
	if (env.dump)
		return err < 0 ? 1 : 0;
	printf("summary: %" PRIu64 " filldir events, %zu distinct cookies, %d collision group%s, "
	       "%" PRIu64 " events lost, %" PRIu64 " parse errors\n", nevents, used, ngroups,
	       ngroups == 1 ? "" : "s", nlost, st.errors);
	for (size_t i = 0; i < nslots; i++)
		if (slots[i].group)
			print_group(stdout, &slots[i], "");
	return err < 0 ? 1 : 0;
}
