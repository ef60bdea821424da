// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 04 exercise: a collision detector in BPF (README in this folder).
 * For each directory (its inode number), count the names ext4's htree readdir
 * hands to a reader (call_filldir) and how many of them carry a cookie an
 * earlier name of the same directory already had.  The loader
 * (labs/04-live/exercise/ck-detect.c, built by the grader) loads this file,
 * walks a directory and prints the map "dirs".
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

struct dirstat {
	__u64 names;	/* names handed out */
	__u64 dups;	/* names whose cookie an earlier name had */
};

struct seen_key {
	__u64 ino;	/* the directory */
	__u64 cookie;	/* a cookie handed out in it */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct dirstat);
} dirs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct seen_key);
	__type(value, __u8);
} seen SEC(".maps");

/* call_filldir() sets dctx->pos to the name's cookie (hash2pos) before
 * dir_emit(); ret 0: the name was taken. */
SEC("fexit/call_filldir")
int BPF_PROG(detect, struct file *file, struct dir_context *dctx, struct fname *fname, int ret)
{
	struct seen_key k = {};
	struct dirstat zero = {}, *st;
	__u8 one = 1;

	if (ret != 0)
		return 0;
	/* TODO 1: the directory's inode number (file->f_inode->i_ino, BPF_CORE_READ) */
	k.ino = 0;
	/* TODO 2: the cookie this name was given (the dir_context dctx's pos) */
	k.cookie = 0;
	bpf_map_update_elem(&dirs, &k.ino, &zero, BPF_NOEXIST);
	st = bpf_map_lookup_elem(&dirs, &k.ino);
	if (!st)
		return 0;
	/* TODO 3: count the name in st->names (__sync_fetch_and_add) */
	/* TODO 4: a cookie already in "seen" for this directory is a duplicate
	 * (st->dups); else remember it (bpf_map_update_elem, BPF_NOEXIST) */
	(void)one;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
