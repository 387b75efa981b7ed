#!/usr/bin/env bash
# How far each target's figure moves between processes: runs `runloop bench` several times, one after the other
# (each run its own processes), then `runloop report` on all the files, which prints each target variant's figure
# per run, its spread ((largest - smallest) / median), the room its bound leaves from parity, and whether every run
# gave the same verdict. A target whose figure moves more than its bound's room is decided by noise.
#
#   scripts/bench-stability.sh [--runs N] [--filter REGEX] [--engines LIST] [--out DIR] [--quick | --full]
#
#   --runs N         how many runs (default 5)
#   --filter REGEX   passed to `runloop bench` (default: BM_WakeLatency)
#   --engines LIST   passed to `runloop bench` (default: every engine)
#   --out DIR        where the CSVs go (default results/stability/<date>-<time>)
#   --quick, --full  passed to `runloop bench` (default its standard profile); quick runs are judged against the
#                    quick bounds only
#
# The runs are not added to the history. Exit status: 0 when the report was printed, 1 if a run failed (its log is
# printed), 2 for bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

usage() { sed -n '7,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
runs=5 filter=BM_WakeLatency engines="" out="" profile=()
while (($#)); do
    case "$1" in
        --runs) (($# >= 2)) || usage; runs=$2; shift ;;
        --filter) (($# >= 2)) || usage; filter=$2; shift ;;
        --engines) (($# >= 2)) || usage; engines=$2; shift ;;
        --out) (($# >= 2)) || usage; out=$2; shift ;;
        --quick|--full) profile=("$1") ;;
        -h|--help) usage ;;
        *) echo "bench-stability: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done
[[ $runs =~ ^[1-9][0-9]?$ ]] && ((runs >= 2)) || { echo "bench-stability: --runs needs a number from 2 to 99" >&2; exit 2; }
out=${out:-results/stability/$(date -u +%Y%m%d-%H%M)}
mkdir -p "$out"
runloop=$(build_runloop bench-stability "$out/runloop-build.log") || exit 1
rm -f "$out/runloop-build.log"
files=()
for ((run = 1; run <= runs; run++)); do
    file="$out/run$run.csv" log="$out/run$run.log"
    echo "bench-stability: run $run of $runs -> $file" >&2
    if ! "$runloop" bench "${profile[@]}" --filter "$filter" ${engines:+--engines "$engines"} --label "stability" \
        --no-history --out "$file" >"$log" 2>&1; then
        tail -n 30 "$log" >&2
        echo "bench-stability: run $run failed (log: $log)" >&2
        exit 1
    fi
    rm -f "$log"
    files+=("$file")
done
"$runloop" report "${files[@]}"
