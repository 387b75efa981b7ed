#!/usr/bin/env bash
# Installs what the tests need, then runs them: the Swift test suites (the whole spec on every engine, the loader's,
# runner's and libraries' own tests), checks of the command line's exit codes and bad-input messages, and a
# one-iteration smoke run of every benchmark family (no timing assertions) so the harness cannot rot, and the
# harness's loop start/stop stress under AddressSanitizer (1,000 cycles per engine and burner setting: 45-90 s
# with the ASan build).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh
require_swift
ensure_packages "${base_packages[@]}" "${bench_packages[@]}"

swift build --build-tests
swift test --skip-build
scripts/cli-checks.sh .build/debug/runloop
scripts/bench-smoke.sh
# The cf:PATH engine family on the toolchain's own CoreFoundation, loaded at run time like any other library.
scripts/bench-smoke.sh --engines "cf:$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift/linux/libFoundation.so"
scripts/bench-stress.sh --cycles 1000
