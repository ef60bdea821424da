// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-trace, kernel side: one event per name ext4's htree readdir hands
 * to a caller (call_filldir), and one per ext4_dir_llseek entry and exit.
 *
 * Two ways to see the names (the loader picks one per kernel, --hooks):
 * fexit on call_filldir where the compiler left it out of line, else the
 * readdir actors it calls through ctx->actor, which no compiler can inline
 * (filldir64, filldir, compat_filldir for getdents; nfsd_buffered_filldir
 * for NFS READDIR), bracketed by ext4_readdir, the file operation.
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
#define EEXIST		17
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
/* Timestamps: re-read the clock once per tick per CPU (--clock coarse). */
const volatile bool coarse_clock = false;
/* Wake the reader only when this much is waiting (0: on every event). */
const volatile __u64 wakeup_bytes = 0;

/* --collisions: no record per name; see "the collision mode" below. */
const volatile bool collisions = false;

/* Read by the loader through the mmapped .bss: never silent drops. */
__u64 dropped = 0;
/* --collisions: names the full table refused (the loader sends summaries at once when it moves). */
__u64 coll_refused = 0;
/* --collisions: names of directories coll_dirs had no room for (counted nowhere else). */
__u64 coll_dirs_full = 0;

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

/* --clock coarse: the last bpf_ktime_get_ns() of this CPU and the tick it was read in. */
struct clock_cache {
	__u64 jiffies;
	__u64 ns;
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct clock_cache);
} clock_cache SEC(".maps");

/*
 * The event's CLOCK_MONOTONIC time.  Where the clocksource is expensive to
 * read (hpet under TCG: an emulated MMIO read, ~0.9 us per event) --clock
 * coarse reads it once per tick per CPU, so an event carries the time of
 * the first event of its tick on its CPU (resolution 1/HZ).
 */
static __always_inline __u64 event_time(void)
{
	struct clock_cache *c;
	__u32 zero = 0;
	__u64 j;

	if (!coarse_clock)
		return bpf_ktime_get_ns();
	c = bpf_map_lookup_elem(&clock_cache, &zero);
	if (!c)
		return bpf_ktime_get_ns();
	j = bpf_jiffies64();
	if (c->jiffies != j || !c->ns) {
		c->jiffies = j;
		c->ns = bpf_ktime_get_ns();
	}
	return c->ns;
}

/*
 * Kernel memory is read two ways.  fentry/fexit arguments are BTF-typed
 * pointers: a plain load is checked by the verifier and costs one
 * instruction.  Under kprobes they are plain numbers, so every field is a
 * bpf_probe_read_kernel() call (BPF_CORE_READ).  The emit_* functions take
 * `btf` as a compile-time constant and are inlined per program, so each
 * program keeps only its own kind of read; both are CO-RE relocated.
 */
#define RD(btf, p, f)		((btf) ? (p)->f : BPF_CORE_READ(p, f))
#define RD2(btf, p, f, g)	((btf) ? (p)->f->g : BPF_CORE_READ(p, f, g))
#define RD3(btf, p, f, g, h)	((btf) ? (p)->f->g->h : BPF_CORE_READ(p, f, g, h))

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

/* The identity of an event: who, which directory, which width. */
struct ident {
	__u64 ts_ns;
	__u64 dir_ino;
	__u32 pid;
	__u32 tgid;
	__u32 flags;
	__u32 f_mode;
	__u32 dev;
	char comm[TASK_COMM_LEN];
};

