# SPDX-License-Identifier: GPL-2.0
#
# cookiekit gdb helpers: what every module needs from the kernel's debug info
#
# Types are looked up once and cached until a new objfile is loaded (as the
# kernel's scripts/gdb CachedType does).  Constants that are preprocessor
# macros (FMODE_32BITHASH, TS_COMPAT, ...) come from gdb's macro tables when
# the kernel was built with them, else from the #define in the kernel source
# tree that the debug info names: never from numbers written here.
#

import ast
import os
import re

import gdb


class CachedType:
    """A type from the debug info, looked up on first use."""

    def __init__(self, name):
        self._name = name
        self._type = None

    def _forget(self, event):
        self._type = None
        gdb.events.new_objfile.disconnect(self._forget)

    def get(self):
        if self._type is None:
            try:
                self._type = gdb.lookup_type(self._name)
            except gdb.error:
                raise gdb.GdbError(f"type '{self._name}' is not in the debug info: "
                                   "load the kernel's vmlinux (make gdb does)")
            gdb.events.new_objfile.connect(self._forget)
        return self._type

    def ptr(self):
        return self.get().pointer()


file_type = CachedType("struct file")
task_type = CachedType("struct task_struct")
fname_type = CachedType("struct fname")
dir_info_type = CachedType("struct dir_private_info")
rb_node_type = CachedType("struct rb_node")
ulong_type = CachedType("unsigned long")


def field_offset(gdbtype, name):
    """Byte offset of a field, from the debug info."""
    for f in gdbtype.strip_typedefs().fields():
        if f.name == name:
            return f.bitpos // 8
    raise gdb.GdbError(f"{gdbtype} has no field '{name}' in this kernel's debug info")


def container_of(ptr, cached, member):
    """The struct (a CachedType) that holds *ptr as its field `member`."""
    addr = int(ptr.cast(ulong_type.get())) - field_offset(cached.get(), member)
    return gdb.Value(addr).cast(ulong_type.get()).cast(cached.ptr())


# ---- constants -----------------------------------------------------------

_source_root = None


def source_root():
    """The kernel source tree the debug info points at (the tree vmlinux was
    built from): the directory that holds init/main.c of start_kernel."""
    global _source_root
    if _source_root is None:
        sym = gdb.lookup_global_symbol("start_kernel")
        if sym is None or sym.symtab is None:
            raise gdb.GdbError("no start_kernel in the debug info: is vmlinux loaded?")
        full = sym.symtab.fullname()
        suffix = os.path.join("init", "main.c")
        if not full.endswith(suffix):
            raise gdb.GdbError(f"cannot find the kernel source root from {full}")
        _source_root = full[:-len(suffix)]
    return _source_root


_BIN_OPS = {ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
            ast.BitOr: lambda a, b: a | b, ast.BitAnd: lambda a, b: a & b,
            ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b}


def _eval_c_int(text, resolve):
    """Evaluate a simple C integer expression of a #define body: numbers with
    U/L suffixes, casts like (__force fmode_t), << >> | & + - ~ and names
    that `resolve` turns into integers."""
    text = re.sub(r"\(\s*__force\s+[A-Za-z_][A-Za-z0-9_ ]*\)", "", text)
    text = re.sub(r"\(\s*(unsigned\s+)?(long\s+)*(int|long|[us](8|16|32|64)|__u(8|16|32|64)|"
                  r"[a-z_]+_t)\s*\)", "", text)
    text = re.sub(r"\b(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]+\b", r"\1", text)
    text = re.sub(r"\b0([0-7]+)\b", r"0o\1", text)   # C octal

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _BIN_OPS:
            return _BIN_OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            return ~ev(node.operand)
        if isinstance(node, ast.Name):
            return resolve(node.id)
        raise ValueError(f"cannot evaluate '{text}'")
    return ev(ast.parse(text.strip(), mode="eval"))


class KernelConstant:
    """An integer macro of the kernel, with where its value came from."""

    def __init__(self, name, header):
        self.name = name
        self.header = header          # relative to the source root
        self._value = None
        self.origin = None

    def _from_macro_table(self):
        try:
            return int(gdb.parse_and_eval(self.name))
        except gdb.error:
            return None

    def _from_header(self, name, seen=()):
        path = os.path.join(source_root(), self.header)
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            raise gdb.GdbError(f"{self.name}: no macro info in vmlinux and cannot read "
                               f"{path} ({e.strerror}): is the kernel source tree there?")
        m = re.search(r"^\s*#\s*define\s+" + re.escape(name) + r"\s+(.*?)\s*(/\*.*)?$",
                      text, re.M)
        if not m:
            raise gdb.GdbError(f"{name}: no #define in {path}")
        if name in seen:
            raise gdb.GdbError(f"{name}: recursive #define in {path}")
        try:
            return _eval_c_int(m.group(1), lambda n: self._from_header(n, seen + (name,)))
        except (ValueError, SyntaxError):
            raise gdb.GdbError(f"{name}: cannot evaluate '#define {name} {m.group(1)}' "
                               f"from {path}")

    def value(self):
        if self._value is None:
            v = self._from_macro_table()
            if v is not None:
                self._value, self.origin = v, "vmlinux macro info"
            else:
                self._value = self._from_header(self.name)
                self.origin = f"#define in {self.header} (no macro info in vmlinux)"
        return self._value

    def __int__(self):
        return self.value()


