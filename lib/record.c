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

/*
 * CRC arithmetic (zlib's crc32_combine): crc(A B) = mulx(x8n(|B|), crc(A))
 * ^ crc(B).  With the CRC of every prefix of the buffer kept, the CRC of any
 * stretch is two lookups and one multiplication, however long the stretch:
 * the resync tries a candidate at every "ck" and must not re-read its
 * length (up to 64 KiB) each time.
 */
#define CRC_POLY 0xedb88320u
static uint32_t crc_x2n[32];	/* x^(2^k) mod P, reflected */

/* a * b mod P, reflected (bit 31 is x^0). */
static uint32_t crc_mulx(uint32_t a, uint32_t b)
{
	uint32_t prod = 0;

	for (uint32_t m = 1u << 31; m && a; m >>= 1) {
		if (a & m) {
			prod ^= b;
			a ^= m;
		}
		b = b & 1 ? (b >> 1) ^ CRC_POLY : b >> 1;
	}
	return prod;
}

/* x^(8n) mod P: the factor that moves a CRC past n more bytes. */
static uint32_t crc_x8n(size_t n)
{
	uint32_t p = 1u << 31;	/* x^0 */

	if (!crc_x2n[0]) {
		crc_x2n[0] = 1u << 30;	/* x^1 */
		for (int k = 1; k < 32; k++)
			crc_x2n[k] = crc_mulx(crc_x2n[k - 1], crc_x2n[k - 1]);
	}
	for (int k = 3; n; n >>= 1, k++)
		if (n & 1)
			p = crc_mulx(crc_x2n[k & 31], p);
	return p;
}

/* ---- little-endian field access */

