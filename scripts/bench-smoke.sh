#!/usr/bin/env bash
# CI smoke test of the benchmark harness, so it cannot rot: builds it (release, .build-bench) and runs every
# benchmark of every family once (scripts/bench.sh --smoke: one repetition, the shortest measurements). No timing
# assertions. Fails on a build failure, a harness crash or hang, or any error row; a row that reports a skip with its
# reason ("skipped: ...", e.g. libevent 2.1 has no observers) is not a failure, nor is an engine's finding (a timer
# fired early: printed as "bench-smoke: FINDING ..."). Then checks the watchdog: a benchmark made to hang on purpose
# (RL_TEST_HANG) must become an error row while the rest of its family still runs (a few seconds).
# Last line: "bench-smoke: N passed, M failed" (N benchmarks that produced figures, M error rows or failed families,
# plus 1 if the watchdog check failed).
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
grep 'FINDING' "$log" | sed 's/^ */bench-smoke: /' || true
((skipped == 0)) || echo "bench-smoke: $skipped skipped rows (engines without the feature; reasons in the CSV)"

# The watchdog check: 6 scale benchmarks of two engines, one of which hangs; the watchdog (2 s) must turn it into an
# error row, and the other 5 must still produce rows.
hung='BM_Scale/engine:ref/item:source/n:100'
: >"$csv"
RL_TEST_HANG="^$hung\$" scripts/bench.sh --smoke --engines ref,epoll --filter 'BM_Scale/.*/n:100/' --watchdog 2 \
    --out "$csv" 2>"$log"
watchdog_status=$?
rows=$(grep '^"BM_' "$csv" 2>/dev/null | grep -vc ',true,"' || true)
if ((watchdog_status == 1 && rows == 5)) && grep -q "^\"$hung\",,,,,,,,true,\"error: no result after 2 s\"" "$csv"; then
    echo "bench-smoke: watchdog check passed: a benchmark hung on purpose became an error row, the other $rows ran"
else
    cat "$log"
    echo "bench-smoke: FAILED the watchdog check: bench.sh exited $watchdog_status (wanted 1), $rows rows (wanted 5)"
    failed=$((failed + 1))
fi
echo "bench-smoke: $passed passed, $failed failed"
((failed == 0))
