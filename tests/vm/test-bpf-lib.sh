# SPDX-License-Identifier: GPL-2.0
# Shared by tests/vm/test-bpf-*: boot a variant with a host directory shared
# at /mnt/host, run a guest script that traces into it, analyse on the host.
# Not a test itself (not executable); sourced.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=$top/build/bin
SEED_IMG=$top/build/vm/ext4.img
mkdir -p "$top/build/tmp"
share=$(mktemp -d "$top/build/tmp/test-bpf.XXXXXX")
trap 'rm -rf "$share"' EXIT

for f in "$bin/cookie-trace" "$bin/cookie-groups" "$bin/dirprobe" "$top/build/bin32/dirprobe"; do
	[ -x "$f" ] || { echo "FAIL: $f missing: run make bpf tools"; exit 1; }
done

# Guest side: start cookie-trace (record stream to a file), wait until it is
# attached (ck-trace-wait, vm/guest/bin), run the workload, stop it with
# SIGINT (it drains, then reports).
guest_prelude='
trace_start() {	# OUT ARGS...
	out=$1; shift
	cookie-trace "$@" -f record -w "$out" 2>/tmp/ct.err & CT=$!
	ck-trace-wait /tmp/ct.err $CT || return 1
}
trace_stop() {
	kill -INT $CT; wait $CT; st=$?
	sed "s/^/  /" /tmp/ct.err
	return $st
}
'

# vm_share VARIANT SCRIPT: run SCRIPT (sh) in the guest; $share is /mnt/host.
vm_share() {
	printf '%s\n%s\n' "$guest_prelude" "$2" > "$share/cmd.sh"
	vm_share_run "$1" "$share" sh /mnt/host/cmd.sh
}

# Records of a stream as JSON Lines, through the shared parser.
dump_json() { "$bin/cookie-groups" --dump json "$1"; }
