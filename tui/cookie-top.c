// SPDX-License-Identifier: GPL-2.0
/*
 * cookie-top: live view of ext4 readdir cookies, their hashes and their
 * collisions, from cookie-trace's record stream.  Sources (source.c) give
 * bytes, lib/record parses them, the model (model.c) counts, render.c draws
 * into a canvas, term.c (curses) or batch mode shows it.  See tui/README.md.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "ckutil.h"
#include "record.h"
#include "model.h"
#include "render.h"
#include "source.h"
#include "term.h"

/* Options, parsed with argp as the other tools do: a usage error exits 64. */
static struct env {
	const char *source;       /* SOURCE; NULL: the VM's socket */
	const char *record_path;  /* -w */
	int force;                /* --force: -w may replace an existing file */
	int batch, json;
	int frames_max;           /* -n; -1: no limit */
	double delay;             /* -d */
	double speed;             /* -x; -1: 1 on a terminal, max with -b */
	int rows, cols;           /* --size */
	uint64_t max_names;       /* 0: the model's default */
	const char *export_dir;
} env = { .frames_max = -1, .delay = 1.0, .speed = -1, .rows = 40, .cols = 120, .export_dir = "." };

void (*argp_program_version_hook)(FILE *, struct argp_state *) = ck_argp_version;
static const char doc[] =
"Live view of ext4 readdir cookies, their hashes and collisions, from\n"
"cookie-trace's record stream (see tui/README.md).\n"
"\n"
"USAGE: cookie-top [OPTIONS] [SOURCE]\n"
"\n"
"SOURCE: -       stdin or a pipe (in the guest: cookie-trace -f record | ...)\n"
"        FILE    a recorded stream (cookie-trace -w FILE, cookie-top -w FILE)\n"
"        SOCKET  a unix socket; waits for it and reconnects\n"
"        (none)  the VM's trace socket build/vm/trace.sock (make vm-run)\n"
"\n"
"Exit status: 0; 64 usage error; 1 setup error (a missing FILE, no terminal);\n"
"3 (batch) the input had damaged records, which were reported and skipped\n"
"(the parser resynchronises on the next record).\n"
"\n"
"Numbers are decimal: a leading zero is not octal (010 is ten), and 0x is refused.\n"
"\n"
"EXAMPLES:\n"
"  cookie-top                         # the VM's socket: waits, reconnects\n"
"  cookie-top -x 10 t.ckr             # replay a recording ten times faster\n"
"  cookie-trace -f record | cookie-top -     # in the guest, from a pipe\n"
"  cookie-top -b -n 3 -d 1            # batch: three text frames, one a second\n"
"  cookie-top -b --json t.ckr         # a JSON snapshot at end of input\n"
"\v"
"Keys (in the terminal):\n";

enum { OPT_JSON = 0x100, OPT_SIZE, OPT_MAX_NAMES, OPT_EXPORT_DIR, OPT_FORCE };

static const struct argp_option options[] = {
	{ "speed", 'x', "X", 0, "Replay speed for FILE: 1 real time (default on a terminal), "
	  "N times faster, max or 0 as fast as possible (default with -b)", 0 },
	{ NULL, 'w', "FILE", 0, "Also record the raw stream to FILE while viewing (never the "
	  "input itself; an existing non-empty file only with --force)", 0 },
	{ "force", OPT_FORCE, NULL, 0, "-w may replace an existing file", 0 },
	{ NULL, 'b', NULL, 0, "Batch mode: plain-text frames on stdout, no terminal needed", 0 },
	{ NULL, 'n', "N", 0, "Stop after N frames (batch; in the terminal, N screen refreshes); "
	  "batch -n 0: no frames, only a summary on stderr", 0 },
	{ NULL, 'd', "SECS", 0, "Batch: seconds between frames (default 1); a last frame at end "
	  "of input", 0 },
	{ "json", OPT_JSON, NULL, 0, "Batch: each frame is a JSON snapshot (one line)", 0 },
	{ "size", OPT_SIZE, "COLSxROWS", 0, "Batch frame size (default 120x40)", 0 },
	{ "max-names", OPT_MAX_NAMES, "N", 0, "Names tracked at most (default 4000000, ~60 B + "
	  "name each)", 0 },
	{ "export-dir", OPT_EXPORT_DIR, "DIR", 0, "Where 'e' writes cookie-top-<time>.json "
	  "(default: .)", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "The same as --help", 0 },
	{ 0 },
};

