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
enum hooks_mode { HOOKS_AUTO, HOOKS_CALL_FILLDIR, HOOKS_ACTORS };

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
	enum hooks_mode hooks;
	bool doctor;
	long duration;		/* seconds, 0 = until a signal */
	bool verbose;
	bool coarse_clock;
	bool collisions;	/* --collisions */
	__u32 table_size;	/* cookies the collision table holds */
	long interval;		/* seconds between summaries */
} env = {
	.format = FMT_TEXT,
	.ringbuf_size = 16 << 20,
	.table_size = 131072,
	.interval = 1,
	.wakeup_bytes = (__u64)-1,	/* -1: a quarter of the ring buffer */
	.poll_ms = 100,
};

void (*argp_program_version_hook)(FILE *, struct argp_state *) = ck_argp_version;
const char argp_program_doc[] =
"Trace ext4 htree readdir cookies: call_filldir and ext4_dir_llseek.\n"
"\n"
"USAGE: cookie-trace [--dir PATH | --ino N] [--pid PID] [--comm COMM]\n"
"                    [--nfsd-only] [-f text|json|record] [-w FILE | --port NAME]\n"
"                    [--ringbuf-size BYTES] [--attach auto|fentry|kprobe]\n"
"                    [--hooks auto|call_filldir|actors] [--doctor]\n"
"                    [--collisions [--table-size N] [--interval SEC]]\n"
"\n"
"EXAMPLES:\n"
"    cookie-trace                          # every event, one text line each\n"
"    cookie-trace --dir /lab/ext4/collide  # one directory (local and nfsd readers)\n"
"    cookie-trace --nfsd-only -f json      # NFS server reads, JSON Lines\n"
"    cookie-trace -f record -w /tmp/t.ckr  # record stream to a file (replay later)\n"
"    cookie-trace -f record --port ck.trace  # to the host socket build/vm/trace.sock\n"
"    cookie-trace --doctor                 # what can attach, how, and why\n"
"    cookie-trace --hooks actors           # as on a kernel that inlined call_filldir\n"
"    cookie-trace --collisions -f record --port ck.trace  # collisions, seeks, summaries only\n"
"\n"
"--collisions: the kernel side keeps each directory's cookies (per width) in a\n"
"table of --table-size entries and sends only collisions (both names), seeks\n"
"and, every --interval and at exit, a SUMMARY per directory and width (names\n"
"checked, distinct names, collisions, seeks; FULL when the table was full, and\n"
"the names not checked: past a full table, or racing another CPU's insert into\n"
"the same slot).  cookie-groups and cookie-top read it like the per-name stream.\n"
"\n"
"Stop with Ctrl-C or SIGTERM: the ring buffer is drained and the totals go\n"
"to stderr.  Lost events are reported in-band (a DROP record / line).\n"
"\n"
"Numbers are decimal (INO, PID, MS, SEC; BYTES with a K or M suffix): a\n"
"leading zero is not octal (010 is ten), and 0x is refused.";

