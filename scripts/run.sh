#!/usr/bin/env bash
# Installs what is needed, builds in release mode and runs the main job: the conformance spec on every engine,
# printing the pass matrix (and writing it as JSON and JUnit under results/), then the benchmarks on every engine
# (scripts/bench.sh, about 18 minutes; `scripts/run.sh --quick` runs its 3-minute version), writing a CSV to results/.
# Arguments are passed to scripts/bench.sh.
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
scripts/bench.sh "$@" || status=$?
exit "$status"
