#!/usr/bin/env bash
# Stress test of the benchmark harness's loop shutdown (LoopThread in Benchmarks/Harness/common.h), built with
# AddressSanitizer so that any call into a destroyed loop is a report, not a silent use-after-free.
#
#   scripts/bench-stress.sh [--cycles N]
#
#   --cycles N   start/stop cycles per engine, once without and once with a thread burning the loop's CPU
#                (default 10000; scripts/test.sh runs fewer)
#
# Builds runloop-bench (the package Benchmarks/Package.swift) with --sanitize=address (scratch path .build-asan at
# the repository root) and runs `runloop-bench --rl_stress=N` (Benchmarks/Harness/stress.cpp): every engine, every
# cycle under the harness's watchdog (a cycle that takes 10 s is a hang and ends the process), the whole run under an
# outer `timeout`. No timing assertions.
# Last line: "bench-stress: passed: ..." or "bench-stress: FAILED: ..."; exit 0, 1 on a failure, 2 for bad arguments.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

usage() { sed -n '5,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
cycles=10000
while (($#)); do
    case "$1" in
        --cycles) (($# >= 2)) || usage; cycles=$2; shift ;;
        -h|--help) usage ;;
        *) echo "bench-stress: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done
[[ $cycles =~ ^[1-9][0-9]{0,6}$ ]] || { echo "bench-stress: --cycles needs a positive number" >&2; exit 2; }

require_swift
ensure_packages "${base_packages[@]}" "${bench_packages[@]}"

log=$(mktemp "${TMPDIR:-/tmp}/bench-stress.XXXXXX.log")
trap 'rm -f "$log"' EXIT
started=$SECONDS
binary=$(build_sanitized_harness bench-stress address .build-asan "$log") || { echo "$binary"; exit 1; }
built=$SECONDS

# The outer limit: 2 minutes plus 20 ms per cycle (a burner cycle takes about 4 ms here, a plain one 0.3 ms).
limit=$((120 + cycles * 12 / 50))
code=0
# Foundation's own leak of every Timer (engine foundation) is suppressed, with its evidence, in the file named here.
LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-foundation.supp" \
    timeout -k 10 "$limit" "$binary" --rl_stress="$cycles" >"$log" 2>&1 || code=$?
grep '^stress:' "$log" | sed 's/^/bench-stress: /' >&2
reports=$(grep -cE 'ERROR: (AddressSanitizer|LeakSanitizer)' "$log" || true)
hangs=$(grep -c 'runloop-bench: watchdog:' "$log" || true)
((code != 124 && code != 137)) || hangs=$((hangs + 1))
summary="$cycles cycles x 2 (without and with a burner) per engine"
summary+=", build $((built - started)) s, run $((SECONDS - built)) s"
if ((code == 0 && reports == 0 && hangs == 0)); then
    echo "bench-stress: passed: $summary: 0 AddressSanitizer reports, 0 hangs"
    exit 0
fi
grep -A 30 -m 1 -E 'ERROR: (AddressSanitizer|LeakSanitizer)' "$log" >&2 || tail -n 30 "$log" >&2
echo "bench-stress: FAILED: $summary: exit status $code, $reports AddressSanitizer reports, $hangs hangs"
exit 1