enum {
	OPT_INO = 1000, OPT_NFSD, OPT_PORT, OPT_RINGBUF, OPT_WAKEUP, OPT_ATTACH,
	OPT_DOCTOR, OPT_POLL, OPT_CLOCK, OPT_HOOKS, OPT_COLLISIONS, OPT_TABLE, OPT_INTERVAL,
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
	{ "hooks", OPT_HOOKS, "HOOKS", 0, "How names are seen: auto (default: call_filldir where it is "
	  "a function, else the actors), call_filldir, or actors (filldir64/filldir/compat_filldir/"
	  "nfsd_buffered_filldir inside ext4_readdir; fexit only)", 0 },
	{ "duration", 'd', "SEC", 0, "Stop after SEC seconds", 0 },
	{ "clock", OPT_CLOCK, "CLOCK", 0, "Event times: precise (default: read per event) or coarse "
	  "(read once per tick per CPU; cheaper where the clocksource is slow, e.g. hpet)", 0 },
	{ "doctor", OPT_DOCTOR, NULL, 0, "Check BTF, symbols and attach modes; attach, report, exit", 0 },
	{ "collisions", OPT_COLLISIONS, NULL, 0, "Collision mode: no record per name; only collisions "
	  "(both names), seeks and per-directory summaries", 0 },
	{ "table-size", OPT_TABLE, "N", 0, "--collisions: cookies the kernel-side table holds, all "
	  "directories together (16..16M, K/M suffix; default 128K, 16 MiB of kernel memory; "
	  "128 bytes a cookie, rounded up to a power of two); past it, names are counted "
	  "unchecked and the summaries say FULL", 0 },
	{ "interval", OPT_INTERVAL, "SEC", 0, "--collisions: seconds between summaries of the "
	  "directories whose counts changed (default 1; one more for each at exit)", 0 },
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
	case OPT_HOOKS:
		if (!strcmp(arg, "auto"))
			env.hooks = HOOKS_AUTO;
		else if (!strcmp(arg, "call_filldir"))
			env.hooks = HOOKS_CALL_FILLDIR;
		else if (!strcmp(arg, "actors"))
			env.hooks = HOOKS_ACTORS;
		else {
			fprintf(stderr, "--hooks %s: use auto, call_filldir or actors\n", arg);
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
	case OPT_COLLISIONS:
		env.collisions = true;
		break;
	case OPT_TABLE:
		if (ck_parse_size(arg, 16, 16 << 20, &v)) {
			fprintf(stderr, "--table-size %s: need 16 to 16M entries\n", arg);
			argp_usage(state);
		}
		env.table_size = v;
		break;
	case OPT_INTERVAL:
		if (ck_parse_u64(arg, 1, 86400, &v)) {
			fprintf(stderr, "--interval %s: need whole seconds, 1 to 86400\n", arg);
			argp_usage(state);
		}
		env.interval = v;
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

/* ---- run-time feature checks (what bcc's trace_helpers do, for our hooks) */

/*
 * The functions cookie-trace may attach to.  call_filldir is the first
 * choice (one call per chain, the fname in hand); where the compiler
 * inlined it, the actors dir_emit() calls through a pointer (never
 * inlined) and ext4_readdir, the file operation around them, take its
 * place (cookie-trace.bpf.c, "the actors").  ext4_dir_llseek is an f_op
 * too.  In a distribution kernel ext4 and nfsd are modules: their
 * functions are in /proc/kallsyms with the module's name, their BTF is the
 * module's (/sys/kernel/btf/MODULE).
 */
static const char *const hooks[] = {
	"call_filldir", "ext4_dir_llseek", "ext4_readdir",
	"filldir64", "filldir", "compat_filldir", "nfsd_buffered_filldir",
};
enum {
	HOOK_FILLDIR, HOOK_LLSEEK, HOOK_READDIR,
	HOOK_FILLDIR64, HOOK_FILLDIR32, HOOK_COMPAT_FILLDIR, HOOK_NFSD_FILLDIR, NHOOKS
};
#define FIRST_ACTOR HOOK_FILLDIR64

struct hook_state {
	bool in_kallsyms;
	char module[80];	/* "" for vmlinux */
	char clone[256];	/* e.g. "call_filldir.isra.0" if only a clone exists */
	bool in_btf;
	bool ftraceable;	/* in available_filter_functions */
	bool fentry;		/* chosen / attached as fentry */
	bool used;		/* attached */
	char why[768];		/* why not fentry, if not */
};

/* How the names are seen: call_filldir's fexit/kretprobe, or the actors. */
enum names_via { VIA_CALL_FILLDIR, VIA_ACTORS };
static enum names_via names_via;
static char names_why[2048];	/* why this way */

/*
 * The name (and module) of a line of /proc/kallsyms, "ADDR TYPE NAME" or
 * "ADDR TYPE NAME\t[MODULE]", cut out in place; false for any other line.
 * By hand, not sscanf: /proc/kallsyms has ~66,000 lines, and under TCG a
 * sscanf per line made this pass 0.5 s of cookie-trace's ~1.2 s start-up.
 */
static bool kallsyms_fields(char *line, char **name, char **mod)
{
	char *p = strchr(line, ' '), *q, *e;

	if (!p || !p[1] || p[2] != ' ')
		return false;
	*name = p + 3;
	*mod = NULL;
	p = *name + strcspn(*name, " \t\n");
	q = p + strspn(p, " \t");
	*p = '\0';
	if (*q == '[' && (e = strchr(q + 1, ']'))) {
		*e = '\0';
		*mod = q + 1;
	}
	return **name != '\0';
}

/* A /proc or tracefs list read in large chunks: fewer reads, each a syscall. */
static FILE *open_list(const char *path)
{
	FILE *f = fopen(path, "r");

	if (f)
		setvbuf(f, NULL, _IOFBF, 1 << 16);
	return f;
}

/* One pass over /proc/kallsyms for every hook. */
static void kallsyms_probe(struct hook_state st[NHOOKS])
{
	char line[512], *sym, *mod;
	FILE *f = open_list("/proc/kallsyms");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!kallsyms_fields(line, &sym, &mod))
			continue;
		for (int i = 0; i < NHOOKS; i++) {
			struct hook_state *h = &st[i];
			size_t len;

			if (sym[0] != hooks[i][0])	/* most lines stop here */
				continue;
			len = strlen(hooks[i]);
			if (strncmp(sym, hooks[i], len))
				continue;
			if (!sym[len] && !h->in_kallsyms) {
				h->in_kallsyms = true;
				snprintf(h->module, sizeof(h->module), "%s", mod ? mod : "");
			} else if (!h->clone[0] && sym[len] == '.') {
				snprintf(h->clone, sizeof(h->clone), "%.255s", sym);
			}
		}
	}
	fclose(f);
}

