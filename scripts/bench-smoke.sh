#!/usr/bin/env bash
# CI smoke test of the benchmark harness, so it cannot rot: builds it (release, .build-bench) and runs every
# benchmark of every family once (scripts/bench.sh --smoke: one repetition, the shortest measurements). No timing
# assertions. Fails on a build failure, a harness crash or hang, or any error row; a row that reports a skip with its
# reason ("skipped: ...", e.g. libevent 2.1 has no observers) is not a failure, nor is an engine's finding (a timer
# fired early: printed as "bench-smoke: FINDING ..."). Then checks the watchdog: a benchmark made to hang on purpose
# (RL_TEST_HANG) must become an error row while the rest of its family still runs (a few seconds).
# A second check bounds a hanging engine: with every benchmark of one engine in a family made to hang, the family
# costs two watchdog periods (the rest become rows "skipped: engine hung twice ..."), not one per benchmark.
#
#   scripts/bench-smoke.sh [--watchdog S] [--engines LIST] [--filter REGEX]
#
#   --watchdog S     the harness's limit per benchmark call, seconds (default: the smoke profile's, 30 s)
#   other arguments  passed to scripts/bench.sh (--engines, --filter)
#
# When anything failed, the run's CSV and log are kept (their paths are printed: the ERROR lines point into the CSV)
# and the failing rows are printed as they are. Last line: "bench-smoke: N passed, M failed" (N benchmarks that
# produced figures, M error rows or failed families, plus 1 for each failed watchdog check).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

arguments=()
while (($#)); do
    case "$1" in
        --watchdog)
            [[ $# -ge 2 && $2 =~ ^[1-9][0-9]{0,5}$ ]] || { echo "bench-smoke: --watchdog needs a number of seconds" >&2; exit 2; }
            arguments+=(--watchdog "$2"); shift ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
        *) arguments+=("$1") ;;
    esac
    shift
done

# Kept when anything fails (see the end), so that every path printed points at a file that exists.
kept=$(mktemp -d "${TMPDIR:-/tmp}/bench-smoke.XXXXXX")
csv="$kept/smoke.csv" log="$kept/smoke.log"

scripts/bench.sh --smoke --out "$csv" "${arguments[@]}" 2>"$log"
status=$?
# The CSVs are read by `runloop results rows` (bench.sh has built it: a no-op build here).
runloop=$(build_runloop bench-smoke "$kept/runloop-build.log") || status=1
# csv_rows ARGUMENTS...: `runloop results rows ARGUMENTS` (nothing when a file is missing or runloop is not built).
csv_rows() { [[ -z ${runloop:-} ]] || "$runloop" results rows "$@" 2>/dev/null || true; }
passed=0 failed=0 skipped=0
if [[ -s $csv ]]; then
    passed=$(csv_rows --kind measured "$csv" | wc -l)
    failed=$(csv_rows --kind error "$csv" | wc -l)
    skipped=$(csv_rows --kind skipped "$csv" | wc -l)
    csv_rows --kind error "$csv" | sed 's/^/bench-smoke: FAILED row: /'
fi
if ((status != 0)); then
    cat "$log"
    # A build failure or a crashed family leaves no row behind for what did not run: count it.
    ((failed > 0)) || failed=1
fi
grep 'FINDING' "$log" | sed 's/^ */bench-smoke: /' || true
((skipped == 0)) || echo "bench-smoke: $skipped skipped rows (engines without the feature; reasons in the CSV)"

# The watchdog check: 6 scale benchmarks of two engines (the ordered ones: `/n:100/real_time` leaves out
# order:random), one of which hangs; the watchdog (2 s) must turn it into an error row, and the other 5 must still
# produce rows.
hung='BM_Scale/engine:ref/item:source/n:100'
watch_csv="$kept/watchdog.csv" watch_log="$kept/watchdog.log"
RL_TEST_HANG="^$hung\$" scripts/bench.sh --smoke --engines ref,epoll --filter 'BM_Scale/.*/n:100/real_time' --watchdog 2 \
    --out "$watch_csv" 2>"$watch_log"
watchdog_status=$?
rows=$(csv_rows --kind measured "$watch_csv" | wc -l)
hung_rows=$(csv_rows --kind error --message-prefix "error: no result after 2 s" --names "$watch_csv")
if ((watchdog_status == 1 && rows == 5)) && grep -qx "$hung" <<<"$hung_rows"; then
    echo "bench-smoke: watchdog check passed: a benchmark hung on purpose became an error row, the other $rows ran"
else
    cat "$watch_log"
    echo "bench-smoke: FAILED the watchdog check: bench.sh exited $watchdog_status (wanted 1), $rows rows (wanted 5)"
    failed=$((failed + 1))
fi

# The hung-engine bound: every observer-dispatch benchmark of epoll hangs (5 of them); after 2 expiries (2 s each) the
# other 3 must be skipped rows, and ref's 5 must still run.
bound_csv="$kept/hung-engine.csv" bound_log="$kept/hung-engine.log"
started=$SECONDS
RL_TEST_HANG='^BM_ObserverDispatch/engine:epoll/' scripts/bench.sh --smoke --engines ref,epoll \
    --filter 'BM_ObserverDispatch/' --watchdog 2 --out "$bound_csv" 2>"$bound_log"
bound_status=$?
hung_rows=$(csv_rows --kind error --message-prefix "error: no result after 2 s" "$bound_csv" | wc -l)
skipped_rows=$(csv_rows --kind skipped --message-prefix "skipped: engine hung twice" "$bound_csv" | wc -l)
rows=$(csv_rows --kind measured --names "$bound_csv" | grep -c '^BM_ObserverDispatch/engine:ref/')
if ((bound_status == 1 && hung_rows == 2 && skipped_rows == 3 && rows == 5)); then
    echo "bench-smoke: hung-engine check passed: 2 hangs, then 3 skipped rows, ref's 5 ran ($((SECONDS - started)) s)"
else
    cat "$bound_log"
    echo "bench-smoke: FAILED the hung-engine check: bench.sh exited $bound_status (wanted 1), $hung_rows hangs" \
        "(wanted 2), $skipped_rows skipped (wanted 3), $rows rows of ref (wanted 5)"
    failed=$((failed + 1))
fi

if ((failed == 0)); then
    rm -rf "$kept"
else
    echo "bench-smoke: kept the CSVs and logs in $kept (the smoke run: smoke.csv, smoke.log; the checks: watchdog.*," \
        "hung-engine.*)"
fi
echo "bench-smoke: $passed passed, $failed failed"
((failed == 0))
