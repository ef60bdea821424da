/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by cookie-trace.bpf.c (kernel side) and cookie-trace.c
 * (loader).  Fixed-size types only; never includes vmlinux.h.
 */
#ifndef COOKIE_TRACE_H
#define COOKIE_TRACE_H

#define TASK_COMM_LEN	16
#define NAME_LEN	256	/* EXT4_NAME_LEN 255 + room for the verifier's bound */
#define MAX_CHAIN	8	/* fname->next names walked per call_filldir */

/* The numbers of enum ck_rec_kind (lib/record.h): cookie-trace-rec.h checks it. */
enum event_kind {
	EV_FILLDIR = 2,
	EV_LLSEEK_ENTRY = 3,
	EV_LLSEEK_EXIT = 4,
	EV_COLLISION = 6,	/* --collisions */
};

/* The bits of CK_REC_F_* (lib/record.h), checked likewise. */
#define EVF_NFSD	0x01
#define EVF_COMPAT	0x02
#define EVF_FMODE32	0x04
#define EVF_FMODE64	0x08
#define EVF_TRUNC	0x10

/*
 * One ring-buffer record.  The name is last and the record is reserved in
 * size classes (32, 64, 128, NAME_LEN bytes of name), not at NAME_LEN: a typical 13-byte name
 * costs a 32-byte tail instead of 256 in the ring and in the reader's copy.
 * The reader takes name_len bytes of name[].
 */
/* The fixed fields of a ring record, shared by struct event and struct coll_event. */
#define EVENT_FIXED_FIELDS						\
	__u64 ts_ns;							\
	__u64 dir_ino;							\
	__u64 ino;							\
	__u64 cookie;		/* filldir: ctx->pos; llseek: f_pos */	\
	__s64 offset;							\
	__s64 result;							\
	__u32 pid;							\
	__u32 tgid;							\
	__u32 kind;							\
	__u32 flags;							\
	__u32 f_mode;							\
	__u32 dev;		/* sb->s_dev, kernel encoding */	\
	__u32 major;							\
	__u32 minor;							\
	__u32 chain_index;						\
	__u32 chain_len;						\
	__u32 whence;							\
	__u32 name_len;							\
	char comm[TASK_COMM_LEN];

struct event {
	EVENT_FIXED_FIELDS
	unsigned char name[];
};

/*
 * --collisions: a name whose cookie another name of the same directory
 * and width already had.  The event fields are the later name's (kind
 * EV_COLLISION); the earlier name follows.  Rare, so one fixed size.
 * other_name_len 0: the earlier name's bytes were no longer in memory
 * (its inode and hashes are still exact).
 */
struct coll_event {
	EVENT_FIXED_FIELDS
	__u64 other_ino;
	__u32 other_major;
	__u32 other_minor;
	__u32 other_name_len;
	__u32 pad;
	unsigned char name[NAME_LEN];
	unsigned char other_name[NAME_LEN];
};

/*
 * --collisions: the counts of one directory and cookie width class (wc 0:
 * 31-bit cookies, 1: 63-bit, as lib/collide.h classes them; COLL_WC_SEEKS:
 * the directory's seeks, any width), kept by the BPF side in coll_dirs and
 * read by the loader, which sends them as SUMMARY records.
 */
#define COLL_WC_SEEKS	2
struct coll_dir_key {
	__u64 dir_ino;
	__u32 dev;
	__u32 wc;
};
/*
 * Names checked and put in the table are counted per CPU while a CPU stays
 * in one directory and width (no map lookup per name), and added to
 * coll_dirs when it moves on; the loader adds what is pending (coll_pend).
 */
struct coll_pending {
	struct coll_dir_key k;
	__u64 names;
	__u64 distinct;
};
/* The collision table's key, value and slot, and a CPU's last name (the BPF side's coll_prev). */
struct coll_key {
	__u64 dir_ino;
	__u64 cookie;
	__u32 dev;
	__u32 wc;
};
struct coll_val {
	__u64 ino;
	__u64 name;		/* where the name was (a pointer into its fname) */
	__u32 major;
	__u32 minor;
	__u32 name_len;
	__u32 pad;
};
/* A slot of the BPF side's coll_table: state 0 empty, 1 being filled, 2 holds k and v. */
struct coll_slot {
	struct coll_key k;
	struct coll_val v;
	__u64 state;
};
struct coll_prev {
	struct coll_key k;
	struct coll_val v;
	struct coll_pending pend;	/* the loader reads it: the map is coll_prev */
};
struct coll_dir_stats {
	__u64 names;		/* names checked (every pass again) */
	__u64 unchecked;	/* not checked: the table was full */
	__u64 collisions;	/* COLLISION records sent */
	__u64 seeks;		/* ext4_dir_llseek calls (COLL_WC_SEEKS only) */
	__u64 distinct;		/* names the table holds */
	__u32 full;		/* the table refused one of this directory's names */
	__u32 pad;
};

#endif
