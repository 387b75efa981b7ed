#!/usr/bin/env bash
# CI smoke test of the benchmark harness, so it cannot rot: builds it (release, .build-bench) and runs every
# benchmark of every family once (`runloop bench --smoke`: one repetition, the shortest measurements). No timing
# assertions. Fails on a build failure, a harness crash or hang, a family without rows, or any error row; a row that
# reports a skip with its reason ("skipped: ...", e.g. libevent 2.1 has no observers) is not a failure, nor is an
# engine's finding (a timer fired early: printed as "bench-smoke: FINDING ..."). Then checks the watchdog: a
# benchmark made to hang on purpose (RL_TEST_HANG) must become an error row while the rest of its family still runs
# (a few seconds). A second check bounds a hanging engine: with every benchmark of one engine in a family made to
# hang, the family costs two watchdog periods (the rest become rows "skipped: engine hung twice ..."), not one per
# benchmark. Last, an unknown family and an unknown engine are bad input (exit 2) with the real harness's lists.
#
#   scripts/bench-smoke.sh [--watchdog S] [--engines LIST] [--filter REGEX] [--build-only]
#
#   --watchdog S     the harness's limit per benchmark call, seconds (default: the smoke profile's, 30 s)
#   --build-only     build `runloop` and the harness (`runloop bench --build-only`) and stop (scripts/test.sh builds
#                    while other steps run)
#   other arguments  passed to `runloop bench` (--engines, --filter)
#
# When anything failed, the run's CSV and log are kept (their paths are printed: the ERROR lines point into the CSV)
# and the failing rows are printed as they are. Last line: "bench-smoke: N passed, M failed" (N benchmark rows with
# figures, M error rows or failed families, plus 1 for each failed check). Without --engines it also counts
# instructions (`runloop bench --instructions`) of ref and the floor on the real harness under valgrind, and the
# floor's system calls per round trip (`runloop bench --syscalls`, perf, or strace where perf cannot count).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh
require_swift
ensure_packages "${base_packages[@]}" "${bench_packages[@]}" valgrind binutils strace