/*
 * One pass over available_filter_functions ("name" or "name [module]") for
 * every hook, ending once each is found: the functions that can be fentry
 * or kprobe sites.
 */
static void ftrace_probe(struct hook_state st[NHOOKS], const char *path)
{
	char line[512];
	int left = NHOOKS;
	FILE *f = open_list(path);

	if (!f)
		return;
	while (left && fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \t\n")] = '\0';
		for (int i = 0; i < NHOOKS; i++) {
			if (!st[i].ftraceable && line[0] == hooks[i][0] && !strcmp(line, hooks[i])) {
				st[i].ftraceable = true;
				left--;
			}
		}
	}
	fclose(f);
}

static const char *tracefs_file(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/tracing/%s", name);
	if (access(path, R_OK))
		snprintf(path, sizeof(path), "/sys/kernel/debug/tracing/%s", name);
	return path;
}

/* A FUNC record in vmlinux BTF, or in the BTF of the module kallsyms names. */
static bool btf_has_func(struct btf *vmlinux, const char *module, const char *name)
{
	struct btf *mod;
	bool found;

	if (!vmlinux)
		return false;
	if (!module[0])
		return btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC) > 0;
	mod = btf__load_module_btf(module, vmlinux);
	if (!mod)
		return false;
	found = btf__find_by_name_kind(mod, name, BTF_KIND_FUNC) > 0;
	btf__free(mod);
	return found;
}

static void hooks_probe(struct hook_state st[NHOOKS], struct btf *btf)
{
	memset(st, 0, sizeof(*st) * NHOOKS);
	kallsyms_probe(st);
	ftrace_probe(st, tracefs_file("available_filter_functions"));
	for (int i = 0; i < NHOOKS; i++) {
		struct hook_state *h = &st[i];
		char where[96];

		h->in_btf = btf_has_func(btf, h->module, hooks[i]);
		snprintf(where, sizeof(where), h->module[0] ? "module %s's BTF (/sys/kernel/btf/%s)" :
			 "vmlinux BTF%s", h->module, h->module);
		if (!h->in_kallsyms)
			snprintf(h->why, sizeof(h->why), "%s is not in /proc/kallsyms%s%s%s", hooks[i],
				 h->clone[0] ? ": only the compiler's clone " : ": inlined by the compiler, "
				 "or its module is not loaded",
				 h->clone, h->clone[0] ? " exists" : "");
		else if (!btf)
			snprintf(h->why, sizeof(h->why), "no kernel BTF (/sys/kernel/btf/vmlinux): "
				 "CONFIG_DEBUG_INFO_BTF=y is needed for fentry and CO-RE");
		else if (!h->in_btf)
			snprintf(h->why, sizeof(h->why), "%s has no FUNC record in %s", hooks[i], where);
		else if (!h->ftraceable)
			snprintf(h->why, sizeof(h->why), "%s is not in available_filter_functions "
				 "(no ftrace site: notrace, or no DYNAMIC_FTRACE)", hooks[i]);
	}
}

