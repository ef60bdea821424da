/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cookie-trace's ring-buffer event (cookie-trace.h) as a record
 * (lib/record.h).  Host side only: cookie-trace.h is shared with the BPF
 * program and stays free of lib headers, so what ties the two together
 * lives here, checked by the compiler: the kinds and flags the BPF side
 * writes are the record's, and every fixed field of the record's event
 * table is a member of struct event of the same size and signedness.
 */
#ifndef COOKIE_TRACE_REC_H
#define COOKIE_TRACE_REC_H

#include <stddef.h>
#include <string.h>
#include <linux/types.h>

#include "cookie-trace.h"
#include "record.h"

_Static_assert((int)EV_FILLDIR == (int)CK_REC_FILLDIR, "EV_FILLDIR is not CK_REC_FILLDIR");
_Static_assert((int)EV_LLSEEK_ENTRY == (int)CK_REC_LLSEEK_ENTRY, "EV_LLSEEK_ENTRY is not CK_REC_LLSEEK_ENTRY");
_Static_assert((int)EV_LLSEEK_EXIT == (int)CK_REC_LLSEEK_EXIT, "EV_LLSEEK_EXIT is not CK_REC_LLSEEK_EXIT");
_Static_assert((int)EV_COLLISION == (int)CK_REC_COLLISION, "EV_COLLISION is not CK_REC_COLLISION");
_Static_assert(offsetof(struct coll_event, kind) == offsetof(struct event, kind) &&
	       offsetof(struct coll_event, comm) == offsetof(struct event, comm),
	       "struct coll_event does not start as struct event");
_Static_assert(EVF_NFSD == CK_REC_F_NFSD, "EVF_NFSD is not CK_REC_F_NFSD");
_Static_assert(EVF_COMPAT == CK_REC_F_COMPAT, "EVF_COMPAT is not CK_REC_F_COMPAT");
_Static_assert(EVF_FMODE32 == CK_REC_F_FMODE32, "EVF_FMODE32 is not CK_REC_F_FMODE32");
_Static_assert(EVF_FMODE64 == CK_REC_F_FMODE64, "EVF_FMODE64 is not CK_REC_F_FMODE64");
_Static_assert(EVF_TRUNC == CK_REC_F_TRUNC, "EVF_TRUNC is not CK_REC_F_TRUNC");
_Static_assert(TASK_COMM_LEN == CK_REC_COMM_LEN, "TASK_COMM_LEN is not CK_REC_COMM_LEN");
_Static_assert(NAME_LEN > CK_REC_NAME_MAX, "struct event's name[] cannot hold CK_REC_NAME_MAX bytes");

/*
 * Per field of CK_REC_EVENT_FIELDS, by wire type: numbers are copied as
 * they are, the comm gains its NUL; the name's length (LEN) is bounded
 * with the name below; PAD is no member of either.
 */
#define CK_EV_MEMBER(m)		(((struct event *)0)->m)
#define CK_EV_SIGNED(x)		((__typeof__(x))-1 < (__typeof__(x))1)
#define CK_EV_FITS_U16(m, n)							\
	_Static_assert(sizeof(CK_EV_MEMBER(m)) == (n) &&			\
		       CK_EV_SIGNED(CK_EV_MEMBER(m)) == CK_EV_SIGNED(((struct ck_rec *)0)->m), \
		       "struct event's " #m " is not the record's " #n "-byte " #m);
#define CK_EV_FITS_U32 CK_EV_FITS_U16
#define CK_EV_FITS_U64 CK_EV_FITS_U16
#define CK_EV_FITS_S64 CK_EV_FITS_U16
#define CK_EV_FITS_STR(m, n) \
	_Static_assert(sizeof(CK_EV_MEMBER(m)) == (n), "struct event's " #m " is not " #n " bytes");
#define CK_EV_FITS_LEN(m, n)
#define CK_EV_FITS_PAD(m, n)
#define CK_EV_FITS(member, off, size, wire, json, shown) CK_EV_FITS_##wire(member, size)
CK_REC_EVENT_FIELDS(CK_EV_FITS)

#define CK_EV_COPY_U16(r, e, m, n) (r->m = e->m)
#define CK_EV_COPY_U32 CK_EV_COPY_U16
#define CK_EV_COPY_U64 CK_EV_COPY_U16
#define CK_EV_COPY_S64 CK_EV_COPY_U16
#define CK_EV_COPY_STR(r, e, m, n) (memcpy(r->m, e->m, n), r->m[n] = '\0')
#define CK_EV_COPY_LEN(r, e, m, n) (void)0
#define CK_EV_COPY_PAD(r, e, m, n) (void)0
#define CK_EV_COPY(member, off, size, wire, json, shown) CK_EV_COPY_##wire(r, e, member, size);

/*
 * Fill r's event fields from the ring-buffer record e of size bytes (its
 * other fields, DROP's and HELLO's, are left as they are: ck_rec_encode
 * reads none of them for an event).  Returns 0, or -1 if e is shorter than
 * an event with its name.
 */
static inline int ck_rec_from_event(struct ck_rec *r, const struct event *e, size_t size)
{
	if (size < sizeof(*e) || size < sizeof(*e) + e->name_len)
		return -1;
	r->kind = e->kind;
	CK_REC_EVENT_FIELDS(CK_EV_COPY)
	r->name_len = e->name_len > CK_REC_NAME_MAX ? CK_REC_NAME_MAX : e->name_len;
	memcpy(r->name, e->name, r->name_len);
	r->name[r->name_len] = 0;
	return 0;
}

#endif