/* The app: setup fills it, app_run drives it, app_teardown ends it. */
struct app {
	struct tm_model *m;
	struct ui ui;
	struct source src;
	int src_open;
	double next_open;          /* when to try the source again (the socket waits) */
	struct ck_rec_parser *parser;
	uint8_t inbuf[1 << 16];
	const char *record_path;   /* -w */
	FILE *record_to;
	int batch, json, frames_max, frames_done, quit, eof, term;
	double delay, speed;
	int rows, cols;            /* the terminal's, or --size in batch mode */
	struct layout layout;
	struct canvas canvas;
	struct render_cache render_cache;
	int dir_rows;    /* the directory table's rows in the last full frame: Enter needs one */
	struct render_key_help keys_help[16];
	const char *export_dir;
	/* replay pacing */
	double pace_wall0;
	uint64_t pace_ts0;
	/* rate */
	double rate_at;
	uint64_t rate_records;
	double next_frame, started;
	int errors_printed;
	double msg_at;   /* when ui.msg appeared; it goes after 5 s */
	char err[512];   /* why the run failed, said after the terminal is restored */
};

static volatile sig_atomic_t got_signal;
static void on_signal(int sig)
{
	got_signal = sig;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void frame(struct app *a, int panes);
static void handle_key(struct app *a, int k);

/* -n N: the run is over after N frames, wherever it waits when the Nth is shown. */
static int app_frames_done(const struct app *a)
{
	return a->frames_max > 0 && a->frames_done >= a->frames_max;
}

/* Wait until `due` (replay pacing) while keys and frames go on. */
static void idle_until(struct app *a, double due)
{
	for (;;) {
		double now = now_s();
		if (a->quit || got_signal || now >= due || app_frames_done(a))
			return;
		double until = due < a->next_frame ? due : a->next_frame;
		int ms = (int)((until - now) * 1000) + 1;
		struct pollfd p = { .fd = a->term ? term_fd() : -1, .events = POLLIN };
		poll(&p, 1, ms < 0 ? 0 : ms);
		if (a->term)
			for (int k; (k = term_key()) != TERM_KEY_NONE;)
				handle_key(a, k);
		if (now_s() >= a->next_frame)
			frame(a, 0);
	}
}

static int on_record(void *arg, const struct ck_rec *r)
{
	struct app *a = arg;

	if (a->speed > 0 && a->src.ops == &source_file_ops && r->ts_ns &&
	    (r->kind == CK_REC_FILLDIR || r->kind == CK_REC_LLSEEK_ENTRY || r->kind == CK_REC_LLSEEK_EXIT)) {
		if (!a->pace_ts0) {
			a->pace_ts0 = r->ts_ns;
			a->pace_wall0 = now_s();
		} else if (r->ts_ns > a->pace_ts0) {
			double due = a->pace_wall0 + (r->ts_ns - a->pace_ts0) / 1e9 / a->speed;
			if (due > now_s())
				idle_until(a, due);
		}
	}
	/* a pacing wait that ended on -n's last frame must not ingest more */
	if (app_frames_done(a))
		return 1;
	tm_ingest(a->m, r, a->ui.now);
	return a->quit || got_signal;
}

static int on_error(void *arg, uint64_t off, const char *msg)
{
	struct app *a = arg;

	tm_input_error(a->m, off, msg);
	if (!a->term && a->errors_printed < 20) {
		fprintf(stderr, "cookie-top: %s: input offset %" PRIu64 ": %s\n", a->src.path, off, msg);
		if (++a->errors_printed == 20)
			fprintf(stderr, "cookie-top: further input errors are only counted\n");
	}
	return 0;
}

/* A message on the keys line: it stays 5 s, or until the next key. */
static void app_say(struct app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void app_say(struct app *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->ui.msg, sizeof(a->ui.msg), fmt, ap);
	va_end(ap);
	a->msg_at = now_s();
}

static void set_source_text(struct app *a)
{
	if (a->src.ops == &source_file_ops) {
		char sp[32];
		if (a->speed > 0)
			snprintf(sp, sizeof(sp), "x%g", a->speed);
		else
			snprintf(sp, sizeof(sp), "max speed");
		snprintf(a->ui.source, sizeof(a->ui.source), "replay %.120s %s", a->src.path, sp);
	} else {
		snprintf(a->ui.source, sizeof(a->ui.source), "%s %.140s", a->src.ops->kind, a->src.path);
	}
	snprintf(a->ui.state, sizeof(a->ui.state), "%s", a->src.state);
}

static void export_json(struct app *a)
{
	char path[PATH_MAX], stamp[32];
	time_t t = time(NULL);
	struct tm tmv;

	localtime_r(&t, &tmv);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tmv);
	snprintf(path, sizeof(path), "%s/cookie-top-%s.json", a->export_dir, stamp);
	FILE *f = fopen(path, "w");
	if (!f) {
		app_say(a, "export failed: %.120s: %s (--export-dir: a writable directory)", path,
			strerror(errno));
		return;
	}
	int bad = snapshot_json(a->m, &a->ui, f);
	bad |= fclose(f);
	if (bad)
		app_say(a, "export failed: writing %.120s: %s", path, strerror(errno));
	else
		app_say(a, "exported %u directories, %u collision groups to %.120s",
			a->m->ndirs, a->m->ngroups, path);
}

