// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: bytes -> lib/record's parser (fed in pieces whose sizes
 * come from the input) -> cookie-top's model -> one rendered frame.  Nothing
 * a stream holds may crash any of them or put a non-printable byte on screen.
 *
 * Structure-aware: random mutations almost never keep a record's CRC, so a
 * plain run stays in the resync code (issue 17, defect 10).  The custom
 * mutator below mutates, then re-seals every record it can still frame, so
 * mutated bodies reach decode, the model and the frame.  CK_FUZZ_RESEAL=0
 * turns that off (to compare coverage); the seeds are tests/fuzz/record/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layout.h"
#include "model.h"
#include "record.h"
#include "render.h"

static struct tm_model model;
static int reseal = 1;
/* Said at exit: the test checks that the empty-name path (defect 9a) is reached. */
static unsigned long long empty_names, records_in;

static int on_record(void *arg, const struct ck_rec *r)
{
	(void)arg;
	records_in++;
	empty_names += r->kind == CK_REC_FILLDIR && r->name_len == 0;
	tm_ingest(&model, r, 0);
	return 0;
}

static int on_error(void *arg, uint64_t off, const char *msg)
{
	(void)arg;
	tm_input_error(&model, off, msg);
	return 0;
}

static void say_reached(void)
{
	fprintf(stderr, "fuzz-record: %llu records reached the model, %llu with an empty name\n",
		records_in, empty_names);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *e = getenv("CK_FUZZ_RESEAL");

	(void)argc;
	(void)argv;
	reseal = !(e && !strcmp(e, "0"));
	atexit(say_reached);
	return 0;
}

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/*
 * Mutate, then walk the bytes as the parser would: a "ck" header whose
 * length fits is re-sealed (its CRC recomputed) and skipped whole.  Event
 * records of version 1 get, one time in two, the length their name_len
 * asks for, so a mutated name_len (0 included) frames a decodable record.
 * One mutation in eight stays unsealed: bad CRCs are a damage class too.
 */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	size = LLVMFuzzerMutate(data, size, max_size);
	if (!reseal || seed % 8 == 0)
		return size;
	for (size_t pos = 0; pos + CK_REC_HDR_LEN <= size;) {
		uint8_t *h = data + pos;
		size_t len = h[4] | (size_t)h[5] << 8;

		if (h[0] != CK_REC_MAGIC0 || h[1] != CK_REC_MAGIC1) {
			pos++;
			continue;
		}
		if ((seed & 16) && h[2] == CK_REC_VERSION && h[3] >= CK_REC_FILLDIR &&
		    h[3] <= CK_REC_LLSEEK_EXIT && pos + CK_REC_HDR_LEN + CK_REC_EVENT_LEN <= size) {
			size_t name_len = h[CK_REC_HDR_LEN + 104] | (size_t)h[CK_REC_HDR_LEN + 105] << 8;
			size_t want = CK_REC_HDR_LEN + CK_REC_EVENT_LEN + name_len;
			if (name_len <= CK_REC_NAME_MAX && want <= size - pos) {
				h[4] = want & 0xff;
				h[5] = want >> 8;
				len = want;
			}
		}
		if (len < CK_REC_HDR_LEN || len > size - pos) {
			pos++;
			continue;
		}
		ck_rec_seal(h, len);
		pos += len;
	}
	return size;
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
