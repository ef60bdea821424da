# SPDX-License-Identifier: GPL-2.0
# ck-fpos: the lab 05 exercise (labs/05-gdb/exercise/skel/README).
# Loaded in gdb with `source work/05/ck_fpos.py`, after the kit's ck package.
# The reference solution.
import gdb

from ck import kernel, width


class CkFpos(kernel.CkCommand):
    """ck-fpos: decode the f_pos of the directory file in the selected frame."""

    def __init__(self):
        super().__init__("ck-fpos")

    def run(self, argv):
        # TODO 1: the struct file * of the selected frame or a caller
        filp = kernel.frame_file()
        if filp is None:
            raise gdb.GdbError("ck-fpos: no ext4 directory file in this frame or its callers")
        # TODO 2: its f_pos
        pos = int(filp["f_pos"])
        # TODO 3: the width ext4 gives the current task for this file
        bits = width.decide(filp, kernel.current_task()).bits
        # TODO 4 and 5: hash2pos() undone: 31 bits hold major >> 1; 63 bits
        # hold (major >> 1) << 32 | minor.
        if bits == 31:
            major, minor = (pos << 1) & 0xffffffff, 0
        else:
            major, minor = ((pos >> 32) << 1) & 0xffffffff, pos & 0xffffffff
        gdb.write(f"f_pos {pos:#x} width {bits} major {major:#010x} minor {minor:#010x}\n")


CkFpos()
