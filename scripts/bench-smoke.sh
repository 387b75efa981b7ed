#!/usr/bin/env bash
# CI smoke test of the benchmark harness, so it cannot rot: builds it (release, .build-bench) and runs every
# benchmark of every family once (scripts/bench.sh --smoke: one repetition, the shortest measurements). No timing
# assertions. Fails on a build failure, a harness crash, or any error row; a row that reports a skip with its reason
# ("skipped: ...", e.g. libevent 2.1 has no observers) is not a failure.
# Last line: "bench-smoke: N passed, M failed" (N benchmarks that produced figures, M error rows or failed families).
set -uo pipefail
cd "$(dirname "$0")/.."

csv=$(mktemp "${TMPDIR:-/tmp}/bench-smoke.XXXXXX.csv")
log=$(mktemp "${TMPDIR:-/tmp}/bench-smoke.XXXXXX.log")
trap 'rm -f "$csv" "$log"' EXIT

scripts/bench.sh --smoke --out "$csv" "$@" 2>"$log"
status=$?
passed=0 failed=0 skipped=0
if [[ -s $csv ]]; then
    # Error rows are `"name",,,,,,,,true,"message"`; the harness keeps commas and quotes out of its messages.
    passed=$(grep '^"BM_' "$csv" | grep -vc ',true,"' || true)
    failed=$(grep -c ',true,"error:' "$csv" || true)
    skipped=$(grep -c ',true,"skipped:' "$csv" || true)
    grep ',true,"error:' "$csv" | sed 's/^/bench-smoke: FAILED /' || true
fi
if ((status != 0)); then
    cat "$log"
    # A build failure or a crashed family leaves no row behind for what did not run: count it.
    ((failed > 0)) || failed=1
fi
((skipped == 0)) || echo "bench-smoke: $skipped skipped rows (engines without the feature; reasons in the CSV)"
echo "bench-smoke: $passed passed, $failed failed"
((failed == 0))
