#!/usr/bin/env bash
# Installs what the tests need, then runs them: the Swift test suites (the whole spec on every engine, the loader's,
# runner's and libraries' own tests), then checks of the command line's exit codes and bad-input messages.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh
require_swift
ensure_packages "${base_packages[@]}"

swift build --build-tests
swift test --skip-build
scripts/cli-checks.sh .build/debug/runloop
