# SPDX-License-Identifier: GPL-2.0
# Shared by the VM tests and (through labs/lib.sh) the labs' checks: run a
# command in a guest of a variant (a session's, or one booted for it), fail
# loudly.  A VM test that cannot boot fails; it
# never skips.  fail/pass/$rc, json_field and free_port: tests/lib.sh.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
VMRUN_TIMEOUT=${VMRUN_TIMEOUT:-600}
LAB07_TEST_SEED=5ee07c0c-1e5d-4a11-8c2b-07b1e3d5a0f7   # lab 07's live step in the tests (lab_runs)

# vm VARIANT CMD...: run CMD in the guest, no gdbstub; prints its output,
# returns its exit status (vm/run's on panic/timeout: 124, 125).  Inside a
# session (CK_SESSION_DIR, set by tests/run and labs/lab-check: vm/session)
# the command runs in the session's guest of VARIANT, booted once and reset
# between commands; else (or with VM_SESSION=0) in a guest booted for it.
vm() {
	local variant=$1; shift
	vm_share_run "$variant" "" "$@"
}

# disk_constant NAME: the lab disks' constant NAME (vm/disks --constants:
# HASH_SEED, FILLERS...); prints a FAIL line and returns 1 without it.
disk_constant() {
	local v
	v=$("$top/vm/disks" --constants | sed -n "s/^$1=//p")
	[ -n "$v" ] || { echo "FAIL: vm/disks --constants gave no $1"; return 1; }
	echo "$v"
}

