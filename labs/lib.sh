# SPDX-License-Identifier: GPL-2.0
# labs/lib.sh — sourced by every labs/NN-topic/check (through labs/lab-check).
#
# A check is a list of numbered steps.  Each step prints exactly one line,
#   PASS step N: what was expected
#   FAIL step N: what was expected — what was seen instead
# and the check ends with "lab NN: P passed, F failed"; lab-check exits 1 if
# any step failed.  Guest work runs through tests/vm/lib.sh's vm, one guest
# command per batch of commands, in lab-check's session (vm/session: one boot
# per kernel variant for the whole check).
#
# LAB_KERNEL (make lab-check ... KERNEL=X, or lab-check --kernel X) forces
# every boot of the check onto variant X, whatever the step asks for.  That is
# how you ask "would this lab still pass on the other kernel?" — it must not.
#
# The VM harness (vm, vm_start, vm_stop, free_port, json_field) is the tests'
# own: tests/vm/lib.sh and tests/lib.sh.
source "$(dirname "${BASH_SOURCE[0]}")/../tests/vm/lib.sh"
LAB_TIMEOUT=${LAB_TIMEOUT:-600}
lab_pass=0 lab_fail=0 lab_step=0

# guest VARIANT CMD...: run CMD in a fresh or freshly reset guest of VARIANT
# (or LAB_KERNEL): tests/vm/lib.sh's vm, in lab-check's session.  No gdbstub.
# Output on stdout; returns CMD's status (124 timeout, 125 panic).
guest() { guest_share "" "$@"; }

# guest_truth VARIANT [--width] [--dmesg] CELL...: ck-truth-table's cells in
# the guest, as `guest VARIANT ck-truth-table ...` (tests/vm/lib.sh's truth:
# inside tests/run, a cell another test walked on the same kernel is taken
# from that walk).
guest_truth() {
	local variant=${LAB_KERNEL:-$1}; shift
	echo "  (on the '$variant' kernel)" >&2
	VMRUN_TIMEOUT=$LAB_TIMEOUT truth "$variant" "$@"
}

# guest_share DIR VARIANT CMD...: guest, with DIR (a directory under
# build/tmp; '' for none) at /mnt/host, read-write: lists out for the host.
guest_share() {
	local dir=$1 variant=${LAB_KERNEL:-$2}; shift 2
	echo "  (on the '$variant' kernel)" >&2
	VMRUN_TIMEOUT=$LAB_TIMEOUT vm_share_run "$variant" "$dir" "$@"
}

# guest_disk VARIANT IMAGE MNT CMD...: guest VARIANT CMD..., with the ext4
# image IMAGE mounted at MNT (a directory the guest resets, under /tmp) on a
# loop device over a copy of it: a command of the check's session, not a boot
# of its own with the image as a lab disk (vm/run --disks), and IMAGE itself
# is never written.  When the copy or the mount fails, a line "disk-error
# WHY" and status 2.
guest_disk() {
	local variant=$1 img=$2 mnt=$3 share st=0; shift 3
	[ -f "$img" ] || { echo "disk-error no file $img"; return 2; }
	mkdir -p "$top/build/tmp" && share=$(mktemp -d "$top/build/tmp/disk.XXXXXX") ||
		{ echo "disk-error cannot make a folder under build/tmp"; return 2; }
	if cp --sparse=always -- "$img" "$share/disk.img"; then
		guest_share "$share" "$variant" sh -c 'm=$1; shift
			mkdir -p "$m" && mount -o loop /mnt/host/disk.img "$m" ||
				{ echo "disk-error mount -o loop failed (not an ext4 image?)"; exit 2; }
			"$@"' sh "$mnt" "$@" || st=$?
	else
		echo "disk-error cannot copy $img to build/tmp"; st=2
	fi
	rm -rf "$share"
	return $st
}

# step "expectation" CONDITION-COMMAND... : run the condition; its status
# decides PASS/FAIL.  $seen (set by the caller, or by expect_*) explains a FAIL.
step() {
	local what=$1; shift
	lab_step=$((lab_step + 1))
	if "$@"; then
		lab_pass=$((lab_pass + 1)); echo "PASS step $lab_step: $what"
	else
		lab_fail=$((lab_fail + 1)); echo "FAIL step $lab_step: $what — ${seen:-condition false}"
	fi
	seen=
}

# at_exit FUNCTION: run FUNCTION when lab-check exits, before its session
# stops (a trap of the check's own would replace lab-check's).
at_exit() { lab_cleanups+=("$1"); }

# line_of OUTPUT TAG: the rest of the first line of OUTPUT that starts "TAG ".
line_of() { sed -n "s/^$2 //p" <<< "$1" | head -n1; }

# cell CELL [KEY]: from ck-truth-table's output in $out, the outcome of CELL
# (clean, loop, eloop, timeout...), or the value of its KEY=VALUE (rc,
# entries, dups, bits, width, wdups, loopmsg...; vm/guest/bin/ck-truth-table).
cell() {
	local line; line=$(line_of "$out" "cell $1")
	if [ $# -eq 1 ]; then echo "${line%% *}"; return; fi
	tr ' ' '\n' <<< "$line" | sed -n "s/^$2=//p" | head -n1
}
# looplines CELL: the kernel's "readdir loop" lines during CELL's walk
# (ck-truth-table --dmesg).
looplines() { sed -n "s/^loopline $1 //p" <<< "$out"; }

# is_eq SEEN WANT: true if equal; sets $seen for the FAIL line.
is_eq() { seen="saw '${1:-nothing}'"; [ "$1" = "$2" ]; }
# has OUTPUT REGEX: true if a line of OUTPUT matches the extended regex.
has() { seen="no line matching /$2/"; grep -Eq -- "$2" <<< "$1"; }

lab_end() {
	echo "lab $LAB: $lab_pass passed, $lab_fail failed"
	[ "$lab_fail" -eq 0 ] && [ "$lab_pass" -gt 0 ]
}
