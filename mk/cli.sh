# SPDX-License-Identifier: GPL-2.0
# mk/cli.sh — the options every shell command of the kit answers, sourced as
# the command's first statement (POSIX sh and bash alike, so it sees the
# command's own arguments):
#   . "$(dirname "$0")/../mk/cli.sh"
# -h/--help prints the usage: the comment block at the top of the command
# (after the #! line and the SPDX line), which is where each command
# documents itself; -V/--version prints "NAME (cookiekit) VERSION" from
# mk/version.  Both exit 0 and do nothing else (tests/unit/test-docs runs
# every command so, in an empty HOME and cache, and checks that).
case ${1:-} in
-h|--help)
	sed -n '2,/^[^#]/{/^#/!q;/SPDX-License-Identifier/d;s/^# \{0,1\}//;p;}' "$0"
	exit 0 ;;
-V|--version)
	ck_cli_dir=$(dirname "$0")
	while [ ! -x "$ck_cli_dir/mk/version" ] && [ "$(cd "$ck_cli_dir" && pwd)" != / ]; do
		ck_cli_dir=$ck_cli_dir/..
	done
	"$ck_cli_dir/mk/version" --for "${0##*/}" 2>/dev/null || echo "${0##*/} (cookiekit) unknown"
	exit 0 ;;
esac
