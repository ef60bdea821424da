// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-trace: watch ext4 hand out readdir cookies.  One event per name
 * call_filldir() emits (hashes, cookie, width decision, collision chain) and
 * per ext4_dir_llseek() entry/exit, as text, JSON Lines or the kit's record
 * stream (lib/record.h), to stdout, a file or a virtio-serial port.
 *
 * Loader flow: open -> set rodata knobs -> choose fentry or kprobe per hook
 * (autoload) -> load -> attach; if fentry cannot load or attach, start
 * again with kprobes and say why.  Every error path ends at one cleanup:.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <linux/types.h>
#include <bpf/libbpf.h>
#include <bpf/btf.h>
#include <bpf/bpf.h>

#include "cookie-trace.h"
#include "cookie-trace-rec.h"
#include "cookie-trace.skel.h"
#include "ckutil.h"
#include "record.h"

enum format { FMT_TEXT, FMT_JSON, FMT_RECORD };
enum attach_mode { ATTACH_AUTO, ATTACH_FENTRY, ATTACH_KPROBE };

static struct env {
	const char *dir;
	__u64 dir_ino;
	__u32 dir_dev;		/* kernel encoding, 0 = any */
	__u32 pid;
	const char *comm;
	bool nfsd_only;
	enum format format;
	const char *output;	/* NULL: stdout */
	__u64 ringbuf_size;
	__u64 wakeup_bytes;
	int poll_ms;
	enum attach_mode attach;
	bool doctor;
	long duration;		/* seconds, 0 = until a signal */
	bool verbose;
	bool coarse_clock;
} env = {
	.format = FMT_TEXT,
	.ringbuf_size = 16 << 20,
	.wakeup_bytes = (__u64)-1,	/* -1: a quarter of the ring buffer */
	.poll_ms = 100,
};

void (*argp_program_version_hook)(FILE *, struct argp_state *) = ck_argp_version;
const char argp_program_doc[] =
"Trace ext4 htree readdir cookies: call_filldir and ext4_dir_llseek.\n"
"\n"
"USAGE: cookie-trace [--dir PATH | --ino N] [--pid PID] [--comm COMM]\n"
"                    [--nfsd-only] [-f text|json|record] [-w FILE | --port NAME]\n"
"                    [--ringbuf-size BYTES] [--attach auto|fentry|kprobe] [--doctor]\n"
"\n"
"EXAMPLES:\n"
"    cookie-trace                          # every event, one text line each\n"
"    cookie-trace --dir /lab/ext4/collide  # one directory (local and nfsd readers)\n"
"    cookie-trace --nfsd-only -f json      # NFS server reads, JSON Lines\n"
"    cookie-trace -f record -w /tmp/t.ckr  # record stream to a file (replay later)\n"
"    cookie-trace -f record --port ck.trace  # to the host socket build/vm/trace.sock\n"
"    cookie-trace --doctor                 # what can attach, how, and why\n"
"\n"
"Stop with Ctrl-C or SIGTERM: the ring buffer is drained and the totals go\n"
"to stderr.  Lost events are reported in-band (a DROP record / line).\n"
"\n"
"Numbers are decimal (INO, PID, MS, SEC; BYTES with a K or M suffix): a\n"
"leading zero is not octal (010 is ten), and 0x is refused.";

enum {
	OPT_INO = 1000, OPT_NFSD, OPT_PORT, OPT_RINGBUF, OPT_WAKEUP, OPT_ATTACH,
	OPT_DOCTOR, OPT_POLL, OPT_CLOCK,
};