/* Can this hook be an fentry/fexit program (as far as looking can tell)? */
static bool hook_fentry_ok(const struct hook_state *h)
{
	return h->in_kallsyms && !h->why[0];
}

/*
 * call_filldir or the actors: by --hooks, else call_filldir wherever it
 * is a function (fexit, or the kprobe fallback), else the actors (fexit
 * only: they need BTF).  Returns 0, or -ENOENT with the reason in names_why.
 */
static int choose_names_via(const struct hook_state st[NHOOKS])
{
	bool actors_ok = hook_fentry_ok(&st[HOOK_READDIR]) && hook_fentry_ok(&st[HOOK_FILLDIR64]);

	if (env.hooks == HOOKS_CALL_FILLDIR || (env.hooks == HOOKS_AUTO && st[HOOK_FILLDIR].in_kallsyms)) {
		if (!st[HOOK_FILLDIR].in_kallsyms) {
			snprintf(names_why, sizeof(names_why), "--hooks call_filldir: %s",
				 st[HOOK_FILLDIR].why);
			return -ENOENT;
		}
		names_via = VIA_CALL_FILLDIR;
		snprintf(names_why, sizeof(names_why), "%s", env.hooks == HOOKS_AUTO ?
			 "call_filldir is a function of its own (in kallsyms)" : "--hooks call_filldir");
		return 0;
	}
	if (!actors_ok) {
		snprintf(names_why, sizeof(names_why), "%s; and the actors cannot replace it: %s",
			 st[HOOK_FILLDIR].why[0] ? st[HOOK_FILLDIR].why : "--hooks actors",
			 st[HOOK_READDIR].why[0] ? st[HOOK_READDIR].why : st[HOOK_FILLDIR64].why);
		return -ENOENT;
	}
	if (env.attach == ATTACH_KPROBE) {
		snprintf(names_why, sizeof(names_why), "the actor hooks need fentry/fexit "
			 "(--attach kprobe asked for kprobes)");
		return -ENOENT;
	}
	names_via = VIA_ACTORS;
	if (env.hooks == HOOKS_ACTORS)
		snprintf(names_why, sizeof(names_why), "--hooks actors");
	else
		snprintf(names_why, sizeof(names_why), "%s", st[HOOK_FILLDIR].why);
	return 0;
}

/* ---- loading */

static void choose_programs(struct cookie_trace_bpf *obj, const bool fentry[NHOOKS],
			    struct hook_state st[NHOOKS])
{
	bool cf = names_via == VIA_CALL_FILLDIR, ac = names_via == VIA_ACTORS;
	struct bpf_program *actor[] = {
		[HOOK_FILLDIR64] = obj->progs.filldir64_fexit,
		[HOOK_FILLDIR32] = obj->progs.filldir32_fexit,
		[HOOK_COMPAT_FILLDIR] = obj->progs.compat_filldir_fexit,
		[HOOK_NFSD_FILLDIR] = obj->progs.nfsd_filldir_fexit,
	};

