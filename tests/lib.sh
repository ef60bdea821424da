# SPDX-License-Identifier: GPL-2.0
# tests/lib.sh — the host side of every test and lab check, sourced (not run:
# not executable, so tests/run does not pick it up).  No VM here: that is
# tests/vm/lib.sh, which sources this file, and which labs/lib.sh sources.
#
#   fail WHAT / pass WHAT   one "FAIL: ..." / "ok: ..." line; fail makes $rc 1
#                           (a test ends with `exit $rc`) and counts $fails
#   ok WHAT / bad WHAT      the counted style of the host unit tests: one
#                           "ok   ..." / "FAIL ..." line, counted in $n and
#                           $fails; such a test ends with checks_end, which
#                           prints "N checks, N failed" and is its status
#   json_field JSON KEY     a top-level number or string of dirprobe's
#                           one-line JSON ("" for null or a missing key)
#   free_port               a TCP port free on 127.0.0.1 right now
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# A test that sources this first answers --help/-h (its header comment) and
# --version without running (mk/cli.sh reads the test's own arguments).  A
# copy of a test with this file but not mk/ (test-bin32 runs test-cli in the
# guest so) goes without.
[ ! -f "$top/mk/cli.sh" ] || . "$top/mk/cli.sh"

# The tests' Python checks import cklib (tests/cklib.py).
export PYTHONPATH=$top/tests${PYTHONPATH:+:$PYTHONPATH}

rc=0 fails=0 n=0
fail() { echo "FAIL: $*"; rc=1; fails=$((fails + 1)); }
pass() { echo "ok: $*"; }
ok()  { n=$((n + 1)); echo "ok   $*"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL $*"; }
checks_end() { echo "$n checks, $fails failed"; [ "$fails" -eq 0 ]; }

# The guest's reader, run on the host: one parser for both sides, so a lab
# reads a dirprobe line exactly as ck-truth-table does in the guest.
json_field() { "$top/vm/guest/bin/ck-json" "$2" "$1"; }

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
