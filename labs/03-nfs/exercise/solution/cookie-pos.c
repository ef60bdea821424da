// SPDX-License-Identifier: GPL-2.0
/*
 * Lab 03's exercise: ext4's htree readdir cookie, per caller.
 *
 * The reference solution: Linux 3.4's d1f5273e9adb ("ext4: return 32/64-bit
 * dir name hash according to usage type"), as 6.1 has it (patch 0005).
 *
 * A caller wants 31 bits when its file has FMODE_32BITHASH (nfsd, NFSv2), or
 * has neither FMODE_32BITHASH nor FMODE_64BITHASH and entered the kernel
 * through a 32-bit (compat) syscall; every other caller can hold 63 bits:
 * (major >> 1) in the upper 32 bits, minor in the lower 32.
 */

static inline int is_32bit_api(void)
{
#ifdef CONFIG_COMPAT
	return in_compat_syscall();
#else
	return (BITS_PER_LONG == 32);
#endif
}

static inline int wants_32bit(struct file *filp)
{
	return (filp->f_mode & FMODE_32BITHASH) ||
	       (!(filp->f_mode & FMODE_64BITHASH) && is_32bit_api());
}

static inline loff_t hash2pos(struct file *filp, __u32 major, __u32 minor)
{
	if (wants_32bit(filp))
		return major >> 1;
	else
		return ((__u64)(major >> 1) << 32) | (__u64)minor;
}

static inline __u32 pos2maj_hash(struct file *filp, loff_t pos)
{
	if (wants_32bit(filp))
		return (pos << 1) & 0xffffffff;
	else
		return ((pos >> 32) << 1) & 0xffffffff;
}

static inline __u32 pos2min_hash(struct file *filp, loff_t pos)
{
	if (wants_32bit(filp))
		return 0;
	else
		return pos & 0xffffffff;
}

static inline loff_t ext4_get_htree_eof(struct file *filp)
{
	if (wants_32bit(filp))
		return EXT4_HTREE_EOF_32BIT;
	else
		return EXT4_HTREE_EOF_64BIT;
}
