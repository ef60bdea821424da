// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 03's exercise: ext4's htree readdir cookie, per caller.
 *
 * labs/03-nfs/exercise/grade splices this file into the 'before' kernel's
 * fs/ext4/dir.c, in place of its four macros, and builds the kernel variant
 * mine from it.  As handed out it is the 'before' code, written as
 * functions: every caller gets major >> 1, a 31-bit cookie, and the
 * directory's end is EXT4_HTREE_EOF_32BIT.
 *
 * A caller wants 31 bits when its file has FMODE_32BITHASH (nfsd, NFSv2), or
 * has neither FMODE_32BITHASH nor FMODE_64BITHASH and entered the kernel
 * through a 32-bit (compat) syscall; every other caller can hold 63 bits:
 * (major >> 1) in the upper 32 bits, minor in the lower 32.
 */

/* TODO 1: a helper that says whether this caller wants a 31-bit cookie. */

static inline loff_t hash2pos(struct file *filp, __u32 major, __u32 minor)
{
	/* TODO 2: the 63-bit cookie for the callers that can hold it. */
	return major >> 1;
}

static inline __u32 pos2maj_hash(struct file *filp, loff_t pos)
{
	/* TODO 3: the major hash back from either width of cookie. */
	return (pos << 1) & 0xffffffff;
}

static inline __u32 pos2min_hash(struct file *filp, loff_t pos)
{
	/* TODO 4: the minor hash back (a 31-bit cookie has none). */
	return 0;
}

static inline loff_t ext4_get_htree_eof(struct file *filp)
{
	/* TODO 5: the end of the directory at the caller's width. */
	return EXT4_HTREE_EOF_32BIT;
}