	bpf_program__set_autoload(obj->progs.filldir_fexit, cf && fentry[HOOK_FILLDIR]);
	bpf_program__set_autoload(obj->progs.filldir_kprobe, cf && !fentry[HOOK_FILLDIR]);
	bpf_program__set_autoload(obj->progs.filldir_kretprobe, cf && !fentry[HOOK_FILLDIR]);
	bpf_program__set_autoload(obj->progs.llseek_fentry, fentry[HOOK_LLSEEK]);
	bpf_program__set_autoload(obj->progs.llseek_fexit, fentry[HOOK_LLSEEK]);
	bpf_program__set_autoload(obj->progs.llseek_kprobe, !fentry[HOOK_LLSEEK]);
	bpf_program__set_autoload(obj->progs.llseek_kretprobe, !fentry[HOOK_LLSEEK]);
	bpf_program__set_autoload(obj->progs.readdir_fentry, ac);
	bpf_program__set_autoload(obj->progs.readdir_fexit, ac);
	st[HOOK_FILLDIR].used = cf;
	st[HOOK_LLSEEK].used = true;
	st[HOOK_READDIR].used = ac;
	/* An actor that is missing (no compat, nfsd not loaded) is left out, said by --doctor. */
	for (int i = FIRST_ACTOR; i < NHOOKS; i++) {
		st[i].used = ac && hook_fentry_ok(&st[i]);
		bpf_program__set_autoload(actor[i], st[i].used);
	}
}

/* coll_table's slots: at least twice the cookies, a power of two (the BPF side masks). */
static unsigned coll_slot_bits(__u32 table_size)
{
	unsigned bits = 1;

	while ((1ULL << bits) < 2ULL * table_size)
		bits++;
	return bits;
}

/* What the kernel allocates for it at load (coll_spill takes memory only when used). */
static __u64 coll_table_bytes(__u32 table_size)
{
	return (__u64)sizeof(struct coll_slot) << coll_slot_bits(table_size);
}

static int open_and_configure(struct cookie_trace_bpf **objp, const bool fentry[NHOOKS],
			      struct hook_state st[NHOOKS])
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
	/* The collision maps cost nothing in the per-name mode (one entry each). */
	obj->rodata->collisions = env.collisions;
	obj->rodata->coll_capacity = env.table_size;
	obj->rodata->coll_slot_bits = env.collisions ? coll_slot_bits(env.table_size) : 1;
	err = bpf_map__set_max_entries(obj->maps.coll_table, 1U << obj->rodata->coll_slot_bits);
	if (!err)
		err = bpf_map__set_max_entries(obj->maps.coll_spill,
					       env.collisions ? env.table_size : 1);
	if (!err)
		err = bpf_map__set_max_entries(obj->maps.coll_members, !env.collisions ? 1 :
					       env.table_size < 16384 ? env.table_size : 16384);
	if (!err && !env.collisions)
		err = bpf_map__set_max_entries(obj->maps.coll_dirs, 1);
	if (err)
		return err;
	choose_programs(obj, fentry, st);
	return 0;
}

/*
 * Load and attach, fentry where st says it can work and env allows; if the
 * fentry attempt fails, note why and retry those hooks with kprobes (the
 * actors have no kprobe form: they stay, and fail again if they failed).
 */
static int load_and_attach(struct cookie_trace_bpf **objp, struct hook_state st[NHOOKS])
{
	bool fentry[NHOOKS] = { false };
	bool tried_fentry = false;
	int err;

	err = choose_names_via(st);
	if (err) {
		fprintf(stderr, "cookie-trace: cannot trace: %s\n", names_why);
		return err;
	}
	if (!st[HOOK_LLSEEK].in_kallsyms) {
		fprintf(stderr, "cookie-trace: cannot trace: %s\n", st[HOOK_LLSEEK].why);
		return -ENOENT;
	}
	for (int i = 0; i < NHOOKS; i++) {
		fentry[i] = env.attach != ATTACH_KPROBE &&
			    (env.attach == ATTACH_FENTRY || !st[i].why[0]);
		if (i <= HOOK_LLSEEK)
			tried_fentry |= fentry[i];
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		quiet_libbpf = attempt == 0 && tried_fentry && env.attach == ATTACH_AUTO;
		err = open_and_configure(objp, fentry, st);
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
		for (int i = 0; i <= HOOK_LLSEEK; i++) {
			if (fentry[i])
				snprintf(st[i].why, sizeof(st[i].why), "fentry/fexit failed to load or "
					 "attach (%s; libbpf: %s)", strerror(-err), last_libbpf_msg);
			fentry[i] = false;
		}
	}
	fprintf(stderr, "cookie-trace: failed to load or attach the BPF programs: %s\n"
		"  libbpf: %s\n  (run as root; cookie-trace --doctor says what is missing)\n",
		strerror(-err), last_libbpf_msg);
	/* (Not E2BIG: that is also the verifier's "too complex".) */
	if (env.collisions && err == -ENOMEM)
		fprintf(stderr, "  (--collisions: the table for --table-size %u takes %llu MiB of "
			"kernel memory; a smaller --table-size fits)\n", env.table_size,
			(unsigned long long)coll_table_bytes(env.table_size) >> 20);
	return err;
}

