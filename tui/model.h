/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-top's model: what the record stream says about directories,
 * cookies, collisions and readers.  It never calls curses and never reads a
 * clock of its own (the caller passes the host time), so tests drive it
 * with synthetic streams and exact expectations.
 *
 * MEMORY (stated, bounded)
 *   per tracked name   sizeof(struct tm_name) + the name's bytes + two hash
 *                      slots (4 B each, tables kept at most 1/2 full):
 *                      ~56 B + name length; names beyond max_names are
 *                      counted (names_untracked) but not tracked.
 *   per directory      sizeof(struct tm_dir), at most max_dirs.
 *   per reader         sizeof(struct tm_reader), at most TM_READERS_MAX;
 *                      the least recently active one is recycled.
 *   event tail         TM_TAIL events (ring), old ones age out; every
 *                      count (records, events, drops, per directory) stays
 *                      exact regardless.
 */
#ifndef CK_TUI_MODEL_H
#define CK_TUI_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include "collide.h"
#include "record.h"

#define TM_TAIL          4096
#define TM_READERS_MAX   4096
#define TM_STRIP_BUCKETS 1024  /* occupancy of the 31-bit cookie space (major>>1) */
#define TM_LOOP_REPEATS  2     /* seeks back to one cookie without progress = loop
                                 * (dirprobe's watchdog, K=3 returns, stops after 3 repeats) */
#define TM_NAMES_DEFAULT 4000000u
#define TM_DIRS_DEFAULT  65536u

/* Width classes: what the recorded cookie is, not what the flags ask (lib/collide.h). */
enum tm_wclass { TM_W31 = CK_W31, TM_W63 = CK_W63, TM_NW = CK_NW };

/* Why ext4 sizes the cookie as it does for this caller (bits, OR-ed per directory). */
#define TM_R_FMODE32   0x01 /* file has FMODE_32BITHASH (NFSv2 nfsd) */
#define TM_R_FMODE64   0x02 /* file has FMODE_64BITHASH (NFSv3/4 nfsd) */
#define TM_R_COMPAT    0x04 /* 32-bit (compat) task, no flag */
#define TM_R_NATIVE    0x08 /* 64-bit task, no flag */
#define TM_R_NFSD      0x10 /* reader is nfsd */
#define TM_R_PRE34     0x20 /* asked for 63 bits, got 31: a pre-3.4 kernel ('before') */

/* Names and collision groups are the collision core's records (lib/collide.h). */
#define tm_name  ck_name
#define tm_group ck_group

struct tm_dir {
	uint32_t dev;
	uint64_t ino;
	uint64_t events, filldirs, seeks;
	uint64_t names[TM_NW], cookies[TM_NW], groups[TM_NW], pairs[TM_NW];
	/*
	 * names and cookies above are what is shown: in a per-name stream the
	 * names the model tracked; in a collision stream (cookie-trace
	 * --collisions, which sends only the names that collide) the larger of
	 * that and the last SUMMARY's distinct names.  cookies = names - the
	 * names that joined a group (grouped).
	 */
	uint64_t tracked[TM_NW], grouped[TM_NW], summary_names[TM_NW];
	uint64_t checked[TM_NW], unchecked[TM_NW]; /* the last SUMMARY's names and unchecked */
	uint32_t full;       /* bit per width class: the writer's table was full */
	uint64_t seek_records, summary_seeks; /* seeks = the larger: records, or the last SUMMARY's */
	uint32_t reasons;    /* TM_R_* seen */
	uint32_t loops;      /* readers flagged looping here */
	uint64_t last_seq;
	char last_comm[CK_REC_COMM_LEN + 1];
};

struct tm_reader {
	uint32_t tgid, pid;
	uint32_t dir;
	uint8_t nfsd, used, looping;
	char comm[CK_REC_COMM_LEN + 1];
	uint64_t filldirs, seeks;
	uint64_t last_cookie;    /* of the last filldir */
	uint64_t high;           /* highest filldir cookie since the last seek to 0 */
	uint64_t seek_off;       /* last SEEK_SET target */
	uint64_t high_at_seek;   /* high when that seek happened */
	uint32_t repeats;        /* consecutive seeks to seek_off without progress */
	uint32_t dup_cookies;    /* consecutive filldirs of one cookie, different names */
	uint32_t last_name;      /* index+1 of the last filldir's name */
	uint64_t loop_cookie;
	uint64_t last_seq;
};

/* One event of the tail, self-contained (the name is copied). */
struct tm_tail_ev {
	uint64_t seq, ts_ns, cookie, dir_ino;
	int64_t offset, result;
	uint32_t pid, dev, major, minor, whence;
	uint8_t kind, width, nfsd, name_len;
	char comm[CK_REC_COMM_LEN + 1];
	uint8_t name[CK_REC_NAME_MAX];
};

struct tm_model {
	/* exact counts */
	uint64_t records, events, filldirs, seeks, hellos;
	uint64_t drops;          /* lost records the writer reported */
	uint64_t errors;         /* input problems the parser reported */
	uint64_t names_untracked;/* filldirs of new names after the cap */
	uint64_t collisions, summaries; /* COLLISION and SUMMARY records (cookie-trace --collisions) */
	uint64_t unchecked;      /* names the writer did not check (sum of the last SUMMARYs) */
	int table_full;          /* a SUMMARY said FULL: the writer's table refused names */
	int collision_stream;    /* the HELLO said mode=collisions, or such records came */
	uint64_t dirs_untracked; /* events of new directories after the cap */
	uint64_t first_ts, last_ts;
	char hello[128];         /* the writer's HELLO text */
	char last_error[160];

	/* names, collision groups and the directory index: the collision core */
	struct ck_groups grp;
	/* read-only views of grp for the renderer, kept current by tm_ingest */
	const struct tm_name *names;
	const struct tm_group *groups;
	uint32_t nnames, ngroups;

	struct tm_dir *dirs;     /* by grp's directory index */
	uint32_t ndirs, dirs_cap;

	struct tm_reader readers[TM_READERS_MAX];
	uint32_t nreaders, loops, last_reader;

	uint32_t strip[TM_NW][TM_STRIP_BUCKETS];   /* names per bucket of the cookie's top bits */
	uint8_t strip_coll[TM_NW][TM_STRIP_BUCKETS];

	struct tm_tail_ev tail[TM_TAIL];
	uint64_t tail_seq;       /* events ever put in the tail; tail[(seq-1) % TM_TAIL] is newest */
};

/* max_names / max_dirs 0: defaults.  Returns 0 or -1 (ENOMEM). */
int tm_init(struct tm_model *m, uint32_t max_names, uint32_t max_dirs);
void tm_free(struct tm_model *m);

/* Take one decoded record; `now` is host time in seconds (highlighting only). */
void tm_ingest(struct tm_model *m, const struct ck_rec *r, double now);
/* An input problem (from the parser's on_error). */
void tm_input_error(struct tm_model *m, uint64_t offset, const char *msg);

static inline const uint8_t *tm_name_bytes(const struct tm_model *m, const struct tm_name *n)
{
	return ck_name_bytes(&m->grp, n);
}
const struct tm_tail_ev *tm_tail_get(const struct tm_model *m, uint64_t back); /* 0 = newest; NULL past the end */

/* Birthday expectation for n names in a space of 2^bits: expected colliding
 * pairs n(n-1)/2^(bits+1), and P(at least one) = 1 - exp(-that). */
double tm_birthday_pairs(uint64_t n, int bits);
double tm_birthday_p(uint64_t n, int bits);
int tm_wclass_bits(int wclass); /* 31 or 63 */
/* "FMODE_32BITHASH nfsd", "compat task", ... for a TM_R_* mask. */
void tm_reasons_text(uint32_t reasons, char *buf, size_t size);

/* Bytes the model holds now (what the memory statement counts). */
size_t tm_memory(const struct tm_model *m);

#endif
