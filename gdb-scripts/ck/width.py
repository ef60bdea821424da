# SPDX-License-Identifier: GPL-2.0
#
# cookiekit gdb helpers: which cookie width ext4 gives a reader, and the codec
#
# Reproduces fs/ext4/dir.c.  Since Linux 3.4 (the "after" kernel, pristine
# 6.1) hash2pos() and friends decide per caller:
#   FMODE_32BITHASH in f_mode                  -> 31 bits
#   FMODE_64BITHASH in f_mode                  -> 63 bits
#   neither, and in_compat_syscall()           -> 31 bits
#   neither, native 64-bit syscall             -> 63 bits
# where in_compat_syscall() on x86_64 (no x32) is the task's
# thread_info.status & TS_COMPAT, set on entry to a 32-bit syscall.
# Before 3.4 (the "before" kernel) they are macros: 31 bits for everyone.
# Which of the two this kernel has is probed from its debug info.
#

import gdb

from ck import kernel

# Functions that exist only in the per-caller code (static inline, so they
# are found either as symbols or as inlined blocks in ext4_dir_llseek).
_PER_CALLER_FUNCS = ("hash2pos", "pos2maj_hash", "pos2min_hash",
                     "ext4_get_htree_eof", "is_32bit_api")
_per_caller = None


def _inlined_in(func_name, wanted):
    sym = gdb.lookup_global_symbol(func_name) or gdb.lookup_static_symbol(func_name)
    if sym is None:
        return False
    start = int(sym.value().address)
    outer = gdb.block_for_pc(start)
    while outer is not None and outer.function is None:
        outer = outer.superblock
    if outer is None:
        return False
    for pc in range(outer.start, outer.end):
        b = gdb.block_for_pc(pc)
        while b is not None and b != outer:
            if b.function is not None and b.function.name in wanted:
                return True
            b = b.superblock
    return False


def per_caller_width():
    """True when this ext4 decides the width per caller (3.4+), False when
    hash2pos is the pre-3.4 macro (31 bits for every caller)."""
    global _per_caller
    if _per_caller is None:
        found = any(gdb.lookup_static_symbol(n) or gdb.lookup_global_symbol(n)
                    for n in _PER_CALLER_FUNCS)
        _per_caller = found or _inlined_in("ext4_dir_llseek", _PER_CALLER_FUNCS)
    return _per_caller


def _forget(event):
    global _per_caller
    _per_caller = None


gdb.events.new_objfile.connect(_forget)


def task_compat(task):
    """Why a syscall of TASK is compat, or None.  TS_COMPAT is what
    in_compat_syscall() reads; it is set only while a 32-bit syscall runs.
    TIF_ADDR32 marks an i386 process, whose every syscall is compat."""
    ti = task["thread_info"]
    if int(ti["status"]) & int(kernel.TS_COMPAT):
        return "compat: TS_COMPAT set (32-bit syscall in progress)"
    if int(ti["flags"]) & (1 << int(kernel.TIF_ADDR32)):
        return "compat: i386 process (TIF_ADDR32), not in a syscall now"
    return None


class Width:
    def __init__(self, bits, reason):
        self.bits = bits
        self.reason = reason

    def __str__(self):
        return f"{self.bits}-bit ({self.reason})"


def decide(filp, task):
    """The cookie width ext4's hash2pos() gives TASK reading FILP."""
    mode = int(filp["f_mode"])
    compat = task_compat(task)
    who = kernel.task_label(task)
    if not per_caller_width():
        why = compat or "native 64-bit task"
        return Width(31, f"{why}, task {who}; this kernel is pre-3.4: "
                         "hash2pos is 31-bit for every caller")
    if mode & int(kernel.FMODE_32BITHASH):
        return Width(31, "FMODE_32BITHASH in f_mode")
    if mode & int(kernel.FMODE_64BITHASH):
        return Width(63, "FMODE_64BITHASH in f_mode")
    if compat:
        return Width(31, f"{compat}, task {who}; no FMODE_*BITHASH flag")
    return Width(63, f"native 64-bit task {who}; no FMODE_*BITHASH flag")


# ---- codec (fs/ext4/dir.c hash2pos, pos2maj_hash, pos2min_hash) -------------

def check_bits(bits):
    if bits not in (31, 63):
        raise gdb.GdbError(f"width {bits}: use 31 or 63 (the bits of the cookie, "
                           "not of the caller)")
    return bits


def cookie(major, minor, bits):
    major &= 0xffffffff
    minor &= 0xffffffff
    if check_bits(bits) == 31:
        return major >> 1
    return ((major >> 1) << 32) | minor


def pos_major(pos, bits):
    if check_bits(bits) == 31:
        return (pos << 1) & 0xffffffff
    return ((pos >> 32) << 1) & 0xffffffff


def pos_minor(pos, bits):
    if check_bits(bits) == 31:
        return 0
    return pos & 0xffffffff


def eof(bits):
    if check_bits(bits) == 31:
        return int(kernel.EXT4_HTREE_EOF_32BIT)
    return int(kernel.EXT4_HTREE_EOF_64BIT)


def guess_bits(pos):
    """Without a file to decide by: a value above 2^31 - 1 needs 63 bits."""
    return 31 if 0 <= pos <= 0x7fffffff else 63
