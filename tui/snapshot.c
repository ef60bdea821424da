// SPDX-License-Identifier: GPL-2.0
/* The model as one JSON object: the 'e' key, and batch mode's --json frames. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "record.h"
#include "render.h"

/* JSON strings: lib/record's escaping, the same as the record stream's JSON. */
static void jcstr(FILE *f, const char *s)
{
	ck_json_bytes(f, (const uint8_t *)s, strlen(s));
}

int snapshot_json(const struct tm_model *m, const struct ui *u, FILE *f)
{
	char buf[200];

	fprintf(f, "{\"source\":");
	jcstr(f, u->source);
	fprintf(f, ",\"state\":");
	jcstr(f, u->state);
	fprintf(f, ",\"records\":%" PRIu64 ",\"events\":%" PRIu64 ",\"filldirs\":%" PRIu64
		",\"seeks\":%" PRIu64 ",\"drops\":%" PRIu64 ",\"errors\":%" PRIu64
		",\"names\":%u,\"names_untracked\":%" PRIu64 ",\"dirs_untracked\":%" PRIu64
		",\"loops\":%u,\"collision_stream\":%s,\"collision_records\":%" PRIu64
		",\"summaries\":%" PRIu64 ",\"unchecked\":%" PRIu64 ",\"memory_bytes\":%zu,\"hello\":",
		m->records, m->events, m->filldirs, m->seeks, m->drops, m->errors, m->nnames,
		m->names_untracked, m->dirs_untracked, m->loops,
		m->collision_stream ? "true" : "false", m->collisions, m->summaries, m->unchecked,
		tm_memory(m));
	jcstr(f, m->hello);
	fprintf(f, ",\"last_error\":");
	jcstr(f, m->last_error);
	fprintf(f, ",\"dirs\":[");
	for (uint32_t i = 0; i < m->ndirs; i++) {
		const struct tm_dir *d = &m->dirs[i];
		render_dir_text(d->dev, d->ino, buf, sizeof(buf));
		fprintf(f, "%s{\"dir\":\"%s\",\"dev\":%u,\"ino\":%" PRIu64 ",\"events\":%" PRIu64
			",\"filldirs\":%" PRIu64 ",\"seeks\":%" PRIu64 ",\"loops\":%u,\"reasons\":",
			i ? "," : "", buf, d->dev, d->ino, d->events, d->filldirs, d->seeks, d->loops);
		tm_reasons_text(d->reasons, buf, sizeof(buf));
		jcstr(f, buf);
		fprintf(f, ",\"widths\":{");
		int first = 1;
		for (int w = 0; w < TM_NW; w++) {
			if (!d->names[w])
				continue;
			int bits = tm_wclass_bits(w);
			fprintf(f, "%s\"%d\":{\"names\":%" PRIu64 ",\"cookies\":%" PRIu64 ",\"groups\":%" PRIu64
				",\"pairs\":%" PRIu64 ",\"expected_pairs\":%.6g,\"p_any\":%.6g"
				",\"unchecked\":%" PRIu64 ",\"full\":%s}",
				first ? "" : ",", bits, d->names[w], d->cookies[w], d->groups[w], d->pairs[w],
				tm_birthday_pairs(d->names[w], bits), tm_birthday_p(d->names[w], bits),
				d->unchecked[w], d->full & (1u << w) ? "true" : "false");
			first = 0;
		}
		fprintf(f, "}}");
	}
	fprintf(f, "],\"collisions\":[");
	for (uint32_t g = 0; g < m->ngroups; g++) {
		const struct tm_group *gr = &m->groups[g];
		render_dir_text(m->dirs[gr->dir].dev, m->dirs[gr->dir].ino, buf, sizeof(buf));
		fprintf(f, "%s{\"dir\":\"%s\",\"width\":%d,\"cookie\":\"0x%016" PRIx64 "\",\"members\":[",
			g ? "," : "", buf, tm_wclass_bits(gr->wclass), gr->cookie);
		int k = 0;
		for (uint32_t i = gr->first + 1; i; i = m->names[i - 1].next, k++) {
			const struct tm_name *n = &m->names[i - 1];
			fprintf(f, "%s{\"name\":", k ? "," : "");
			ck_json_bytes(f, tm_name_bytes(m, n), n->name_len);
			fprintf(f, ",\"major\":\"0x%08x\",\"minor\":\"0x%08x\"}", n->major, n->minor);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "],\"readers\":[");
	for (uint32_t i = 0, k = 0; i < m->nreaders; i++) {
		const struct tm_reader *rd = &m->readers[i];
		render_dir_text(m->dirs[rd->dir].dev, m->dirs[rd->dir].ino, buf, sizeof(buf));
		fprintf(f, "%s{\"comm\":", k++ ? "," : "");
		jcstr(f, rd->comm);
		fprintf(f, ",\"tgid\":%u,\"nfsd\":%s,\"dir\":\"%s\",\"filldirs\":%" PRIu64 ",\"seeks\":%" PRIu64
			",\"dup_cookies\":%u,\"loop\":%s,\"loop_cookie\":\"0x%" PRIx64 "\"}",
			rd->tgid, rd->nfsd ? "true" : "false", buf, rd->filldirs, rd->seeks, rd->dup_cookies,
			rd->looping ? "true" : "false", rd->loop_cookie);
	}
	fprintf(f, "]}\n");
	return ferror(f) ? -1 : 0;
}
