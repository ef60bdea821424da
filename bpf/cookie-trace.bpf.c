// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-trace, kernel side: one event per name ext4's htree readdir hands
 * to a caller (call_filldir), and one per ext4_dir_llseek entry and exit.
 *
 * Each hook has two programs: fentry/fexit (BTF trampolines, cheapest) and
 * kprobe/kretprobe (the fallback).  The loader autoloads one set per hook,
 * decided at run time; both sets share the emit_* functions below, which
 * read kernel memory with BPF_CORE_READ so they work in either context.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "cookie-trace.h"

/* Not in BTF (macros); fixed in the 6.1 ABI. */
#define FMODE_32BITHASH	0x200
#define FMODE_64BITHASH	0x400
#define TS_COMPAT	0x0002
#define PF_KTHREAD	0x00200000

/* Filters, set by the loader before load. 0 / empty = no filter. */
const volatile __u32 targ_tgid = 0;
const volatile __u32 targ_dev = 0;
const volatile __u64 targ_ino = 0;
const volatile char targ_comm[TASK_COMM_LEN] = {};
const volatile bool filter_comm = false;
const volatile bool nfsd_only = false;
/* Wake the reader only when this much is waiting (0: on every event). */
const volatile __u64 wakeup_bytes = 0;

/* Read by the loader through the mmapped .bss: never silent drops. */
__u64 dropped = 0;
__u64 emitted = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);	/* the loader's --ringbuf-size overrides */
} events SEC(".maps");

/* kprobe fallback: arguments saved at entry for the kretprobe. */
struct filldir_args {
	struct file *file;
	struct dir_context *ctx;
	struct fname *fname;
};
struct llseek_args {
	struct file *file;
	loff_t offset;
	int whence;
};
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct filldir_args);
} filldir_start SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct llseek_args);
} llseek_start SEC(".maps");

