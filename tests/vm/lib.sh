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

rc=0
fail() { echo "FAIL: $*"; rc=1; }
pass() { echo "ok: $*"; }
