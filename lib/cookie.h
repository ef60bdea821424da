/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext4 htree readdir cookies: how (major, minor) hashes become the
 * d_off / telldir() value a caller sees, and back (fs/ext4/dir.c:
 * hash2pos, pos2maj_hash, pos2min_hash, ext4_get_htree_eof).
 *
 * The width is the caller's, not the file system's: a 32-bit caller
 * (FMODE_32BITHASH, e.g. NFSv2, or a compat task) gets major>>1 (31 bits);
 * a 64-bit caller gets (major>>1)<<32 | minor (63 bits).  Before Linux 3.4
 * every caller got the 32-bit form.
 */
#ifndef CK_COOKIE_H
#define CK_COOKIE_H

#include <stdint.h>

enum cookie_width {
	COOKIE_32BIT = 32,
	COOKIE_64BIT = 64,
};

/* End-of-directory positions: the largest positive off_t of each width. */
#define COOKIE_EOF_32BIT 0x7fffffffULL
#define COOKIE_EOF_64BIT 0x7fffffffffffffffULL

uint64_t cookie_hash2pos(enum cookie_width w, uint32_t major, uint32_t minor);
uint32_t cookie_pos2maj(enum cookie_width w, uint64_t pos);
uint32_t cookie_pos2min(enum cookie_width w, uint64_t pos);
uint64_t cookie_eof(enum cookie_width w);

struct cookie_decoded {
	enum cookie_width width;
	int eof;        /* the position is this width's end-of-directory */
	uint32_t major; /* where ext4 restarts the tree walk */
	uint32_t minor;
};

/*
 * Decode a d_off.  `width` 0 infers it: anything above 0x7fffffff can
 * only be a 64-bit cookie; anything else is taken as 32-bit (a 64-bit
 * cookie with major>>1 == 0 is indistinguishable, so pass the width when
 * it is known).  Returns 0, or -1 if d_off is out of range for the width
 * (negative as an off_t, or above the 32-bit EOF for a 32-bit caller).
 */
int cookie_decode(uint64_t doff, int width, struct cookie_decoded *out);

/* Number of significant bits of v (0 for 0): 31 or 63 for ext4 cookies. */
int cookie_bits(uint64_t v);

#endif