/* Fill id from the current task and the directory's file; false if a filter drops it. */
static __always_inline bool fill_identity(struct ident *id, struct file *file, bool btf)
{
	__u32 task_flags, status, f_mode;

	if (btf) {
		/* Task fields as loads: no helper call for pid, tgid or comm. */
		struct task_struct *task = bpf_get_current_task_btf();

		id->pid = task->pid;
		id->tgid = task->tgid;
		if (targ_tgid && id->tgid != targ_tgid)
			return false;
		/* comm is char[16]: two 8-byte loads inside the array. */
		((__u64 *)id->comm)[0] = *(__u64 *)&task->comm[0];
		((__u64 *)id->comm)[1] = *(__u64 *)&task->comm[8];
		task_flags = task->flags;
		status = task->thread_info.status;
	} else {
		struct task_struct *task = (struct task_struct *)bpf_get_current_task();
		__u64 pid_tgid = bpf_get_current_pid_tgid();

		id->pid = (__u32)pid_tgid;
		id->tgid = pid_tgid >> 32;
		if (targ_tgid && id->tgid != targ_tgid)
			return false;
		bpf_get_current_comm(id->comm, sizeof(id->comm));
		task_flags = BPF_CORE_READ(task, flags);
		status = BPF_CORE_READ(task, thread_info.status);
	}
	id->dev = RD3(btf, file, f_inode, i_sb, s_dev);
	id->dir_ino = RD2(btf, file, f_inode, i_ino);
	if (targ_ino && (id->dir_ino != targ_ino || (targ_dev && id->dev != targ_dev)))
		return false;
	if (filter_comm && !comm_matches(id->comm))
		return false;
	id->flags = 0;
	/* nfsd threads: kernel threads named nfsd. */
	if ((task_flags & PF_KTHREAD) && id->comm[0] == 'n' && id->comm[1] == 'f' &&
	    id->comm[2] == 's' && id->comm[3] == 'd')
		id->flags |= EVF_NFSD;
	else if (nfsd_only)
		return false;
	if (status & TS_COMPAT)
		id->flags |= EVF_COMPAT;
	f_mode = RD(btf, file, f_mode);
	id->f_mode = f_mode;
	if (f_mode & FMODE_32BITHASH)
		id->flags |= EVF_FMODE32;
	if (f_mode & FMODE_64BITHASH)
		id->flags |= EVF_FMODE64;
	id->ts_ns = event_time();
	return true;
}

static __always_inline void put_identity(struct event *e, const struct ident *id)
{
	e->ts_ns = id->ts_ns;
	e->dir_ino = id->dir_ino;
	e->pid = id->pid;
	e->tgid = id->tgid;
	e->flags = id->flags;
	e->f_mode = id->f_mode;
	e->dev = id->dev;
	__builtin_memcpy(e->comm, id->comm, TASK_COMM_LEN);
}