static void put16(uint8_t *p, uint16_t v) { p[0] = v; p[1] = v >> 8; }
static void put32(uint8_t *p, uint32_t v) { put16(p, v); put16(p + 2, v >> 16); }
static void put64(uint8_t *p, uint64_t v) { put32(p, v); put32(p + 4, v >> 32); }
static uint16_t get16(const uint8_t *p) { return p[0] | p[1] << 8; }
static uint32_t get32(const uint8_t *p) { return get16(p) | (uint32_t)get16(p + 2) << 16; }
static uint64_t get64(const uint8_t *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

/*
 * One field of a body table (record.h), by its wire type: p is the field's
 * place in the body, m the struct ck_rec member, n its size on the wire.
 * PAD fields have no member; their macros drop the argument unexpanded.
 */
#define PUT_U16(p, m, n) put16(p, m)
#define PUT_U32(p, m, n) put32(p, m)
#define PUT_U64(p, m, n) put64(p, m)
#define PUT_S64(p, m, n) put64(p, (uint64_t)(m))
#define PUT_STR(p, m, n) memcpy(p, m, strnlen(m, n))
#define PUT_LEN PUT_U16
#define PUT_PAD(p, m, n) (void)0
#define GET_U16(p, m, n) (m = get16(p))
#define GET_U32(p, m, n) (m = get32(p))
#define GET_U64(p, m, n) (m = get64(p))
#define GET_S64(p, m, n) (m = (int64_t)get64(p))
#define GET_STR(p, m, n) memcpy(m, p, n) /* m is one longer, and zeroed */
#define GET_LEN GET_U16
#define GET_PAD(p, m, n) (void)0
#define ENCODE_FIELD(member, off, size, wire, json, shown) PUT_##wire(b + (off), r->member, size);
#define DECODE_FIELD(member, off, size, wire, json, shown) GET_##wire(b + (off), r->member, size);

/*
 * The tables are the layout: a struct of byte arrays (no padding) built
 * from one puts each field where the fields before it end, and every
 * written offset must agree; each member must hold its wire size (a
 * string one more, for the NUL).
 */
#define WIRE_BYTES(member, off, size, wire, json, shown) uint8_t member[size];
struct event_wire { CK_REC_EVENT_FIELDS(WIRE_BYTES) };
struct drop_wire { CK_REC_DROP_FIELDS(WIRE_BYTES) };
struct coll_wire { CK_REC_COLL_FIELDS(WIRE_BYTES) };
struct summary_wire { CK_REC_SUMMARY_FIELDS(WIRE_BYTES) };
struct hello_wire { CK_REC_HELLO_FIELDS(WIRE_BYTES) };
#define REC_MEMBER_SIZE(member) sizeof(((struct ck_rec *)0)->member)
#define FITS_U16(member, size) _Static_assert(REC_MEMBER_SIZE(member) == (size), #member " is not " #size " bytes");
#define FITS_U32 FITS_U16
#define FITS_U64 FITS_U16
#define FITS_S64 FITS_U16
#define FITS_LEN FITS_U16
#define FITS_STR(member, size) _Static_assert(REC_MEMBER_SIZE(member) == (size) + 1, #member " is not " #size " bytes and a NUL");
#define FITS_PAD(member, size)
#define CHECK_FIELD(body, member, off, size, wire)						\
	_Static_assert(offsetof(struct body##_wire, member) == (off),			\
		       #body " body: " #member " does not start at " #off);			\
	FITS_##wire(member, size)
#define CHECK_EVENT(member, off, size, wire, json, shown) CHECK_FIELD(event, member, off, size, wire)
#define CHECK_DROP(member, off, size, wire, json, shown) CHECK_FIELD(drop, member, off, size, wire)
#define CHECK_COLL(member, off, size, wire, json, shown) CHECK_FIELD(coll, member, off, size, wire)
#define CHECK_SUMMARY(member, off, size, wire, json, shown) CHECK_FIELD(summary, member, off, size, wire)
#define CHECK_HELLO(member, off, size, wire, json, shown) CHECK_FIELD(hello, member, off, size, wire)
CK_REC_EVENT_FIELDS(CHECK_EVENT)
CK_REC_DROP_FIELDS(CHECK_DROP)
CK_REC_COLL_FIELDS(CHECK_COLL)
CK_REC_SUMMARY_FIELDS(CHECK_SUMMARY)
CK_REC_HELLO_FIELDS(CHECK_HELLO)
_Static_assert(sizeof(struct event_wire) == CK_REC_EVENT_LEN, "event body is not CK_REC_EVENT_LEN");
_Static_assert(sizeof(struct drop_wire) == CK_REC_DROP_LEN, "drop body is not CK_REC_DROP_LEN");
_Static_assert(sizeof(struct coll_wire) == CK_REC_COLL_LEN, "collision tail is not CK_REC_COLL_LEN");
_Static_assert(sizeof(struct summary_wire) == CK_REC_SUMMARY_LEN, "summary body is not CK_REC_SUMMARY_LEN");
_Static_assert(sizeof(struct hello_wire) == CK_REC_HELLO_LEN, "hello body is not CK_REC_HELLO_LEN");

/* Kinds whose body starts with the event fields (COLLISION adds a tail). */
static int is_event(int kind)
{
	return kind == CK_REC_FILLDIR || kind == CK_REC_LLSEEK_ENTRY || kind == CK_REC_LLSEEK_EXIT ||
	       kind == CK_REC_COLLISION;
}

/* The first version that has this kind. */
static int kind_version(int kind)
{
	return kind == CK_REC_COLLISION || kind == CK_REC_SUMMARY ? 2 : 1;
}

const char *ck_rec_kind_name(enum ck_rec_kind kind)
{
	switch (kind) {
	case CK_REC_HELLO: return "hello";
	case CK_REC_FILLDIR: return "filldir";
	case CK_REC_LLSEEK_ENTRY: return "llseek";
	case CK_REC_LLSEEK_EXIT: return "llseek-ret";
	case CK_REC_DROP: return "drop";
	case CK_REC_COLLISION: return "collision";
	case CK_REC_SUMMARY: return "summary";
	}
	return "?";
}

int ck_rec_width(const struct ck_rec *r)
{
	if (r->flags & CK_REC_F_FMODE32)
		return 31;
	if (r->flags & CK_REC_F_FMODE64)
		return 63;
	return r->flags & CK_REC_F_COMPAT ? 31 : 63;
}

/* ---- writer */

static uint32_t header_crc(const uint8_t *rec, size_t len)
{
	uint32_t crc = ck_rec_crc32(0, rec, 8);
	return ck_rec_crc32(crc, rec + CK_REC_HDR_LEN, len - CK_REC_HDR_LEN);
}

void ck_rec_seal(uint8_t *rec, size_t len)
{
	put32(rec + 8, header_crc(rec, len));
}

int ck_rec_encode(const struct ck_rec *r, uint8_t *buf, size_t size)
{
	uint8_t *b = buf + CK_REC_HDR_LEN;
	size_t len;

	if (r->kind == CK_REC_COLLISION) {
		if (r->name_len > CK_REC_NAME_MAX || r->other_name_len > CK_REC_NAME_MAX)
			goto inval;
		len = CK_REC_HDR_LEN + CK_REC_EVENT_LEN + CK_REC_COLL_LEN + r->name_len + r->other_name_len;
	} else if (is_event(r->kind)) {
		if (r->name_len > CK_REC_NAME_MAX)
			goto inval;
		len = CK_REC_HDR_LEN + CK_REC_EVENT_LEN + r->name_len;
	} else if (r->kind == CK_REC_SUMMARY) {
		len = CK_REC_HDR_LEN + CK_REC_SUMMARY_LEN;
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
	if (r->kind == CK_REC_COLLISION) {
		CK_REC_EVENT_FIELDS(ENCODE_FIELD)
		b += CK_REC_EVENT_LEN;
		CK_REC_COLL_FIELDS(ENCODE_FIELD)
		memcpy(b + CK_REC_COLL_LEN, r->name, r->name_len);
		memcpy(b + CK_REC_COLL_LEN + r->name_len, r->other_name, r->other_name_len);
	} else if (is_event(r->kind)) {
		CK_REC_EVENT_FIELDS(ENCODE_FIELD)
		memcpy(b + CK_REC_EVENT_LEN, r->name, r->name_len);
	} else if (r->kind == CK_REC_SUMMARY) {
		CK_REC_SUMMARY_FIELDS(ENCODE_FIELD)
	} else if (r->kind == CK_REC_DROP) {
		CK_REC_DROP_FIELDS(ENCODE_FIELD)
	} else {
		CK_REC_HELLO_FIELDS(ENCODE_FIELD)
		memcpy(b + CK_REC_HELLO_LEN, r->text, r->text_len);
	}
	ck_rec_seal(buf, len);
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

void ck_rec_hello_start(struct ck_rec *r, uint64_t ts_ns, uint32_t flags)
{
	/* Not the whole struct: 1.4 KB, and no HELLO field lies outside these. */
	r->kind = CK_REC_HELLO;
	r->ts_ns = ts_ns;
	r->flags = flags;
	r->text_len = 0;
	r->text[0] = '\0';
}

int ck_rec_hello_add(struct ck_rec *r, const char *fmt, ...)
{
	char words[CK_REC_TEXT_MAX + 1];
	struct ck_strbuf w, text = { .s = r->text, .size = CK_REC_TEXT_MAX + 1,
				     .len = r->text_len };
	va_list ap;
	int ret;

	/* Formatted apart first, so the separating space goes in with them or not at all. */
	ck_strbuf_init(&w, words, sizeof(words));
	va_start(ap, fmt);
	ret = ck_strbuf_vprintf(&w, fmt, ap);
	va_end(ap);
	if (ret || ck_strbuf_printf(&text, "%s%s", r->text_len ? " " : "", words))
		return -1;
	r->text_len = text.len;
	return 0;
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
	/*
	 * prefix[k] for pre_from <= k <= pre_to: the CRC of buf[pre_from, k),
	 * started from 0 (any start will do, the differences are what count).
	 * Kept only while resyncing, where it makes a candidate's CRC cost a
	 * constant; records in sequence are checked directly (cap + 1 entries).
	 */
	uint32_t *prefix;
	size_t pre_from, pre_to;
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
	free(p->prefix);
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
	if (r->version < kind_version(r->kind)) {
		*why = "kind unknown in that version";
		return -1;
	}
	if (r->kind == CK_REC_COLLISION) {
		if (blen < CK_REC_EVENT_LEN + CK_REC_COLL_LEN) {
			*why = "collision body too short";
			return -1;
		}
		CK_REC_EVENT_FIELDS(DECODE_FIELD)
		b += CK_REC_EVENT_LEN;
		CK_REC_COLL_FIELDS(DECODE_FIELD)
		if (r->name_len > CK_REC_NAME_MAX || r->other_name_len > CK_REC_NAME_MAX) {
			*why = "name longer than 255 bytes";
			return -1;
		}
		if (blen < (size_t)CK_REC_EVENT_LEN + CK_REC_COLL_LEN + r->name_len + r->other_name_len) {
			*why = "names run past the record";
			return -1;
		}
		memcpy(r->name, b + CK_REC_COLL_LEN, r->name_len);
		memcpy(r->other_name, b + CK_REC_COLL_LEN + r->name_len, r->other_name_len);
	} else if (r->kind == CK_REC_SUMMARY) {
		if (blen < CK_REC_SUMMARY_LEN) {
			*why = "summary body too short";
			return -1;
		}
		CK_REC_SUMMARY_FIELDS(DECODE_FIELD)
	} else if (is_event(r->kind)) {
		if (blen < CK_REC_EVENT_LEN) {
			*why = "event body too short";
			return -1;
		}
		CK_REC_EVENT_FIELDS(DECODE_FIELD)
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
		CK_REC_DROP_FIELDS(DECODE_FIELD)
	} else if (r->kind == CK_REC_HELLO) {
		if (blen < CK_REC_HELLO_LEN) {
			*why = "hello body too short";
			return -1;
		}
		CK_REC_HELLO_FIELDS(DECODE_FIELD)
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
	if (h[2] < CK_REC_VERSION_MIN || h[2] > CK_REC_VERSION)
		return len >= CK_REC_HDR_LEN;
	if (h[2] < kind_version(h[3]))
		return 0;
	switch (h[3]) {
	case CK_REC_COLLISION:
		return len >= CK_REC_HDR_LEN + CK_REC_EVENT_LEN + CK_REC_COLL_LEN &&
		       len <= CK_REC_HDR_LEN + CK_REC_EVENT_LEN + CK_REC_COLL_LEN + 2 * CK_REC_NAME_MAX;
	case CK_REC_SUMMARY:
		return len == CK_REC_HDR_LEN + CK_REC_SUMMARY_LEN;
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

/* The prefix CRCs cover buf[at, end]: started at at if they do not reach back so far. */
static void prefix_extend(struct ck_rec_parser *p, size_t at, size_t end)
{
	if (at < p->pre_from || at > p->pre_to) {
		p->pre_from = p->pre_to = at;
		p->prefix[at] = 0;
	}
	if (!crc_ready)
		crc_init();
	uint32_t c = ~p->prefix[p->pre_to];
	for (size_t i = p->pre_to; i < end; i++) {	/* each byte once per resync */
		c = crc_table[0][(c ^ p->buf[i]) & 0xff] ^ (c >> 8);
		p->prefix[i + 1] = ~c;
	}
	if (end > p->pre_to) {
		p->st.work += end - p->pre_to;
		p->pre_to = end;
	}
}

/*
 * Does the candidate at buf[at] (whole, len bytes) carry its own CRC?  In
 * sequence (no garbage pending) a v1-sized record is checked directly: it is
 * read once, and a failure (at most 1052 bytes) is paid for by the record
 * before it.  While resyncing, a candidate is tried at every "ck" and may
 * claim 64 KiB: there header_crc() comes from the prefix CRCs, a constant
 * cost per candidate, so the parser stays linear on any input.
 */
static int candidate_crc_ok(struct ck_rec_parser *p, size_t at, size_t len, int in_sequence)
{
	const uint8_t *h = p->buf + at;

	if (in_sequence && !p->garbage && len <= CK_REC_MAX_LEN) {
		p->st.work += len;
		return get32(h + 8) == header_crc(h, len);
	}
	prefix_extend(p, at, at + len);
	uint32_t head = ck_rec_crc32(0, h, 8);
	/* crc(A B) = mulx(x8n(|B|), crc(A)) ^ crc(B), B the body, its CRC from two prefixes */
	uint32_t x = crc_x8n(len - CK_REC_HDR_LEN);

	p->st.work += 8 + 1;
	return get32(h + 8) == (crc_mulx(x, head ^ p->prefix[at + CK_REC_HDR_LEN]) ^
				p->prefix[at + len]);
}

/* Is there a complete, CRC-checked record at buf[at]? */
static int whole_record_at(struct ck_rec_parser *p, size_t at)
{
	const uint8_t *h = p->buf + at;
	size_t avail = p->len - at, len;

	p->st.work++;
	if (avail < CK_REC_HDR_LEN || h[0] != CK_REC_MAGIC0 || h[1] != CK_REC_MAGIC1)
		return 0;
	len = get16(h + 4);
	return plausible_len(h, len) && len <= avail && candidate_crc_ok(p, at, len, 0);
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
	size_t whole_from = 0, whole_at = 0; /* at eof: looked for a whole record in
						[whole_from, p->len); found at whole_at (0: none) */
	int ret = 0;

	while (pos < p->len) {
		const uint8_t *h = p->buf + pos;
		size_t avail = p->len - pos;

		if (h[0] != CK_REC_MAGIC0 || (avail >= 2 && h[1] != CK_REC_MAGIC1)) {
			/* Garbage: jump to the next possible magic in one step. */
			const uint8_t *m = memchr(h + 1, CK_REC_MAGIC0, avail - 1);
			size_t n = m ? (size_t)(m - h) : avail;
			p->st.work += n;
			skip_garbage(p, n);
			p->base += n;
			pos += n;
			continue;
		}
		if (avail < CK_REC_HDR_LEN)
			break;
		size_t len = get16(h + 4);
		p->st.work++;
		if (!plausible_len(h, len)) {
			skip_garbage(p, 1);
			p->base++;
			pos++;
			continue;
		}
		if (avail < len) {	/* wait for the rest, unless there is no more */
			/*
			 * At eof, is there a whole record after pos?  One scan,
			 * remembered: every later truncated candidate before the
			 * record found asks the same question.
			 */
			if (!at_eof)
				break;
			if (whole_at <= pos) {
				size_t j = whole_from > pos + 1 ? whole_from : pos + 1;
				whole_at = 0;
				while (j < p->len && !whole_record_at(p, j))
					j++;
				whole_from = j;
				if (j < p->len)
					whole_at = j;
			}
			if (!whole_at)
				break;
			skip_garbage(p, 1);
			p->base++;
			pos++;
			continue;
		}
		if (!candidate_crc_ok(p, pos, len, 1)) {
			skip_garbage(p, 1);
			p->base++;
			pos++;
			continue;
		}
		/* A record, checked.  Garbage before it ends here. */
		if ((ret = flush_garbage(p)))
			goto out_advance_record;
		if (h[2] < CK_REC_VERSION_MIN || h[2] > CK_REC_VERSION) {
			p->st.skipped += len;
			ret = report(p, p->base, "skipped a version %u record (%zu bytes): this "
				     "reader knows versions %d to %d; rebuild it from a matching tree",
				     h[2], len, CK_REC_VERSION_MIN, CK_REC_VERSION);
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
		if (p->pre_to >= pos) {	/* what is left of the prefixes moves along */
			size_t from = p->pre_from > pos ? p->pre_from : pos;
			memmove(p->prefix + from - pos, p->prefix + from,
				(p->pre_to - from + 1) * sizeof(*p->prefix));
			p->pre_from = from - pos;
			p->pre_to -= pos;
		} else {
			p->pre_from = p->pre_to = 0;
			p->prefix[0] = 0;
		}
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
			uint32_t *np = nb ? realloc(p->prefix, (ncap + 1) * sizeof(*np)) : NULL;
			if (!np) {
				p->buf = nb ? nb : p->buf;
				errno = ENOMEM;
				return -1;
			}
			if (!p->prefix)
				np[0] = 0;	/* pre_from = pre_to = 0 */
			p->buf = nb;
			p->prefix = np;
			p->cap = ncap;
			room = p->cap - p->len;
		}
		size_t n = len < room ? len : room;
		memcpy(p->buf + p->len, d, n);
		p->st.work += n;
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

/*
 * A text line is "TS KIND", then these words, in this order (hashes
 * before the inode, as a reader scans a filldir line), for the kinds in
 * "shown" (CK_REC_SHOWN_*):  T(member, shown, form, label)
 */
#define TEXT_WORDS(T)                                    \
	T(text,        HELLO,       TEXT,  "")        \
	T(lost,        DROP,        DEC,   "lost=")   \
	T(lost_total,  DROP,        DEC,   "total=")  \
	T(comm,        EVENT,       COMM,  "")        \
	T(pid,         EVENT,       DEC,   "")        \
	T(flags,       EVENT,       WIDTH, "")        \
	T(dev,         EVENT,       DEV,   "dev=")    \
	T(dir_ino,     EVENT,       DEC,   "dir=")    \
	T(major,       FILLDIR,     HEX8,  "major=")  \
	T(minor,       FILLDIR,     HEX8,  "minor=")  \
	T(cookie,      FILLDIR,     HEX,   "cookie=") \
	T(chain_index, FILLDIR,     CHAIN, "chain=")  \
	T(ino,         FILLDIR,     DEC,   "ino=")    \
	T(name,        FILLDIR,     NAME,  "name=")   \
	T(offset,      LLSEEK,      HEX,   "offset=") \
	T(whence,      LLSEEK,      DEC,   "whence=") \
	T(cookie,      LLSEEK,      HEX,   "pos=")    \
	T(result,      LLSEEK_EXIT, HEX,   "result=") \
	T(other_major, COLLISION,   HEX8,  "other_major=") \
	T(other_minor, COLLISION,   HEX8,  "other_minor=") \
	T(other_ino,   COLLISION,   DEC,   "other_ino=") \
	T(other_name,  COLLISION,   NAME,  "other=") \
	T(dev,         SUMMARY,     DEV,   "dev=")    \
	T(dir_ino,     SUMMARY,     DEC,   "dir=")    \
	T(bits,        SUMMARY,     DEC,   "bits=")   \
	T(names,       SUMMARY,     DEC,   "names=")  \
	T(collisions,  SUMMARY,     DEC,   "collisions=") \
	T(unchecked,   SUMMARY,     DEC,   "unchecked=") \
	T(seeks,       SUMMARY,     DEC,   "seeks=")  \
	T(distinct,    SUMMARY,     DEC,   "distinct=") \
	T(sflags,      SUMMARY,     SFLAGS, "")
#define CK_REC_SHOWN_HELLO CK_REC_SHOWN(CK_REC_HELLO)
#define CK_REC_SHOWN_DROP  CK_REC_SHOWN(CK_REC_DROP)
#define CK_REC_SHOWN_SUMMARY CK_REC_SHOWN(CK_REC_SUMMARY)

/* The kind's bit in a "shown" set; none for a kind out of range. */
static unsigned shown_bit(enum ck_rec_kind kind)
{
	return (unsigned)kind < 32 ? CK_REC_SHOWN(kind) : 0;
}

/* comm comes from the traced task: escaped (lib/ckname), padded to 15 columns. */
static void text_comm(FILE *f, const char *label, const char *comm)
{
	long n;

	fprintf(f, " %s", label);
	n = ck_name_fprint(f, comm, strlen(comm), 0);
	if (n >= 0 && n < 15)
		fprintf(f, "%*s", (int)(15 - n), "");
}

/*
 * One word, with its space: f, r the record, m its member, l the label.
 * Bytes from the traced system (comm, name, HELLO text) go through lib/ckname's
 * escaping, so no control byte reaches a terminal.
 */
#define TEXT_DEC(f, r, m, l)   fprintf(f, " %s%" PRIu64, l, (uint64_t)r->m)
#define TEXT_HEX(f, r, m, l)   fprintf(f, " %s%#" PRIx64, l, (uint64_t)r->m)
#define TEXT_HEX8(f, r, m, l)  fprintf(f, " %s%08x", l, r->m)
#define TEXT_COMM(f, r, m, l)  text_comm(f, l, r->m)
#define TEXT_WIDTH(f, r, m, l) fprintf(f, "%s %sw%d", r->m & CK_REC_F_NFSD ? " nfsd" : "", l, ck_rec_width(r))
#define TEXT_DEV(f, r, m, l)   fprintf(f, " %s%u:%u", l, r->m >> 20, r->m & 0xfffff)
#define TEXT_CHAIN(f, r, m, l) fprintf(f, " %s%u/%u", l, r->chain_index + 1, r->chain_len)
#define TEXT_NAME(f, r, m, l)  (fprintf(f, " %s", l), ck_print_name(f, (const char *)r->m, r->m##_len))
#define TEXT_TEXT(f, r, m, l)  (fprintf(f, " %s", l), ck_print_name(f, r->m, r->m##_len))
#define TEXT_SFLAGS(f, r, m, l) fprintf(f, "%s%s", r->m & CK_REC_S_FULL ? " FULL" : "", \
					r->m & CK_REC_S_FINAL ? " final" : "")
#define TEXT_WORD(member, shown, form, label) \
	if (kind_bit & CK_REC_SHOWN_##shown) TEXT_##form(f, r, member, label);

int ck_rec_print_text(FILE *f, const struct ck_rec *r)
{
	const char *kind = ck_rec_kind_name(r->kind);
	unsigned kind_bit = shown_bit(r->kind);

	fprintf(f, "%.6f %s", r->ts_ns / 1e9, r->kind == CK_REC_DROP ? "DROP" : kind);
	if (kind[0] == '?') {
		fprintf(f, " kind %d", r->kind);
	} else {
		TEXT_WORDS(TEXT_WORD)
	}
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}

/* JSON: the body tables' fields in wire order, with the forms record.h gives. */
static void json_flags(FILE *f, const struct ck_rec *r)
{
	static const struct { uint32_t bit; const char *key; } bits[] = {
		{ CK_REC_F_NFSD, "nfsd" }, { CK_REC_F_COMPAT, "compat" },
		{ CK_REC_F_FMODE32, "fmode32" }, { CK_REC_F_FMODE64, "fmode64" },
	};

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		fprintf(f, ",\"%s\":%s", bits[i].key, r->flags & bits[i].bit ? "true" : "false");
	fprintf(f, ",\"width\":%d", ck_rec_width(r));
}

#define JSON_NUM_U16(f, r, m) fprintf(f, ",\"" #m "\":%" PRIu64, (uint64_t)r->m)
#define JSON_NUM_U32 JSON_NUM_U16
#define JSON_NUM_U64 JSON_NUM_U16
#define JSON_NUM_S64(f, r, m) fprintf(f, ",\"" #m "\":%" PRId64, (int64_t)r->m)
#define JSON_NUM(f, r, m, wire) JSON_NUM_##wire(f, r, m)
#define JSON_STR(f, r, m, wire) (fputs(",\"" #m "\":", f), ck_json_bytes(f, (const uint8_t *)r->m, strlen(r->m)))
#define JSON_FLAGS(f, r, m, wire) json_flags(f, r)
#define JSON_COOKIE(f, r, m, wire) \
	fprintf(f, ",\"%s\":%" PRIu64, r->kind == CK_REC_FILLDIR || r->kind == CK_REC_COLLISION ? \
		#m : "pos", r->m)
#define JSON_NONE(f, r, m, wire) (void)0
#define JSON_FIELD(member, off, size, wire, json, shown) \
	if (kind_bit & CK_REC_SHOWN_##shown) JSON_##json(f, r, member, wire);

int ck_rec_print_json(FILE *f, const struct ck_rec *r)
{
	unsigned kind_bit = shown_bit(r->kind);

	fprintf(f, "{\"kind\":\"%s\"", ck_rec_kind_name(r->kind));
	if (is_event(r->kind)) {
		CK_REC_EVENT_FIELDS(JSON_FIELD)
		if (r->kind == CK_REC_FILLDIR || r->kind == CK_REC_COLLISION) {
			fputs(",\"name\":", f);
			ck_json_bytes(f, r->name, r->name_len);
		}
		if (r->kind == CK_REC_COLLISION) {
			CK_REC_COLL_FIELDS(JSON_FIELD)
			fputs(",\"other_name\":", f);
			ck_json_bytes(f, r->other_name, r->other_name_len);
		}
	} else if (r->kind == CK_REC_SUMMARY) {
		CK_REC_SUMMARY_FIELDS(JSON_FIELD)
	} else if (r->kind == CK_REC_DROP) {
		CK_REC_DROP_FIELDS(JSON_FIELD)
	} else if (r->kind == CK_REC_HELLO) {
		CK_REC_HELLO_FIELDS(JSON_FIELD)
		fputs(",\"text\":", f);
		ck_json_bytes(f, (const uint8_t *)r->text, r->text_len);
	} else {
		fprintf(f, ",\"ts_ns\":%" PRIu64, r->ts_ns);
	}
	fputs("}\n", f);
	return ferror(f) ? -1 : 0;
}
