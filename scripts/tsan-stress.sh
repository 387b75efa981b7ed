#!/usr/bin/env bash
# The reference loop's tests under ThreadSanitizer: the stress tests (senders, churn and stops from many threads, one
# loop and two loops sharing sources) and every other RefRunLoop test that runs a loop, in a debug build with
# --sanitize=thread (scratch path .build-tsan-ref). Any ThreadSanitizer report fails the run. The model tests of the
# loop's data structures are left out: they run on the calling thread alone, where ThreadSanitizer can report nothing,
# and under it they take most of the run (their files are checked to start no thread).
#
#   scripts/tsan-stress.sh [--runs N]     (default 1 run)
#
# Debug builds take a pthread mutex in RefRunLoop's Lock, which ThreadSanitizer sees, so this checks the lock protocol
# that release builds share; their futex lock (Sources/RefRunLoop/FutexLock.swift) is checked on its own here, by
# FutexLockTests (ThreadSanitizer models its atomics' acquire and release).
# Exit status: 0 when every run passed with no report, 1 otherwise, 2 for bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

runs=1
while (($#)); do
    case "$1" in
        --runs) (($# >= 2)) || { echo "tsan-stress: --runs needs a number" >&2; exit 2; }; runs=$2; shift ;;
        *) echo "tsan-stress: unknown argument '$1' (usage: scripts/tsan-stress.sh [--runs N])" >&2; exit 2 ;;
    esac
    shift
done
[[ $runs =~ ^[1-9][0-9]{0,2}$ ]] || { echo "tsan-stress: --runs needs a number from 1 to 999, not '$runs'" >&2; exit 2; }

# Test files of single-threaded data-structure models (their tests run on the calling thread and no other).
single_threaded=(OrderedStoreTests TimerQueueTests TimerQueueCheckTests SlotArrayTests OrderTreapTests InlineListTests)
for name in "${single_threaded[@]}"; do
    file=Tests/RefRunLoopTests/$name.swift
    [[ -f $file ]] || { echo "tsan-stress: $file is gone: update the script's single-threaded list" >&2; exit 1; }
    if grep -nE 'Thread|Dispatch|pthread|onFreshLoopThread|Task[ .{(]|async' "$file" >&2; then
        echo "tsan-stress: $file starts work on another thread (above): run it under ThreadSanitizer" >&2
        exit 1
    fi
done
skip=$(IFS='|'; echo "${single_threaded[*]}")

require_swift
ensure_packages "${base_packages[@]}"
scratch=.build-tsan-ref
mkdir -p "$scratch"
# Only the reference loop and its tests (Package.swift's subset `ref`): nothing else is run here.
export RUNLOOP_PACKAGE_SUBSET=ref
echo "tsan-stress: building the tests with --sanitize=thread ($scratch)" >&2
if ! swift build --build-tests --sanitize=thread --scratch-path "$scratch" >"$scratch/build.log" 2>&1; then
    tail -n 30 "$scratch/build.log" >&2
    echo "tsan-stress: the ThreadSanitizer build failed" >&2
    exit 1
fi
for run in $(seq 1 "$runs"); do
    log=$scratch/run-$run.log
    status=0
    # Every wait in the tests has its own deadline; this one is the last resort against a hang nothing caught.
    TSAN_OPTIONS="halt_on_error=0 exitcode=66" timeout --kill-after=30 900 \
        swift test --skip-build --sanitize=thread --scratch-path "$scratch" --filter RefRunLoopTests --skip "$skip" >"$log" 2>&1 || status=$?
    reports=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
    summary=$(grep -E "Test run with" "$log" | tail -n 1 || true)
    echo "tsan-stress: run $run: ${summary:-no summary}; $reports ThreadSanitizer reports" >&2
    if ((status != 0 || reports != 0)); then
        grep -E "WARNING: ThreadSanitizer|SUMMARY: ThreadSanitizer|✘" "$log" | head -n 20 >&2 || true
        echo "tsan-stress: run $run failed (exit $status, $reports reports; the whole output is in $log)" >&2
        exit 1
    fi
done
echo "tsan-stress: $runs run(s), no ThreadSanitizer report"
