/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext4 htree readdir cookies: how (major, minor) hashes become the
 * d_off / telldir() value a caller sees, and back (fs/ext4/dir.c:
 * hash2pos, pos2maj_hash, pos2min_hash, ext4_get_htree_eof).
 *
 * The width is the caller's, not the file system's: a 32-bit caller
 * (FMODE_32BITHASH, e.g. NFSv2, or a compat task) gets major>>1 (31 bits);
 * a 64-bit caller gets (major>>1)<<32 | minor (63 bits).  Before Linux 3.4
 * every caller got the 31-bit form.
 */
#ifndef CK_COOKIE_H
#define CK_COOKIE_H

#include <stdint.h>

/* Named by the bits a cookie has (31 or 63), not by the caller's word size. */
enum cookie_width {
	COOKIE_31BIT = 31,
	COOKIE_63BIT = 63,
};

/* End-of-directory positions: the largest positive off_t of each width. */
#define COOKIE_EOF_31BIT 0x7fffffffULL
#define COOKIE_EOF_63BIT 0x7fffffffffffffffULL

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
 * Decode a d_off.  `width` is 31 or 63; 0 infers it: anything above
 * 0x7fffffff can only be a 63-bit cookie; anything else is taken as 31-bit
 * (a 63-bit cookie with major>>1 == 0 is indistinguishable, so pass the
 * width when it is known).  Returns 0, or -1 if the width is neither or
 * d_off is out of range for it (negative as an off_t, or above the 31-bit
 * EOF for a 31-bit cookie).
 */
int cookie_decode(uint64_t doff, int width, struct cookie_decoded *out);

/* Number of significant bits of v (0 for 0): 31 or 63 for ext4 cookies. */
int cookie_bits(uint64_t v);

#endif
