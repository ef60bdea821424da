# SPDX-License-Identifier: GPL-2.0
# Shared by tests/vm/test-gdb-*: a guest with a gdbstub (the session's, or
# a boot on a free port: tests/vm/lib.sh's vm_gdb_start), a small directory
# with crafted 31-bit cookie pairs in it, the probe held until gdb has set its
# breakpoints, gdb attached in batch mode.
# Sourced, not run (not executable, so tests/run does not pick it up).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SEED=0fcd2a53-0de4-4fb7-9c4f-5cc2a1e33f4b
FILLERS=${GDB_TEST_FILLERS:-300}    # few entries: every breakpoint hit is slow under TCG
work=$top/build/test/gdb-$$         # the guest sees it as /kit/test/gdb-$$
gwork=/kit/test/gdb-$$
vm_pid=

gdb_cleanup() {
	vm_stop "$vm_pid"
	rm -rf "$work"
}
# Inside lab-check (lab 05's grader) through its at_exit: a trap here would
# replace lab-check's, which stops its session.
if declare -F at_exit >/dev/null; then at_exit gdb_cleanup; else trap gdb_cleanup EXIT; fi

# make_pairs: one crafted 31-bit pair; sets PAIR_A PAIR_B MAJOR COOKIE31
make_pairs() {
	mkdir -p "$work"
	"$top/build/bin/cookie-collide" --bits 31 --alg half_md4 --hash-seed "$SEED" \
		--count 1 --rng-seed 7 > "$work/pairs.txt" 2>/dev/null || { fail "cookie-collide failed"; exit 1; }
	read -r PAIR_A PAIR_B _ < "$work/pairs.txt"
	local ha hb
	ha=$("$top/build/bin/cookie-hash" --alg half_md4 --hash-seed "$SEED" "$PAIR_A" | cut -f2)
	hb=$("$top/build/bin/cookie-hash" --alg half_md4 --hash-seed "$SEED" "$PAIR_B" | cut -f2)
	COOKIE31=$("$top/build/bin/cookie-hash" --alg half_md4 --hash-seed "$SEED" "$PAIR_A" | cut -f4)
	MAJOR=$ha
	echo "crafted pair: $PAIR_A $PAIR_B, major hashes $ha $hb, 31-bit cookie $COOKIE31"
}

# start_guest VARIANT PROBE-COMMAND: a guest of VARIANT in the background;
# it makes the directory (/mnt/ck/c), prints READY, waits for $work/go (gdb
# touches it once its breakpoints are set; the wait ends too when $work is
# gone: a test that failed before gdb), then runs PROBE-COMMAND.
start_guest() {
	local variant=$1 probe=$2
	cat > "$work/guest.sh" <<-GUEST
	set -e
	mkdir -p /tmp/ck /mnt/ck
	truncate -s 16M /tmp/ck/x.img
	mkfs.ext4 -q -E hash_seed=$SEED /tmp/ck/x.img
	mount -o loop /tmp/ck/x.img /mnt/ck
	dirfill --mkdir --fillers $FILLERS --names $gwork/pairs.txt /mnt/ck/c >/dev/null
	lsattr -d /mnt/ck/c
	echo READY
	i=0; while [ ! -e $gwork/go ] && [ -d $gwork ] && [ \$i -lt 600 ]; do sleep 0.5; i=\$((i+1)); done
	[ -e $gwork/go ] || { echo "no go from gdb"; exit 1; }
	set +e
	sh -c 'echo PROBEPID \$\$; exec $probe'
	echo probe-rc=\$?
	GUEST
	vm_gdb_start "$work/vm.log" "$variant" "${GDB_VM_TIMEOUT:-420}" sh "$gwork/guest.sh"
	vm_wait_line "$work/vm.log" '^READY' 200
	case $? in
	1) fail "$variant: the guest did not boot or set up the directory:"; sed 's/^/  | /' "$work/vm.log"; exit 1 ;;
	2) fail "$variant: no READY from the guest in 200 s"; exit 1 ;;
	esac
	vm_gdb_port || { fail "$variant: the session's guest names no gdbstub port"; exit 1; }
	grep -q -- '-I-' <(grep '/mnt/ck/c' "$work/vm.log") || fail "$variant: /mnt/ck/c is not htree-indexed"
	echo "$variant: guest up, gdbstub on 127.0.0.1:$GDB_PORT"
}

# run_gdb VARIANT SCRIPT: gdb in batch mode through ck-gdb (as make gdb runs it);
# output in $work/gdb.out.
run_gdb() {
	timeout -k 10 "${GDB_TIMEOUT:-300}" "$top/gdb-scripts/ck-gdb" --kernel "$1" --port "$GDB_PORT" \
		-- -batch -x "$2" > "$work/gdb.out" 2>&1
	echo "gdb exit $?"
}

# wait_guest: the guest ends by itself once gdb let it go.
wait_guest() {
	vm_wait_end 120; local st=$?
	[ -z "$vm_pid" ] || { fail "the guest did not finish after gdb detached"; return; }
	echo "vm/run exit $st"
}