/*
 * The keys: one table, key -> handler.  The help box's key lines and the
 * hint line at the bottom are made from it, so they say what the keys do.
 * Every key redraws the whole frame, paused or not: pausing stops only the
 * periodic refresh of the panes.
 */
struct key_binding {
	int keys[4];            /* characters or TERM_KEY_*; a 0 ends the list */
	const char *label;      /* the help box's key column; up to a ',' also the hint's key */
	const char *does;       /* the help box's text */
	const char *hint;       /* on the keys line (NULL: only in the help) */
	const char *(*setting)(const struct app *a); /* shown after the hint: "(events)" */
	void (*run)(struct app *a, int key);
};

static void key_quit(struct app *a, int key)
{
	(void)key;
	a->quit = 1;
}

static void key_help(struct app *a, int key)
{
	(void)key;
	a->ui.help = 1;
}

static void key_pause(struct app *a, int key)
{
	(void)key;
	a->ui.paused = !a->ui.paused;
}

static const char *sort_setting(const struct app *a)
{
	return render_sort_name(a->ui.sort);
}

static void key_sort(struct app *a, int key)
{
	struct ui *u = &a->ui;

	(void)key;
	u->sort = (u->sort + 1) % SORT_N;
	app_say(a, "directories sorted by %s", render_sort_name(u->sort));
}

static void key_filter(struct app *a, int key)
{
	struct ui *u = &a->ui;

	(void)key;
	u->prompt = 1;
	snprintf(u->prompt_buf, sizeof(u->prompt_buf), "%s", u->filter);
}

/* The drill-in's first name row; it stops at the top, as a negative scroll
 * means "open at the first collision" to render_frame. */
static void scroll_by(struct ui *u, int rows)
{
	u->scroll = u->scroll + rows > 0 ? u->scroll + rows : 0;
}

/* Up/Down: the selected directory, or in a directory the first name shown. */
static void key_move(struct app *a, int key)
{
	int step = key == TERM_KEY_UP || key == 'k' ? -1 : 1;

	if (a->ui.view == LAYOUT_DIR)
		scroll_by(&a->ui, step);
	else
		a->ui.sel += step;
}

static void key_page(struct app *a, int key)
{
	scroll_by(&a->ui, key == TERM_KEY_PGUP ? -a->rows / 2 : a->rows / 2);
}