/* What the HELLO and --doctor call the name hook. */
static const char *names_hook_word(const struct hook_state st[NHOOKS])
{
	if (names_via == VIA_ACTORS)
		return "actors";
	return st[HOOK_FILLDIR].fentry ? "fexit" : "kprobe";
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
	if ((int)r.kind == EV_COLLISION) {
		const struct coll_event *c = data;

		if (size < sizeof(*c))
			return 0;
		/* The fixed fields are struct event's; the names sit after the earlier name's fields. */
		r.kind = CK_REC_COLLISION;
		r.name_len = c->name_len > CK_REC_NAME_MAX ? CK_REC_NAME_MAX : c->name_len;
		memcpy(r.name, c->name, r.name_len);
		r.other_ino = c->other_ino;
		r.other_major = c->other_major;
		r.other_minor = c->other_minor;
		r.other_name_len = c->other_name_len > CK_REC_NAME_MAX ? CK_REC_NAME_MAX :
				   c->other_name_len;
		memcpy(r.other_name, c->other_name, r.other_name_len);
	}
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
 * --collisions: a SUMMARY per directory and width whose counts moved since
 * the last one (all of them with `final`), from the BPF side's coll_dirs.
 * What was sent last is kept here, so an unchanged directory stays quiet.
 */
struct coll_sent {
	struct coll_dir_key k;
	struct coll_dir_stats st;
	__u64 seeks;
};
static struct coll_sent *coll_sent;
static size_t coll_nsent, coll_cap;
static __u64 coll_names, coll_unchecked, coll_collisions;

static struct coll_sent *coll_sent_of(const struct coll_dir_key *k)
{
	for (size_t i = 0; i < coll_nsent; i++)
		if (coll_sent[i].k.dev == k->dev && coll_sent[i].k.dir_ino == k->dir_ino &&
		    coll_sent[i].k.wc == k->wc)
			return &coll_sent[i];
	if (coll_nsent == coll_cap) {
		coll_cap = coll_cap ? coll_cap * 2 : 64;
		coll_sent = ck_xrealloc(coll_sent, coll_cap * sizeof(*coll_sent));
	}
	memset(&coll_sent[coll_nsent], 0, sizeof(*coll_sent));
	coll_sent[coll_nsent].k = *k;
	coll_sent[coll_nsent].st.names = (__u64)-1;	/* never sent */
	return &coll_sent[coll_nsent++];
}

/* This reading of coll_dirs, with each CPU's pending counts added. */
struct coll_now {
	struct coll_dir_key k;
	struct coll_dir_stats st;
};

static struct coll_now *coll_now_of(struct coll_now **v, size_t *n, size_t *cap,
				    const struct coll_dir_key *k)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].k.dev == k->dev && (*v)[i].k.dir_ino == k->dir_ino && (*v)[i].k.wc == k->wc)
			return &(*v)[i];
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*v = ck_xrealloc(*v, *cap * sizeof(**v));
	}
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].k = *k;
	return &(*v)[(*n)++];
}

