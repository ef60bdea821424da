# SPDX-License-Identifier: GPL-2.0
#
# cookiekit gdb helpers: show what the other commands derived from the kernel
#

import gdb

from ck import kernel, width


class CkConstants(kernel.CkCommand):
    """ck-constants: the kernel constants and the width rule the ck-* commands use.

Each constant comes from vmlinux's macro info when it has some, else from the
#define in the kernel source tree the debug info names; the width rule
(per caller since 3.4, or 31-bit for all before) is probed from the debug
info of ext4_dir_llseek."""

    def __init__(self):
        super().__init__("ck-constants")

    def run(self, argv):
        if argv:
            self.usage("takes no arguments")
        gdb.write(f"kernel source root: {kernel.source_root()}\n")
        for c in kernel.ALL_CONSTANTS:
            gdb.write(f"  {c.name:<22} {c.value():#x}  from {c.origin}\n")
        rule = "per caller (f_mode bits, then compat): 3.4+ hash2pos()" \
            if width.per_caller_width() else \
            "31 bits for every caller: pre-3.4 hash2pos macro"
        gdb.write(f"cookie width rule: {rule}\n")


CkConstants()