static void key_enter(struct app *a, int key)
{
	struct ui *u = &a->ui;

	(void)key;
	if (u->view == LAYOUT_MAIN && a->m->ndirs && a->dir_rows) {
		u->view = LAYOUT_DIR;
		u->scroll = -1;
	} else {
		u->view = LAYOUT_MAIN;
	}
}

static void key_back(struct app *a, int key)
{
	(void)key;
	a->ui.view = LAYOUT_MAIN;
}

static void key_export(struct app *a, int key)
{
	(void)key;
	export_json(a);
}

static const struct key_binding key_bindings[] = {
	{ { 'q', 'Q' }, "q", "quit (terminal restored)", "quit", NULL, key_quit },
	{ { 'h', '?' }, "h, ?", "this help; any key closes it", "help", NULL, key_help },
	{ { ' ' }, "space", "pause: the panes freeze, counting and the status line go on",
	  "pause", NULL, key_pause },
	{ { 's' }, "s", "sort directories: events, names, pairs, pairs/expected, dir",
	  "sort", sort_setting, key_sort },
	{ { '/' }, "/", "filter by name, directory (dev:ino) or comm; empty clears",
	  "filter", NULL, key_filter },
	{ { TERM_KEY_UP, TERM_KEY_DOWN, 'k', 'j' }, "Up/Down, k/j",
	  "select a directory; in a directory: scroll its names", NULL, NULL, key_move },
	{ { TERM_KEY_PGUP, TERM_KEY_PGDN }, "PgUp/PgDn",
	  "in a directory: scroll its names by half a screen", NULL, NULL, key_page },
	{ { TERM_KEY_ENTER }, "Enter", "drill into the selected directory; Enter again: back",
	  "drill in", NULL, key_enter },
	{ { TERM_KEY_ESC, TERM_KEY_BACKSPACE }, "Esc", "back to the directories", NULL, NULL, key_back },
	{ { 'e' }, "e", "export a snapshot as JSON (cookie-top-<time>.json)", "export JSON", NULL,
	  key_export },
};
#define NKEY_BINDINGS ((int)(sizeof(key_bindings) / sizeof(key_bindings[0])))

static const struct key_binding *key_lookup(int key)
{
	for (int i = 0; i < NKEY_BINDINGS; i++)
		for (int j = 0; j < 4 && key_bindings[i].keys[j]; j++)
			if (key_bindings[i].keys[j] == key)
				return &key_bindings[i];
	return NULL;
}

/* The help box's key lines, once: the ui points at them. */
static void keys_help_init(struct app *a)
{
	_Static_assert(NKEY_BINDINGS <= sizeof(a->keys_help) / sizeof(a->keys_help[0]),
		       "keys_help holds every binding");
	for (int i = 0; i < NKEY_BINDINGS; i++)
		a->keys_help[i] = (struct render_key_help){ key_bindings[i].label, key_bindings[i].does };
	a->ui.keys = a->keys_help;
	a->ui.nkeys = NKEY_BINDINGS;
}

/* The keys line: "q quit  h help  space pause  s sort (events)  ..." */
static void keys_hints(struct app *a)
{
	size_t n = 0, size = sizeof(a->ui.hints);

	a->ui.hints[0] = 0;
	for (int i = 0; i < NKEY_BINDINGS && n < size; i++) {
		const struct key_binding *b = &key_bindings[i];
		if (!b->hint)
			continue;
		n += snprintf(a->ui.hints + n, size - n, "%s%.*s %s", n ? "  " : "",
			      (int)strcspn(b->label, ","), b->label, b->hint);
		if (b->setting && n < size)
			n += snprintf(a->ui.hints + n, size - n, " (%s)", b->setting(a));
	}
}

/* Typing a filter: Enter applies it, Esc clears it. */
static void prompt_key(struct ui *u, int k)
{
	size_t n = strlen(u->prompt_buf);

	if (k == TERM_KEY_ENTER) {
		snprintf(u->filter, sizeof(u->filter), "%s", u->prompt_buf);
		u->prompt = 0;
	} else if (k == TERM_KEY_ESC) {
		u->filter[0] = 0;
		u->prompt = 0;
	} else if (k == TERM_KEY_BACKSPACE) {
		if (n)
			u->prompt_buf[n - 1] = 0;
	} else if (k >= 0x20 && k < 0x7f && n + 1 < sizeof(u->prompt_buf)) {
		u->prompt_buf[n] = k;
		u->prompt_buf[n + 1] = 0;
	}
	u->sel = 0;
}