static __always_inline long submit_flags(void)
{
	if (!wakeup_bytes)
		return 0;
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ?
	       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/*
 * Reserve a record with room for a name of len bytes and copy the name in.
 * The reserve size must be a constant, hence one call per size class; the
 * mask in each branch is what lets the verifier bound the copy.
 */
#define NAME_CLASS(n)								\
	if (len < (n)) {							\
		e = bpf_ringbuf_reserve(&events, sizeof(*e) + (n), 0);		\
		if (e) {							\
			__u32 l = len;						\
			barrier_var(l);	/* else clang drops the mask as a no-op */ \
			bpf_probe_read_kernel(e->name, l & ((n) - 1), name);	\
		}								\
		return e;							\
	}
static __always_inline struct event *reserve_named(__u32 len, const char *name)
{
	struct event *e;

	NAME_CLASS(32)
	NAME_CLASS(64)
	NAME_CLASS(128)
	NAME_CLASS(NAME_LEN)
	return NULL;
}

/*
 * ---- the collision mode (--collisions)
 *
 * Per directory (dev, inode) and cookie width class, coll_table holds the
 * cookies names were given, each with the identity of the first name that
 * got it (inode, minor hash, length: enough to tell two names with one
 * cookie apart, the major hash being the cookie's own bits).  A name whose
 * cookie is new is inserted; one whose cookie is there with its own
 * identity is a name read again (a later pass, another reader): nothing; a
 * different identity is a collision, unless coll_members already holds it
 * (a later member of a group, met again in a later pass).  Only a new
 * collision reaches the ring.  When coll_table holds --table-size cookies a
 * new cookie is counted as unchecked (coll_dirs), and the loader says so
 * in-band.
 *
 * The earlier name's bytes: the BPF side keeps no names (a copy per name
 * would cost more than the record it saves), only where the name was.  In
 * a pass the names of one cookie come one after the other (the rbtree is
 * in hash order; a 63-bit cookie's names are one fname->next chain), so
 * the name just before on this CPU (coll_prev) is usually the other name,
 * still in memory; else the table's pointer to the first name.  Either is
 * read only if the fname there still has the identity recorded; if not,
 * the record carries the earlier name's inode and hashes without its bytes.
 */
/* struct coll_key, coll_val, coll_prev, coll_slot: cookie-trace.h. */
struct coll_member {
	struct coll_key k;
	__u64 ino;
	__u32 minor;
	__u32 name_len;
};
/*
 * coll_table: an open-addressing table in an array (its lookups are inlined
 * by the verifier: no helper call, no jhash per name), of 2^coll_slot_bits
 * slots, at least twice --table-size.  A cookie's first slot comes from its
 * leading 31 bits (plus a per-directory offset), not from a mixing hash: a
 * pass reads names in hash order, so consecutive names land in consecutive
 * slots and the walk touches the table's memory in order, which keeps the
 * (emulated) TLB and the caches warm.  Linear probing over COLL_PROBES slots;
 * a cookie whose slots are all taken by others goes to coll_spill, a hash
 * map.  A slot is claimed with a compare-and-exchange (state 0 -> 1), filled,
 * and published (state 2).  A reader that meets a slot being filled (or
 * loses the race to claim it, often to another reader of the same name)
 * cannot tell whose it is, and counts its name unchecked.  Waiting for the
 * fill (a loop on the slot, a second probe, or comparing the slot after a
 * lost claim) made the unfiltered fexit program too complex for the
 * verifier (E2BIG: the probe loop sits in the chain loop), and the loader
 * fell back to kprobes.
 */
#define COLL_PROBES	16
const volatile __u32 coll_slot_bits = 1;	/* the loader sets both */
const volatile __u64 coll_capacity = 0;		/* --table-size: cookies held, slots + spill */
__u64 coll_used = 0;				/* cookies held */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);		/* the loader: 2^coll_slot_bits */
	__type(key, __u32);
	__type(value, struct coll_slot);
} coll_table SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);	/* rarely more than a few entries */
	__uint(max_entries, 1);		/* the loader: --table-size */
	__type(key, struct coll_key);
	__type(value, struct coll_val);
} coll_spill SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct coll_member);
	__type(value, __u32);
} coll_members SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct coll_dir_key);
	__type(value, struct coll_dir_stats);
} coll_dirs SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct coll_prev);
} coll_prev SEC(".maps");

static __always_inline struct coll_dir_stats *coll_stats(__u32 dev, __u64 dir_ino, __u32 wc)
{
	struct coll_dir_key k = { .dir_ino = dir_ino, .dev = dev, .wc = wc };
	struct coll_dir_stats *st = bpf_map_lookup_elem(&coll_dirs, &k);
	struct coll_dir_stats zero = {};

	if (st)
		return st;
	bpf_map_update_elem(&coll_dirs, &k, &zero, BPF_NOEXIST);
	st = bpf_map_lookup_elem(&coll_dirs, &k);
	if (!st)
		__sync_fetch_and_add(&coll_dirs_full, 1);
	return st;
}

/* This CPU's pending counts now belong to (dev, dir_ino, wc): hand the old ones over first. */
static __always_inline void coll_pend_to(struct coll_prev *p, __u32 dev, __u64 dir_ino, __u32 wc)
{
	struct coll_dir_stats *st;

	if (p->pend.k.dir_ino == dir_ino && p->pend.k.dev == dev && p->pend.k.wc == wc)
		return;
	if (p->pend.names || p->pend.distinct) {
		st = coll_stats(p->pend.k.dev, p->pend.k.dir_ino, p->pend.k.wc);
		if (st) {
			__sync_fetch_and_add(&st->names, p->pend.names);
			__sync_fetch_and_add(&st->distinct, p->pend.distinct);
		}
	}
	p->pend.k.dev = dev;
	p->pend.k.dir_ino = dir_ino;
	p->pend.k.wc = wc;
	p->pend.names = 0;
	p->pend.distinct = 0;
}