# truth VARIANT [--width] [--dmesg] CELL...: `vm VARIANT ck-truth-table
# OPTIONS CELL...`, whose output it prints (variant line, cell lines and
# their loopline lines, done line) and whose status it returns.  Within one
# tests/run (CK_CELL_CACHE, a directory it makes for the run), a cell already
# walked on the same kernel with the same disks, image and guest programs
# comes from that walk (test-afterlife's and lab 08's cells are the same,
# test-truth-table's and labs 02, 03 and 06's): only the others go to the
# guest, and a failed guest run caches nothing.  The guest always walks with
# --width --dmesg, and a caller that asked for less gets the lines
# ck-truth-table prints without them (the cell line without its trailing
# width= wdups=, no loopline lines): the width pass comes after the walk and
# its loop lines are counted before it, so the rest of the line is the same.
# The variant line is the guest's, from the walk that ran.  Outside tests/run
# every cell is walked, with the options asked for.
truth() {
	local v=$1 opts=() cells=() todo=() key c out st lk width= dmesg= other= o
	shift
	while [ $# -gt 0 ]; do case $1 in --*) opts+=("$1") ;; *) cells+=("$1") ;; esac; shift; done
	for o in "${opts[@]}"; do
		case $o in --width) width=1 ;; --dmesg) dmesg=1 ;; *) other=1 ;; esac
	done
	if [ -n "$other" ] || [ -z "${CK_CELL_CACHE:-}" ] || ! mkdir -p "$CK_CELL_CACHE" 2>/dev/null; then
		vm "$v" ck-truth-table "${opts[@]}" "${cells[@]}"; return
	fi
	key=$( { echo "$v --width --dmesg"; readlink -f "$top/build/kernel/$v" "$top/build/vm/rootfs.img" "$top/build/vm/"*.img
		cat "$top/build/guest/bin/ck-truth-table" "$top/build/bin/dirprobe" "$top/build/bin/dirfill" \
			"$top/build/bin32/dirprobe" "$top/build/emul/"*/dirprobe; } 2>&1 | sha256sum | cut -c1-16)
	exec {lk}> "$CK_CELL_CACHE/$v.lock"
	flock "$lk"		# a cell another lane is walking: wait for it
	for c in "${cells[@]}"; do [ -f "$CK_CELL_CACHE/$key.$c" ] || todo+=("$c"); done
	if [ ${#todo[@]} -gt 0 ]; then
		out=$(vm "$v" ck-truth-table --width --dmesg "${todo[@]}"); st=$?
		if [ $st -ne 0 ] || ! grep -qx "done ${#todo[@]}" <<< "$out"; then
			exec {lk}>&-; printf '%s\n' "$out"; return $(( st ? st : 1 ))
		fi
		grep -m1 '^variant ' <<< "$out" > "$CK_CELL_CACHE/$key.variant"
		for c in "${todo[@]}"; do
			grep -E "^(cell|loopline) $c " <<< "$out" > "$CK_CELL_CACHE/$key.$c.tmp" &&
				mv "$CK_CELL_CACHE/$key.$c.tmp" "$CK_CELL_CACHE/$key.$c"
		done
	fi
	exec {lk}>&-
	cat "$CK_CELL_CACHE/$key.variant" || return 1
	for c in "${cells[@]}"; do
		[ -f "$CK_CELL_CACHE/$key.$c" ] || return 1
		if [ -n "$width" ]; then cat "$CK_CELL_CACHE/$key.$c"
		else sed -E '/^cell /s/ width=[^ ]* wdups=[^ ]*$//' "$CK_CELL_CACHE/$key.$c"; fi |
			if [ -n "$dmesg" ]; then cat; else grep -v '^loopline '; fi
	done
	echo "done ${#cells[@]}"
	[ ${#todo[@]} -eq ${#cells[@]} ] ||
		echo "truth: $(( ${#cells[@]} - ${#todo[@]} )) of ${#cells[@]} cells on $v from this run's earlier walks" >&2
}

# session_begin: a vm/session of our own for this process and the ones it
# starts, unless one is already running (CK_SESSION_DIR) or VM_SESSION=0;
# session_end stops the one session_begin started (call it from an EXIT trap).
session_begin() {
	[ -z "${CK_SESSION_DIR:-}" ] && [ "${VM_SESSION:-1}" != 0 ] || return 0
	CK_SESSION_DIR=$("$top/vm/session" start --owner $$) || return 0
	export CK_SESSION_DIR
	session_own=$CK_SESSION_DIR
}
session_end() {
	[ -n "${session_own:-}" ] || return 0
	"$top/vm/session" stop ${1:+"$@"} "$session_own"
	session_own=
}

# vm_share_run VARIANT DIR CMD...: the same, with the host directory DIR
# shared read-write at /mnt/host (scripts in, results out; DIR '': none).  In a session DIR
# must be under build/tmp (vm/session run --share), and the lab disks are
# read-only there: a command that writes to them runs with VM_SESSION=0.
vm_share_run() {
	local variant=$1 dir=$2; shift 2
	if [ -n "${CK_SESSION_DIR:-}" ] && [ "${VM_SESSION:-1}" != 0 ]; then
		"$top/vm/session" run --kernel "$variant" --timeout "$VMRUN_TIMEOUT" ${dir:+--share "$dir"} -- "$@"
	else
		"$top/vm/run" --kernel "$variant" --no-gdb --timeout "$VMRUN_TIMEOUT" ${dir:+--share "$dir"} -- "$@"
	fi
}

# vm_start LOG VMRUN-ARGS...: vm/run in the background, stdout and stderr to
# LOG; sets $vm_pid.  vm/run names the run's directory after its own pid
# (build/vm/run-PID/: trace.sock, the console log).  Reap it with `wait
# "$vm_pid"` (vm/run's exit status) or end it with vm_stop.
vm_start() {
	local log=$1; shift
	# Emptied here, not only by the background job's redirection: that runs
	# later, and a caller that reuses LOG could meanwhile find the previous
	# guest's lines in it (a READY from the last boot, then no VM at all).
	: > "$log"
	"$top/vm/run" "$@" >> "$log" 2>&1 &
	vm_pid=$!
}

# vm_gdb_start LOG VARIANT SECONDS CMD...: CMD in a guest of VARIANT with a
# gdbstub, in the background as vm_start (sets $vm_pid, output in LOG): in
# the session's guest when there is a session (vm/session: each guest has a
# gdbstub; no boot of its own), else a boot with --no-nfs on a free port.
# Once CMD runs (its first line seen in LOG), vm_gdb_port sets $GDB_PORT.
# CMD must not wait for gdb for ever: a session runs it to its end even when
# the caller is gone.
vm_gdb_start() {
	local log=$1 variant=$2 secs=$3; shift 3
	if [ -n "${CK_SESSION_DIR:-}" ] && [ "${VM_SESSION:-1}" != 0 ]; then
		GDB_PORT= gdb_session_variant=$variant
		: > "$log"
		"$top/vm/session" run --kernel "$variant" --timeout "$secs" -- "$@" >> "$log" 2>&1 &
		vm_pid=$!
	else
		GDB_PORT=$(free_port) gdb_session_variant=
		vm_start "$log" --kernel "$variant" --no-nfs --gdb-port "$GDB_PORT" --timeout "$secs" -- "$@"
	fi
}
# vm_gdb_port: $GDB_PORT of vm_gdb_start's guest (the session's guest's,
# read once the command runs there); false if it has none.
vm_gdb_port() {
	[ -n "${GDB_PORT:-}" ] || [ -z "${gdb_session_variant:-}" ] ||
		GDB_PORT=$(cat "$CK_SESSION_DIR/$gdb_session_variant/gdb-port" 2>/dev/null)
	[ -n "${GDB_PORT:-}" ]
}

# vm_wait_line LOG REGEX SECONDS: wait until a line of LOG matches REGEX
# (grep -E) while the guest $vm_pid runs.  0: seen; 1: the guest ended
# first; 2: not in SECONDS.
vm_wait_line() {
	local log=$1 re=$2 tenths=$(($3 * 10)) t=0
	until grep -Eq -- "$re" "$log" 2>/dev/null; do
		kill -0 "$vm_pid" 2>/dev/null || { grep -Eq -- "$re" "$log" 2>/dev/null && return 0; return 1; }
		[ $t -lt $tenths ] || return 2
		sleep 0.1; t=$((t + 1))
	done
}

# vm_wait_end SECONDS: wait for the guest $vm_pid to end by itself (a guest
# that gdb has let go).  Once it ended: reap it, clear $vm_pid, return
# vm/run's exit status.  Still running after SECONDS: return 1 with $vm_pid
# still set (vm_stop it).
vm_wait_end() {
	local tenths=$(($1 * 10)) t=0
	while kill -0 "$vm_pid" 2>/dev/null; do
		[ $t -lt $tenths ] || return 1
		sleep 0.1; t=$((t + 1))
	done
	wait "$vm_pid"; set -- $?
	vm_pid=
	return "$1"
}

# vm_stop PID: end the guest of vm_start's PID if it still runs.  vm/run
# terminates its QEMU on SIGTERM (and kills it 5 s later if need be); the
# QEMU it started gets the signal too, by pid, so that none outlives a vm/run
# that is stuck or was killed harder.  Only this run's processes, never by name.
vm_stop() {
	[ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null || return 0
	kill "$1" $(pgrep -P "$1" qemu-system 2>/dev/null) 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# lab_check ARGS...: labs/lab-check's report on stdout.  Its stderr (the
# "(on the ... kernel)" lines, and vm/run's notes when a guest times out, panics or
# reports no status) goes to the test log with a "[vm/run]" prefix for the
# vm/run lines only, so an empty guest output can be told from a slow one.
# The check's stderr (boot notes, gdb's output when a step fails) goes to the
# file $lab_err when the caller set it (lab_runs, to show it when a run goes
# wrong), else to a temporary file removed here.
lab_err=
lab_check() {
	local err=$lab_err st
	[ -n "$err" ] || err=$(mktemp) || return 2
	"$top/labs/lab-check" --kit "$@" 2>"$err"; st=$?
	grep '^vm/run:' "$err" | sed 's/^/    [vm\/run] /' >&2
	[ -n "$lab_err" ] || rm -f "$err"
	return $st
}

# lab_stderr WHAT: the last 60 lines the last check wrote to stderr.
lab_stderr() {
	[ -n "$lab_err" ] || return 0
	echo "[$1] its stderr (last 60 lines):"
	tail -n 60 "$lab_err" | sed "s/^/[$1 stderr] /"
}

# lab_runs TEST: every run that the labs' "forced" files (labs/NN-topic/forced)
# give to TEST (a file without a "test" line: test-labs), in lab order: the
# check on its own kernels or forced onto one, then the steps that failed
# compared with the file's.  A check that cannot fail proves nothing.
lab_runs() {
	local test=$1 f lab owner line runs forced want out st what failed passed t0
	local lab_err
	lab_err=$(mktemp) || fail "lab_runs: cannot make a temporary file"
	# One hash seed for lab 07's live step in every run of the tests: the
	# first run on a cache crafts its 63-bit pair (25-75 s of both cores,
	# once per cache), the others take it from $COOKIEKIT_CACHE/lab07-pairs
	# and check it on a disk made with that seed like a fresh one
	# (labs/07-beyond/check).  LAB07_SEED=UUID in the environment picks another.
	local -x LAB07_SEED=${LAB07_SEED:-$LAB07_TEST_SEED}
	if [ "$test" = test-labs ]; then
		for f in "$top"/labs/[0-9][0-9]-*/check; do
			[ -f "${f%check}forced" ] || fail "${f#$top/} has no forced file next to it: say which runs test it"
		done
	fi
	for f in "$top"/labs/[0-9][0-9]-*/forced; do
		lab=$(basename "$(dirname "$f")"); lab=${lab%%-*}
		owner=$(sed -n 's/^test  *//p' "$f"); owner=${owner:-test-labs}
		[ "$owner" = "$test" ] || continue
		# Read first: the runs do not share this loop's stdin.
		mapfile -t runs < <(grep -v '^[[:space:]]*\(#\|$\|test \)' "$f")
		for line in "${runs[@]}"; do
			if [ "${line%% *}" = full ]; then
				[ "${LABS_FULL:-0}" = 1 ] || continue
				line=${line#full }
			fi
			read -r forced want <<< "$line"
			[ "$forced" = own ] && forced=
			t0=$(date +%s)
			out=$(lab_check ${forced:+--kernel "$forced"} "$lab"); st=$?
			what="lab $lab${forced:+ forced onto $forced}"
			echo "$out" | sed "s/^/[$what] /"
			echo "[$what] $(( $(date +%s) - t0 )) s"
			failed=$(grep -o '^FAIL step [0-9]*' <<< "$out" | awk '{ printf "%s%s", sep, $3; sep = " " }')
			passed=$(grep -c '^PASS step' <<< "$out")
			if [ -z "$want" ]; then
				[ "$st" = 0 ] && [ -z "$failed" ] && [ "$passed" -gt 0 ] && pass "$what: every step passed ($passed)" ||
					{ fail "$what: exit $st, failed steps '$failed'"; lab_stderr "$what"; }
			else
				[ "$st" = 1 ] && [ "$failed" = "$want" ] && pass "$what: exit 1, exactly steps $want failed" ||
					{ fail "$what: exit $st, failed steps '$failed', want '$want'"; lab_stderr "$what"; }
			fi
		done
	done
	rm -f "$lab_err"
}
