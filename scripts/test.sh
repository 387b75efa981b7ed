#!/usr/bin/env bash
# Installs what the tests need, then runs them: the Swift test suites (the whole spec on every engine, the loader's,
# runner's and libraries' own tests, the docs' links), checks of the command line's exit codes and bad-input
# messages, the results site in headless Chromium, the tree's format (scripts/lint.sh), and a
# one-iteration smoke run of every benchmark family (no timing assertions) so the harness cannot rot, a check that the
# release build kept the C ABI's item functions apart, and the
# harness's loop start/stop stress under AddressSanitizer (300 cycles per engine and burner setting), every
# benchmark family once under ThreadSanitizer, and the reference loop's tests under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh
require_swift
ensure_packages "${base_packages[@]}" "${bench_packages[@]}"

# timed COMMAND...: runs it and says how long it took, so a slow step shows in the log.
timed() {
    local started=$SECONDS status=0
    "$@" || status=$?
    echo "test.sh: $* took $((SECONDS - started)) s" >&2
    return "$status"
}

# The tree's format first (seconds): C and C++ against .clang-format, Swift against .swift-format.
timed scripts/lint.sh
timed swift build --build-tests
# The harness's sanitizer runs build and run on their own (under AddressSanitizer and ThreadSanitizer), and the release
# harness the smoke steps use is built: CPU-bound work, while much of the test suites' and the command-line checks'
# time is cases waiting on their own timers. So they run in the background meanwhile, one after the other, each in its
# own scratch path, the whole under a deadline; their output is printed once they are done, and the smoke steps start
# after them (their own build is then a no-op).
background_log=.build/test-background.log
# The release harness last: its build first brings `runloop` up to date in .build, which waits for `swift test`.
export -f timed
timeout --kill-after=30 2400 bash -c '
    # The harness loop start/stop stress under AddressSanitizer, 300 cycles per engine and burner setting.
    timed scripts/bench-stress.sh --cycles 300 &&
    # The harness own threads (loop threads, producers, watchdog, burners) under ThreadSanitizer, every family once.
    timed scripts/bench-tsan.sh &&
    timed scripts/bench-smoke.sh --build-only' >"$background_log" 2>&1 &
background=$!
background_started=$SECONDS
trap 'kill -- -$background 2>/dev/null || kill $background 2>/dev/null || true' EXIT
# A last resort: every wait inside the tests has its own deadline, so this fires only on a hang nothing else caught
# (the suites take a few minutes). timeout signals its whole process group, the test runner's child included.
status=0
tests_started=$SECONDS
timeout --kill-after=30 1200 swift test --skip-build || status=$?
echo "test.sh: swift test took $((SECONDS - tests_started)) s" >&2
if ((status != 0)); then
    ((status != 124)) || echo "test.sh: swift test did not finish within 1200 s and was ended" >&2
    exit "$status"
fi
timed scripts/cli-checks.sh .build/debug/runloop
# The results site (runloop site) in headless Chromium: every page renders, logs nothing to the console and loads no
# missing file; the check proves first that it catches a planted script error and a planted missing image.
timed scripts/site-check.sh --self-test
# The reference loop's tests, its stress tests among them, under ThreadSanitizer (in the foreground: the background
# steps take as long as the steps before this one).
timed scripts/tsan-stress.sh
# Another package depending on the RefRunLoop product by version (which SwiftPM refuses if it has unsafe flags).
timed scripts/consumer-check.sh
background_status=0
wait "$background" || background_status=$?
# What the background steps said, without the compilers' progress lines.
grep -vE '^\[[0-9]+/[0-9]+\]|^(Compiling|Building|Build complete|Write|Emitting)' "$background_log" >&2 || true
echo "test.sh: the background steps took $((SECONDS - background_started)) s" >&2
if ((background_status != 0)); then
    echo "test.sh: a background step failed (exit $background_status; the whole log is $background_log)" >&2
    exit 1
fi
# The smoke run, and beside it the cf:PATH engine family on the toolchain's own CoreFoundation, loaded at run time like
# any other library: much of each is waiting on its benchmarks' timers, so together they take little more than the
# longer one. The second's output is printed once both are done.
cf_smoke_log=.build/test-smoke-cf.log
timed scripts/bench-smoke.sh --engines \
    "cf:$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift/linux/libFoundation.so" >"$cf_smoke_log" 2>&1 &
cf_smoke=$!
smoke_status=0 cf_smoke_status=0
timed scripts/bench-smoke.sh || smoke_status=$?
wait "$cf_smoke" || cf_smoke_status=$?
cat "$cf_smoke_log" >&2
if ((smoke_status != 0 || cf_smoke_status != 0)); then
    echo "test.sh: a smoke run failed (exit $smoke_status, and $cf_smoke_status for cf:PATH)" >&2
    exit 1
fi
# The release build kept the C ABI's six item functions as six bodies (LLVM's function merging folds identical ones).
timed scripts/unfolded-check.sh --self-test .build-bench/release/runloop-bench
echo "test.sh: passed in $SECONDS s" >&2