arguments=() build_only=false
while (($#)); do
    case "$1" in
        --build-only) build_only=true ;;
        --watchdog)
            [[ $# -ge 2 && $2 =~ ^[1-9][0-9]{0,5}$ ]] || { echo "bench-smoke: --watchdog needs a number of seconds" >&2; exit 2; }
            arguments+=(--watchdog "$2"); shift ;;
        -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
        *) arguments+=("$1") ;;
    esac
    shift
done

# Kept when anything fails (see the end), so that every path printed points at a file that exists.
kept=$(mktemp -d "${TMPDIR:-/tmp}/bench-smoke.XXXXXX")
csv="$kept/smoke.csv" log="$kept/smoke.log"
runloop=$(build_runloop bench-smoke "$kept/runloop-build.log") || {
    echo "bench-smoke: 0 passed, 1 failed"
    exit 1
}
# The harness is built once, here; every run below uses that binary (`--harness`), so none builds it again.
if ! harness=$("$runloop" bench --build-only 2>"$kept/build.log" | tail -1) || [[ ! -x $harness ]]; then
    cat "$kept/build.log"
    echo "bench-smoke: FAILED: the harness's build"
    echo "bench-smoke: 0 passed, 1 failed"
    exit 1
fi
bench() { "$runloop" bench --smoke --no-history --harness "$harness" "$@"; }
if $build_only; then
    rm -rf "$kept"
    echo "bench-smoke: built"
    exit 0
fi

# rows KIND LOG: the sum of the families' KIND rows (measured, skipped, error) in a run's log, from its lines
# "bench: [i/n] TITLE: done in N s (M measured rows, S skipped rows, E error rows)".
rows() { sed -nE "s/^bench: \[[0-9]+\/[0-9]+\] .*: done in [0-9]+ s \(.*\b([0-9]+) $1 rows.*\)$/\1/p" "$2" |
    awk '{ sum += $1 } END { print sum + 0 }'; }

# Instructions counted under callgrind (`--instructions`), in the default run only: ref and the floor, 200, 400 and 200
# wake-up round trips on each path, then one, two and one rounds of the scale family, and the history reading the wake
# one. Started first and checked below: valgrind keeps one CPU busy while the smoke run's benchmarks mostly wait on
# their timers, and a count does not depend on the load beside it.
count_instructions() {
    "$runloop" bench --instructions --engines ref,epoll --iterations 200 --no-history --harness "$harness" \
        --out "$kept/instructions-wake.csv" >"$kept/instructions.log" 2>&1 &&
        "$runloop" bench --instructions --family scale --engines ref,epoll --iterations 1 --no-history \
            --harness "$harness" --out "$kept/instructions-scale.csv" >>"$kept/instructions.log" 2>&1 &&
        "$runloop" history add --db "$kept/instructions.sqlite" "$kept/instructions-wake.csv" \
            >>"$kept/instructions.log" 2>&1 &&
        "$runloop" history trend --db "$kept/instructions.sqlite" '^BM_WakePath/engine:ref/' \
            --metric instructions_per_round_trip >>"$kept/instructions.log" 2>&1
}
counting=
if ((${#arguments[@]} == 0)); then
    count_instructions &
    counting=$!
fi

bench --out "$csv" "${arguments[@]}" >"$log" 2>&1
status=$?
passed=$(rows measured "$log") failed=$(rows error "$log") skipped=$(rows skipped "$log")
grep '^  ERROR ' "$log" | sed 's/^ */bench-smoke: FAILED row: /'
# Every family that ran must have rows with figures.
empty=$(grep -E '^bench: \[[0-9]+/[0-9]+\] .*: done in [0-9]+ s \(0 measured rows' "$log")
if [[ -n $empty ]]; then
    echo "bench-smoke: FAILED: a family without a measured row: $empty"
    failed=$((failed + 1))
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
RL_TEST_HANG="^$hung\$" bench --engines ref,epoll --filter 'BM_Scale/.*/n:100/real_time' --watchdog 2 \
    --out "$watch_csv" >"$watch_log" 2>&1
watchdog_status=$?
measured=$(rows measured "$watch_log")
if ((watchdog_status == 1 && measured == 5)) && grep -qF ": $hung: error: no result after 2 s" "$watch_log"; then
    echo "bench-smoke: watchdog check passed: a benchmark hung on purpose became an error row, the other $measured ran"
else
    cat "$watch_log"
    echo "bench-smoke: FAILED the watchdog check: runloop bench exited $watchdog_status (wanted 1), $measured rows" \
        "(wanted 5)"
    failed=$((failed + 1))
fi

# The hung-engine bound: every observer-dispatch benchmark of epoll hangs (5 of them); after 2 expiries (2 s each) the
# other 3 must be skipped rows, and ref's 5 must still run.
bound_csv="$kept/hung-engine.csv" bound_log="$kept/hung-engine.log"
started=$SECONDS
RL_TEST_HANG='^BM_ObserverDispatch/engine:epoll/' bench --engines ref,epoll --filter 'BM_ObserverDispatch/' \
    --watchdog 2 --out "$bound_csv" >"$bound_log" 2>&1
bound_status=$?
hung_rows=$(grep -cE '^  ERROR .*: BM_ObserverDispatch/engine:epoll/.*: error: no result after 2 s$' "$bound_log")
skipped_rows=$(rows skipped "$bound_log")
measured=$(rows measured "$bound_log")
if ((bound_status == 1 && hung_rows == 2 && skipped_rows == 3 && measured == 5)) &&
    grep -q 'engine epoll hung twice' "$bound_log"; then
    echo "bench-smoke: hung-engine check passed: 2 hangs, then 3 skipped rows, ref's 5 ran ($((SECONDS - started)) s)"
else
    cat "$bound_log"
    echo "bench-smoke: FAILED the hung-engine check: runloop bench exited $bound_status (wanted 1), $hung_rows hangs" \
        "(wanted 2), $skipped_rows skipped (wanted 3), $measured rows of ref (wanted 5)"
    failed=$((failed + 1))
fi

# The instruction count started above: each CSV must be marked untimed and hold a positive count per engine and path
# or item, and the history must have read the wake one. No figure is checked.
if [[ -n $counting ]]; then
    count_status=0
    wait "$counting" || count_status=1
    counted=$(cat "$kept"/instructions-*.csv 2>/dev/null | grep -cE '^"BM_[A-Za-z]+/engine:(ref|epoll)/.*",[0-9]+,,,,[1-9][0-9]*$')
    untimed=$(cat "$kept"/instructions-*.csv 2>/dev/null | grep -c '^# timing: none$')
    if ((count_status == 0 && counted == 12 && untimed == 2)); then
        echo "bench-smoke: instruction count passed: ref and epoll counted, 12 figures, read by the history"
    else
        cat "$kept/instructions.log"
        echo "bench-smoke: FAILED the instruction count: $counted figures (wanted 12), $untimed files marked untimed" \
            "(wanted 2) (instructions-*.csv, instructions.log)"
        failed=$((failed + 1))
    fi
fi

# System calls per round trip (`--syscalls`), in the default run only: the floor, 200 and 2000 round trips of each of
# the three variants (a few seconds); perf counts, or strace where perf's tracepoints are not usable here. The CSV must
# be marked untimed and hold a positive count of system calls per round trip for each variant. No figure is checked.
if ((${#arguments[@]} == 0)); then
    syscalls_status=0
    "$runloop" bench --syscalls --engines epoll --iterations 2000 --no-history --out "$kept/syscalls.csv" \
        >"$kept/syscalls.log" 2>&1 || syscalls_status=1
    # one row per variant whose last column, syscalls_per_round_trip, is positive
    counted=$(awk -F, '$1 ~ /^"BM_WakeLatency\/engine:epoll\// && $2 == 2000 && $NF + 0 > 0 { n++ }
        END { print n + 0 }' "$kept/syscalls.csv" 2>/dev/null)
    counted=${counted:-0}
    counter=$(sed -n 's/^# profile: \(perf\|strace\) .*/\1/p' "$kept/syscalls.csv" 2>/dev/null)
    if ((syscalls_status == 0 && counted == 3)) && grep -q '^# timing: none$' "$kept/syscalls.csv"; then
        echo "bench-smoke: system call count passed: the floor's 3 variants counted by $counter"
    else
        cat "$kept/syscalls.log"
        echo "bench-smoke: FAILED the system call count: $counted positive figures (wanted 3)" \
            "(syscalls.csv, syscalls.log)"
        failed=$((failed + 1))
    fi
fi

# Bad input against the real harness's lists: exit 2, naming the option and the value.
for case in "--family wake,nope|--family: unknown family 'nope' \(families: wake, " \
    "--engines ref,nope|--engines: 'ref,nope': unknown engine 'nope'"; do
    read -r -a flags <<<"${case%%|*}"
    output=$(bench "${flags[@]}" --out "$kept/bad.csv" 2>&1)
    code=$?
    if ((code == 2)) && grep -qE -- "${case#*|}" <<<"$output"; then
        echo "bench-smoke: bad input check passed: ${flags[*]} is exit 2 naming it"
    else
        echo "$output"
        echo "bench-smoke: FAILED the bad input check ${flags[*]}: exit $code (wanted 2)"
        failed=$((failed + 1))
    fi
done

if ((failed == 0)); then
    rm -rf "$kept"
else
    echo "bench-smoke: kept the CSVs and logs in $kept (the smoke run: smoke.csv, smoke.log; the checks: watchdog.*," \
        "hung-engine.*)"
fi
echo "bench-smoke: $passed passed, $failed failed"
((failed == 0))