static void handle_key(struct app *a, int k)
{
	struct ui *u = &a->ui;
	const struct key_binding *b;

	if (k == TERM_KEY_RESIZE) {
		frame(a, 0);
		return;
	}
	if (u->prompt) {
		prompt_key(u, k);
		frame(a, 1);
		return;
	}
	u->msg[0] = 0;
	if (u->help) {		/* any key closes the help */
		u->help = 0;
		frame(a, 1);
		return;
	}
	b = key_lookup(k);
	if (!b)
		return;
	b->run(a, k);
	if (!a->quit)
		frame(a, 1);
}

static void update_rate(struct app *a, double now)
{
	if (now - a->rate_at >= 1.0) {
		a->ui.rate = (a->m->records - a->rate_records) / (now - a->rate_at);
		a->rate_at = now;
		a->rate_records = a->m->records;
	}
}

/* A full frame, and what it showed taken back into the view state. */
static void frame_render(struct app *a)
{
	struct render_shown shown;

	render_frame(a->m, &a->ui, &a->layout, &a->render_cache, &a->canvas, &shown);
	a->ui.view = shown.view;
	a->ui.sel = shown.sel;
	a->ui.dir = shown.dir;
	a->ui.scroll = shown.scroll;
	if (shown.dir_rows >= 0)
		a->dir_rows = shown.dir_rows;
}

/* A frame every 0.25 s (batch: every -d).  Paused, it redraws only the status
 * line, unless panes is set (a key changed the view) or the terminal resized. */
static void frame(struct app *a, int panes)
{
	double now = now_s();

	a->ui.now = now;
	/* msg_at is set with the message (app_say): a message cannot expire
	 * before the frame that first shows it */
	if (a->ui.msg[0] && now - a->msg_at > 5)
		a->ui.msg[0] = 0;
	update_rate(a, now);
	set_source_text(a);
	keys_hints(a);
	if (a->term) {
		int rows, cols;
		term_size(&rows, &cols);
		int resized = rows != a->rows || cols != a->cols;
		if (resized) {
			a->rows = rows;
			a->cols = cols;
			canvas_resize(&a->canvas, rows, cols);
		}
		layout_compute(rows, cols, a->ui.view, &a->layout);
		/* paused: the panes keep their last picture, the status line stays live */
		if (a->ui.paused && !resized && !panes)
			render_status(a->m, &a->ui, &a->layout, &a->canvas);
		else
			frame_render(a);
		term_draw(&a->canvas);
		a->next_frame = now + 0.25;
		a->frames_done++;	/* -n counts screen refreshes too, as top -n does */
		return;
	}
	/* batch */
	a->next_frame = now + a->delay;
	if (a->frames_max >= 0 && a->frames_done >= a->frames_max)
		return;
	a->frames_done++;
	if (a->json) {
		snapshot_json(a->m, &a->ui, stdout);
	} else {
		layout_compute(a->rows, a->cols, LAYOUT_MAIN, &a->layout);
		frame_render(a);
		printf("--- cookie-top frame %d\n", a->frames_done);
		canvas_print(&a->canvas, stdout);
	}
	/* Batch output has no terminal to restore: a failed write ends the run
	 * here (`| head -1` quietly), or a closed reader would never stop it. */
	ck_xflush(stdout, NULL);
}

static void default_socket(char *buf, size_t size)
{
	const char *env = getenv("COOKIEKIT_TRACE_SOCK");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(buf, size, "%s", env);
		return;
	}
	/* build/bin/cookie-top -> build/vm/trace.sock */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		snprintf(buf, size, "%s/../vm/trace.sock", dirname(exe));
		return;
	}
	snprintf(buf, size, "build/vm/trace.sock");
}

