# SPDX-License-Identifier: GPL-2.0
#
# cookiekit gdb helpers: decode and build readdir cookies
#

import gdb

from ck import dirs, kernel, width


class CkCookie(kernel.CkCommand):
    """ck-cookie VALUE [--31|--63] [--file FILE]: decode a d_off or f_pos.

Prints the (major, minor) hash the cookie VALUE stands for and, when a
directory file is known, the cached names (see ck-fnames) that map to it.
The file is FILE (a struct file * expression) or, by default, the `file`
of the selected frame or a caller (a breakpoint in ext4_dir_llseek or
call_filldir).  The width is --31 (31-bit cookies) or --63 (63-bit ones),
else the one ext4 gives the current task for that file, else guessed from
the value (above 0x7fffffff needs 63)."""

    def __init__(self):
        super().__init__("ck-cookie")

    def run(self, argv):
        bits, filp, rest = None, None, []
        i = 0
        while i < len(argv):
            a = argv[i]
            if a in ("--31", "--63"):
                if bits is not None:
                    self.usage("give at most one of --31, --63")
                bits = int(a[2:])
            elif a in ("--32", "--64"):
                self.usage(f"{a}: cookie widths are --31 and --63 (bits of the cookie, "
                           "not of the caller)")
            elif a == "--file":
                if i + 1 >= len(argv):
                    self.usage("--file needs a struct file * expression")
                filp = kernel.file_arg(argv[i + 1], self.name)
                i += 1
            elif a.startswith("--"):
                self.usage(f"unknown option '{a}'")
            else:
                rest.append(a)
            i += 1
        if not rest:
            self.usage("give a cookie value")
        pos = kernel.parse_int(" ".join(rest), "cookie", self.name)
        if pos < 0:
            raise gdb.GdbError(f"{self.name}: cookie {pos} is negative: "
                               "readdir cookies are 0 .. 2^63-1")
        if filp is None:
            filp = kernel.frame_file()
        how = f"--{bits}" if bits is not None else None
        if bits is None and filp is not None:
            w = width.decide(filp, kernel.current_task())
            bits, how = w.bits, f"width of file {int(filp):#x}: {w}"
        if bits is None:
            bits = width.guess_bits(pos)
            how = "guessed from the value; pass --31 or --63"
        if bits == 31 and pos > 0x7fffffff:
            raise gdb.GdbError(f"{self.name}: {pos:#x} does not fit a 31-bit cookie; "
                               "use --63")
        out = [f"cookie {pos:#x}, {bits}-bit ({how})"]
        if pos == width.eof(bits):
            out.append(f"  end of directory (EXT4_HTREE_EOF_{bits + 1}BIT)")
            gdb.write("\n".join(out) + "\n")
            return
        major, minor = width.pos_major(pos, bits), width.pos_minor(pos, bits)
        out.append(f"  major hash {major:#010x} or {major | 1:#010x} (bit 0 is not kept)")
        out.append(f"  minor hash {minor:#010x}" +
                   (" (not kept in 31-bit cookies)" if bits == 31 else ""))
        info = dirs.dir_info(filp) if filp is not None else None
        if info is not None:
            hits = [(fn, int(fn["hash"]), int(fn["minor_hash"]))
                    for fn, _ in dirs.fnames(info)]
            hits = [(fn, h, m) for fn, h, m in hits if width.cookie(h, m, bits) == pos]
            out.append(f"  names in the tree of file {int(filp):#x} with this cookie: "
                       f"{len(hits)}")
            out += [f"    {dirs.fname_name(fn)}  hash {h:#010x} minor {m:#010x}"
                    for fn, h, m in hits]
        elif filp is not None:
            out.append(f"  file {int(filp):#x} has no htree readdir state: no names known")
        gdb.write("\n".join(out) + "\n")


def _int_arg(fn, value, what):
    try:
        return int(value)
    except (gdb.error, ValueError, TypeError) as e:
        raise gdb.GdbError(f"${fn}: {what} is not an integer ({e})")


def _bits_arg(fn, value):
    try:
        return width.check_bits(int(value))
    except (gdb.error, gdb.GdbError) as e:
        raise gdb.GdbError(f"${fn}: {e}")


class CkMajor(gdb.Function):
    """$ck_major(POS [, WIDTH]): the major hash a cookie stands for.

WIDTH is 31 (a 31-bit cookie: major = POS << 1) or 63 (a 63-bit cookie:
major = (POS >> 32) << 1); without it, POS above 0x7fffffff means 63."""

    def __init__(self):
        super().__init__("ck_major")

    def invoke(self, pos, bits=None):
        p = _int_arg("ck_major", pos, "POS")
        b = _bits_arg("ck_major", bits) if bits is not None else width.guess_bits(p)
        return gdb.Value(width.pos_major(p, b))


class CkMinor(gdb.Function):
    """$ck_minor(POS [, WIDTH]): the minor hash a cookie stands for (0 in 31-bit ones).

WIDTH as for $ck_major."""

    def __init__(self):
        super().__init__("ck_minor")

    def invoke(self, pos, bits=None):
        p = _int_arg("ck_minor", pos, "POS")
        b = _bits_arg("ck_minor", bits) if bits is not None else width.guess_bits(p)
        return gdb.Value(width.pos_minor(p, b))


class CkCookieFunc(gdb.Function):
    """$ck_cookie(MAJOR, MINOR [, WIDTH]): the cookie ext4's hash2pos() makes.

WIDTH 31 gives MAJOR >> 1, 63 (the default) (MAJOR >> 1) << 32 | MINOR."""

    def __init__(self):
        super().__init__("ck_cookie")

    def invoke(self, major, minor, bits=None):
        b = _bits_arg("ck_cookie", bits) if bits is not None else 63
        return gdb.Value(width.cookie(_int_arg("ck_cookie", major, "MAJOR"),
                                      _int_arg("ck_cookie", minor, "MINOR"), b))


CkCookie()
CkMajor()
CkMinor()
CkCookieFunc()