/* The directory of a collision-mode event: with filters, through fill_identity. */
static __always_inline bool coll_dir_of(struct ident *id, struct file *file, bool btf)
{
	if (targ_tgid || targ_ino || filter_comm || nfsd_only)
		return fill_identity(id, file, btf);
	id->dev = RD3(btf, file, f_inode, i_sb, s_dev);
	id->dir_ino = RD2(btf, file, f_inode, i_ino);
	return true;
}

/* Copy the name at `name` into dst if its fname still has identity v; its length, or 0. */
static __always_inline __u32 coll_read_name(unsigned char *dst, const struct coll_val *v)
{
	struct fname *f;
	__u32 len;

	if (!v->name)
		return 0;
	f = (struct fname *)(v->name - bpf_core_field_offset(struct fname, name));
	len = BPF_CORE_READ(f, name_len);
	if (len != v->name_len || BPF_CORE_READ(f, inode) != v->ino ||
	    BPF_CORE_READ(f, minor_hash) != v->minor || BPF_CORE_READ(f, hash) != v->major ||
	    len == 0 || len >= NAME_LEN)
		return 0;
	barrier_var(len);	/* else clang drops the mask as a no-op, and the verifier the bound */
	if (bpf_probe_read_kernel(dst, len & (NAME_LEN - 1), (const void *)v->name))
		return 0;
	return len;
}

static __always_inline void coll_emit(struct file *file, const struct coll_key *k,
				      const struct coll_val *me, const struct coll_val *other,
				      bool btf)
{
	struct coll_event *e;
	struct ident id;

	if (!fill_identity(&id, file, btf))
		return;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&dropped, 1);
		return;
	}
	put_identity((struct event *)e, &id);
	e->kind = EV_COLLISION;
	e->cookie = k->cookie;
	e->ino = me->ino;
	e->major = me->major;
	e->minor = me->minor;
	e->chain_index = 0;
	e->chain_len = 0;
	e->offset = 0;
	e->result = 0;
	e->whence = 0;
	e->name_len = coll_read_name(e->name, me);
	e->other_ino = other->ino;
	e->other_major = other->major;
	e->other_minor = other->minor;
	e->other_name_len = coll_read_name(e->other_name, other);
	e->pad = 0;
	bpf_ringbuf_submit(e, 0);
}

enum { COLL_NEW, COLL_FOUND, COLL_REFUSED, COLL_BUSY };

/* The slot where a cookie's probe starts: its leading bits, turned by the directory's. */
static __always_inline __u32 coll_slot0(const struct coll_key *k)
{
	__u64 c31 = k->wc ? k->cookie >> 32 : k->cookie;	/* major >> 1 either way */
	__u64 dir = (k->dir_ino ^ ((__u64)k->dev << 32) ^ k->wc) * 0x9e3779b97f4a7c15ULL;
	__u32 shift = 64 - (coll_slot_bits & 31);

	return (__u32)((c31 << 33) >> shift) + (__u32)(dir >> shift);
}

static __always_inline bool coll_key_eq(const struct coll_key *a, const struct coll_key *b)
{
	return a->cookie == b->cookie && a->dir_ino == b->dir_ino && a->dev == b->dev &&
	       a->wc == b->wc;
}

/*
 * Find k, or put it there with value me (COLL_NEW).  COLL_FOUND: *vp is the
 * value of the first name that had it.  COLL_REFUSED: the table holds
 * --table-size cookies already (or the spill map said no).  COLL_BUSY:
 * another CPU is filling one of the slots in the way.
 */
