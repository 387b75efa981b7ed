#!/usr/bin/env bash
# Installs what is needed, builds in release mode and runs the main job: the conformance spec on every engine,
# printing the pass matrix (and writing it as JSON and JUnit under results/), then the benchmarks on every engine
# (scripts/bench.sh, about 25 minutes; `scripts/run.sh --quick` runs its 3-minute version), writing a CSV to results/.
# Arguments are passed to scripts/bench.sh. The new CSV then goes into the benchmark history (results/history.sqlite,
# made from every CSV in results/ if it is not there yet), and the change against the previous run of the same
# machine and profile, if there is one, is printed after the figures (`runloop history check`; informational: a
# regression there does not change the exit status, a broken CSV does).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh
require_swift
ensure_packages "${base_packages[@]}" "${bench_packages[@]}"

swift build -c release --product runloop
runloop=.build/release/runloop
mkdir -p results
status=0
"$runloop" conform --engine all --format table \
    --json-out results/conformance.json --junit-out results/conformance-junit.xml || status=$?
# Which CSV the run writes: its --out, else the one that appears in results/.
out=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    [[ ${args[i]} == --out ]] && ((i + 1 < ${#args[@]})) && out=${args[i + 1]}
done
marker=$(mktemp)
trap 'rm -f "$marker"' EXIT
scripts/bench.sh "$@" || status=$?
if [[ -z $out ]]; then
    out=$(find results -maxdepth 1 -name '*.csv' -newer "$marker" | sort | tail -n 1)
fi
if [[ -n $out && -s $out ]]; then
    echo
    if [[ ! -f results/history.sqlite ]]; then
        "$runloop" history rebuild results || status=2
    fi
    "$runloop" history add "$out" || status=2
    code=0
    "$runloop" history check --run "$out" || code=$?
    ((code <= 1)) || status=$code
fi
exit "$status"
