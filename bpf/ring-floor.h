/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring-floor: what one ring-buffer record costs in the guest, apart from
 * any walk (bpf/bench runs it; bpf/README, Speed).  Shared by
 * ring-floor.bpf.c and ring-floor.c.  Fixed-size types only.
 */
#ifndef RING_FLOOR_H
#define RING_FLOOR_H

#include "cookie-trace.h"	/* struct event: the record measured is cookie-trace's */

#define FLOOR_NAME	32	/* the name class of a typical 13-byte name */
#define FLOOR_BIG	4096	/* one large copy: the per-byte cost */

/* cookie-trace's filldir record as reserved for a short name: an event, then its name. */
struct floor_record {
	unsigned char bytes[sizeof(struct event) + FLOOR_NAME];
};

#endif
