#!/usr/bin/env bash
# Builds and runs a package outside this one that depends on RunLoopSuite's RefRunLoop product by version, as another
# project would: SwiftPM refuses a dependency resolved by version whose targets use unsafe build flags, so this is the
# check that RefRunLoop (and everything it links) has none.
#
#   scripts/consumer-check.sh [--keep]
#
#   --keep   leave the scratch directory (its path is printed) instead of removing it
#
# The committed HEAD is cloned into a scratch directory and tagged 1.0.0 there; a consumer package
# (scripts/consumer/main.swift, with a manifest written here) depends on it with `from: "1.0.0"`, is built in debug
# and run under a deadline. Uncommitted changes are not part of the check.
#
# Exit status: 0 when the consumer built and its run passed, 1 when it did not, 2 for bad arguments.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
source scripts/lib/setup.sh

keep=0
while (($#)); do
    case "$1" in
        --keep) keep=1 ;;
        *) echo "consumer-check: unknown argument '$1' (usage: scripts/consumer-check.sh [--keep])" >&2; exit 2 ;;
    esac
    shift
done
require_swift

scratch=$(mktemp -d /tmp/runloop-consumer.XXXXXX)
if ((keep)); then
    echo "consumer-check: scratch directory $scratch" >&2
else
    trap 'rm -rf "$scratch"' EXIT
fi

git clone -q "$repo" "$scratch/RunLoopSuite"
git -C "$scratch/RunLoopSuite" tag 1.0.0
mkdir -p "$scratch/Consumer/Sources/Consumer"
cp scripts/consumer/main.swift "$scratch/Consumer/Sources/Consumer/main.swift"
cat >"$scratch/Consumer/Package.swift" <<MANIFEST
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Consumer",
    dependencies: [.package(url: "file://$scratch/RunLoopSuite", from: "1.0.0")],
    targets: [
        .executableTarget(
            name: "Consumer", dependencies: [.product(name: "RefRunLoop", package: "RunLoopSuite")])
    ]
)
MANIFEST

if ! timeout --kill-after=30 900 swift build --package-path "$scratch/Consumer" >"$scratch/build.log" 2>&1; then
    grep -E 'error|unsafe' "$scratch/build.log" | head -20 >&2 || tail -20 "$scratch/build.log" >&2
    echo "consumer-check: a package depending on RefRunLoop by version did not build (log above)" >&2
    exit 1
fi
if ! timeout --kill-after=5 60 "$scratch/Consumer/.build/debug/Consumer"; then
    echo "consumer-check: the consumer built but its run failed" >&2
    exit 1
fi
echo "consumer-check: a package depending on RefRunLoop from: 1.0.0 built and ran" >&2