static __always_inline bool comm_matches(const char *comm)
{
	for (int i = 0; i < TASK_COMM_LEN; i++) {
		if (comm[i] != targ_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

static __always_inline bool is_nfsd(struct task_struct *task, const char *comm)
{
	return (BPF_CORE_READ(task, flags) & PF_KTHREAD) &&
	       comm[0] == 'n' && comm[1] == 'f' && comm[2] == 's' && comm[3] == 'd';
}

/*
 * Who and which directory; false if a filter drops the event.  Fills the
 * identity and width fields of a stack template the caller then copies.
 */
static __always_inline bool fill_identity(struct event *e, struct file *file)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 id = bpf_get_current_pid_tgid();
	struct inode *dir = BPF_CORE_READ(file, f_inode);
	__u32 f_mode;

	e->pid = (__u32)id;
	e->tgid = id >> 32;
	if (targ_tgid && e->tgid != targ_tgid)
		return false;
	e->dev = BPF_CORE_READ(dir, i_sb, s_dev);
	e->dir_ino = BPF_CORE_READ(dir, i_ino);
	if (targ_ino && (e->dir_ino != targ_ino || (targ_dev && e->dev != targ_dev)))
		return false;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	if (filter_comm && !comm_matches(e->comm))
		return false;
	e->flags = 0;
	if (is_nfsd(task, e->comm))
		e->flags |= EVF_NFSD;
	else if (nfsd_only)
		return false;
	if (BPF_CORE_READ(task, thread_info.status) & TS_COMPAT)
		e->flags |= EVF_COMPAT;
	f_mode = BPF_CORE_READ(file, f_mode);
	e->f_mode = f_mode;
	if (f_mode & FMODE_32BITHASH)
		e->flags |= EVF_FMODE32;
	if (f_mode & FMODE_64BITHASH)
		e->flags |= EVF_FMODE64;
	e->ts_ns = bpf_ktime_get_ns();
	return true;
}

static __always_inline long submit_flags(void)
{
	if (!wakeup_bytes)
		return 0;
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ?
	       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* One record per name that call_filldir handed to dir_emit() and that was taken. */
static __always_inline int emit_filldir(struct file *file, struct dir_context *ctx,
					struct fname *fname, int ret)
{
	struct event id = {};
	struct fname *stop = NULL, *f;
	__u32 len = 0, n;
	__u64 pos;

	if (!fname || !fill_identity(&id, file))
		return 0;
	/* On 1, dir_emit refused info->extra_fname: it and later names come next call. */
	if (ret) {
		struct dir_private_info *info = BPF_CORE_READ(file, private_data);
		stop = BPF_CORE_READ(info, extra_fname);
	}
	pos = BPF_CORE_READ(ctx, pos);
	/* Chain length first, so every record says "k of n". */
	f = fname;
	for (n = 0; n < MAX_CHAIN && f; n++)
		f = BPF_CORE_READ(f, next);
	if (f)
		id.flags |= EVF_TRUNC;
	f = fname;
	for (__u32 i = 0; i < MAX_CHAIN; i++) {
		struct event *e;

		if (!f || f == stop)
			break;
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (!e) {
			__sync_fetch_and_add(&dropped, 1);
		} else {
			__builtin_memcpy(e, &id, offsetof(struct event, name));
			e->kind = EV_FILLDIR;
			e->cookie = pos;
			e->major = BPF_CORE_READ(f, hash);
			e->minor = BPF_CORE_READ(f, minor_hash);
			e->ino = BPF_CORE_READ(f, inode);
			e->chain_index = i;
			e->chain_len = n;
			len = BPF_CORE_READ(f, name_len);
			e->name_len = len;
			bpf_probe_read_kernel(e->name, len & (NAME_LEN - 1), f->name);
			bpf_ringbuf_submit(e, submit_flags());
			__sync_fetch_and_add(&emitted, 1);
		}
		f = BPF_CORE_READ(f, next);
	}
	return 0;
}

static __always_inline int emit_llseek(int kind, struct file *file, loff_t offset,
				       int whence, loff_t result)
{
	struct event *e;
	struct event id = {};

	if (!fill_identity(&id, file))
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&dropped, 1);
		return 0;
	}
	__builtin_memcpy(e, &id, offsetof(struct event, name));
	e->kind = kind;
	e->cookie = BPF_CORE_READ(file, f_pos);
	e->offset = offset;
	e->whence = whence;
	e->result = result;
	bpf_ringbuf_submit(e, submit_flags());
	__sync_fetch_and_add(&emitted, 1);
	return 0;
}

/* ---- fentry/fexit */

SEC("fexit/call_filldir")
int BPF_PROG(filldir_fexit, struct file *file, struct dir_context *dctx,
	     struct fname *fname, int ret)
{
	return emit_filldir(file, dctx, fname, ret);
}

SEC("fentry/ext4_dir_llseek")
int BPF_PROG(llseek_fentry, struct file *file, loff_t offset, int whence)
{
	return emit_llseek(EV_LLSEEK_ENTRY, file, offset, whence, 0);
}

SEC("fexit/ext4_dir_llseek")
int BPF_PROG(llseek_fexit, struct file *file, loff_t offset, int whence, loff_t ret)
{
	return emit_llseek(EV_LLSEEK_EXIT, file, offset, whence, ret);
}

/* ---- kprobe/kretprobe fallback */

SEC("kprobe/call_filldir")
int BPF_KPROBE(filldir_kprobe, struct file *file, struct dir_context *dctx, struct fname *fname)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct filldir_args a = { .file = file, .ctx = dctx, .fname = fname };

	bpf_map_update_elem(&filldir_start, &tid, &a, BPF_ANY);
	return 0;
}

SEC("kretprobe/call_filldir")
int BPF_KRETPROBE(filldir_kretprobe, int ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct filldir_args *a = bpf_map_lookup_elem(&filldir_start, &tid);

	if (!a)
		return 0;
	emit_filldir(a->file, a->ctx, a->fname, ret);
	bpf_map_delete_elem(&filldir_start, &tid);
	return 0;
}

SEC("kprobe/ext4_dir_llseek")
int BPF_KPROBE(llseek_kprobe, struct file *file, loff_t offset, int whence)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct llseek_args a = { .file = file, .offset = offset, .whence = whence };

	bpf_map_update_elem(&llseek_start, &tid, &a, BPF_ANY);
	return emit_llseek(EV_LLSEEK_ENTRY, file, offset, whence, 0);
}

SEC("kretprobe/ext4_dir_llseek")
int BPF_KRETPROBE(llseek_kretprobe, loff_t ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct llseek_args *a = bpf_map_lookup_elem(&llseek_start, &tid);

	if (!a)
		return 0;
	emit_llseek(EV_LLSEEK_EXIT, a->file, a->offset, a->whence, ret);
	bpf_map_delete_elem(&llseek_start, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
