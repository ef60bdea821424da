// SPDX-License-Identifier: GPL-2.0
/*
 * ring-floor: the cost of each piece of a cookie-trace record, timed in
 * the guest with BPF_PROG_TEST_RUN apart from any walk.  bpf/bench runs it
 * in the same boot as its walks, so the pieces can be set against the
 * walk's time per name (bpf/README, Speed).  A benchmark, not a test: it
 * prints figures and checks nothing.
 *
 * Loader flow: open -> load -> (nothing to attach: test runs only) ->
 * rounds of one reading per program, the ring drained after each.
 * Every error path ends at one cleanup:.
 */
#include <argp.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "ring-floor.h"
#include "ring-floor.skel.h"
#include "ckutil.h"

static struct env {
	uint64_t repeat;
	uint64_t rounds;
	bool force;
	bool verbose;
} env = {
	.repeat = 20000,
	.rounds = 9,
};

/* In the order they run and print; what each measures, for the reader. */
static const struct piece {
	const char *prog;	/* BPF program name */
	const char *label;
	const char *what;
	int repeat_div;		/* the 4 KiB copy runs fewer times: the ring holds 64 MiB */
} pieces[] = {
	{ "empty", "empty", "the test loop alone (a program that returns)", 1 },
	{ "ktime", "ktime", "bpf_ktime_get_ns(): one event time", 1 },
	{ "reserve_discard", "reserve-discard", "bpf_ringbuf_reserve + discard: the ring's lock", 1 },
	{ "record", "record", "reserve, fill and submit a 144-byte filldir record (no wakeup)", 1 },
	{ "record_query", "record-query", "the same, wakeup decided by bpf_ringbuf_query (cookie-trace)", 1 },
	{ "stage", "stage", "fill the record in a per-CPU map instead (batching's first half)", 1 },
	{ "copy_record", "copy-record", "stage + bpf_ringbuf_output of it: one copy per name", 1 },
	{ "copy_4k", "copy-4k", "bpf_ringbuf_output of 4096 bytes: the copy's cost per byte", 20 },
};
#define NPIECES (sizeof(pieces) / sizeof(pieces[0]))

void (*argp_program_version_hook)(FILE *, struct argp_state *) = ck_argp_version;
const char argp_program_doc[] =
"Time each piece of a cookie-trace ring-buffer record in this kernel,\n"
"with BPF_PROG_TEST_RUN (XDP programs run on a dummy packet; nothing is\n"
"attached).  Prints ns per run: the median of the readings, [min-max].\n"
"Loads BPF programs into the running kernel: run it in the kit's guest\n"
"(bpf/bench does); elsewhere it refuses unless --force.\n"
"\n"
"USAGE: ring-floor [--repeat N] [--rounds R] [--force]\n"
"\n"
"EXAMPLES:\n"
"    ring-floor                  # 9 readings of 20000 runs per piece\n"
"    ring-floor --rounds 21      # tighter medians";