static void coll_summaries(struct cookie_trace_bpf *obj, bool final)
{
	static struct coll_now *now_v;
	static size_t now_cap;
	static struct coll_prev *prevs;
	int fd = bpf_map__fd(obj->maps.coll_dirs), ncpu = libbpf_num_possible_cpus();
	struct coll_dir_key k, next, *prev = NULL;
	struct coll_dir_stats st;
	size_t n = 0;
	__u32 zero = 0;
	__u64 now = monotonic_ns();

	/* The map first, then the CPUs' pending counts: a count moving meanwhile is late, never twice. */
	for (; !bpf_map_get_next_key(fd, prev, &next); prev = &k) {
		k = next;
		if (!bpf_map_lookup_elem(fd, &k, &st))
			coll_now_of(&now_v, &n, &now_cap, &k)->st = st;
	}
	if (ncpu > 0 && !prevs)
		prevs = ck_xcalloc(ncpu, sizeof(*prevs));	/* 8-byte multiple: the per-CPU stride */
	if (ncpu > 0 && !bpf_map_lookup_elem(bpf_map__fd(obj->maps.coll_prev), &zero, prevs)) {
		for (int c = 0; c < ncpu; c++) {
			const struct coll_pending *pd = &prevs[c].pend;
			struct coll_now *x;

			if (!pd->names && !pd->distinct)
				continue;
			x = coll_now_of(&now_v, &n, &now_cap, &pd->k);
			x->st.names += pd->names;
			x->st.distinct += pd->distinct;
		}
	}
	coll_names = coll_unchecked = coll_collisions = 0;
	for (size_t i = 0; i < n; i++) {
		struct coll_dir_key sk;
		struct coll_now *x = &now_v[i], *sx;
		struct coll_sent *s;
		__u64 seeks;

		if (x->k.wc == COLL_WC_SEEKS)
			continue;
		st = x->st;
		coll_names += st.names;
		coll_unchecked += st.unchecked;
		coll_collisions += st.collisions;
		sk = x->k;
		sk.wc = COLL_WC_SEEKS;
		sx = coll_now_of(&now_v, &n, &now_cap, &sk);	/* may move now_v: x is not used below */
		seeks = sx->st.seeks;
		s = coll_sent_of(&now_v[i].k);
		if (!final && s->st.names == st.names && s->st.unchecked == st.unchecked &&
		    s->st.collisions == st.collisions && s->st.distinct == st.distinct &&
		    s->seeks == seeks && s->st.full == st.full)
			continue;
		s->st = st;
		s->seeks = seeks;
		struct ck_rec r = { .kind = CK_REC_SUMMARY, .ts_ns = now, .dev = s->k.dev,
				    .dir_ino = s->k.dir_ino, .bits = s->k.wc ? 63 : 31, .names = st.names,
				    .unchecked = st.unchecked, .collisions = st.collisions,
				    .seeks = seeks, .distinct = st.distinct > UINT32_MAX ? UINT32_MAX :
				    (uint32_t)st.distinct,
				    .sflags = (st.full ? CK_REC_S_FULL : 0) | (final ? CK_REC_S_FINAL : 0) };
		emit(&r);
		events_out++;
	}
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
			   (names_via == VIA_ACTORS || st[HOOK_FILLDIR].fentry ? CK_REC_H_FENTRY : 0) |
			   (env.dir_ino || env.pid || env.comm || env.nfsd_only ? CK_REC_H_FILTERED : 0));
	ck_rec_hello_add(r, "writer=cookie-trace version=1 kernel=%s filldir=%s llseek=%s ringbuf=%llu",
			 u.release, names_hook_word(st),
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
	if (env.collisions)
		ck_rec_hello_add(r, "mode=collisions table=%u interval=%ld", env.table_size,
				 env.interval);
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
		bool need = i == HOOK_LLSEEK;

		printf("  %s %s: kallsyms %s%s%s%s, BTF %s, ftrace %s\n",
		       st[i].in_kallsyms ? "ok  " : need ? "FAIL" : "    ", hooks[i],
		       st[i].in_kallsyms ? "yes" : "NO", st[i].module[0] ? " [" : "",
		       st[i].module, st[i].module[0] ? "]" : "", st[i].in_btf ? "yes" : "no",
		       st[i].ftraceable ? "yes" : "no");
		if (st[i].module[0] && st[i].in_btf)
			printf("       (%s's BTF is module BTF: /sys/kernel/btf/%s)\n", hooks[i], st[i].module);
		if (st[i].why[0])
			printf("       %s\n", st[i].why);
		problems += need && !st[i].in_kallsyms;
	}
	btf__free(btf);
	if (problems) {
		printf("doctor: %d problem%s; not attaching\n", problems, problems == 1 ? "" : "s");
		return 1;
	}
	err = load_and_attach(&obj, st);
	if (err) {
		printf("  FAIL names: %s\n", names_why);
		printf("  FAIL load/attach: %s (libbpf: %s)\n", strerror(-err), last_libbpf_msg);
		problems++;
	} else if (names_via == VIA_ACTORS) {
		printf("  ok   names via the actors, because %s\n", names_why);
		printf("  ok   attached: ext4_readdir via fentry+fexit;");
		for (int i = FIRST_ACTOR; i < NHOOKS; i++)
			if (st[i].used)
				printf(" %s", hooks[i]);
		printf(" via fexit; %s via %s\n", hooks[HOOK_LLSEEK],
		       st[HOOK_LLSEEK].fentry ? "fentry+fexit" : "kprobe+kretprobe");
		for (int i = FIRST_ACTOR; i < NHOOKS; i++)
			if (!st[i].used)
				printf("  warn %s left out (%s): %s\n", hooks[i],
				       i == HOOK_NFSD_FILLDIR ? "NFS READDIR not traced" :
				       i == HOOK_COMPAT_FILLDIR ? "32-bit getdents not traced" :
				       "getdents (not getdents64) not traced", st[i].why);
	} else {
		printf("  ok   names via call_filldir, because %s\n", names_why);
		printf("  ok   attached: %s via %s, %s via %s\n",
		       hooks[HOOK_FILLDIR], st[HOOK_FILLDIR].fentry ? "fexit" : "kprobe+kretprobe",
		       hooks[HOOK_LLSEEK], st[HOOK_LLSEEK].fentry ? "fentry+fexit" : "kprobe+kretprobe");
		for (int i = 0; i <= HOOK_LLSEEK; i++)
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
	__u64 deadline = 0, next_summary = 0, refused_seen = 0;
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
	if (names_via == VIA_ACTORS)
		fprintf(stderr, "cookie-trace: names via the readdir actors: %s\n", names_why);
	for (int i = 0; i <= HOOK_LLSEEK; i++)
		if (st[i].used && !st[i].fentry && st[i].why[0])
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
		if (env.collisions) {
			/* At once when the table refused a name; else every --interval. */
			__u64 refused = __atomic_load_n(&obj->bss->coll_refused, __ATOMIC_RELAXED);
			__u64 now = monotonic_ns();

			if (refused != refused_seen || now >= next_summary) {
				coll_summaries(obj, false);
				refused_seen = refused;
				next_summary = now + env.interval * 1000000000ULL;
			}
		}
		fflush(out);
		if (deadline && monotonic_ns() >= deadline)
			break;
	}
	/* Drain what is left, then the last word on drops. */
	ring_buffer__consume(rb);
	if (env.collisions) {
		/* Detached, the counts stop moving: the final summaries are exact. */
		cookie_trace_bpf__detach(obj);
		ring_buffer__consume(rb);
	}
	report_drops(obj);
	if (env.collisions)
		coll_summaries(obj, true);
	fflush(out);
	fprintf(stderr, "cookie-trace: %llu events written, %llu lost\n",
		(unsigned long long)events_out, (unsigned long long)drops_reported);
	if (env.collisions) {
		/* Unchecked: refused by a full table, or a slot another CPU was filling. */
		unsigned long long full = obj->bss->coll_refused;

		fprintf(stderr, "cookie-trace: collision mode: %llu names checked, %llu unchecked "
			"(%llu past a full table, %llu racing another CPU's insert), %llu "
			"collisions%s\n", (unsigned long long)coll_names,
			(unsigned long long)coll_unchecked, full,
			coll_unchecked > full ? (unsigned long long)coll_unchecked - full : 0ULL,
			(unsigned long long)coll_collisions,
			obj->bss->coll_dirs_full ? "; some directories not counted (too many)" : "");
	}
	report_bpf_stats(obj);
	err = write_failed ? -EIO : 0;

cleanup:
	ring_buffer__free(rb);
	cookie_trace_bpf__destroy(obj);
	if (out && out != stdout)
		fclose(out);
	return err ? 1 : 0;
}
