#!/usr/bin/env bash
# The benchmark harness's own threads under ThreadSanitizer: every family once (the smoke profile), with the engines
# whose locking ThreadSanitizer sees, so that a race in the harness (its loop threads, producers, watchdog, burners) is
# a report, not a rare crash in a long run.
#
#   scripts/bench-tsan.sh [--engines LIST]
#
#   --engines LIST   engines, comma-separated (default epoll,libuv,libevent,cf,dispatch,nio)
#
# Builds runloop-bench (the package Benchmarks/Package.swift) with --sanitize=thread (scratch path .build-tsan-bench at
# the repository root) and runs `runloop-bench --rl_profile=smoke` under an outer `timeout`. The default engines leave
# out two whose locks ThreadSanitizer cannot see, so it would report their own correct code: `ref`, whose release
# build locks with its futex lock (Sources/RefRunLoop/FutexLock.swift, not run here yet; scripts/tsan-stress.sh checks
# ref's protocol in a debug build, with pthread mutexes, and the futex lock on its own), and `glib`, an uninstrumented library with its own lock code.
# `dispatch` and `nio` are in: ThreadSanitizer's runtime intercepts libdispatch (dispatch_async_f, dispatch_sync_f, ...)
# so it sees the queue's ordering, and SwiftNIO is Swift compiled in the same build, its locks instrumented; both ran
# clean (2026-11-27, every family once, 0 reports). This found the producers' race on their record arrays in BM_ResidentThroughput (a crash in one full run).
# Last line: "bench-tsan: passed: ..." or "bench-tsan: FAILED: ..."; exit 0, 1 on a report or a failure, 2 for bad
# arguments (an unknown engine among them).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

usage() { sed -n '5,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
engines=epoll,libuv,libevent,cf,dispatch,nio
while (($#)); do
    case "$1" in
        --engines) (($# >= 2)) || usage; engines=$2; shift ;;
        -h|--help) usage ;;
        *) echo "bench-tsan: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done
[[ -n $engines ]] || { echo "bench-tsan: --engines needs at least one engine" >&2; exit 2; }

require_swift
ensure_packages "${base_packages[@]}" "${bench_packages[@]}"

log=$(mktemp "${TMPDIR:-/tmp}/bench-tsan.XXXXXX.log")
trap 'rm -f "$log"' EXIT
started=$SECONDS
binary=$(build_sanitized_harness bench-tsan thread .build-tsan-bench "$log") || { echo "$binary"; exit 1; }
built=$SECONDS
# The harness checks the engine names (exit 2 for an unknown one).
"$binary" --rl_engines="$engines" --rl_describe >/dev/null 2>&1 || {
    echo "bench-tsan: unknown engine in '$engines' (runloop-bench --rl_describe)" >&2
    exit 2
}

code=0
TSAN_OPTIONS="halt_on_error=0 exitcode=66" timeout -k 10 600 "$binary" --rl_profile=smoke --rl_engines="$engines" \
    --benchmark_min_time=0.000001 >"$log" 2>&1 || code=$?
reports=$(grep -c 'WARNING: ThreadSanitizer' "$log" || true)
benchmarks=$(grep -c '^BM_' "$log" || true)
summary="every family once on $engines ($benchmarks benchmarks), build $((built - started)) s, run $((SECONDS - built)) s"
if ((code == 0 && reports == 0)); then
    echo "bench-tsan: passed: $summary: 0 ThreadSanitizer reports"
    exit 0
fi
grep -A 30 -m 1 'WARNING: ThreadSanitizer' "$log" >&2 || tail -n 30 "$log" >&2
echo "bench-tsan: FAILED: $summary: exit status $code, $reports ThreadSanitizer reports"
exit 1