static const struct argp_option opts[] = {
	{ "repeat", 'n', "N", 0, "Runs per reading (default 20000; 1000..1000000; a reading the 64 MiB ring cannot hold fails, saying so)", 0 },
	{ "rounds", 'r', "R", 0, "Readings per piece, rotated (default 9; 1..1000)", 0 },
	{ "force", 'f', NULL, 0, "Run outside the kit's guest (loads BPF into this kernel)", 0 },
	{ "verbose", 'v', NULL, 0, "libbpf debug output", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'n':
		if (ck_parse_u64(arg, 1000, 1000000, &env.repeat)) {
			fprintf(stderr, "ring-floor: --repeat %s: need 1000..1000000\n", arg);
			argp_usage(state);
		}
		break;
	case 'r':
		if (ck_parse_u64(arg, 1, 1000, &env.rounds)) {
			fprintf(stderr, "ring-floor: --rounds %s: need 1..1000\n", arg);
			argp_usage(state);
		}
		break;
	case 'f':
		env.force = true;
		break;
	case 'v':
		env.verbose = true;
		break;
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		fprintf(stderr, "ring-floor: unexpected argument %s\n", arg);
		argp_usage(state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !env.verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* The ring is only drained: nothing reads the records. */
static int discard_record(void *ctx, void *data, size_t size)
{
	(void)ctx, (void)data, (void)size;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg,
					  .doc = argp_program_doc };
	struct ring_floor_bpf *obj = NULL;
	struct ring_buffer *rb = NULL;
	struct bpf_program *prog[NPIECES];
	uint32_t *ns = NULL;
	char pkt[64] = { 0 };	/* an Ethernet-sized dummy: XDP test runs want one */
	int err;

	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return 2;
	if (!env.force && access("/run/ck/variant", F_OK)) {
		fprintf(stderr, "ring-floor: not in the kit's guest (no /run/ck/variant); it loads BPF\n"
			"  programs into the running kernel.  Run it in the guest (bpf/bench does),\n"
			"  or pass --force on a machine where that is what you want.\n");
		return 2;
	}
	libbpf_set_print(libbpf_print);

	ns = calloc(NPIECES * env.rounds, sizeof(*ns));
	obj = ring_floor_bpf__open_and_load();
	if (!ns || !obj) {
		err = -errno;
		fprintf(stderr, "ring-floor: cannot load the BPF programs: %s (run as root; -v says more)\n",
			strerror(errno));
		goto cleanup;
	}
	for (size_t i = 0; i < NPIECES; i++) {
		prog[i] = bpf_object__find_program_by_name(obj->obj, pieces[i].prog);
		if (!prog[i]) {
			err = -ENOENT;
			fprintf(stderr, "ring-floor: no BPF program %s\n", pieces[i].prog);
			goto cleanup;
		}
	}
	rb = ring_buffer__new(bpf_map__fd(obj->maps.rb), discard_record, NULL, NULL);
	if (!rb) {
		err = -errno;
		fprintf(stderr, "ring-floor: cannot read the ring buffer: %s\n", strerror(errno));
		goto cleanup;
	}

	fprintf(stderr, "ring-floor: %llu readings of %llu runs per piece...\n",
		(unsigned long long)env.rounds, (unsigned long long)env.repeat);
	for (uint64_t r = 0; r < env.rounds; r++) {
		/* Rotate the order, so drift hits every piece alike. */
		for (size_t k = 0; k < NPIECES; k++) {
			size_t i = (k + r) % NPIECES;
			LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = pkt, .data_size_in = sizeof(pkt),
				    .repeat = env.repeat / pieces[i].repeat_div);

			err = bpf_prog_test_run_opts(bpf_program__fd(prog[i]), &t);
			if (err) {
				err = -errno;
				fprintf(stderr, "ring-floor: test run of %s failed: %s\n",
					pieces[i].prog, strerror(errno));
				goto cleanup;
			}
			ns[i * env.rounds + r] = t.duration;
			/* A full ring makes reserve and output fail fast: that reading would lie. */
			if (obj->bss->failed) {
				err = -ENOSPC;
				fprintf(stderr, "ring-floor: %s: the ring refused %llu of %u records "
					"(it holds 64 MiB per reading): lower --repeat\n", pieces[i].prog,
					(unsigned long long)obj->bss->failed, t.repeat);
				goto cleanup;
			}
			err = ring_buffer__consume(rb);
			if (err < 0) {
				fprintf(stderr, "ring-floor: draining the ring failed: %s\n", strerror(-err));
				goto cleanup;
			}
			err = 0;
		}
	}

	printf("ring-floor: ns per run, median [min-max] of %llu readings of %llu runs\n",
	       (unsigned long long)env.rounds, (unsigned long long)env.repeat);
	for (size_t i = 0; i < NPIECES; i++) {
		uint32_t *v = ns + i * env.rounds;

		qsort(v, env.rounds, sizeof(*v), cmp_u32);
		printf("floor %-16s %6u [%u-%u]  %s\n", pieces[i].label, v[env.rounds / 2], v[0],
		       v[env.rounds - 1], pieces[i].what);
	}

cleanup:
	ring_buffer__free(rb);
	ring_floor_bpf__destroy(obj);
	free(ns);
	return err ? 1 : 0;
}
