# SPDX-License-Identifier: GPL-2.0
"""mk/cli.py — what mk/cli.sh is for the shell commands, for the Python ones:
std(argv, prog, doc) first thing in main.  -V/--version prints
"PROG (cookiekit) VERSION" from mk/version, the one place of the version;
with doc (commands without argparse), -h/--help prints doc.  Both exit 0 and
do nothing else.  A command imports it with
    sys.path.insert(0, os.path.join(TOP, "mk")); import cli as ckcli
"""
import os
import sys

VERSION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "version")


def std(argv, prog, doc=None):
    if argv[:1] in (["-V"], ["--version"]):
        sys.stdout.flush()
        os.execv(VERSION, [VERSION, "--for", prog])
    if doc and argv[:1] in (["-h"], ["--help"]):
        try:
            print(doc.strip(), flush=True)
        except BrokenPipeError:     # `--help | head`: the reader has what it wanted
            os._exit(0)
        sys.exit(0)


def kernel_variants():
    """The kernel variants kernel/series names on its '# variants:' line, for
    --kernel choices (vm/run, ck-gdb): one list, kept where the patches are."""
    series = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "kernel", "series")
    with open(series) as f:
        for line in f:
            words = line.split()
            if words[:2] == ["#", "variants:"]:
                return words[2:]
    raise SystemExit(f"no '# variants:' line in {series}")
