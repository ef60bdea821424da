# SPDX-License-Identifier: GPL-2.0
# cookiekit gdb scripts: loader. Only imports; each module registers its own
# commands and functions.  Load after the kernel's vmlinux-gdb.py:
#   source build/kernel/VARIANT/vmlinux-gdb.py
#   source gdb-scripts/cookiekit.py
import os
import sys

import gdb

sys.dont_write_bytecode = True   # no __pycache__ in the checkout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ck.kernel      # noqa: E402  types, constants, tasks, command base
import ck.width       # noqa: E402  cookie width decision and codec
import ck.cookie      # noqa: E402  ck-cookie, $ck_major, $ck_minor, $ck_cookie
import ck.dirs        # noqa: E402  ck-dirinfo, ck-fnames, ck-files
import ck.trace       # noqa: E402  ck-trace-readdir
import ck.constants   # noqa: E402  ck-constants
