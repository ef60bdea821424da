# SPDX-License-Identifier: GPL-2.0
#
# cookiekit gdb helpers: trace readdir from the debugger
#
# The debugger's view of what bpf/cookie-trace shows: breakpoints on
# call_filldir (one per name emitted by the htree walk) and ext4_dir_llseek
# (every lseek/seekdir on an ext4 directory) that print a line and let the
# guest run on.  Each hit is a round trip to the gdbstub: under TCG expect a
# few hundred hits a second at best.
#

import gdb

from ck import dirs, kernel, width

SEEK_NAMES = [kernel.KernelConstant(n, "include/uapi/linux/fs.h")
              for n in ("SEEK_SET", "SEEK_CUR", "SEEK_END", "SEEK_DATA", "SEEK_HOLE")]


def whence_name(w):
    for c in SEEK_NAMES:
        try:
            if int(c) == w:
                return c.name
        except gdb.GdbError:
            break
    return str(w)


class _TraceBreakpoint(gdb.Breakpoint):
    def __init__(self, spec, hw):
        kind = gdb.BP_HARDWARE_BREAKPOINT if hw else gdb.BP_BREAKPOINT
        super().__init__(spec, type=kind, internal=True)
        self.silent = True
        self.hits = 0

    def stop(self):
        self.hits += 1
        try:
            frame = gdb.newest_frame()
            filp = frame.read_var("file")
            task = kernel.current_task()
            gdb.write(f"ck-trace: {self.line(frame, filp, task)}\n")
            return False
        except (gdb.error, gdb.GdbError, ValueError) as e:
            gdb.write(f"ck-trace-readdir: stopped, cannot decode this hit: {e}\n")
            return True

    @staticmethod
    def who(filp, task):
        return f"pid {kernel.task_label(task)} ino {int(filp['f_inode']['i_ino'])}"


class FilldirBreakpoint(_TraceBreakpoint):
    def __init__(self, hw):
        super().__init__("call_filldir", hw)

    def line(self, frame, filp, task):
        fn = frame.read_var("fname")
        w = width.decide(filp, task)
        h, m = int(fn["hash"]), int(fn["minor_hash"])
        return (f"filldir {self.who(filp, task)} hash {h:#010x} minor {m:#010x} "
                f"cookie {width.cookie(h, m, w.bits):#x} ({w.bits}-bit) "
                f"name {dirs.fname_name(fn)}")


class LlseekBreakpoint(_TraceBreakpoint):
    def __init__(self, hw):
        super().__init__("ext4_dir_llseek", hw)

    def line(self, frame, filp, task):
        off, wh = int(frame.read_var("offset")), int(frame.read_var("whence"))
        w = width.decide(filp, task)
        dec = "EOF" if off == width.eof(w.bits) else \
            f"major {width.pos_major(off, w.bits):#010x} minor {width.pos_minor(off, w.bits):#010x}"
        return (f"llseek  {self.who(filp, task)} offset {off:#x} whence {whence_name(wh)} "
                f"({w.bits}-bit: {dec})")


class CkTraceReaddir(kernel.CkCommand):
    """ck-trace-readdir [on [--hw]|off]: print every call_filldir and ext4_dir_llseek.

`on` sets breakpoints on call_filldir (name, hash, minor hash and the
cookie ext4 gives the reader) and ext4_dir_llseek (offset, whence, decoded)
that print one 'ck-trace:' line and continue without stopping; then
`continue`.  --hw uses hardware breakpoints (needed under KVM only while
the kernel text is not yet in place, e.g. after vm/run --gdb-wait).
`off` deletes them; no argument shows whether tracing is on."""

    def __init__(self):
        super().__init__("ck-trace-readdir", gdb.COMMAND_BREAKPOINTS)
        self.bps = []

    def complete(self, text, word):
        return [w for w in ("on", "off") if w.startswith(word or "")]

    def run(self, argv):
        if not argv:
            if not self.bps:
                gdb.write("ck-trace-readdir is off\n")
            for bp in self.bps:
                gdb.write(f"ck-trace-readdir on: {bp.location}, {bp.hits} hits\n")
            return
        hw = "--hw" in argv
        rest = [a for a in argv if a != "--hw"]
        if rest == ["on"]:
            if self.bps:
                raise gdb.GdbError(f"{self.name}: already on ('{self.name} off' first)")
            try:
                self.bps = [FilldirBreakpoint(hw), LlseekBreakpoint(hw)]
            except (gdb.error, RuntimeError) as e:
                self.off()
                raise gdb.GdbError(f"{self.name}: cannot set breakpoints: {e}")
            gdb.write("ck-trace-readdir on: call_filldir, ext4_dir_llseek; "
                      "'continue' to let the guest run\n")
        elif rest == ["off"] and not hw:
            if not self.bps:
                raise gdb.GdbError(f"{self.name}: tracing is not on")
            self.off()
            gdb.write("ck-trace-readdir off\n")
        else:
            self.usage(f"unexpected arguments '{' '.join(argv)}'")

    def off(self):
        for bp in self.bps:
            if bp.is_valid():
                bp.delete()
        self.bps = []


CkTraceReaddir()
