// SPDX-License-Identifier: GPL-2.0
/*
 * ring-floor, kernel side: XDP programs run only by BPF_PROG_TEST_RUN (no
 * device, no packet path), each doing one piece of what cookie-trace's
 * call_filldir program does per name.  The loader times each over many
 * runs; the difference from `empty` is the piece's own cost.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "ring-floor.h"

/* Reservations and outputs the ring refused: a reading with any is void. */
__u64 failed;

/* Fills read this, so clang cannot fold the stores away. */
const volatile __u64 val = 7;
/* cookie-trace's default: wake the reader once a quarter of its 16 MiB ring waits. */
const volatile __u64 wakeup_bytes = 4 << 20;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct floor_record);
} staged SEC(".maps");

struct big { unsigned char b[FLOOR_BIG]; };
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct big);
} big SEC(".maps");

/* The fields cookie-trace's emit_filldir stores, with a 13-byte name. */
static __always_inline void fill(struct floor_record *r)
{
	struct event *e = (struct event *)r->bytes;

	e->ts_ns = val;
	e->dir_ino = val;
	e->ino = val;
	e->cookie = val;
	e->offset = 0;
	e->result = 0;
	e->pid = val;
	e->tgid = val;
	e->kind = EV_FILLDIR;
	e->flags = val;
	e->f_mode = val;
	e->dev = val;
	e->major = val;
	e->minor = val;
	e->chain_index = 0;
	e->chain_len = 1;
	e->whence = 0;
	e->name_len = 13;
	((__u64 *)e->comm)[0] = val;
	((__u64 *)e->comm)[1] = val;
	((__u64 *)e->name)[0] = val;
	((__u64 *)e->name)[1] = val;
}

SEC("xdp")
int empty(struct xdp_md *ctx)
{
	return XDP_PASS;
}

SEC("xdp")
int ktime(struct xdp_md *ctx)
{
	return bpf_ktime_get_ns() ? XDP_PASS : XDP_DROP;
}

SEC("xdp")
int reserve_discard(struct xdp_md *ctx)
{
	__u64 *p = bpf_ringbuf_reserve(&rb, sizeof(*p), 0);

	if (p)
		bpf_ringbuf_discard(p, BPF_RB_NO_WAKEUP);
	else
		__sync_fetch_and_add(&failed, 1);
	return XDP_PASS;
}

/* Reserve, fill and submit one record; wakeup as cookie-trace decides it, or none. */
static __always_inline int put_record(bool query)
{
	struct floor_record *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);

	if (r) {
		fill(r);
		bpf_ringbuf_submit(r, query && bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) >= wakeup_bytes ?
				      BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	} else {
		__sync_fetch_and_add(&failed, 1);
	}
	return XDP_PASS;
}

SEC("xdp")
int record(struct xdp_md *ctx)
{
	return put_record(false);
}

SEC("xdp")
int record_query(struct xdp_md *ctx)
{
	return put_record(true);
}

/* The record filled in this CPU's slot of a map, as a batching tracer would stage it. */
static __always_inline struct floor_record *staged_record(void)
{
	__u32 zero = 0;
	struct floor_record *r = bpf_map_lookup_elem(&staged, &zero);

	if (r)
		fill(r);
	return r;
}

SEC("xdp")
int stage(struct xdp_md *ctx)
{
	staged_record();
	return XDP_PASS;
}

SEC("xdp")
int copy_record(struct xdp_md *ctx)
{
	struct floor_record *r = staged_record();

	if (r && bpf_ringbuf_output(&rb, r, sizeof(*r), BPF_RB_NO_WAKEUP))
		__sync_fetch_and_add(&failed, 1);
	return XDP_PASS;
}

SEC("xdp")
int copy_4k(struct xdp_md *ctx)
{
	__u32 zero = 0;
	struct big *b = bpf_map_lookup_elem(&big, &zero);

	if (b && bpf_ringbuf_output(&rb, b, sizeof(*b), BPF_RB_NO_WAKEUP))
		__sync_fetch_and_add(&failed, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
