# Shared by the VM tests: boot a variant in command mode, fail loudly.
# A VM test that cannot boot fails; it never skips.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VMRUN_TIMEOUT=${VMRUN_TIMEOUT:-600}

# vm VARIANT CMD...: run CMD in the guest, no gdbstub; prints its output,
# returns its exit status (vm/run's on panic/timeout).
vm() {
	local variant=$1; shift
	"$top/vm/run" --kernel "$variant" --no-gdb --timeout "$VMRUN_TIMEOUT" -- "$@"
}

# vm_share_run VARIANT DIR CMD...: the same, with the host directory DIR
# shared read-write at /mnt/host (scripts in, results out).
vm_share_run() {
	local variant=$1 dir=$2; shift 2
	"$top/vm/run" --kernel "$variant" --no-gdb --timeout "$VMRUN_TIMEOUT" --share "$dir" -- "$@"
}

# lab_check ARGS...: labs/lab-check's report on stdout.  Its stderr (the
# "(booting ...)" lines, and vm/run's notes when a boot times out, panics or
# reports no status) goes to the test log with a "[vm/run]" prefix for the
# vm/run lines only, so an empty guest output can be told from a slow one.
lab_check() {
	local err st
	err=$(mktemp)
	"$top/labs/lab-check" "$@" 2>"$err"; st=$?
	grep '^vm/run:' "$err" | sed 's/^/    [vm\/run] /' >&2
	rm -f "$err"
	return $st
}

rc=0
fail() { echo "FAIL: $*"; rc=1; }
pass() { echo "ok: $*"; }
