#!/usr/bin/env bash
# Installs what is needed, builds in release mode and runs the main job: the conformance spec on every engine,
# printing the pass matrix (and writing it as JSON and JUnit under results/), then the benchmarks on every engine
# (`runloop bench`: the standard profile, at most about 10 minutes; `scripts/run.sh --full` for a baseline), which
# writes a CSV to results/, prints its report, adds it to the benchmark history (results/history.sqlite) and prints
# the check against the previous run of the same machine and profile (informational), then builds the results site
# in site/ (`runloop site`). Arguments are passed to `runloop bench` (`runloop bench --help`).
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
"$runloop" bench "$@" || status=$?
# The static results site of what ran: site/index.html, opened from disk.
"$runloop" site site || status=$?
exit "$status"
