#!/usr/bin/env bash
# Installs what is needed, builds in release mode and runs the main job: the conformance spec on every engine,
# printing the pass matrix (and writing it as JSON and JUnit under results/).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh
require_swift
ensure_packages "${base_packages[@]}"

swift build -c release --product runloop
runloop=.build/release/runloop
mkdir -p results
"$runloop" conform --engine all --format table \
    --json-out results/conformance.json --junit-out results/conformance-junit.xml