static __always_inline int coll_find(const struct coll_key *k, const struct coll_val *me,
				     struct coll_val **vp)
{
	__u32 mask = (1U << (coll_slot_bits & 31)) - 1, i0 = coll_slot0(k), idx;
	struct coll_slot *s;
	struct coll_val *v;
	__u64 state;
	long err;

	for (__u32 i = 0; i < COLL_PROBES; i++) {
		idx = (i0 + i) & mask;
		s = bpf_map_lookup_elem(&coll_table, &idx);
		if (!s)
			return COLL_REFUSED;	/* cannot happen: idx is masked */
		state = *(volatile __u64 *)&s->state;
		if (state == 2) {
			if (!coll_key_eq(&s->k, k))
				continue;
			*vp = &s->v;
			return COLL_FOUND;
		}
		if (state != 0)
			return COLL_BUSY;
		if (*(volatile __u64 *)&coll_used >= coll_capacity)
			return COLL_REFUSED;
		if (__sync_val_compare_and_swap(&s->state, 0, 1) != 0)
			return COLL_BUSY;	/* another CPU took it just now */
		if (__sync_fetch_and_add(&coll_used, 1) >= coll_capacity) {
			__sync_lock_test_and_set(&s->state, 0);
			return COLL_REFUSED;
		}
		s->k = *k;
		s->v = *me;
		__sync_lock_test_and_set(&s->state, 2);	/* an exchange: ordered after the fill */
		return COLL_NEW;
	}
	/* Its COLL_PROBES slots hold other cookies (and always will: nothing leaves). */
	v = bpf_map_lookup_elem(&coll_spill, k);
	if (v) {
		*vp = v;
		return COLL_FOUND;
	}
	if (*(volatile __u64 *)&coll_used >= coll_capacity)
		return COLL_REFUSED;
	err = bpf_map_update_elem(&coll_spill, k, me, BPF_NOEXIST);
	if (err == -EEXIST) {		/* another CPU put it there first */
		v = bpf_map_lookup_elem(&coll_spill, k);
		if (!v)
			return COLL_BUSY;
		*vp = v;
		return COLL_FOUND;
	}
	if (err)
		return COLL_REFUSED;
	__sync_fetch_and_add(&coll_used, 1);
	return COLL_NEW;
}

/* One name a reader was given: check its cookie against the table. */
static __always_inline void coll_name(struct file *file, const struct ident *id, __u64 pos,
				      const char *name, __u32 len, __u64 ino, __u32 major,
				      __u32 minor, bool btf)
{
	struct coll_key k = { .dir_ino = id->dir_ino, .cookie = pos, .dev = id->dev,
			      .wc = pos > 0x7fffffffULL };
	struct coll_val me = { .ino = ino, .name = (__u64)name, .major = major, .minor = minor,
			       .name_len = len };
	struct coll_dir_stats *st;
	struct coll_member mk;
	struct coll_val other;
	struct coll_prev *p;
	struct coll_val *v = NULL;
	__u32 zero = 0, one = 1;

	p = bpf_map_lookup_elem(&coll_prev, &zero);
	if (!p)
		return;		/* cannot happen: a per-CPU array of one */
	coll_pend_to(p, id->dev, id->dir_ino, k.wc);
	switch (coll_find(&k, &me, &v)) {
	case COLL_NEW:
		p->pend.names++;
		p->pend.distinct++;
		goto out;
	case COLL_FOUND:
		if (v)
			break;
		goto out;		/* cannot happen: found sets v */
	case COLL_REFUSED:
		__sync_fetch_and_add(&coll_refused, 1);
		st = coll_stats(id->dev, id->dir_ino, k.wc);
		if (st) {
			__sync_fetch_and_add(&st->unchecked, 1);
			st->full = 1;
		}
		goto out;
	default:	/* COLL_BUSY: counted unchecked, the table is not full */
		st = coll_stats(id->dev, id->dir_ino, k.wc);
		if (st)
			__sync_fetch_and_add(&st->unchecked, 1);
		goto out;
	}
	p->pend.names++;
	if (v->ino == ino && v->minor == minor && v->name_len == len)
		goto out;		/* the first name of this cookie, again */
	__builtin_memset(&mk, 0, sizeof(mk));
	mk.k = k;
	mk.ino = ino;
	mk.minor = minor;
	mk.name_len = len;
	if (bpf_map_lookup_elem(&coll_members, &mk))
		goto out;		/* a later member of the group, again */
	/* Not remembered when coll_members is full: reported again next pass. */
	bpf_map_update_elem(&coll_members, &mk, &one, BPF_NOEXIST);
	p->pend.distinct++;
	st = coll_stats(id->dev, id->dir_ino, k.wc);
	if (st)
		__sync_fetch_and_add(&st->collisions, 1);
	/* The earlier name: the one just before on this CPU if it had this cookie, else the first. */
	other = *v;
	if (p->k.cookie == k.cookie && p->k.dir_ino == k.dir_ino && p->k.dev == k.dev &&
	    p->k.wc == k.wc && !(p->v.ino == ino && p->v.minor == minor && p->v.name_len == len))
		other = p->v;
	coll_emit(file, &k, &me, &other, btf);
out:
	p->k = k;
	p->v = me;
}