static const struct argp_option opts[] = {
	{ "dir", 'D', "PATH", 0, "Only this directory (its device and inode)", 0 },
	{ "ino", OPT_INO, "INO", 0, "Only directories with this inode number (any device)", 0 },
	{ "pid", 'p', "PID", 0, "Only this process (tgid)", 0 },
	{ "comm", 'c', "COMM", 0, "Only tasks with this comm", 0 },
	{ "nfsd-only", OPT_NFSD, NULL, 0, "Only nfsd threads (NFS READDIR)", 0 },
	{ "format", 'f', "FMT", 0, "text (default), json or record", 0 },
	{ "output", 'w', "FILE", 0, "Write to FILE instead of stdout", 0 },
	{ "port", OPT_PORT, "NAME", 0, "Write to /dev/virtio-ports/NAME (e.g. ck.trace)", 0 },
	{ "ringbuf-size", OPT_RINGBUF, "BYTES", 0,
	  "Ring buffer size, a power of two >= 4096 (K/M suffix; default 16M)", 0 },
	{ "wakeup-bytes", OPT_WAKEUP, "BYTES", 0,
	  "Wake the reader when this much is queued (0: every event; default size/4)", 0 },
	{ "poll-ms", OPT_POLL, "MS", 0, "Reader poll period (default 100)", 0 },
	{ "attach", OPT_ATTACH, "MODE", 0, "auto (default: fentry, else kprobe), fentry or kprobe", 0 },
	{ "duration", 'd', "SEC", 0, "Stop after SEC seconds", 0 },
	{ "clock", OPT_CLOCK, "CLOCK", 0, "Event times: precise (default: read per event) or coarse "
	  "(read once per tick per CPU; cheaper where the clocksource is slow, e.g. hpet)", 0 },
	{ "doctor", OPT_DOCTOR, NULL, 0, "Check BTF, symbols and attach modes; attach, report, exit", 0 },
	{ "verbose", 'v', NULL, 0, "libbpf debug output", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	uint64_t v;

	switch (key) {
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case 'v':
		env.verbose = true;
		break;
	case 'D':
		env.dir = arg;
		break;
	case OPT_INO:
		if (ck_parse_u64(arg, 1, UINT64_MAX, &v)) {
			fprintf(stderr, "--ino %s: not an inode number\n", arg);
			argp_usage(state);
		}
		env.dir_ino = v;
		break;
	case 'p':
		if (ck_parse_u64(arg, 1, INT32_MAX, &v)) {
			fprintf(stderr, "--pid %s: not a process id\n", arg);
			argp_usage(state);
		}
		env.pid = v;
		break;
	case 'c':
		if (strlen(arg) >= TASK_COMM_LEN) {
			fprintf(stderr, "--comm %s: longer than the kernel's 15-byte comm\n", arg);
			argp_usage(state);
		}
		env.comm = arg;
		break;
	case OPT_NFSD:
		env.nfsd_only = true;
		break;
	case 'f':
		if (!strcmp(arg, "text"))
			env.format = FMT_TEXT;
		else if (!strcmp(arg, "json"))
			env.format = FMT_JSON;
		else if (!strcmp(arg, "record"))
			env.format = FMT_RECORD;
		else {
			fprintf(stderr, "--format %s: use text, json or record\n", arg);
			argp_usage(state);
		}
		break;
	case 'w':
		env.output = arg;
		break;
	case OPT_PORT: {
		static char path[256];
		struct ck_strbuf b;

		ck_strbuf_init(&b, path, sizeof(path));
		if (ck_strbuf_printf(&b, "/dev/virtio-ports/%s", arg)) {
			fprintf(stderr, "--port %.40s...: a port name is at most %zu bytes\n",
				arg, sizeof(path) - 1 - strlen("/dev/virtio-ports/"));
			argp_usage(state);
		}
		env.output = path;
		break;
	}
	case OPT_RINGBUF:
		if (ck_parse_size(arg, 4096, 1ULL << 30, &v) || (v & (v - 1))) {
			fprintf(stderr, "--ringbuf-size %s: need a power of two from 4096 to 1G\n", arg);
			argp_usage(state);
		}
		env.ringbuf_size = v;
		break;
	case OPT_WAKEUP:
		if (ck_parse_size(arg, 0, 1ULL << 30, &v)) {
			fprintf(stderr, "--wakeup-bytes %s: not a size\n", arg);
			argp_usage(state);
		}
		env.wakeup_bytes = v;
		break;
	case OPT_POLL:
		if (ck_parse_u64(arg, 1, 10000, &v)) {
			fprintf(stderr, "--poll-ms %s: need 1..10000\n", arg);
			argp_usage(state);
		}
		env.poll_ms = v;
		break;
	case OPT_ATTACH:
		if (!strcmp(arg, "auto"))
			env.attach = ATTACH_AUTO;
		else if (!strcmp(arg, "fentry"))
			env.attach = ATTACH_FENTRY;
		else if (!strcmp(arg, "kprobe"))
			env.attach = ATTACH_KPROBE;
		else {
			fprintf(stderr, "--attach %s: use auto, fentry or kprobe\n", arg);
			argp_usage(state);
		}
		break;
	case 'd':
		if (ck_parse_u64(arg, 1, 86400 * 365, &v)) {
			fprintf(stderr, "--duration %s: need whole seconds > 0\n", arg);
			argp_usage(state);
		}
		env.duration = v;
		break;
	case OPT_DOCTOR:
		env.doctor = true;
		break;
	case OPT_CLOCK:
		if (!strcmp(arg, "precise"))
			env.coarse_clock = false;
		else if (!strcmp(arg, "coarse"))
			env.coarse_clock = true;
		else {
			fprintf(stderr, "--clock %s: use precise or coarse\n", arg);
			argp_usage(state);
		}
		break;
	case ARGP_KEY_ARG:
		fprintf(stderr, "unexpected argument '%s'\n", arg);
		argp_usage(state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- libbpf messages: kept quiet while probing fentry, shown with -v */

static bool quiet_libbpf;
static char last_libbpf_msg[512];

static int libbpf_print_fn(enum libbpf_print_level level, const char *format, va_list args)
{
	va_list copy;

	va_copy(copy, args);
	if (level <= LIBBPF_WARN) {
		vsnprintf(last_libbpf_msg, sizeof(last_libbpf_msg), format, copy);
		last_libbpf_msg[strcspn(last_libbpf_msg, "\n")] = 0;
	}
	va_end(copy);
	if (level == LIBBPF_DEBUG && !env.verbose)
		return 0;
	if (quiet_libbpf && !env.verbose)
		return 0;
	return vfprintf(stderr, format, args);
}

/* ---- run-time feature checks (what bcc's trace_helpers do, for our two hooks) */

static const char *const hooks[] = { "call_filldir", "ext4_dir_llseek" };
enum { HOOK_FILLDIR, HOOK_LLSEEK, NHOOKS };

struct hook_state {
	bool in_kallsyms;
	char clone[256];	/* e.g. "call_filldir.isra.0" if only a clone exists */
	bool in_btf;
	bool ftraceable;	/* in available_filter_functions */
	bool fentry;		/* chosen / attached as fentry */
	char why[768];		/* why not fentry, if not */
};

static bool file_has_symbol(const char *path, const char *fmt, const char *name,
			    char *clone, size_t clone_len)
{
	char line[512], sym[256];
	size_t n = strlen(name);
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, fmt, sym) != 1)
			continue;
		if (!strcmp(sym, name))
			found = true;
		else if (clone && !clone[0] && !strncmp(sym, name, n) && sym[n] == '.')
			snprintf(clone, clone_len, "%s", sym);
	}
	fclose(f);
	return found;
}

static const char *tracefs_file(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/tracing/%s", name);
	if (access(path, R_OK))
		snprintf(path, sizeof(path), "/sys/kernel/debug/tracing/%s", name);
	return path;
}

static void hooks_probe(struct hook_state st[NHOOKS], struct btf *btf)
{
	for (int i = 0; i < NHOOKS; i++) {
		struct hook_state *h = &st[i];

		memset(h, 0, sizeof(*h));
		h->in_kallsyms = file_has_symbol("/proc/kallsyms", "%*x %*c %255s", hooks[i],
						 h->clone, sizeof(h->clone));
		h->in_btf = btf && btf__find_by_name_kind(btf, hooks[i], BTF_KIND_FUNC) > 0;
		h->ftraceable = file_has_symbol(tracefs_file("available_filter_functions"),
						"%255s", hooks[i], NULL, 0);
		if (!h->in_kallsyms)
			snprintf(h->why, sizeof(h->why), "%s is not in /proc/kallsyms%s%s%s", hooks[i],
				 h->clone[0] ? ": only the compiler's clone " : ": inlined by the compiler?",
				 h->clone, h->clone[0] ? " exists (the kit's patch 0001 keeps it out of line)" : "");
		else if (!btf)
			snprintf(h->why, sizeof(h->why), "no kernel BTF (/sys/kernel/btf/vmlinux): "
				 "CONFIG_DEBUG_INFO_BTF=y is needed for fentry and CO-RE");
		else if (!h->in_btf)
			snprintf(h->why, sizeof(h->why), "%s has no BTF FUNC record", hooks[i]);
		else if (!h->ftraceable)
			snprintf(h->why, sizeof(h->why), "%s is not in available_filter_functions "
				 "(no ftrace site: notrace, or no DYNAMIC_FTRACE)", hooks[i]);
	}
}

/* ---- loading */

static void choose_programs(struct cookie_trace_bpf *obj, const bool fentry[NHOOKS])
{
	bpf_program__set_autoload(obj->progs.filldir_fexit, fentry[HOOK_FILLDIR]);
	bpf_program__set_autoload(obj->progs.filldir_kprobe, !fentry[HOOK_FILLDIR]);
	bpf_program__set_autoload(obj->progs.filldir_kretprobe, !fentry[HOOK_FILLDIR]);
	bpf_program__set_autoload(obj->progs.llseek_fentry, fentry[HOOK_LLSEEK]);
	bpf_program__set_autoload(obj->progs.llseek_fexit, fentry[HOOK_LLSEEK]);
	bpf_program__set_autoload(obj->progs.llseek_kprobe, !fentry[HOOK_LLSEEK]);
	bpf_program__set_autoload(obj->progs.llseek_kretprobe, !fentry[HOOK_LLSEEK]);
}

static int open_and_configure(struct cookie_trace_bpf **objp, const bool fentry[NHOOKS])
{
	struct cookie_trace_bpf *obj = cookie_trace_bpf__open();
	int err;

	*objp = obj;
	if (!obj)
		return -errno ? -errno : -1;
	obj->rodata->targ_tgid = env.pid;
	obj->rodata->targ_ino = env.dir_ino;
	obj->rodata->targ_dev = env.dir_dev;
	if (env.comm) {
		strncpy((char *)obj->rodata->targ_comm, env.comm, TASK_COMM_LEN - 1);
		obj->rodata->filter_comm = true;
	}
	obj->rodata->nfsd_only = env.nfsd_only;
	obj->rodata->coarse_clock = env.coarse_clock;
	obj->rodata->wakeup_bytes = env.wakeup_bytes == (__u64)-1 ?
				    env.ringbuf_size / 4 : env.wakeup_bytes;
	err = bpf_map__set_max_entries(obj->maps.events, env.ringbuf_size);
	if (err)
		return err;
	choose_programs(obj, fentry);
	return 0;
}

/*
 * Load and attach, fentry where st says it can work and env allows; if the
 * fentry attempt fails, note why and retry those hooks with kprobes.
 */
static int load_and_attach(struct cookie_trace_bpf **objp, struct hook_state st[NHOOKS])
{
	bool fentry[NHOOKS];
	bool tried_fentry = false;
	int err;

	for (int i = 0; i < NHOOKS; i++) {
		if (!st[i].in_kallsyms) {
			fprintf(stderr, "cookie-trace: cannot trace: %s\n", st[i].why);
			return -ENOENT;
		}
		fentry[i] = env.attach != ATTACH_KPROBE &&
			    (env.attach == ATTACH_FENTRY || !st[i].why[0]);
		tried_fentry |= fentry[i];
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		quiet_libbpf = attempt == 0 && tried_fentry && env.attach == ATTACH_AUTO;
		err = open_and_configure(objp, fentry);
		if (!err)
			err = cookie_trace_bpf__load(*objp);
		if (!err)
			err = cookie_trace_bpf__attach(*objp);
		quiet_libbpf = false;
		if (!err) {
			for (int i = 0; i < NHOOKS; i++)
				st[i].fentry = fentry[i];
			return 0;
		}
		cookie_trace_bpf__destroy(*objp);
		*objp = NULL;
		if (attempt || !tried_fentry || env.attach != ATTACH_AUTO)
			break;
		for (int i = 0; i < NHOOKS; i++) {
			if (fentry[i])
				snprintf(st[i].why, sizeof(st[i].why), "fentry/fexit failed to load or "
					 "attach (%s; libbpf: %s)", strerror(-err), last_libbpf_msg);
			fentry[i] = false;
		}
	}
	fprintf(stderr, "cookie-trace: failed to load or attach the BPF programs: %s\n"
		"  libbpf: %s\n  (run as root; cookie-trace --doctor says what is missing)\n",
		strerror(-err), last_libbpf_msg);
	return err;
}

/* ---- output */

static volatile sig_atomic_t exiting;
static FILE *out;
static __u64 events_out, drops_reported;
static bool write_failed;

static void sig_handler(int sig)
{
	(void)sig;
	exiting = 1;
}

static __u64 monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void emit(const struct ck_rec *r)
{
	int err;

	if (env.format == FMT_RECORD)
		err = ck_rec_write(out, r);
	else if (env.format == FMT_JSON)
		err = ck_rec_print_json(out, r);
	else
		err = ck_rec_print_text(out, r);
	if (err && !write_failed) {
		write_failed = true;
		fprintf(stderr, "cookie-trace: write to %s failed: %s\n",
			env.output ? env.output : "stdout", strerror(errno));
	}
}

static int handle_event(void *ctx, void *data, size_t size)
{
	/*
	 * Not zeroed per event: ck_rec_from_event sets every field an event
	 * record carries, and ck_rec_encode reads no others (the DROP/HELLO
	 * fields and the text buffer, most of the struct's 1.4 KB).
	 */
	static struct ck_rec r;

	(void)ctx;
	if (ck_rec_from_event(&r, data, size))
		return 0;
	emit(&r);
	events_out++;
	return 0;
}

/* Lost events become a DROP record as soon as the reader sees the counter move. */
static void report_drops(struct cookie_trace_bpf *obj)
{
	__u64 total = __atomic_load_n(&obj->bss->dropped, __ATOMIC_RELAXED);

	if (total == drops_reported)
		return;
	struct ck_rec r = { .kind = CK_REC_DROP, .ts_ns = monotonic_ns(),
			    .lost = total - drops_reported, .lost_total = total };
	emit(&r);
	drops_reported = total;
}

/*
 * The HELLO record: how this writer runs.  --dir's path is the one word
 * of unbounded length, so it goes last: whatever else the HELLO says fits
 * (the rest is under 300 bytes), and a path too long for the record is
 * left out whole, said on stderr; ino= still names the directory.
 */
static void hello_fill(struct ck_rec *r, const struct hook_state st[NHOOKS])
{
	struct utsname u;

	uname(&u);
	ck_rec_hello_start(r, monotonic_ns(),
			   (st[HOOK_FILLDIR].fentry ? CK_REC_H_FENTRY : 0) |
			   (env.dir_ino || env.pid || env.comm || env.nfsd_only ? CK_REC_H_FILTERED : 0));
	ck_rec_hello_add(r, "writer=cookie-trace version=1 kernel=%s filldir=%s llseek=%s ringbuf=%llu",
			 u.release, st[HOOK_FILLDIR].fentry ? "fexit" : "kprobe",
			 st[HOOK_LLSEEK].fentry ? "fentry" : "kprobe",
			 (unsigned long long)env.ringbuf_size);
	if (env.dir_ino)
		ck_rec_hello_add(r, "ino=%llu", (unsigned long long)env.dir_ino);
	if (env.pid)
		ck_rec_hello_add(r, "pid=%u", env.pid);
	if (env.comm)
		ck_rec_hello_add(r, "comm=%s", env.comm);
	if (env.nfsd_only)
		ck_rec_hello_add(r, "nfsd-only=1");
	if (env.coarse_clock)
		ck_rec_hello_add(r, "clock=coarse");
	if (env.dir && ck_rec_hello_add(r, "dir=%s", env.dir))
		fprintf(stderr, "cookie-trace: --dir %.40s... is %zu bytes, too long for the HELLO "
			"record's %d bytes of text: the HELLO names the directory by ino=%llu only\n",
			env.dir, strlen(env.dir), CK_REC_TEXT_MAX, (unsigned long long)env.dir_ino);
}

/*
 * With kernel.bpf_stats_enabled=1 (a profiling switch: it adds two clock
 * reads to every program run), say what each program cost in the kernel.
 */
static void report_bpf_stats(struct cookie_trace_bpf *obj)
{
	struct bpf_program *prog;
	char on = 0;
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");

	if (!f)
		return;
	if (fread(&on, 1, 1, f) != 1)
		on = 0;
	fclose(f);
	if (on != '1')
		return;
	bpf_object__for_each_program(prog, obj->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) || !info.run_cnt)
			continue;
		fprintf(stderr, "cookie-trace: bpf %s runs %llu avg %llu ns\n",
			bpf_program__name(prog), (unsigned long long)info.run_cnt,
			(unsigned long long)(info.run_time_ns / info.run_cnt));
	}
}

