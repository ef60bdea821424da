# SPDX-License-Identifier: GPL-2.0
# ck-fpos: the lab 05 exercise (labs/05-gdb/exercise/skel/README).
# Loaded in gdb with `source work/05/ck_fpos.py`, after the kit's ck package.
import gdb

from ck import kernel, width


class CkFpos(kernel.CkCommand):
    """ck-fpos: decode the f_pos of the directory file in the selected frame."""

    def __init__(self):
        super().__init__("ck-fpos")

    def run(self, argv):
        # TODO 1: the struct file * of the selected frame or a caller
        # (ck.kernel has a helper); refuse with gdb.GdbError if there is none.
        filp = None
        # TODO 2: its f_pos, as a Python int.
        pos = 0
        # TODO 3: the cookie width ext4 gives the current task for this file:
        # 31 or 63 (ck.width decides it from f_mode and the task).
        bits = 0
        # TODO 4: the major hash the cookie stands for (bit 0 is not kept: 0).
        major = 0
        # TODO 5: the minor hash (0 in a 31-bit cookie).
        minor = 0
        gdb.write(f"f_pos {pos:#x} width {bits} major {major:#010x} minor {minor:#010x}\n")


CkFpos()