/* call_filldir's chain, as emit_filldir walks it, checked instead of sent. */
static __always_inline int coll_filldir(struct file *file, struct dir_context *ctx,
					struct fname *fname, int ret, bool btf)
{
	struct fname *stop = NULL, *f = fname;
	struct ident id;
	__u64 pos;

	if (!fname || !coll_dir_of(&id, file, btf))
		return 0;
	if (ret) {
		struct dir_private_info *info = BPF_CORE_READ(file, private_data);
		stop = BPF_CORE_READ(info, extra_fname);
	}
	pos = RD(btf, ctx, pos);
	for (__u32 i = 0; i < MAX_CHAIN; i++) {
		if (!f || f == stop)
			break;
		coll_name(file, &id, pos, f->name, RD(btf, f, name_len), RD(btf, f, inode),
			  RD(btf, f, hash), RD(btf, f, minor_hash), btf);
		f = RD(btf, f, next);
	}
	return 0;
}

static __always_inline void coll_seek(struct file *file, bool btf)
{
	struct coll_dir_stats *st;
	struct ident id;

	if (!coll_dir_of(&id, file, btf))
		return;
	st = coll_stats(id.dev, id.dir_ino, COLL_WC_SEEKS);
	if (st)
		__sync_fetch_and_add(&st->seeks, 1);
}

/* One record per name that call_filldir handed to dir_emit() and that was taken. */
static __always_inline int emit_filldir(struct file *file, struct dir_context *ctx,
					struct fname *fname, int ret, bool btf)
{
	struct fname *stop = NULL, *f;
	struct ident id;
	__u32 n;
	__u64 pos;

	if (collisions)
		return coll_filldir(file, ctx, fname, ret, btf);
	if (!fname || !fill_identity(&id, file, btf))
		return 0;
	/* On 1, dir_emit refused info->extra_fname: it and later names come next call. */
	if (ret) {
		struct dir_private_info *info = BPF_CORE_READ(file, private_data);
		stop = BPF_CORE_READ(info, extra_fname);
	}
	pos = RD(btf, ctx, pos);
	/* Chain length first, so every record says "k of n". */
	f = fname;
	for (n = 0; n < MAX_CHAIN && f; n++)
		f = RD(btf, f, next);
	if (f)
		id.flags |= EVF_TRUNC;
	f = fname;
	for (__u32 i = 0; i < MAX_CHAIN; i++) {
		struct event *e;
		__u32 len;

		if (!f || f == stop)
			break;
		len = RD(btf, f, name_len);
		e = reserve_named(len, f->name);
		if (!e) {
			__sync_fetch_and_add(&dropped, 1);
		} else {
			put_identity(e, &id);
			e->kind = EV_FILLDIR;
			e->cookie = pos;
			e->major = RD(btf, f, hash);
			e->minor = RD(btf, f, minor_hash);
			e->ino = RD(btf, f, inode);
			e->chain_index = i;
			e->chain_len = n;
			e->name_len = len;
			e->offset = 0;
			e->result = 0;
			e->whence = 0;
			bpf_ringbuf_submit(e, submit_flags());
		}
		f = RD(btf, f, next);
	}
	return 0;
}