/* "120x40": each side a number in 1..1000. */
static int parse_size(const char *arg, int *cols, int *rows)
{
	char buf[32], *x;
	uint64_t c, r;

	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf) || !(x = strchr(buf, 'x')))
		return -1;
	*x = 0;
	if (ck_parse_u64(buf, 1, 1000, &c) || ck_parse_u64(x + 1, 1, 1000, &r))
		return -1;
	*cols = c;
	*rows = r;
	return 0;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	uint64_t v;

	switch (key) {
	case 'x':
		if (!strcmp(arg, "max"))
			env.speed = 0;
		else if (ck_parse_double(arg, 0, 1e9, &env.speed))
			argp_error(state, "--speed %s: give a factor (1 real time, 10, 0.5) or max", arg);
		break;
	case 'w':
		env.record_path = arg;
		break;
	case OPT_FORCE:
		env.force = 1;
		break;
	case 'b':
		env.batch = 1;
		break;
	case 'n':
		if (ck_parse_u64(arg, 0, INT_MAX, &v))
			argp_error(state, "-n %s: give a number of frames", arg);
		env.frames_max = v;
		break;
	case 'd':
		if (ck_parse_double(arg, 0.01, 86400, &env.delay))
			argp_error(state, "-d %s: give seconds between 0.01 and 86400", arg);
		break;
	case OPT_JSON:
		env.json = 1;
		break;
	case OPT_SIZE:
		if (parse_size(arg, &env.cols, &env.rows))
			argp_error(state, "--size %s: give COLSxROWS, each 1..1000, e.g. 120x40", arg);
		break;
	case OPT_MAX_NAMES:
		if (ck_parse_u64(arg, 1, UINT32_MAX / 2, &env.max_names))
			argp_error(state, "--max-names %s: give 1..2^31", arg);
		break;
	case OPT_EXPORT_DIR:
		env.export_dir = arg;
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num >= 1)
			argp_error(state, "one SOURCE at most: '%s' is a second one", arg);
		env.source = arg;
		break;
	case ARGP_KEY_END:
		if (env.json && !env.batch)
			argp_error(state, "--json needs -b");
		/* a terminal showing no frames would run unseen and never end */
		if (env.frames_max == 0 && !env.batch)
			argp_error(state, "-n 0 (no frames, only a summary) needs -b; in the terminal give N >= 1");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* --help ends with the keys, from the same table as the help box. */
static char *help_filter(int key, const char *text, void *input)
{
	char *out = NULL;
	size_t size = 0;
	FILE *f;

	(void)input;
	if (key != ARGP_KEY_HELP_POST_DOC || !text || !(f = open_memstream(&out, &size)))
		return (char *)text;
	fputs(text, f);
	for (int i = 0; i < NKEY_BINDINGS; i++)
		fprintf(f, "  %-14s %s\n", key_bindings[i].label, key_bindings[i].does);
	if (fclose(f)) {
		free(out);
		return (char *)text;
	}
	return out;
}

/*
 * -w's file, opened without losing data: not the input (the same inode,
 * whatever path or stdin names it: truncating it would replay nothing and
 * keep nothing), and an existing regular file with data in it is emptied
 * only with --force.
 * A device or FIFO (/dev/null) is written as it is.  Truncation happens
 * after the inode check, on the descriptor that was checked.
 */
static FILE *record_open(const char *path, const struct source *src, int force,
			 char *err, size_t errsize)
{
	struct stat in, out;
	int have_in = 0, fd;

	if (src->ops == &source_stdin_ops)
		have_in = fstat(0, &in) == 0;
	else if (src->ops == &source_file_ops)
		have_in = stat(src->path, &in) == 0;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &out) < 0) {
		snprintf(err, errsize, "-w %.300s: %s", path, strerror(errno));
		goto fail;
	}
	if (have_in && in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
		snprintf(err, errsize, "-w %.300s is the input being read: recording into it would "
			 "destroy it; record to another file", path);
		goto fail;
	}
	if (S_ISREG(out.st_mode) && out.st_size > 0) {
		if (!force) {
			snprintf(err, errsize, "-w %.300s: the file exists (%lld bytes); give --force to "
				 "replace it, or another name", path, (long long)out.st_size);
			goto fail;
		}
		if (ftruncate(fd, 0) < 0) {
			snprintf(err, errsize, "-w %.300s: cannot empty it: %s", path, strerror(errno));
			goto fail;
		}
	}
	FILE *f = fdopen(fd, "wb");
	if (!f)
		snprintf(err, errsize, "-w %.300s: %s", path, strerror(errno));
	else
		return f;
