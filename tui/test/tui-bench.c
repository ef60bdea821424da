// SPDX-License-Identifier: GPL-2.0
/*
 * Figures for tui/README.md (not a test): model memory per tracked name over
 * N distinct names (default 10^6), and the time to render one frame
 * (main view 300x100 and 80x24, drill-in view) with them tracked.
 *   tui-bench [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ckutil.h"
#include "cookie.h"
#include "layout.h"
#include "model.h"
#include "render.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double frame_ms(struct tm_model *m, struct ui *u, struct render_cache *rc, int rows, int cols,
		       enum layout_view v)
{
	struct render_shown shown;
	struct canvas c = { 0 };
	struct layout l;
	double best = 1e9;

	canvas_resize(&c, rows, cols);
	layout_compute(rows, cols, v, &l);
	u->view = v;
	render_frame(m, u, &l, rc, &c, &shown); /* warm (the drill-in view sorts its names once) */
	for (int i = 0; i < 5; i++) {
		double t = now_s();
		render_frame(m, u, &l, rc, &c, &shown);
		t = (now_s() - t) * 1e3;
		if (t < best)
			best = t;
	}
	canvas_free(&c);
	return best;
}

int main(int argc, char **argv)
{
	uint64_t n = 1000000;
	if (argc > 1 && ck_parse_u64(argv[1], 1, 100000000, &n))
		return 2;
	struct tm_model *m = calloc(1, sizeof(*m));
	struct tm_model *empty = calloc(1, sizeof(*empty));
	tm_init(m, 0, 0);
	tm_init(empty, 0, 0);
	struct ck_rec r;
	memset(&r, 0, sizeof(r));
	r.kind = CK_REC_FILLDIR;
	r.pid = r.tgid = 7;
	strcpy(r.comm, "bench");
	r.dev = 8 << 20 | 16;
	r.dir_ino = 2;
	struct ck_rng rng;
	ck_rng_seed(&rng, 42);
	double t = now_s();
	size_t name_bytes = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t x = ck_rng_next(&rng);
		r.name_len = snprintf((char *)r.name, sizeof(r.name), "file-%08llu", (unsigned long long)i);
		name_bytes += r.name_len;
		r.major = (uint32_t)x & ~1u;
		r.minor = x >> 32;
		r.cookie = cookie_hash2pos(COOKIE_31BIT, r.major, r.minor);
		r.dir_ino = 2 + i % 64;   /* 64 directories */
		r.ts_ns = i;
		tm_ingest(m, &r, 0);
	}
	t = now_s() - t;
	size_t mem = tm_memory(m) - tm_memory(empty);
	printf("names tracked: %u in %u dirs, %u collision groups (31-bit cookies)\n", m->nnames, m->ndirs, m->ngroups);
	printf("model ingest, direct: %.2f M records/s\n", n / t / 1e6);
	printf("memory: %zu bytes for %llu names = %.1f B/name (names themselves: %.1f B avg)\n",
	       mem, (unsigned long long)n, (double)mem / n, (double)name_bytes / n);
	struct ui u;
	struct render_cache rc = { 0 };
	render_ui_init(&u);
	snprintf(u.source, sizeof(u.source), "bench");
	printf("frame, main view 300x100: %.2f ms\n", frame_ms(m, &u, &rc, 100, 300, LAYOUT_MAIN));
	printf("frame, main view 80x24:   %.2f ms\n", frame_ms(m, &u, &rc, 24, 80, LAYOUT_MAIN));
	u.dir = 0;
	printf("frame, one directory (%llu names) 300x100: %.2f ms (after its one-off sort)\n",
	       (unsigned long long)(m->dirs[0].names[0]), frame_ms(m, &u, &rc, 100, 300, LAYOUT_DIR));
	render_cache_free(&rc);
	tm_free(m);
	tm_free(empty);
	free(m);
	free(empty);
	return 0;
}