static __always_inline int emit_llseek(int kind, struct file *file, loff_t offset,
				       int whence, loff_t result, bool btf)
{
	struct event *e;
	struct ident id;

	if (collisions && kind == EV_LLSEEK_ENTRY)
		coll_seek(file, btf);
	if (!fill_identity(&id, file, btf))
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&dropped, 1);
		return 0;
	}
	put_identity(e, &id);
	e->kind = kind;
	e->cookie = RD(btf, file, f_pos);
	e->offset = offset;
	e->whence = whence;
	e->result = result;
	e->ino = 0;
	e->major = 0;
	e->minor = 0;
	e->chain_index = 0;
	e->chain_len = 0;
	e->name_len = 0;
	bpf_ringbuf_submit(e, submit_flags());
	return 0;
}

/* ---- fentry/fexit */

SEC("fexit/call_filldir")
int BPF_PROG(filldir_fexit, struct file *file, struct dir_context *dctx,
	     struct fname *fname, int ret)
{
	return emit_filldir(file, dctx, fname, ret, true);
}

SEC("fentry/ext4_dir_llseek")
int BPF_PROG(llseek_fentry, struct file *file, loff_t offset, int whence)
{
	return emit_llseek(EV_LLSEEK_ENTRY, file, offset, whence, 0, true);
}

SEC("fexit/ext4_dir_llseek")
int BPF_PROG(llseek_fexit, struct file *file, loff_t offset, int whence, loff_t ret)
{
	return emit_llseek(EV_LLSEEK_EXIT, file, offset, whence, ret, true);
}

/*
 * ---- the actors: for kernels where call_filldir is inlined
 *
 * ext4_readdir (an f_op, called through a pointer) says which file a
 * dir_context reads; the actor, called by dir_emit() with fname->name, is
 * given the name, its inode and ctx->pos.  fname->name is the flexible
 * tail of struct fname, so the name pointer leads back to the fname and
 * its hashes.  A linear (non-htree) ext4 directory hands the actor a name
 * inside a directory block instead: the fname read from before it then
 * fails the checks (same length, same inode, the cookie hash2pos() makes
 * from its hashes), and the name is not reported.
 */
struct readdir_call {
	__u64 file;
	__u64 resume;		/* info->extra_fname at entry: where a refused chain resumes */
	__u64 last_next;	/* ->next of the last name reported in this call */
	__u32 last_index;
	__u32 pad;
};
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);	/* the dir_context */
	__type(value, struct readdir_call);
} readdir_calls SEC(".maps");

SEC("fentry/ext4_readdir")
int BPF_PROG(readdir_fentry, struct file *file, struct dir_context *dctx)
{
	struct dir_private_info *info = file->private_data;
	struct readdir_call c = { .file = (__u64)file };
	__u64 key = (__u64)dctx;

	if (info)
		c.resume = (__u64)BPF_CORE_READ(info, extra_fname);
	bpf_map_update_elem(&readdir_calls, &key, &c, BPF_ANY);
	return 0;
}

SEC("fexit/ext4_readdir")
int BPF_PROG(readdir_fexit, struct file *file, struct dir_context *dctx, int ret)
{
	__u64 key = (__u64)dctx;

	bpf_map_delete_elem(&readdir_calls, &key);
	return 0;
}

/* ext4's hash2pos(): the cookie is one of these two for an htree name. */
static __always_inline bool is_htree_cookie(__u64 pos, __u32 major, __u32 minor)
{
	return pos == (major >> 1) || pos == ((__u64)(major >> 1) << 32 | minor);
}