FMODE_32BITHASH = KernelConstant("FMODE_32BITHASH", "include/linux/fs.h")
FMODE_64BITHASH = KernelConstant("FMODE_64BITHASH", "include/linux/fs.h")
TS_COMPAT = KernelConstant("TS_COMPAT", "arch/x86/include/asm/thread_info.h")
TIF_ADDR32 = KernelConstant("TIF_ADDR32", "arch/x86/include/asm/thread_info.h")
EXT4_HTREE_EOF_32BIT = KernelConstant("EXT4_HTREE_EOF_32BIT", "fs/ext4/ext4.h")
EXT4_HTREE_EOF_64BIT = KernelConstant("EXT4_HTREE_EOF_64BIT", "fs/ext4/ext4.h")
ALL_CONSTANTS = (FMODE_32BITHASH, FMODE_64BITHASH, TS_COMPAT, TIF_ADDR32,
                 EXT4_HTREE_EOF_32BIT, EXT4_HTREE_EOF_64BIT)


def _forget_constants(event):
    global _source_root
    _source_root = None
    for c in ALL_CONSTANTS:
        c._value = None


gdb.events.new_objfile.connect(_forget_constants)


# ---- tasks ---------------------------------------------------------------

def _kernel_scripts():
    try:
        import linux.cpus
        import linux.tasks
        return linux.cpus, linux.tasks
    except ImportError:
        raise gdb.GdbError("the kernel's gdb scripts are not loaded: "
                           "source build/kernel/VARIANT/vmlinux-gdb.py first (make gdb does)")


def current_task():
    """The task running on the CPU of the selected gdb thread."""
    cpus, _ = _kernel_scripts()
    return cpus.get_current_task(cpus.get_current_cpu())


def task_by_pid(pid, cmd):
    _, tasks = _kernel_scripts()
    task = tasks.get_task_by_pid(pid)
    if task is None:
        raise gdb.GdbError(f"{cmd}: no task with PID {pid} (lx-ps lists them)")
    return task


def task_label(task):
    return f"{int(task['pid'])} {task['comm'].string()}"


# ---- files ---------------------------------------------------------------

def is_ext4_dir(filp):
    """An ext4 directory file is one whose f_op is ext4_dir_operations."""
    ops = gdb.lookup_global_symbol("ext4_dir_operations") or \
        gdb.lookup_static_symbol("ext4_dir_operations")
    if ops is None:
        raise gdb.GdbError("no ext4_dir_operations in this kernel: is ext4 built in?")
    return int(filp["f_op"]) == int(ops.value().address)


def is_file_ptr_type(t):
    # Compared by name: each compile unit has its own copy of struct file.
    t = t.strip_typedefs()
    return t.code == gdb.TYPE_CODE_PTR and str(t.target().strip_typedefs()) == "struct file"


def file_arg(expr, cmd):
    """Evaluate EXPR as a `struct file *` of an ext4 directory."""
    try:
        v = gdb.parse_and_eval(expr)
    except gdb.error as e:
        raise gdb.GdbError(f"{cmd}: cannot evaluate '{expr}': {e}")
    code = v.type.strip_typedefs().code
    if code not in (gdb.TYPE_CODE_PTR, gdb.TYPE_CODE_INT):
        raise gdb.GdbError(f"{cmd}: '{expr}' is a {v.type}, not a struct file *")
    if code == gdb.TYPE_CODE_PTR and not is_file_ptr_type(v.type):
        raise gdb.GdbError(f"{cmd}: '{expr}' is a {v.type}, not a struct file *")
    filp = v.cast(file_type.ptr())
    if int(filp) == 0:
        raise gdb.GdbError(f"{cmd}: '{expr}' is a NULL file pointer")
    try:
        ok = is_ext4_dir(filp)
    except gdb.MemoryError:
        raise gdb.GdbError(f"{cmd}: cannot read a struct file at {int(filp):#x}")
    if not ok:
        raise gdb.GdbError(f"{cmd}: file {int(filp):#x} is not an ext4 directory "
                           f"(f_op is {filp['f_op']})")
    return filp


def file_name(filp):
    try:
        return filp["f_path"]["dentry"]["d_name"]["name"].string()
    except (gdb.error, UnicodeDecodeError):
        return "?"


def frame_file():
    """The `struct file *` of the selected frame or its callers (file, filp,
    dir_file), for commands that default to "the directory being read"."""
    try:
        frame = gdb.selected_frame()
    except gdb.error:
        return None
    while frame is not None:
        for name in ("file", "filp", "dir_file"):
            try:
                v = frame.read_var(name)
            except (ValueError, gdb.error):
                continue
            if is_file_ptr_type(v.type):
                try:
                    if int(v) and is_ext4_dir(v):
                        return v
                except gdb.error:
                    pass
        frame = frame.older()
    return None


# ---- commands ------------------------------------------------------------

def parse_int(text, what, cmd):
    try:
        return int(gdb.parse_and_eval(text))
    except (gdb.error, ValueError) as e:
        raise gdb.GdbError(f"{cmd}: {what} '{text}' is not a number: {e}")


class CkCommand(gdb.Command):
    """Base: turns gdb errors met while reading the target into one-line
    gdb.GdbError messages instead of Python tracebacks."""

    def __init__(self, name, cls=gdb.COMMAND_DATA):
        super().__init__(name, cls)
        self.name = name

    def invoke(self, arg, from_tty):
        try:
            argv = gdb.string_to_argv(arg)
        except Exception as e:          # unbalanced quotes
            raise gdb.GdbError(f"{self.name}: {e}")
        try:
            self.run(argv)
        except gdb.GdbError:
            raise
        except gdb.MemoryError as e:
            raise gdb.GdbError(f"{self.name}: cannot read target memory ({e})")
        except gdb.error as e:
            raise gdb.GdbError(f"{self.name}: {e}")

    def usage(self, why):
        first = self.__doc__.strip().splitlines()[0]
        raise gdb.GdbError(f"{self.name}: {why}\nusage: {first}")
