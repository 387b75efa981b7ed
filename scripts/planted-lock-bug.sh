#!/usr/bin/env bash
# Checks that the reference loop's debug lock assertions catch a forgotten lock: plants the bug "a `...Locked`
# function called without its `withLock`" in a scratch copy of the tree and expects `assertHeld()` to stop the run.
#
#   scripts/planted-lock-bug.sh
#
# The script copies the working tree (uncommitted changes included, without build folders, git metadata and
# results) to .build-planted/tree (the working tree is never changed) and builds `runloop` there (debug, incrementally,
# in .build-planted/build), as scripts/mutation.sh does. First, unchanged, the conformance case below must pass on
# `ref`, run in this process (`--isolation none`). Then it removes the `lock.withLock` around the call of
# `joinLocked(timer, defaultMode)` in `addToDefaultMode(_:)` (Sources/RefRunLoop/RefRunLoop.swift: adding a timer to
# the default mode, which the case does), builds again and runs the same case: the run must stop with the message of
# `assertHeld()` ("assertHeld: RefRunLoop.lock is not held by this thread").
#
# Exit status: 0 when the planted bug is caught; 1 when it is not (the run passed, or stopped for another reason);
# 2 when the check cannot be made (the planted text is not found exactly once, a build fails, or the unchanged tree
# does not pass the case).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
source scripts/lib/setup.sh

(($# == 0)) || { sed -n '5p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

file=Sources/RefRunLoop/RefRunLoop.swift
case_id=timer.due.fires-after-afterwaiting
expected='assertHeld: RefRunLoop.lock is not held by this thread'
# The text planted over: the lock taken around the join, and the same without it.
correct='        lock.withLock {
            if lifecycle == .open { joinLocked(timer, defaultMode) }
            checkInvariantsAfterChangeLocked()
        }'
planted='        if lifecycle == .open { joinLocked(timer, defaultMode) }  // planted: the lock is not taken'

require_swift
ensure_packages rsync

content=$(<"$file")
rest=${content//"$correct"/}
count=$(((${#content} - ${#rest}) / ${#correct}))
if ((count != 1)); then
    echo "planted-lock-bug: the text to plant over occurs $count times in $file, not once (update this script)" >&2
    exit 2
fi

scratch=$repo/.build-planted
tree=$scratch/tree
build=$scratch/build
mkdir -p "$scratch"
rsync -a --delete --exclude '/.build*' --exclude '/.git' --exclude '/results' "$repo/" "$tree/"
binary=$build/debug/runloop

build_tree() {
    if ! swift build --package-path "$tree" --scratch-path "$build" --product runloop >"$scratch/build.log" 2>&1; then
        tail -n 30 "$scratch/build.log" >&2
        echo "planted-lock-bug: the $1 tree does not build" >&2
        exit 2
    fi
}

# run_case LOG: runs the case on ref in this process; its output (both streams) into LOG; returns its exit status.
# In a subshell whose standard error is dropped: a run stopped by a signal is reported by the status, not by the
# shell's own "Illegal instruction" line.
run_case() {
    local status=0
    ("$binary" conform --engine ref --isolation none --expectations none --filter "$case_id" >"$1" 2>&1; exit $?) 2>/dev/null ||
        status=$?
    return "$status"
}

echo "planted-lock-bug: building the unchanged tree" >&2
build_tree unchanged
if ! run_case "$scratch/control.log"; then
    tail -n 20 "$scratch/control.log" >&2
    echo "planted-lock-bug: the unchanged tree does not pass $case_id, so the planted bug cannot be judged" >&2
    exit 2
fi
echo "planted-lock-bug: unchanged: $case_id passes" >&2

printf '%s\n' "${content/"$correct"/"$planted"}" >"$tree/$file"
echo "planted-lock-bug: planted in $file (addToDefaultMode(_:) for a timer):" >&2
diff <(printf '%s\n' "$content") "$tree/$file" >&2 || true
echo "planted-lock-bug: building the planted tree" >&2
build_tree planted
status=0
run_case "$scratch/planted.log" || status=$?
# Restore the scratch copy, so a later run starts from the working tree's text.
printf '%s\n' "$content" >"$tree/$file"

if ((status != 0)) && grep -qF "$expected" "$scratch/planted.log"; then
    echo "planted-lock-bug: CAUGHT: the run stopped (exit status $status) with:" >&2
    grep -F "$expected" "$scratch/planted.log" | head -n 1 >&2
    exit 0
fi
tail -n 20 "$scratch/planted.log" >&2
if ((status == 0)); then
    echo "planted-lock-bug: NOT CAUGHT: $case_id passed with the lock missing" >&2
else
    echo "planted-lock-bug: NOT CAUGHT: the run stopped (exit status $status) without assertHeld's message" >&2
fi
exit 1
