#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer) of the inputs the project reads from users: spec case files, expectations
# files and `runloop compare`'s results CSVs (the InputFuzz package, InputFuzz/Package.swift). Builds the fuzz targets
# with the toolchain's -sanitize=fuzzer,address, runs each from a scratch copy of its seed corpus (InputFuzz/Corpus), and
# prints per target the executions, time, exec/s, the crashes, timeouts and out-of-memory inputs found, and the
# slowest input's time and the peak memory (how far from the limits below the run stayed).
# Exits 1 if any target found something (the input is kept and its path printed), 2 for bad flags.
#
#   scripts/fuzz-inputs.sh [--target spec-cases|expectations|results-csv] [--seconds N]
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    echo "usage: scripts/fuzz-inputs.sh [--target spec-cases|expectations|results-csv] [--seconds N]" >&2
    echo "  --target NAME  fuzz only this target (default: all three, one after the other)" >&2
    echo "  --seconds N    how long to fuzz each target (default: 600)" >&2
}

all_targets=(spec-cases expectations results-csv)
targets=("${all_targets[@]}")
seconds=600
while (($# > 0)); do
    case "$1" in
        --target)
            (($# >= 2)) || { echo "error: --target needs a name (one of ${all_targets[*]})" >&2; exit 2; }
            [[ " ${all_targets[*]} " == *" $2 "* ]] || {
                echo "error: unknown target '$2' (one of ${all_targets[*]})" >&2; exit 2; }
            targets=("$2"); shift 2 ;;
        --seconds)
            (($# >= 2)) || { echo "error: --seconds needs a number" >&2; exit 2; }
            [[ "$2" =~ ^[1-9][0-9]*$ ]] || {
                echo "error: --seconds must be a positive whole number, not '$2'" >&2; exit 2; }
            seconds=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "error: unknown argument '$1'" >&2; usage; exit 2 ;;
    esac
done

source scripts/lib/setup.sh
require_swift
ensure_packages "${base_packages[@]}"

# Per input: 10 s is far beyond any real file's load time (milliseconds), so a timeout is a hang; 2 GiB is far
# beyond any real file's footprint, so reaching it is a blow-up. 16 KiB inputs leave room for deep nesting and long
# lines while keeping the search focused.
per_input_timeout=10
rss_limit_mb=2048
max_len=16384

build_path=.build-fuzz-inputs
build_flags=(-c release --package-path InputFuzz --build-path "$build_path"
             -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address)
work=$(mktemp -d "${TMPDIR:-/tmp}/runloop-fuzz-inputs.XXXXXX")
echo "work directory (corpus copies, logs, findings): $work" >&2
echo "building the fuzz targets (release, -sanitize=fuzzer,address)..." >&2
if ! swift build "${build_flags[@]}" >"$work/build.log" 2>&1; then
    grep -E "error" "$work/build.log" >&2 || tail -20 "$work/build.log" >&2
    echo "error: building the fuzz targets failed (log: $work/build.log)" >&2
    exit 1
fi
bin=$(swift build "${build_flags[@]}" --show-bin-path)

failed=0
summary=()
for target in "${targets[@]}"; do
    case "$target" in
        spec-cases) executable=FuzzSpecCases; corpus=spec-cases; dict=yaml.dict ;;
        expectations) executable=FuzzExpectations; corpus=expectations; dict=yaml.dict ;;
        results-csv) executable=FuzzResultsCSV; corpus=results-csv; dict=csv.dict ;;
    esac
    [ -x "$bin/$executable" ] || { echo "error: $bin/$executable was not built" >&2; exit 1; }
    mkdir -p "$work/$target/corpus" "$work/$target/findings"
    cp InputFuzz/Corpus/"$corpus"/* "$work/$target/corpus/"
    log="$work/$target/fuzz.log"
    echo "fuzzing $target for $seconds s (log: $log)..." >&2
    start=$(date +%s)
    status=0
    # No leak check (the loaders hold no resources; it would stop a run on the Swift runtime's one-off caches), and
    # no Swift backtracer: after a finding's fatalError it reads memory ASan reports as a second, spurious crash.
    ASAN_OPTIONS=detect_leaks=0 SWIFT_BACKTRACE=enable=no "$bin/$executable" "$work/$target/corpus" \
        -max_total_time="$seconds" -timeout="$per_input_timeout" -rss_limit_mb="$rss_limit_mb" \
        -max_len="$max_len" -dict="InputFuzz/Corpus/$dict" -artifact_prefix="$work/$target/findings/" \
        -print_final_stats=1 >"$log" 2>&1 || status=$?
    elapsed=$(($(date +%s) - start))
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    slowest=$(sed -n 's/^stat::slowest_unit_time_sec: *//p' "$log" | tail -1)
    peak_rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    crashes=$(find "$work/$target/findings" -name 'crash-*' -o -name 'deadly-*' | wc -l)
    timeouts=$(find "$work/$target/findings" -name 'timeout-*' | wc -l)
    ooms=$(find "$work/$target/findings" -name 'oom-*' | wc -l)
    format='%-13s executions %10s  time %5s s  exec/s %6s  crashes %s  timeouts %s  ooms %s'
    format+='  slowest input %s s  peak rss %s MB'
    line=$(printf "$format" "$target" "${executions:-?}" "$elapsed" "${rate:-?}" "$crashes" "$timeouts" "$ooms" \
        "${slowest:-?}" "${peak_rss:-?}")
    summary+=("$line")
    if ((status != 0 || crashes + timeouts + ooms > 0)); then
        failed=1
        echo "$target: libFuzzer exited $status; findings in $work/$target/findings:" >&2
        ls -1 "$work/$target/findings" >&2 || true
        grep -E "fuzz finding|ERROR: libFuzzer|ERROR: AddressSanitizer|Fatal error" "$log" | head -5 >&2 || true
        echo "reproduce: $bin/$executable FILE" >&2
    fi
done

echo
printf '%s\n' "${summary[@]}"
exit "$failed"