/* ---- --doctor */

static int doctor(void)
{
	struct hook_state st[NHOOKS];
	struct cookie_trace_bpf *obj = NULL;
	struct btf *btf = btf__load_vmlinux_btf();
	struct utsname u;
	int problems = 0, err;

	uname(&u);
	printf("cookie-trace doctor: kernel %s\n", u.release);
	if (btf)
		printf("  ok   kernel BTF: /sys/kernel/btf/vmlinux (%u types)\n", btf__type_cnt(btf));
	else
		printf("  FAIL kernel BTF: none (CONFIG_DEBUG_INFO_BTF=y needed for CO-RE and fentry)\n"),
		problems++;
	if (geteuid())
		printf("  FAIL not root: loading BPF needs CAP_BPF and CAP_PERFMON\n"), problems++;
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1)
		printf("  ok   BPF ring buffer supported\n");
	else
		printf("  FAIL BPF ring buffer: not supported (Linux >= 5.8 with BPF_SYSCALL)\n"), problems++;
	if (!access("/sys/bus/event_source/devices/kprobe/type", R_OK))
		printf("  ok   kprobe PMU present (the fallback works)\n");
	else
		printf("  warn no kprobe PMU (/sys/bus/event_source/devices/kprobe): no fallback "
		       "if fentry fails\n");
	hooks_probe(st, btf);
	for (int i = 0; i < NHOOKS; i++) {
		printf("  %s %s: kallsyms %s, BTF %s, ftrace %s\n", st[i].in_kallsyms ? "ok  " : "FAIL",
		       hooks[i], st[i].in_kallsyms ? "yes" : "NO", st[i].in_btf ? "yes" : "no",
		       st[i].ftraceable ? "yes" : "no");
		if (st[i].why[0])
			printf("       %s\n", st[i].why);
		problems += !st[i].in_kallsyms;
	}
	btf__free(btf);
	if (problems) {
		printf("doctor: %d problem%s; not attaching\n", problems, problems == 1 ? "" : "s");
		return 1;
	}
	err = load_and_attach(&obj, st);
	if (err) {
		printf("  FAIL load/attach: %s (libbpf: %s)\n", strerror(-err), last_libbpf_msg);
		problems++;
	} else {
		printf("  ok   attached: %s via %s, %s via %s\n",
		       hooks[HOOK_FILLDIR], st[HOOK_FILLDIR].fentry ? "fexit" : "kprobe+kretprobe",
		       hooks[HOOK_LLSEEK], st[HOOK_LLSEEK].fentry ? "fentry+fexit" : "kprobe+kretprobe");
		for (int i = 0; i < NHOOKS; i++)
			if (!st[i].fentry)
				printf("       %s: kprobes because %s\n", hooks[i],
				       st[i].why[0] ? st[i].why : "--attach kprobe");
	}
	cookie_trace_bpf__destroy(obj);
	printf("doctor: %s\n", problems ? "problems found" : "clean");
	return problems ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = argp_program_doc,
	};
	struct cookie_trace_bpf *obj = NULL;
	struct ring_buffer *rb = NULL;
	struct hook_state st[NHOOKS];
	struct btf *btf = NULL;
	static struct ck_rec hello;	/* 1.4 KB */
	__u64 deadline = 0;
	int err;

	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return err;
	libbpf_set_print(libbpf_print_fn);
	if (env.doctor)
		return doctor();

	if (env.dir) {
		struct stat sb;

		if (stat(env.dir, &sb) || !S_ISDIR(sb.st_mode)) {
			fprintf(stderr, "cookie-trace: --dir %s: %s\n", env.dir,
				errno && !S_ISDIR(sb.st_mode) ? strerror(errno) : "not a directory");
			return 1;
		}
		if (env.dir_ino && env.dir_ino != sb.st_ino) {
			fprintf(stderr, "cookie-trace: --dir and --ino name different directories\n");
			return 1;
		}
		env.dir_ino = sb.st_ino;
		/* The kernel's dev_t (MAJOR<<20 | MINOR), as sb->s_dev holds it. */
		env.dir_dev = major(sb.st_dev) << 20 | minor(sb.st_dev);
	}

	btf = btf__load_vmlinux_btf();
	hooks_probe(st, btf);
	btf__free(btf);
	err = load_and_attach(&obj, st);
	if (err)
		goto cleanup;

	if (env.output) {
		int fd = open(env.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || !(out = fdopen(fd, "w"))) {
			err = -errno;
			fprintf(stderr, "cookie-trace: cannot open %s for writing: %s\n",
				env.output, strerror(errno));
			goto cleanup;
		}
	} else {
		out = stdout;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 16);

	rb = ring_buffer__new(bpf_map__fd(obj->maps.events), handle_event, NULL, NULL);
	if (!rb) {
		err = -errno;
		fprintf(stderr, "cookie-trace: failed to create the ring buffer reader: %s\n",
			strerror(errno));
		goto cleanup;
	}
	/*
	 * No SA_RESTART: a write to a virtio port whose host side is not
	 * connected blocks, and Ctrl-C / SIGTERM must still stop us.
	 */
	struct sigaction sa = { .sa_handler = sig_handler };
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL)) {
		err = -errno;
		fprintf(stderr, "cookie-trace: cannot set signal handlers: %s\n", strerror(errno));
		goto cleanup;
	}
	signal(SIGPIPE, SIG_IGN);

	hello_fill(&hello, st);
	emit(&hello);
	fflush(out);
	/* Tests and scripts wait for this line before starting the workload. */
	fprintf(stderr, "cookie-trace: tracing (");
	ck_print_name(stderr, hello.text, hello.text_len);	/* --dir and --comm as given: escaped */
	fprintf(stderr, ")\n");
	for (int i = 0; i < NHOOKS; i++)
		if (!st[i].fentry && st[i].why[0])
			fprintf(stderr, "cookie-trace: %s via kprobes: %s\n", hooks[i], st[i].why);

	if (env.duration)
		deadline = monotonic_ns() + env.duration * 1000000000ULL;
	while (!exiting) {
		err = ring_buffer__poll(rb, env.poll_ms);
		if (err == -EINTR) {
			err = 0;
			continue;
		}
		if (err < 0) {
			fprintf(stderr, "cookie-trace: ring buffer poll failed: %s\n", strerror(-err));
			goto cleanup;
		}
		report_drops(obj);
		fflush(out);
		if (deadline && monotonic_ns() >= deadline)
			break;
	}
	/* Drain what is left, then the last word on drops. */
	ring_buffer__consume(rb);
	report_drops(obj);
	fflush(out);
	fprintf(stderr, "cookie-trace: %llu events written, %llu lost\n",
		(unsigned long long)events_out, (unsigned long long)drops_reported);
	report_bpf_stats(obj);
	err = write_failed ? -EIO : 0;

cleanup:
	ring_buffer__free(rb);
	cookie_trace_bpf__destroy(obj);
	if (out && out != stdout)
		fclose(out);
	return err ? 1 : 0;
}
