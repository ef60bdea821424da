/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cookiekit trace record stream: what cookie-trace writes (-w FILE, the
 * virtio port ck.trace, stdout with --format record) and what every reader
 * (cookie-groups, cookie-top, replay) parses.  This header, this comment
 * and the field tables below, is the one place the format is documented;
 * lib/record.c is the one parser and writer.
 *
 * STREAM
 *   A stream is a sequence of records.  The first record a writer emits is a
 *   HELLO; a reader may join a stream in the middle (the virtio port keeps no
 *   history), so HELLO is expected, not required.  There is no stream
 *   trailer: a stream ends where the bytes end.
 *
 * RECORD (all integers little-endian, no padding, no alignment)
 *   off size field
 *     0    2  magic     0x63 0x6b ("ck")
 *     2    1  version   CK_REC_VERSION (2): 1 for the kinds HELLO..DROP
 *                       (recordings made before version 2 parse unchanged),
 *                       2 adds COLLISION and SUMMARY; a writer of version 2
 *                       stamps every record 2
 *     3    1  kind      enum ck_rec_kind
 *     4    2  len       whole record in bytes, header included
 *     6    2  reserved  0 (a reader ignores it)
 *     8    4  crc       CRC-32 (IEEE, as zlib's crc32) of bytes [0,8) and
 *                       [12,len): the header without this field, then the body
 *    12  ...  body      per kind, below
 *
 *   A reader that meets bytes that are not a record (bad magic, version 0
 *   or above 15, len out of range for a known kind, crc mismatch) skips forward to the next "ck" magic that starts a
 *   valid record and reports how many bytes it skipped; a record whose
 *   version it does not know is skipped whole (len tells how far) and
 *   reported.  Future versions may append fields to a body: a reader takes
 *   the fields it knows and ignores the rest, and a body shorter than the
 *   fields of its kind is an error (the record is skipped).
 *
 * BODIES
 *   Each kind's fixed fields, their offsets, sizes and types, are the tables
 *   CK_REC_EVENT_FIELDS, CK_REC_DROP_FIELDS and CK_REC_HELLO_FIELDS below:
 *   lib/record.c's encoder, decoder and JSON are made from them, and the
 *   compiler checks that each field starts where the one before it ends.
 *   What the fields mean:
 *
 * EVENT kinds (FILLDIR, LLSEEK_ENTRY, LLSEEK_EXIT), 108 bytes, then the name
 *   ts_ns       bpf_ktime_get_ns() (CLOCK_MONOTONIC) of the event; a writer
 *               with a coarse clock (its HELLO text says clock=coarse) gives
 *               the time of the first event of the same tick on the same CPU
 *               (resolution 1/HZ)
 *   pid, tgid   thread id (kernel pid), process id (kernel tgid)
 *   comm        task comm, NUL-padded (not necessarily terminated)
 *   flags       CK_REC_F_* below
 *   f_mode      the file's f_mode (FMODE_32BITHASH 0x200, _64BITHASH 0x400)
 *   dev         the directory's st_dev, kernel encoding (MAJOR<<20|MINOR)
 *   dir_ino     the directory's inode number
 *   ino         FILLDIR: the name's inode number; else 0
 *   major       FILLDIR: fname->hash; else 0
 *   minor       FILLDIR: fname->minor_hash; else 0
 *   cookie      FILLDIR: ctx->pos after call_filldir set it, the d_off the
 *               caller gets for this name; LLSEEK_*: file->f_pos at the probe
 *   chain_index FILLDIR: 0 for the first name of a fname->next chain (names
 *               sharing both hashes), 1 for the next...
 *   chain_len   FILLDIR: names in this chain (1: no sharing)
 *   offset      LLSEEK_*: the requested offset; else 0
 *   whence      LLSEEK_*: SEEK_SET 0, SEEK_CUR 1, SEEK_END 2...; else 0
 *   result      LLSEEK_EXIT: the return value (new pos or -errno)
 *   name_len    0..255
 *   reserved    0
 *   name        at offset 108, FILLDIR: the name, name_len raw bytes (any
 *               byte, no NUL)
 *
 * COLLISION (version 2), 128 bytes, then the two names: cookie-trace
 * --collisions saw a name get a cookie that another name of the same
 * directory had already got at the same width.  The event fields (first
 * 108 bytes, as FILLDIR) are the later name's; chain_index/chain_len 0.
 * Then, at offset 108, CK_REC_COLL_FIELDS, the earlier name:
 *   other_ino, other_major, other_minor   as ino, major, minor
 *   other_name_len  0..255
 *   name        at offset 128: name_len bytes, then other_name_len bytes
 *               of other_name
 *
 * SUMMARY (version 2), 64 bytes: cookie-trace --collisions' counts for one
 * directory and width (CK_REC_SUMMARY_FIELDS), sent every interval while
 * they change, at once when its table fills, and at exit
 *   ts_ns, dev, dir_ino   as in events
 *   bits        the cookie width: 31 or 63
 *   names       names checked against the table (each name once per pass
 *               of a reader; a name met again in a later pass is counted
 *               again but is no collision)
 *   unchecked   names not checked: the table (--table-size) was full, or
 *               (without CK_REC_S_FULL) the name raced another CPU's insert
 *   collisions  COLLISION records sent for this directory and width
 *   seeks       ext4_dir_llseek calls on this directory (any width)
 *   sflags      CK_REC_S_* below
 *   distinct    distinct names of this directory and width the table holds
 *               (first names of their cookies, and later names that
 *               collided): what a per-name stream's reader counts as the
 *               directory's names, as far as the table could hold them
 *               (was a reserved 0 until the first writer of SUMMARY)
 *
 * DROP, 24 bytes: records the kernel side could not deliver
 *   ts_ns       monotonic time the writer noticed
 *   lost        lost since the previous DROP record (> 0)
 *   lost_total  lost since the writer started
 *
 * HELLO, 16 bytes, then the text
 *   ts_ns       monotonic time at the writer's start
 *   flags       CK_REC_H_* below
 *   text_len    0..CK_REC_TEXT_MAX
 *   reserved    0
 *   text        at offset 16: "key=value" words separated by spaces, e.g.
 *               "writer=cookie-trace kernel=6.1.192 filldir=fentry llseek=fentry"
 */
#ifndef CK_RECORD_H
#define CK_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CK_REC_VERSION   2
#define CK_REC_VERSION_MIN 1  /* the oldest version this reader parses */
#define CK_REC_VERSION_MAX 15 /* a header claiming a higher version is garbage */
#define CK_REC_MAGIC0    0x63 /* 'c' */
#define CK_REC_MAGIC1    0x6b /* 'k' */
#define CK_REC_HDR_LEN   12
#define CK_REC_EVENT_LEN 108  /* event body without the name */
#define CK_REC_DROP_LEN  24
#define CK_REC_COLL_LEN  20   /* the earlier name's fields, after the event's 108 */
#define CK_REC_SUMMARY_LEN 64
#define CK_REC_HELLO_LEN 16   /* hello body without the text */
#define CK_REC_NAME_MAX  255
#define CK_REC_TEXT_MAX  1024
#define CK_REC_COMM_LEN  16
/* Largest record a writer of this version makes; a reader accepts up to 65535. */
#define CK_REC_MAX_LEN   (CK_REC_HDR_LEN + CK_REC_HELLO_LEN + CK_REC_TEXT_MAX)
_Static_assert(CK_REC_EVENT_LEN + CK_REC_COLL_LEN + 2 * CK_REC_NAME_MAX <=
	       CK_REC_HELLO_LEN + CK_REC_TEXT_MAX, "a COLLISION record outgrows CK_REC_MAX_LEN");

enum ck_rec_kind {
	CK_REC_HELLO = 1,
	CK_REC_FILLDIR = 2,
	CK_REC_LLSEEK_ENTRY = 3,
	CK_REC_LLSEEK_EXIT = 4,
	CK_REC_DROP = 5,
	CK_REC_COLLISION = 6,	/* version 2 */
	CK_REC_SUMMARY = 7,	/* version 2 */
};

/*
 * The fixed fields of each body, in wire order:
 *   X(member, off, size, wire, json, shown)
 *   member  the struct ck_rec member; also its JSON key
 *   off     byte offset in the body; size: bytes on the wire
 *   wire    U16, U32, U64 unsigned; S64 signed (two's complement); STR bytes,
 *           NUL-padded; LEN a U16, the length of the bytes that follow the
 *           fixed fields; PAD written as 0, never read.  Little-endian.
 *   json    NUM a number; STR a string; FLAGS the flags as nfsd, compat,
 *           fmode32, fmode64 and the width; COOKIE the cookie, called "pos"
 *           in the llseek kinds (there it is f_pos); NONE not shown
 *   shown   the kinds whose JSON shows it (CK_REC_SHOWN_*)
 */
#define CK_REC_EVENT_FIELDS(X)                             \
	X(ts_ns,         0,  8, U64, NUM,    EVENT)       \
	X(pid,           8,  4, U32, NUM,    EVENT)       \
	X(tgid,         12,  4, U32, NUM,    EVENT)       \
	X(comm,         16, 16, STR, STR,    EVENT)       \
	X(flags,        32,  4, U32, FLAGS,  EVENT)       \
	X(f_mode,       36,  4, U32, NUM,    EVENT)       \
	X(dev,          40,  4, U32, NUM,    EVENT)       \
	X(dir_ino,      44,  8, U64, NUM,    EVENT)       \
	X(ino,          52,  8, U64, NUM,    FILLDIR)     \
	X(major,        60,  4, U32, NUM,    FILLDIR)     \
	X(minor,        64,  4, U32, NUM,    FILLDIR)     \
	X(cookie,       68,  8, U64, COOKIE, EVENT)       \
	X(chain_index,  76,  4, U32, NUM,    FILLDIR)     \
	X(chain_len,    80,  4, U32, NUM,    FILLDIR)     \
	X(offset,       84,  8, S64, NUM,    LLSEEK)      \
	X(whence,       92,  4, U32, NUM,    LLSEEK)      \
	X(result,       96,  8, S64, NUM,    LLSEEK_EXIT) \
	X(name_len,    104,  2, LEN, NONE,   NONE)        \
	X(reserved,    106,  2, PAD, NONE,   NONE)
	/* then name_len bytes of name, shown in FILLDIR */

/* COLLISION: after the event fields, at body offset 108 (offsets here from there). */
#define CK_REC_COLL_FIELDS(X)                              \
	X(other_ino,      0,  8, U64, NUM,    COLLISION)   \
	X(other_major,    8,  4, U32, NUM,    COLLISION)   \
	X(other_minor,   12,  4, U32, NUM,    COLLISION)   \
	X(other_name_len, 16, 2, LEN, NONE,   NONE)        \
	X(reserved2,     18,  2, PAD, NONE,   NONE)
	/* then name_len bytes of name and other_name_len bytes of other_name */

#define CK_REC_SUMMARY_FIELDS(X)                           \
	X(ts_ns,         0,  8, U64, NUM,    ANY)         \
	X(dev,           8,  4, U32, NUM,    ANY)         \
	X(bits,         12,  4, U32, NUM,    ANY)         \
	X(dir_ino,      16,  8, U64, NUM,    ANY)         \
	X(names,        24,  8, U64, NUM,    ANY)         \
	X(unchecked,    32,  8, U64, NUM,    ANY)         \
	X(collisions,   40,  8, U64, NUM,    ANY)         \
	X(seeks,        48,  8, U64, NUM,    ANY)         \
	X(sflags,       56,  4, U32, NUM,    ANY)         \
	X(distinct,     60,  4, U32, NUM,    ANY)

#define CK_REC_DROP_FIELDS(X)                              \
	X(ts_ns,         0,  8, U64, NUM,    ANY)         \
	X(lost,          8,  8, U64, NUM,    ANY)         \
	X(lost_total,   16,  8, U64, NUM,    ANY)

#define CK_REC_HELLO_FIELDS(X)                             \
	X(ts_ns,         0,  8, U64, NUM,    ANY)         \
	X(flags,         8,  4, U32, NUM,    ANY)         \
	X(text_len,     12,  2, LEN, NONE,   NONE)        \
	X(reserved,     14,  2, PAD, NONE,   NONE)
	/* then text_len bytes of text, shown */

/* The "shown" column: sets of kinds, one bit per kind. */
#define CK_REC_SHOWN(kind)        (1u << (kind))
#define CK_REC_SHOWN_COLLISION    CK_REC_SHOWN(CK_REC_COLLISION)
/* FILLDIR's fields are the later name's in a COLLISION too. */
#define CK_REC_SHOWN_FILLDIR      (CK_REC_SHOWN(CK_REC_FILLDIR) | CK_REC_SHOWN_COLLISION)
#define CK_REC_SHOWN_LLSEEK       (CK_REC_SHOWN(CK_REC_LLSEEK_ENTRY) | CK_REC_SHOWN(CK_REC_LLSEEK_EXIT))
#define CK_REC_SHOWN_LLSEEK_EXIT  CK_REC_SHOWN(CK_REC_LLSEEK_EXIT)
#define CK_REC_SHOWN_EVENT        (CK_REC_SHOWN_FILLDIR | CK_REC_SHOWN_LLSEEK)
#define CK_REC_SHOWN_ANY          (~0u)
#define CK_REC_SHOWN_NONE         0u

/* Event flags: who asked, and how ext4 will size the cookie for them. */
#define CK_REC_F_NFSD     0x01 /* the task is an nfsd thread */
#define CK_REC_F_COMPAT   0x02 /* the task is in a 32-bit (compat) syscall */
#define CK_REC_F_FMODE32  0x04 /* file has FMODE_32BITHASH */
#define CK_REC_F_FMODE64  0x08 /* file has FMODE_64BITHASH */
#define CK_REC_F_TRUNC    0x10 /* FILLDIR: the chain was longer than the tracer walks */

/* Summary flags. */
#define CK_REC_S_FULL     0x01 /* the collision table was full: `unchecked` names were not checked */
#define CK_REC_S_FINAL    0x02 /* the writer's last summary of this directory (it is stopping) */

/* Hello flags: how the writer attached. */
#define CK_REC_H_FENTRY   0x01 /* fentry/fexit (else kprobes) */
#define CK_REC_H_FILTERED 0x02 /* the writer filters events (--dir/--pid/--comm/--nfsd-only) */

/* One decoded record.  Fields a kind does not carry are zero. */
struct ck_rec {
	enum ck_rec_kind kind;
	uint8_t version;
	uint64_t ts_ns;
	/* events */
	uint32_t pid, tgid;
	char comm[CK_REC_COMM_LEN + 1]; /* always NUL-terminated */
	uint32_t flags;
	uint32_t f_mode;
	uint32_t dev;
	uint64_t dir_ino;
	uint64_t ino;
	uint32_t major, minor;
	uint64_t cookie;
	uint32_t chain_index, chain_len;
	int64_t offset;
	uint32_t whence;
	int64_t result;
	uint16_t name_len;
	uint8_t name[CK_REC_NAME_MAX + 1]; /* name_len bytes, then a NUL */
	/* COLLISION: the earlier name */
	uint64_t other_ino;
	uint32_t other_major, other_minor;
	uint16_t other_name_len;
	uint8_t other_name[CK_REC_NAME_MAX + 1];
	/* SUMMARY */
	uint32_t bits, sflags, distinct;
	uint64_t names, unchecked, collisions, seeks;
	/* DROP */
	uint64_t lost, lost_total;
	/* HELLO (flags above hold CK_REC_H_*) */
	uint16_t text_len;
	char text[CK_REC_TEXT_MAX + 1];    /* text_len bytes, then a NUL */
};

/*
 * The cookie width, in bits, ext4 chooses for this caller (fs/ext4/dir.c
 * is_32bit_api and hash2pos): 31 with FMODE_32BITHASH, 63 with
 * FMODE_64BITHASH, else 31 for a compat task and 63 for a native one.  What
 * 'after' does; 'before' answers 31 for everyone, which the recorded
 * cookie shows.
 */
int ck_rec_width(const struct ck_rec *r);

const char *ck_rec_kind_name(enum ck_rec_kind kind); /* "filldir", ... or "?" */

/*
 * Encode `r` into buf (at least CK_REC_MAX_LEN bytes).  Returns the record's
 * length, or -1 (errno EINVAL) for an unknown kind or an oversized name/text.
 */
int ck_rec_encode(const struct ck_rec *r, uint8_t *buf, size_t size);

/*
 * A HELLO record, its text built word by word within CK_REC_TEXT_MAX:
 * ck_rec_hello_start() empties r into a HELLO; ck_rec_hello_add() appends
 * one or more "key=value" words (a space before them unless they are the
 * first) whole, or returns -1 (errno ENOSPC) and leaves the text as it was.
 */
void ck_rec_hello_start(struct ck_rec *r, uint64_t ts_ns, uint32_t flags);
int ck_rec_hello_add(struct ck_rec *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Write the header CRC of the len bytes at rec (len >= CK_REC_HDR_LEN): what
 * ck_rec_encode does last, and what a structure-aware fuzzer does after it
 * mutated a record, so the parser looks past the checksum.
 */
void ck_rec_seal(uint8_t *rec, size_t len);

/* Encode and fwrite; returns 0 or -1 (errno set). */
int ck_rec_write(FILE *f, const struct ck_rec *r);
/* Convenience writers for the two non-event kinds. */
int ck_rec_write_hello(FILE *f, uint64_t ts_ns, uint32_t flags, const char *text);
int ck_rec_write_drop(FILE *f, uint64_t ts_ns, uint64_t lost, uint64_t lost_total);

/*
 * Streaming parser: feed it chunks of any size (one byte at a time works);
 * it calls on_record for each good record and on_error for each problem,
 * then goes on.  The callbacks' return value: 0 to continue, non-zero to
 * stop ck_rec_parser_feed, which then returns that value.
 */
struct ck_rec_parser;
typedef int (*ck_rec_record_fn)(void *arg, const struct ck_rec *r);
/* msg is one line without newline, e.g. "skipped 17 bytes of garbage at offset 4096". */
typedef int (*ck_rec_error_fn)(void *arg, uint64_t offset, const char *msg);

/* Never NULL: out of memory ends the program (ck_xcalloc). */
struct ck_rec_parser *ck_rec_parser_new(ck_rec_record_fn on_record,
					ck_rec_error_fn on_error, void *arg);
void ck_rec_parser_free(struct ck_rec_parser *p);
/* Returns 0, a callback's non-zero value, or -1 (errno ENOMEM). */
int ck_rec_parser_feed(struct ck_rec_parser *p, const void *data, size_t len);
/*
 * End of input: bytes still buffered are a truncated record (or garbage);
 * reports them through on_error.  Returns 0 if the stream ended cleanly on a
 * record boundary, 1 if it ended in the middle of something.
 */
int ck_rec_parser_finish(struct ck_rec_parser *p);

struct ck_rec_stats {
	uint64_t bytes;      /* fed so far */
	uint64_t records;    /* delivered to on_record */
	uint64_t errors;     /* reported to on_error */
	uint64_t skipped;    /* bytes skipped as garbage or unknown versions */
	uint64_t work;       /* steps: bytes checksummed plus candidate headers tried;
				linear in bytes on any input (tests bound it) */
};
void ck_rec_parser_stats(const struct ck_rec_parser *p, struct ck_rec_stats *out);

/* Read a whole FILE through a parser; returns feed's value, or -1 on read error. */
int ck_rec_parse_file(FILE *f, ck_rec_record_fn on_record,
		      ck_rec_error_fn on_error, void *arg, struct ck_rec_stats *stats);

/*
 * Text forms of one record, one line each, newline included, shared by
 * cookie-trace's --format text|json and every reader that prints records.
 * Text: "TS_S KIND COMM PID DEV:INO ..." with hex hashes and cookies;
 * JSON Lines: one object, the name as a JSON string (bytes that are not
 * printable ASCII as \u00XX, so any name round-trips byte for byte).
 */
int ck_rec_print_text(FILE *f, const struct ck_rec *r);
int ck_rec_print_json(FILE *f, const struct ck_rec *r);

/* A JSON string of arbitrary bytes: printable ASCII as is, '"' and '\\'
 * escaped, every other byte as \u00XX (byte for byte, so names stay exact). */
void ck_json_bytes(FILE *f, const uint8_t *s, size_t n);

/* The IEEE CRC-32 used in the header (zlib-compatible; crc 0 to start). */
uint32_t ck_rec_crc32(uint32_t crc, const void *data, size_t len);

#endif
