// SPDX-License-Identifier: GPL-2.0
/* The trace record stream: writer, streaming parser, text forms (format in record.h). */
#include "record.h"

#include "ckutil.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- CRC-32 (IEEE 802.3, reflected, as zlib) */

/*
 * Slice-by-8: eight tables, eight bytes per step instead of one table
 * lookup per byte.  The writer checksums every record (cookie-trace, ~120
 * bytes per name) and so does every reader; byte at a time this was most
 * of the reader's CPU per event.
 */
static uint32_t crc_table[8][256];
static int crc_ready;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = crc_table[0][crc_table[t - 1][i] & 0xff] ^
					  (crc_table[t - 1][i] >> 8);
	crc_ready = 1;
}

uint32_t ck_rec_crc32(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (!crc_ready)
		crc_init();
	crc = ~crc;
	while (len >= 8) {
		/* Byte loads, not a 64-bit load: any alignment, any endianness. */
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
				     (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 |
			      (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		      crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* ---- little-endian field access */

static void put16(uint8_t *p, uint16_t v) { p[0] = v; p[1] = v >> 8; }
static void put32(uint8_t *p, uint32_t v) { put16(p, v); put16(p + 2, v >> 16); }
static void put64(uint8_t *p, uint64_t v) { put32(p, v); put32(p + 4, v >> 32); }
static uint16_t get16(const uint8_t *p) { return p[0] | p[1] << 8; }
static uint32_t get32(const uint8_t *p) { return get16(p) | (uint32_t)get16(p + 2) << 16; }
static uint64_t get64(const uint8_t *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

static int is_event(int kind)
{
	return kind == CK_REC_FILLDIR || kind == CK_REC_LLSEEK_ENTRY || kind == CK_REC_LLSEEK_EXIT;
}

const char *ck_rec_kind_name(enum ck_rec_kind kind)
{
	switch (kind) {
	case CK_REC_HELLO: return "hello";
	case CK_REC_FILLDIR: return "filldir";
	case CK_REC_LLSEEK_ENTRY: return "llseek";
	case CK_REC_LLSEEK_EXIT: return "llseek-ret";
	case CK_REC_DROP: return "drop";
	}
	return "?";
}

int ck_rec_width(const struct ck_rec *r)
{
	if (r->flags & CK_REC_F_FMODE32)
		return 32;
	if (r->flags & CK_REC_F_FMODE64)
		return 64;
	return r->flags & CK_REC_F_COMPAT ? 32 : 64;
}

/* ---- writer */

static uint32_t header_crc(const uint8_t *rec, size_t len)
{
	uint32_t crc = ck_rec_crc32(0, rec, 8);
	return ck_rec_crc32(crc, rec + CK_REC_HDR_LEN, len - CK_REC_HDR_LEN);
}

int ck_rec_encode(const struct ck_rec *r, uint8_t *buf, size_t size)
{
	uint8_t *b = buf + CK_REC_HDR_LEN;
	size_t len;

	if (is_event(r->kind)) {
		if (r->name_len > CK_REC_NAME_MAX)
			goto inval;
		len = CK_REC_HDR_LEN + CK_REC_EVENT_LEN + r->name_len;
	} else if (r->kind == CK_REC_DROP) {
		len = CK_REC_HDR_LEN + CK_REC_DROP_LEN;
	} else if (r->kind == CK_REC_HELLO) {
		if (r->text_len > CK_REC_TEXT_MAX)
			goto inval;
		len = CK_REC_HDR_LEN + CK_REC_HELLO_LEN + r->text_len;
	} else {
		goto inval;
	}
	if (size < len)
		goto inval;
	memset(buf, 0, len);
	buf[0] = CK_REC_MAGIC0;
	buf[1] = CK_REC_MAGIC1;
	buf[2] = CK_REC_VERSION;
	buf[3] = r->kind;
	put16(buf + 4, len);
	if (is_event(r->kind)) {
		put64(b + 0, r->ts_ns);
		put32(b + 8, r->pid);
		put32(b + 12, r->tgid);
		memcpy(b + 16, r->comm, strnlen(r->comm, CK_REC_COMM_LEN));
		put32(b + 32, r->flags);
		put32(b + 36, r->f_mode);
		put32(b + 40, r->dev);
		put64(b + 44, r->dir_ino);
		put64(b + 52, r->ino);
		put32(b + 60, r->major);
		put32(b + 64, r->minor);
		put64(b + 68, r->cookie);
		put32(b + 76, r->chain_index);
		put32(b + 80, r->chain_len);
		put64(b + 84, (uint64_t)r->offset);
		put32(b + 92, r->whence);
		put64(b + 96, (uint64_t)r->result);
		put16(b + 104, r->name_len);
		memcpy(b + CK_REC_EVENT_LEN, r->name, r->name_len);
	} else if (r->kind == CK_REC_DROP) {
		put64(b + 0, r->ts_ns);
		put64(b + 8, r->lost);
		put64(b + 16, r->lost_total);
	} else {
		put64(b + 0, r->ts_ns);
		put32(b + 8, r->flags);
		put16(b + 12, r->text_len);
		memcpy(b + CK_REC_HELLO_LEN, r->text, r->text_len);
	}
	put32(buf + 8, header_crc(buf, len));
	return (int)len;
inval:
	errno = EINVAL;
	return -1;
}

int ck_rec_write(FILE *f, const struct ck_rec *r)
{
	uint8_t buf[CK_REC_MAX_LEN];
	int n = ck_rec_encode(r, buf, sizeof(buf));

	if (n < 0)
		return -1;
	return fwrite(buf, 1, n, f) == (size_t)n ? 0 : -1;
}

int ck_rec_write_hello(FILE *f, uint64_t ts_ns, uint32_t flags, const char *text)
{
	struct ck_rec r = { .kind = CK_REC_HELLO, .ts_ns = ts_ns, .flags = flags };
	size_t n = text ? strlen(text) : 0;

	if (n > CK_REC_TEXT_MAX) {
		errno = EINVAL;
		return -1;
	}
	r.text_len = n;
	memcpy(r.text, text ? text : "", n);
	return ck_rec_write(f, &r);
}

int ck_rec_write_drop(FILE *f, uint64_t ts_ns, uint64_t lost, uint64_t lost_total)
{
	struct ck_rec r = { .kind = CK_REC_DROP, .ts_ns = ts_ns, .lost = lost,
			    .lost_total = lost_total };
	return ck_rec_write(f, &r);
}

/* ---- parser */

struct ck_rec_parser {
	ck_rec_record_fn on_record;
	ck_rec_error_fn on_error;
	void *arg;
	uint8_t *buf;        /* unconsumed bytes */
	size_t len, cap;
	uint64_t base;       /* stream offset of buf[0] */
	uint64_t garbage_at; /* where the current run of garbage began */
	uint64_t garbage;    /* its length so far (reported when it ends) */
	struct ck_rec_stats st;
	struct ck_rec rec;   /* decoded into, so no large stack frame */
};

struct ck_rec_parser *ck_rec_parser_new(ck_rec_record_fn on_record,
					ck_rec_error_fn on_error, void *arg)
{
	struct ck_rec_parser *p = ck_xcalloc(1, sizeof(*p));

	p->on_record = on_record;
	p->on_error = on_error;
	p->arg = arg;
	return p;
}

void ck_rec_parser_free(struct ck_rec_parser *p)
{
	if (!p)
		return;
	free(p->buf);
	free(p);
}

void ck_rec_parser_stats(const struct ck_rec_parser *p, struct ck_rec_stats *out)
{
	*out = p->st;
}

static int report(struct ck_rec_parser *p, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int report(struct ck_rec_parser *p, uint64_t off, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	p->st.errors++;
	if (!p->on_error)
		return 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return p->on_error(p->arg, off, msg);
}

/* A run of garbage ended (a record starts, or the input ends): say so once. */
static int flush_garbage(struct ck_rec_parser *p)
{
	uint64_t n = p->garbage;

	if (!n)
		return 0;
	p->garbage = 0;
	return report(p, p->garbage_at, "skipped %" PRIu64 " byte%s that are not a record "
		      "(bad magic, length or CRC)", n, n == 1 ? "" : "s");
}

static void skip_garbage(struct ck_rec_parser *p, size_t n)
{
	if (!p->garbage)
		p->garbage_at = p->base;
	p->garbage += n;
	p->st.skipped += n;
}

/* Decode the body of a checked record of a known version into p->rec; 0 or -1. */
static int decode(struct ck_rec_parser *p, const uint8_t *rec, size_t len, const char **why)
{
	struct ck_rec *r = &p->rec;
	const uint8_t *b = rec + CK_REC_HDR_LEN;
	size_t blen = len - CK_REC_HDR_LEN;

	memset(r, 0, sizeof(*r));
	r->version = rec[2];
	r->kind = rec[3];
	if (is_event(r->kind)) {
		if (blen < CK_REC_EVENT_LEN) {
			*why = "event body too short";
			return -1;
		}
		r->ts_ns = get64(b + 0);
		r->pid = get32(b + 8);
		r->tgid = get32(b + 12);
		memcpy(r->comm, b + 16, CK_REC_COMM_LEN);
		r->flags = get32(b + 32);
		r->f_mode = get32(b + 36);
		r->dev = get32(b + 40);
		r->dir_ino = get64(b + 44);
		r->ino = get64(b + 52);
		r->major = get32(b + 60);
		r->minor = get32(b + 64);
		r->cookie = get64(b + 68);
		r->chain_index = get32(b + 76);
		r->chain_len = get32(b + 80);
		r->offset = (int64_t)get64(b + 84);
		r->whence = get32(b + 92);
		r->result = (int64_t)get64(b + 96);
		r->name_len = get16(b + 104);
		if (r->name_len > CK_REC_NAME_MAX) {
			*why = "name longer than 255 bytes";
			return -1;
		}
		if (blen < (size_t)CK_REC_EVENT_LEN + r->name_len) {
			*why = "name runs past the record";
			return -1;
		}
		memcpy(r->name, b + CK_REC_EVENT_LEN, r->name_len);
	} else if (r->kind == CK_REC_DROP) {
		if (blen < CK_REC_DROP_LEN) {
			*why = "drop body too short";
			return -1;
		}
		r->ts_ns = get64(b + 0);
		r->lost = get64(b + 8);
		r->lost_total = get64(b + 16);
	} else if (r->kind == CK_REC_HELLO) {
		if (blen < CK_REC_HELLO_LEN) {
			*why = "hello body too short";
			return -1;
		}
		r->ts_ns = get64(b + 0);
		r->flags = get32(b + 8);
		r->text_len = get16(b + 12);
		if (r->text_len > CK_REC_TEXT_MAX || blen < (size_t)CK_REC_HELLO_LEN + r->text_len) {
			*why = "hello text runs past the record";
			return -1;
		}
		memcpy(r->text, b + CK_REC_HELLO_LEN, r->text_len);
	} else {
		*why = "unknown record kind";
		return -1;
	}
	return 0;
}

/*
 * Can a version-1 header of this kind have this length?  Checked before
 * waiting for the body, so a false "ck" in garbage costs at most one
 * maximal v1 record of look-ahead, not 64 KiB.  Other versions are judged
 * by the CRC alone.
 */
static int plausible_len(const uint8_t *h, size_t len)
{
	if (h[2] == 0 || h[2] > CK_REC_VERSION_MAX)
		return 0;
	if (h[2] != CK_REC_VERSION)
		return len >= CK_REC_HDR_LEN;
	switch (h[3]) {
	case CK_REC_FILLDIR:
	case CK_REC_LLSEEK_ENTRY:
	case CK_REC_LLSEEK_EXIT:
		return len >= CK_REC_HDR_LEN + CK_REC_EVENT_LEN &&
		       len <= CK_REC_HDR_LEN + CK_REC_EVENT_LEN + CK_REC_NAME_MAX;
	case CK_REC_DROP:
		return len == CK_REC_HDR_LEN + CK_REC_DROP_LEN;
	case CK_REC_HELLO:
		return len >= CK_REC_HDR_LEN + CK_REC_HELLO_LEN && len <= CK_REC_MAX_LEN;
	}
	return 0;
}

/* Is there a complete, CRC-checked record starting at h (avail bytes)? */
static int whole_record_at(const uint8_t *h, size_t avail)
{
	size_t len;

	if (avail < CK_REC_HDR_LEN || h[0] != CK_REC_MAGIC0 || h[1] != CK_REC_MAGIC1)
		return 0;
	len = get16(h + 4);
	return plausible_len(h, len) && len <= avail && get32(h + 8) == header_crc(h, len);
}

/*
 * Consume what can be consumed from p->buf.  Returns 0 when more input is
 * needed, or a callback's non-zero value.  At the end of input (at_eof) an
 * incomplete candidate is a false magic if a whole record follows it (skip
 * a byte and go on), else a truncated record (left for finish to report).
 */
static int drain(struct ck_rec_parser *p, int at_eof)
{
	size_t pos = 0;
	int ret = 0;

	while (pos < p->len) {
		const uint8_t *h = p->buf + pos;
		size_t avail = p->len - pos;

		if (h[0] != CK_REC_MAGIC0 || (avail >= 2 && h[1] != CK_REC_MAGIC1)) {
			/* Garbage: jump to the next possible magic in one step. */
			const uint8_t *m = memchr(h + 1, CK_REC_MAGIC0, avail - 1);
			size_t n = m ? (size_t)(m - h) : avail;
			skip_garbage(p, n);
			p->base += n;
			pos += n;
			continue;
		}
		if (avail < CK_REC_HDR_LEN)
			break;
		size_t len = get16(h + 4);
		if (!plausible_len(h, len)) {
			skip_garbage(p, 1);
			p->base++;
			pos++;
			continue;
		}
		if (avail < len) {	/* wait for the rest, unless there is no more */
			int later = 0;
			for (size_t j = 1; at_eof && !later && j < avail; j++)
				later = whole_record_at(h + j, avail - j);
			if (!later)
				break;
			skip_garbage(p, 1);
			p->base++;
			pos++;
			continue;
		}
		if (get32(h + 8) != header_crc(h, len)) {
			skip_garbage(p, 1);
			p->base++;
			pos++;
			continue;
		}
		/* A record, checked.  Garbage before it ends here. */
		if ((ret = flush_garbage(p)))
			goto out_advance_record;
		if (h[2] != CK_REC_VERSION) {
			p->st.skipped += len;
			ret = report(p, p->base, "skipped a version %u record (%zu bytes): this "
				     "reader knows version %d; rebuild it from a matching tree",
				     h[2], len, CK_REC_VERSION);
		} else {
			const char *why = NULL;
			if (decode(p, h, len, &why)) {
				p->st.skipped += len;
				ret = report(p, p->base, "skipped a %s record (%zu bytes): %s",
					     ck_rec_kind_name(h[3]), len, why);
			} else {
				p->st.records++;
				ret = p->on_record ? p->on_record(p->arg, &p->rec) : 0;
			}
		}
out_advance_record:
		p->base += len;
		pos += len;
		if (ret)
			break;
	}
	if (pos) {	/* buf is NULL until the first feed */
		memmove(p->buf, p->buf + pos, p->len - pos);
		p->len -= pos;
	}
	return ret;
}

int ck_rec_parser_feed(struct ck_rec_parser *p, const void *data, size_t len)
{
	const uint8_t *d = data;

	p->st.bytes += len;
	while (len) {
		/*
		 * drain() keeps less than one record (< 64 KiB) between calls, so
		 * the buffer never needs more than that plus one chunk.
		 */
		size_t room = p->cap - p->len;
		if (!room) {
			size_t ncap = 65536 + 16384;
			/*
			 * Not ck_xrealloc: ENOMEM goes back to the caller, so a
			 * viewer holding the terminal (cookie-top) can give it
			 * back before it says why it stopped.
			 */
			uint8_t *nb = realloc(p->buf, ncap);
			if (!nb) {
				errno = ENOMEM;
				return -1;
			}
			p->buf = nb;
			p->cap = ncap;
			room = p->cap - p->len;
		}
		size_t n = len < room ? len : room;
		memcpy(p->buf + p->len, d, n);
		p->len += n;
		d += n;
		len -= n;
		int ret = drain(p, 0);
		if (ret)
			return ret;
	}
	return 0;
}

int ck_rec_parser_finish(struct ck_rec_parser *p)
{
	int dirty = p->len > 0 || p->garbage > 0;

	drain(p, 1);

	if (p->len) {
		if (p->garbage) {	/* the tail joins the open run of garbage */
			skip_garbage(p, p->len);
			flush_garbage(p);
		} else {
			p->st.skipped += p->len;
			report(p, p->base, "stream ends inside a record: %zu byte%s of a "
			       "truncated record dropped", p->len, p->len == 1 ? "" : "s");
		}
		p->base += p->len;
		p->len = 0;
	} else {
		flush_garbage(p);
	}
	return dirty;
}

int ck_rec_parse_file(FILE *f, ck_rec_record_fn on_record,
		      ck_rec_error_fn on_error, void *arg, struct ck_rec_stats *stats)
{
	struct ck_rec_parser *p = ck_rec_parser_new(on_record, on_error, arg);
	uint8_t chunk[65536];
	size_t n;
	int ret = 0;

	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if ((ret = ck_rec_parser_feed(p, chunk, n)))
			break;
	if (!ret && ferror(f))
		ret = -1;
	if (!ret)
		ck_rec_parser_finish(p);
	if (stats)
		ck_rec_parser_stats(p, stats);
	ck_rec_parser_free(p);
	return ret;
}

/* ---- text forms */

void ck_json_bytes(FILE *f, const uint8_t *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int ck_rec_print_text(FILE *f, const struct ck_rec *r)
{
	double ts = r->ts_ns / 1e9;

	switch (r->kind) {
	case CK_REC_HELLO:
		fprintf(f, "%.6f hello %.*s\n", ts, (int)r->text_len, r->text);
		break;
	case CK_REC_DROP:
		fprintf(f, "%.6f DROP lost=%" PRIu64 " total=%" PRIu64 "\n", ts, r->lost, r->lost_total);
		break;
	case CK_REC_FILLDIR:
		fprintf(f, "%.6f filldir %-15s %u%s w%d dev=%u:%u dir=%" PRIu64 " major=%08x minor=%08x "
			"cookie=%#" PRIx64 " chain=%u/%u ino=%" PRIu64 " name=",
			ts, r->comm, r->pid, r->flags & CK_REC_F_NFSD ? " nfsd" : "", ck_rec_width(r),
			r->dev >> 20, r->dev & 0xfffff, r->dir_ino, r->major, r->minor, r->cookie,
			r->chain_index + 1, r->chain_len, r->ino);
		ck_print_name(f, (const char *)r->name, r->name_len);
		fputc('\n', f);
		break;
	case CK_REC_LLSEEK_ENTRY:
	case CK_REC_LLSEEK_EXIT:
		fprintf(f, "%.6f %s %-15s %u%s w%d dev=%u:%u dir=%" PRIu64 " offset=%#" PRIx64
			" whence=%u pos=%#" PRIx64, ts, ck_rec_kind_name(r->kind), r->comm, r->pid,
			r->flags & CK_REC_F_NFSD ? " nfsd" : "", ck_rec_width(r), r->dev >> 20,
			r->dev & 0xfffff, r->dir_ino, (uint64_t)r->offset, r->whence, r->cookie);
		if (r->kind == CK_REC_LLSEEK_EXIT)
			fprintf(f, " result=%#" PRIx64, (uint64_t)r->result);
		fputc('\n', f);
		break;
	default:
		fprintf(f, "%.6f ? kind %d\n", ts, r->kind);
	}
	return ferror(f) ? -1 : 0;
}

int ck_rec_print_json(FILE *f, const struct ck_rec *r)
{
	fprintf(f, "{\"kind\":\"%s\",\"ts_ns\":%" PRIu64, ck_rec_kind_name(r->kind), r->ts_ns);
	switch (r->kind) {
	case CK_REC_HELLO:
		fprintf(f, ",\"flags\":%u,\"text\":", r->flags);
		ck_json_bytes(f, (const uint8_t *)r->text, r->text_len);
		break;
	case CK_REC_DROP:
		fprintf(f, ",\"lost\":%" PRIu64 ",\"lost_total\":%" PRIu64, r->lost, r->lost_total);
		break;
	default:
		fprintf(f, ",\"pid\":%u,\"tgid\":%u,\"comm\":", r->pid, r->tgid);
		ck_json_bytes(f, (const uint8_t *)r->comm, strlen(r->comm));
		fprintf(f, ",\"nfsd\":%s,\"compat\":%s,\"fmode32\":%s,\"fmode64\":%s,\"width\":%d,"
			"\"f_mode\":%u,\"dev\":%u,\"dir_ino\":%" PRIu64,
			r->flags & CK_REC_F_NFSD ? "true" : "false",
			r->flags & CK_REC_F_COMPAT ? "true" : "false",
			r->flags & CK_REC_F_FMODE32 ? "true" : "false",
			r->flags & CK_REC_F_FMODE64 ? "true" : "false",
			ck_rec_width(r), r->f_mode, r->dev, r->dir_ino);
		if (r->kind == CK_REC_FILLDIR) {
			fprintf(f, ",\"ino\":%" PRIu64 ",\"major\":%u,\"minor\":%u,\"cookie\":%" PRIu64
				",\"chain_index\":%u,\"chain_len\":%u,\"name\":",
				r->ino, r->major, r->minor, r->cookie, r->chain_index, r->chain_len);
			ck_json_bytes(f, r->name, r->name_len);
		} else {
			fprintf(f, ",\"pos\":%" PRIu64 ",\"offset\":%" PRId64 ",\"whence\":%u",
				r->cookie, r->offset, r->whence);
			if (r->kind == CK_REC_LLSEEK_EXIT)
				fprintf(f, ",\"result\":%" PRId64, r->result);
		}
	}
	fputs("}\n", f);
	return ferror(f) ? -1 : 0;
}