fail:
	if (fd >= 0)
		close(fd);
	return NULL;
}

/*
 * Setup: everything the run needs, or a->err saying what is missing.  A
 * failure leaves the app for app_teardown, like a finished run.
 */
static int app_setup(struct app *a, const struct env *e)
{
	char sock[PATH_MAX];

	a->batch = e->batch;
	a->json = e->json;
	a->frames_max = e->frames_max;
	a->delay = e->delay;
	a->speed = e->speed >= 0 ? e->speed : e->batch ? 0 : 1;
	a->rows = e->rows;
	a->cols = e->cols;
	a->export_dir = e->export_dir;
	a->record_path = e->record_path;
	render_ui_init(&a->ui);
	keys_help_init(a);
	default_socket(sock, sizeof(sock));
	if (source_setup(&a->src, e->source, sock, a->err, sizeof(a->err)))
		return 1;
	a->m = calloc(1, sizeof(*a->m));
	if (!a->m || tm_init(a->m, e->max_names, 0) ||
	    !(a->parser = ck_rec_parser_new(on_record, on_error, a)) ||
	    canvas_resize(&a->canvas, a->rows, a->cols)) {
		snprintf(a->err, sizeof(a->err), "out of memory");
		return 1;
	}
	if (a->record_path &&
	    !(a->record_to = record_open(a->record_path, &a->src, e->force, a->err, sizeof(a->err))))
		return 1;
	if (!a->batch) {
		if (a->src.ops == &source_stdin_ops && isatty(0)) {
			snprintf(a->err, sizeof(a->err), "stdin is a terminal, not a record stream "
				 "(pipe cookie-trace -f record into it, or give a FILE)");
			return 1;
		}
		if (term_open(a->err, sizeof(a->err)))
			return 1;
		a->term = 1;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* Open the source when it is due; one that cannot wait (a missing file) ends the run. */
static int app_open_source(struct app *a, double now)
{
	if (a->src_open || a->eof || now < a->next_open)
		return 0;
	a->src_open = a->src.ops->open(&a->src) == 0;
	if (a->src_open)
		return 0;
	if (!a->src.retry) {
		snprintf(a->err, sizeof(a->err), "%.300s: %s", a->src.path, a->src.state);
		return -1;
	}
	a->next_open = now + 0.5;
	return 0;
}

/*
 * The end of one stream: report a truncated tail, keep what we have.  The
 * socket waits for the next VM; a file or stdin is done, and in batch mode
 * so is the run, after one last frame (1).
 */
static int app_end_of_stream(struct app *a)
{
	ck_rec_parser_finish(a->parser);
	a->src.ops->close(&a->src);
	a->src_open = 0;
	if (a->src.retry) {
		snprintf(a->src.state, sizeof(a->src.state), "disconnected (VM stopped?); waiting");
		a->next_open = now_s() + 0.5;
		return 0;
	}
	a->eof = 1;
	snprintf(a->src.state, sizeof(a->src.state), "end of %s",
		 a->src.ops == &source_file_ops ? "file" : "input");
	if (a->batch) {
		frame(a, 0);
		return 1;
	}
	a->next_frame = 0;	/* show it now */
	return 0;
}

/* What the source has: recorded (-w), then parsed.  -1: fatal; 1: the run is over. */
static int app_read_source(struct app *a)
{
	ssize_t n = a->src.ops->read(&a->src, a->inbuf, sizeof(a->inbuf));

	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n <= 0)
		return app_end_of_stream(a);
	if (a->record_to && fwrite(a->inbuf, 1, n, a->record_to) != (size_t)n) {
		snprintf(a->err, sizeof(a->err), "write error: -w %.300s: %s", a->record_path,
			 strerror(errno));
		return -1;
	}
	a->ui.now = now_s();
	if (ck_rec_parser_feed(a->parser, a->inbuf, n) < 0) {
		snprintf(a->err, sizeof(a->err), "out of memory");
		return -1;
	}
	return 0;
}

/* Sleep until the next frame or the next try to open the source; a file
 * never waits (it is always readable: reading and frames interleave). */
static int app_poll_ms(const struct app *a, double now)
{
	double until = a->next_frame;

	if (a->src_open && a->src.ops == &source_file_ops)
		return 0;
	if (!a->src_open && !a->eof && a->next_open < until)
		until = a->next_open;
	if (until > now + 3600)
		return 3600000;
	return until > now ? (int)((until - now) * 1000) + 1 : 0;
}

/* The I/O loop: source, keys and frames until q, a signal, or (batch) the end. */
static int app_run(struct app *a)
{
	a->started = a->rate_at = now_s();
	a->next_frame = a->batch ? a->started + a->delay : 0;
	if (a->batch && a->frames_max == 0)
		a->next_frame = 1e300;	/* -n 0: no frames, only the summary */
	while (!a->quit && !got_signal) {
		double now = now_s();
		if (app_open_source(a, now))
			return 1;
		if (app_frames_done(a))
			return 0;
		struct pollfd p[2] = { { .fd = a->src_open ? a->src.fd : -1, .events = POLLIN },
				       { .fd = a->term ? term_fd() : -1, .events = POLLIN } };
		if (poll(p, 2, app_poll_ms(a, now)) < 0 && errno != EINTR)
			return 0;
		if (a->src_open && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			int r = app_read_source(a);
			if (r)
				return r < 0;
		}
		if (a->term && (p[1].revents & POLLIN))
			for (int k; (k = term_key()) != TERM_KEY_NONE;)
				handle_key(a, k);
		if (now_s() >= a->next_frame)
			frame(a, 0);
	}
	return 0;
}

/* -n 0: the figures of the run on stderr (make bench-tui reads them). */
static void app_summary(const struct app *a)
{
	double secs = now_s() - a->started;
	struct ck_rec_stats st;

	ck_rec_parser_stats(a->parser, &st);
	fprintf(stderr, "cookie-top: %" PRIu64 " records (%" PRIu64 " bytes) in %.3f s: %.0f records/s; "
		"%u names, %u dirs, %u groups, model %zu bytes\n", a->m->records,
		st.bytes, secs, a->m->records / (secs > 0 ? secs : 1e-9), a->m->nnames,
		a->m->ndirs, a->m->ngroups, tm_memory(a->m));
}

/*
 * Every end comes here, a finished run or a failed setup: the terminal is
 * restored before anything is said.  Returns the exit status: rc, 1 when
 * the recording could not be written, 3 in batch mode after damaged input.
 */
static int app_teardown(struct app *a, int rc)
{
	if (a->term)
		term_close();
	if (rc && a->err[0])
		fprintf(stderr, "cookie-top: %s\n", a->err);
	if (a->record_to && ck_fclose_checked(a->record_to) && !rc) {
		fprintf(stderr, "cookie-top: write error: -w %s: %s\n", a->record_path, strerror(errno));
		rc = 1;
	}
	if (a->started && a->batch && a->frames_max == 0)
		app_summary(a);
	if (!rc && a->batch && a->m->errors)
		rc = 3;
	ck_rec_parser_free(a->parser);
	canvas_free(&a->canvas);
	render_cache_free(&a->render_cache);
	if (a->m)
		tm_free(a->m);
	free(a->m);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, "[SOURCE]", doc, NULL, help_filter, NULL };
	static struct app a;	/* static: its input buffer is 64 KiB */
	int rc;

	ck_output_init();
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 64;
	rc = app_setup(&a, &env);
	if (!rc)
		rc = app_run(&a);
	return app_teardown(&a, rc);
}
