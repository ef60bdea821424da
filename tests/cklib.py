# SPDX-License-Identifier: GPL-2.0
"""What the tests' Python checks share: the VM tests' heredocs
(tests/vm/test-bpf-*, test-bin32) and the Python unit tests (tests/unit).

tests/lib.sh puts this directory on PYTHONPATH, so a check run as
`python3 - ARGS <<'PY'` starts with

    from cklib import Checks, jsonl
    check = Checks(f"{variant}: ")
    check(len(events) > 0, "some events", detail=len(events))
    ...
    check.exit()

and prints the lines tests/lib.sh's pass and fail print: "ok: ..." and
"FAIL: ...".  A test written in Python puts tests/ on sys.path itself.
"""
import json
import sys


class Checks:
    """A run of checks: each call prints one line; exit() ends the script
    with status 0 if every check held, 1 otherwise."""

    def __init__(self, prefix=""):
        self.prefix = prefix
        self.failed = 0

    def __call__(self, cond, msg, detail=None):
        """Print "ok: PREFIX MSG" or "FAIL: PREFIX MSG", on a FAIL with
        "  (got DETAIL)" when DETAIL is given.  Returns bool(cond)."""
        line = ("ok: " if cond else "FAIL: ") + self.prefix + msg
        if not cond and detail is not None:
            line += f"  (got {detail})"
        print(line)
        self.failed += not cond
        return bool(cond)

    @property
    def ok(self):
        return self.failed == 0

    def exit(self):
        sys.exit(0 if self.ok else 1)


def jsonl(path):
    """The records of a JSON Lines file (cookie-groups --dump json), in order."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]