static __always_inline int emit_actor(struct dir_context *dctx, const char *name, int namlen,
				      __u64 pos, __u64 ino, bool taken)
{
	struct readdir_call *c;
	struct fname *fname, *f;
	struct ident id;
	struct event *e;
	__u32 major, minor, index = 0, n, len;
	__u64 key = (__u64)dctx;

	/* Refused (the caller's buffer is full): reported when it is taken. */
	if (!taken)
		return 0;
	c = bpf_map_lookup_elem(&readdir_calls, &key);
	if (!c)
		return 0;
	fname = (struct fname *)(name - bpf_core_field_offset(struct fname, name));
	major = BPF_CORE_READ(fname, hash);
	minor = BPF_CORE_READ(fname, minor_hash);
	len = BPF_CORE_READ(fname, name_len);
	if (len != (__u32)namlen || BPF_CORE_READ(fname, inode) != ino ||
	    !is_htree_cookie(pos, major, minor))
		return 0;
	if (collisions) {
		if (coll_dir_of(&id, (struct file *)c->file, false))
			coll_name((struct file *)c->file, &id, pos, name, len, ino, major, minor, false);
		return 0;
	}
	if (!fill_identity(&id, (struct file *)c->file, false))
		return 0;
	/* The chain position, as call_filldir's fexit counts it: from the name it was called with. */
	if (c->last_next == (__u64)fname && (__u64)fname != c->resume)
		index = c->last_index + 1;
	f = BPF_CORE_READ(fname, next);
	c->last_next = (__u64)f;
	c->last_index = index;
	/* A fixed count the verifier can bound: the rest of the chain, up to MAX_CHAIN. */
	n = index + 1;
	for (int i = 0; i < MAX_CHAIN && f; i++) {
		n++;
		f = BPF_CORE_READ(f, next);
	}
	if (f || n > MAX_CHAIN)
		id.flags |= EVF_TRUNC;
	e = reserve_named(len, name);
	if (!e) {
		__sync_fetch_and_add(&dropped, 1);
		return 0;
	}
	put_identity(e, &id);
	e->kind = EV_FILLDIR;
	e->cookie = pos;
	e->major = major;
	e->minor = minor;
	e->ino = ino;
	e->chain_index = index;
	e->chain_len = n;
	e->name_len = len;
	e->offset = 0;
	e->result = 0;
	e->whence = 0;
	bpf_ringbuf_submit(e, submit_flags());
	return 0;
}

#define ACTOR_FEXIT(prog, fn)							\
SEC("fexit/" #fn)								\
int BPF_PROG(prog, struct dir_context *dctx, const char *name, int namlen,	\
	     loff_t offset, u64 ino, unsigned int d_type, bool ret)		\
{										\
	return emit_actor(dctx, name, namlen, offset, ino, ret);		\
}
ACTOR_FEXIT(filldir64_fexit, filldir64)
ACTOR_FEXIT(filldir32_fexit, filldir)
ACTOR_FEXIT(compat_filldir_fexit, compat_filldir)
ACTOR_FEXIT(nfsd_filldir_fexit, nfsd_buffered_filldir)

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
	emit_filldir(a->file, a->ctx, a->fname, ret, false);
	bpf_map_delete_elem(&filldir_start, &tid);
	return 0;
}

SEC("kprobe/ext4_dir_llseek")
int BPF_KPROBE(llseek_kprobe, struct file *file, loff_t offset, int whence)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct llseek_args a = { .file = file, .offset = offset, .whence = whence };

	bpf_map_update_elem(&llseek_start, &tid, &a, BPF_ANY);
	return emit_llseek(EV_LLSEEK_ENTRY, file, offset, whence, 0, false);
}

SEC("kretprobe/ext4_dir_llseek")
int BPF_KRETPROBE(llseek_kretprobe, loff_t ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct llseek_args *a = bpf_map_lookup_elem(&llseek_start, &tid);

	if (!a)
		return 0;
	emit_llseek(EV_LLSEEK_EXIT, a->file, a->offset, a->whence, ret, false);
	bpf_map_delete_elem(&llseek_start, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
