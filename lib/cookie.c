// SPDX-License-Identifier: GPL-2.0
/* ext4 readdir cookie codec; see cookie.h for the rules. */
#include "cookie.h"

uint64_t cookie_hash2pos(enum cookie_width w, uint32_t major, uint32_t minor)
{
	if (w == COOKIE_31BIT)
		return major >> 1;
	/* Bit 0 of major is always clear, so shifting it out loses nothing. */
	return (uint64_t)(major >> 1) << 32 | minor;
}

uint32_t cookie_pos2maj(enum cookie_width w, uint64_t pos)
{
	if (w == COOKIE_31BIT)
		return (uint32_t)(pos << 1);
	return (uint32_t)((pos >> 32) << 1);
}

uint32_t cookie_pos2min(enum cookie_width w, uint64_t pos)
{
	/* A 31-bit cookie has no room for the minor hash: restart at 0. */
	if (w == COOKIE_31BIT)
		return 0;
	return (uint32_t)pos;
}

uint64_t cookie_eof(enum cookie_width w)
{
	return w == COOKIE_31BIT ? COOKIE_EOF_31BIT : COOKIE_EOF_63BIT;
}

int cookie_decode(uint64_t doff, int width, struct cookie_decoded *out)
{
	enum cookie_width w;

	if (width == 0)
		w = doff > COOKIE_EOF_31BIT ? COOKIE_63BIT : COOKIE_31BIT;
	else if (width == COOKIE_31BIT || width == COOKIE_63BIT)
		w = (enum cookie_width)width;
	else
		return -1;
	if (doff > cookie_eof(w))
		return -1;
	out->width = w;
	out->eof = doff == cookie_eof(w);
	out->major = cookie_pos2maj(w, doff);
	out->minor = cookie_pos2min(w, doff);
	return 0;
}

int cookie_bits(uint64_t v)
{
	int bits = 0;

	while (v) {
		bits++;
		v >>= 1;
	}
	return bits;
}
