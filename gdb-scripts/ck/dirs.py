# SPDX-License-Identifier: GPL-2.0
#
# cookiekit gdb helpers: ext4 directory files and their htree readdir state
#
# ext4_dx_readdir() keeps, in file->private_data, a struct dir_private_info
# whose rbtree holds the struct fname entries of the hash range read last,
# ordered by (hash, minor_hash); names with equal (hash, minor_hash) hang off
# the first one's ->next chain.
#

import gdb

from ck import kernel, width


def task_option(argv, cmd):
    """Pop '--task PID' from argv; the default reader is the current task."""
    if "--task" in argv:
        i = argv.index("--task")
        if i + 1 >= len(argv):
            raise gdb.GdbError(f"{cmd}: --task needs a PID")
        pid = kernel.parse_int(argv[i + 1], "PID", cmd)
        del argv[i:i + 2]
        return kernel.task_by_pid(pid, cmd)
    return kernel.current_task()


def dir_info(filp):
    p = filp["private_data"]
    if int(p) == 0:
        return None
    return p.cast(kernel.dir_info_type.ptr())


def rb_inorder(root):
    """rb_node pointers of an rb_root in order, without recursion."""
    stack, node = [], root["rb_node"]
    while stack or int(node):
        while int(node):
            stack.append(node)
            node = node["rb_left"]
        node = stack.pop()
        yield node
        node = node["rb_right"]


def fnames(info):
    """(fname, in_chain) of the tree in readdir order: each rbtree node, then
    its ->next collision chain."""
    for node in rb_inorder(info["root"]):
        fn = kernel.container_of(node, kernel.fname_type, "rb_hash")
        first = True
        while int(fn):
            yield fn, not first
            first = False
            fn = fn["next"]


def fname_name(fn):
    n = int(fn["name_len"])
    raw = bytes(gdb.selected_inferior().read_memory(fn["name"].address, n))
    return raw.decode("utf-8", "backslashreplace")


def describe_pos(pos, bits):
    if pos == width.eof(bits):
        return f"{pos:#x} (EOF for {bits}-bit)"
    return f"{pos:#x} (major {width.pos_major(pos, bits):#010x}, " \
           f"minor {width.pos_minor(pos, bits):#010x})"


class CkDirinfo(kernel.CkCommand):
    """ck-dirinfo FILE [--task PID]: readdir state of an ext4 directory file.

FILE is an expression for a `struct file *` (at a breakpoint in
ext4_dir_llseek or call_filldir: `file`).  Prints f_pos, the cookie width
ext4 gives the reader and why (FMODE_32BITHASH/FMODE_64BITHASH in f_mode,
else compat or native syscall), and the dir_private_info fields curr_hash,
curr_minor_hash, next_hash, last_pos and extra_fname.  The reader is the
current task, or the task with PID given by --task."""

    def __init__(self):
        super().__init__("ck-dirinfo")

    def run(self, argv):
        task = task_option(argv, self.name)
        if not argv:
            self.usage("give a struct file * expression")
        filp = kernel.file_arg(" ".join(argv), self.name)
        w = width.decide(filp, task)
        mode = int(filp["f_mode"])
        flags = [c.name for c in (kernel.FMODE_32BITHASH, kernel.FMODE_64BITHASH)
                 if mode & int(c)] or ["no FMODE_*BITHASH"]
        out = [f"file {int(filp):#x}: ext4 directory '{kernel.file_name(filp)}', "
               f"inode {int(filp['f_inode']['i_ino'])}",
               f"  f_pos            {describe_pos(int(filp['f_pos']), w.bits)}",
               f"  f_mode           {mode:#x} ({', '.join(flags)})",
               f"  width            {w}"]
        info = dir_info(filp)
        if info is None:
            out.append("  dir_private_info none (no htree readdir on this file yet)")
        else:
            extra = info["extra_fname"]
            extra_s = "none" if not int(extra) else \
                f"{int(extra):#x} '{fname_name(extra)}' hash {int(extra['hash']):#010x}"
            count = sum(1 for _ in fnames(info))
            out += [f"  dir_private_info {int(info):#x}",
                    f"    curr_hash        {int(info['curr_hash']):#010x}",
                    f"    curr_minor_hash  {int(info['curr_minor_hash']):#010x}",
                    f"    next_hash        {int(info['next_hash']):#010x}",
                    f"    last_pos         {describe_pos(int(info['last_pos']), w.bits)}",
                    f"    extra_fname      {extra_s}",
                    f"    fnames in tree   {count} (ck-fnames lists them)"]
        gdb.write("\n".join(out) + "\n")


class CkFnames(kernel.CkCommand):
    """ck-fnames FILE [--task PID]: the htree names cached for FILE, in hash order.

Walks the rbtree of struct fname in dir_private_info, each node followed by
its ->next chain of names with the same (hash, minor_hash), and prints hash,
minor hash, the cookie for the reader's width (see ck-dirinfo) and the name.
'=' marks a name whose cookie equals the previous one's: a reader that seeks
to that cookie restarts at the first of them."""

    def __init__(self):
        super().__init__("ck-fnames")

    def run(self, argv):
        task = task_option(argv, self.name)
        if not argv:
            self.usage("give a struct file * expression")
        filp = kernel.file_arg(" ".join(argv), self.name)
        w = width.decide(filp, task)
        info = dir_info(filp)
        if info is None:
            raise gdb.GdbError(f"{self.name}: file {int(filp):#x} has no htree readdir "
                               "state yet (private_data is NULL)")
        rows, prev = [], None
        for fn, chained in fnames(info):
            h, m = int(fn["hash"]), int(fn["minor_hash"])
            c = width.cookie(h, m, w.bits)
            mark = "=" if c == prev else " "
            prev = c
            rows.append(f"{mark} {h:#010x}  {m:#010x}  {c:#018x}  {fname_name(fn)}"
                        + ("  (->next chain)" if chained else ""))
        gdb.write(f"fnames of file {int(filp):#x} (inode {int(filp['f_inode']['i_ino'])}), "
                  f"{w.bits}-bit cookies: {len(rows)} names\n"
                  f"  {'hash':<10}  {'minor':<10}  {'cookie':<18}  name\n")
        gdb.write("".join(r + "\n" for r in rows))


class CkFiles(kernel.CkCommand):
    """ck-files PID: the ext4 directories task PID has open.

One line per open ext4 directory file: fd, struct file address, inode,
f_pos and the cookie width the task would get (see ck-dirinfo)."""

    def __init__(self):
        super().__init__("ck-files")

    def run(self, argv):
        if len(argv) != 1:
            self.usage("give one PID")
        pid = kernel.parse_int(argv[0], "PID", self.name)
        task = kernel.task_by_pid(pid, self.name)
        files = task["files"]
        if not int(files):
            raise gdb.GdbError(f"{self.name}: task {pid} has no file table (exiting?)")
        fdt = files["fdt"]
        n = 0
        gdb.write(f"ext4 directories open in task {kernel.task_label(task)}:\n")
        for fd in range(int(fdt["max_fds"])):
            filp = fdt["fd"][fd]
            if not int(filp) or not kernel.is_ext4_dir(filp):
                continue
            n += 1
            w = width.decide(filp, task)
            gdb.write(f"  fd {fd:<3} file {int(filp):#x}  inode {int(filp['f_inode']['i_ino'])}"
                      f"  '{kernel.file_name(filp)}'  f_pos {int(filp['f_pos']):#x}  "
                      f"width {w}\n")
        if n == 0:
            gdb.write("  (none)\n")


CkDirinfo()
CkFnames()
CkFiles()
