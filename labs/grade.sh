# SPDX-License-Identifier: GPL-2.0
# labs/grade.sh — sourced by labs/lab-check when lab NN has an exercise
# workspace (work/NN/, labs/exercise): grades the student's work with the
# lab's labs/NN-topic/exercise/grade instead of the kit's own check.
#
# A grade script uses labs/lib.sh's step/is_eq/has like a check: each step
# prints PASS or FAIL with what was expected and, on FAIL, what was seen.
# It may print an explanation under a FAIL with explain (indented lines).
# The result is "score: N/M" (steps passed / steps graded); lab-check exits 0
# only on M/M.  $WORK is the workspace, $EXERCISE the lab's exercise folder
# (skel/, solution/, grade).
#
# LAB_GRADE_CACHE=DIR (for the tests): measure_guest keeps each guest run's
# output in DIR and reuses it, so several workspaces are graded against one
# measurement (the first run still boots and measures).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# explain TEXT...: indented lines under the step just printed.
explain() { printf '%s\n' "$@" | sed 's/^/       /'; }

# measure_guest RUN VARIANT ARGS...: RUN VARIANT ARGS... (labs/lib.sh's guest
# or guest_disk), or its output kept in $LAB_GRADE_CACHE from an identical
# earlier call.
measure_guest() {
	local key f
	[ -n "${LAB_GRADE_CACHE:-}" ] || { "$@"; return; }
	key=$(printf '%s\0' "${LAB_KERNEL:-$2}" "$1" "${@:3}" | sha256sum | cut -c1-16)
	f=$LAB_GRADE_CACHE/$key.out
	if [ -f "$f" ]; then
		echo "  (reusing the '${LAB_KERNEL:-$2}' measurement in $f)" >&2
	else
		mkdir -p "$LAB_GRADE_CACHE" || return 1
		# A failed run is shown, never kept.
		"$@" > "$f.tmp" && mv "$f.tmp" "$f" || { cat "$f.tmp"; rm -f "$f.tmp"; return 1; }
	fi
	cat "$f"
}

# grade_exercise EXERCISE-DIR WORK-DIR
grade_exercise() {
	EXERCISE=$1 WORK=$2
	echo "== grading ${WORK#$top/} (the kit's own check instead: KIT=1, lab-check --kit $LAB)"
	source "$EXERCISE/grade"
	echo "score: $lab_pass/$lab_step"
	[ "$lab_step" -gt 0 ] && [ "$lab_pass" -eq "$lab_step" ]
}
