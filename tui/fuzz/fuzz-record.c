// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: bytes -> lib/record's parser (fed in pieces whose sizes
 * come from the input) -> cookie-top's model -> one rendered frame.  Nothing
 * a stream holds may crash any of them or put a non-printable byte on screen.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "layout.h"
#include "model.h"
#include "record.h"
#include "render.h"

static struct tm_model model;

static int on_record(void *arg, const struct ck_rec *r)
{
	(void)arg;
	tm_ingest(&model, r, 0);
	return 0;
}

static int on_error(void *arg, uint64_t off, const char *msg)
{
	(void)arg;
	tm_input_error(&model, off, msg);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ck_rec_parser *p;
	struct canvas c = { 0 };
	struct render_cache rc = { 0 };
	struct render_shown shown;
	struct layout l;
	struct ui u;

	if (tm_init(&model, 64, 16))
		return 0;
	p = ck_rec_parser_new(on_record, on_error, NULL);
	/* the first byte chooses the chunk size, so records straddle feeds */
	size_t chunk = size ? (data[0] % 64) + 1 : 1;
	for (size_t off = 0; off < size; off += chunk)
		ck_rec_parser_feed(p, data + off, size - off < chunk ? size - off : chunk);
	ck_rec_parser_finish(p);
	ck_rec_parser_free(p);

	render_ui_init(&u);
	canvas_resize(&c, 24, 80);
	layout_compute(24, 80, LAYOUT_MAIN, &l);
	render_frame(&model, &u, &l, &rc, &c, &shown);
	for (int i = 0; i < c.rows * c.cols; i++)
		if (c.ch[i] < 0x20 || c.ch[i] > 0x7e)
			abort();
	if (model.ndirs) {
		u.view = LAYOUT_DIR;
		u.dir = 0;
		layout_compute(24, 80, LAYOUT_DIR, &l);
		render_frame(&model, &u, &l, &rc, &c, &shown);
	}
	canvas_free(&c);
	render_cache_free(&rc);
	tm_free(&model);
	return 0;
}
