#!/usr/bin/env bash
# How much of the reference loop the spec reaches: line coverage of Sources/RefRunLoop's semantic files while the
# whole spec runs on `ref`.
#
#   scripts/spec-coverage.sh [--lines]
#
#   --lines   also print every unreached line with the declaration it is in and the listed reason
#
# Builds `runloop` with coverage instrumentation (scratch path .build-coverage), runs the shipped spec on `ref` in this
# process (`--isolation none`, so one profile holds nearly all of it), then the main-thread cases (`main.*`, which need
# a worker's main thread: each worker writes a profile of its own, merged with the first), and prints llvm-cov's
# per-file line coverage for Sources/RefRunLoop, three files aside: CABI.swift, the C interface, which the spec does not
# use; InterleavingPoints.swift and ThreadProbes.swift, the debug build's test instrumentation, which only unit tests
# install. Every unreached line must be explained: scripts/coverage/unreached.tsv lists declarations (file, the start of
# the declaration's line, reason) whose unreached lines the spec cannot or need not reach, such as a fatalError path, a
# system call's error path, a retry under contention or an API only the tests use; a reason that starts "NO CASE YET"
# marks instead lines the spec should reach and a case is still to be written for. Unreached lines in no listed
# declaration are printed, and make the exit status 1. Exit status: 0 when every unreached line is explained, 1
# otherwise, 2 for bad arguments or a failed build or run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

show_lines=false
while (($#)); do
    case "$1" in
        --lines) show_lines=true ;;
        -h|--help) sed -n '4,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
        *) echo "spec-coverage: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done
require_swift
toolchain_bin=$(dirname "$(readlink -f "$(command -v swift)")")
profdata=$toolchain_bin/llvm-profdata
cov=$toolchain_bin/llvm-cov
[[ -x $profdata && -x $cov ]] || { echo "spec-coverage: llvm-profdata and llvm-cov are not beside swift in $toolchain_bin" >&2; exit 2; }

scratch=.build-coverage
echo "spec-coverage: building runloop with coverage ($scratch)" >&2
swift build --scratch-path "$scratch" --product runloop \
    -Xswiftc -profile-generate -Xswiftc -profile-coverage-mapping >"$scratch.log" 2>&1 || {
    tail -n 30 "$scratch.log" >&2
    echo "spec-coverage: the build failed" >&2
    exit 2
}
binary=$scratch/debug/runloop
profiles=$(mktemp -d)
trap 'rm -rf "$profiles" "$scratch.log"' EXIT
echo "spec-coverage: running the spec on ref" >&2
LLVM_PROFILE_FILE="$profiles/%p.profraw" "$binary" conform --engine ref --isolation none >"$profiles/conform.txt" 2>&1 || {
    tail -n 20 "$profiles/conform.txt" >&2
    echo "spec-coverage: the spec does not pass on ref, so its coverage means little" >&2
    exit 2
}
LLVM_PROFILE_FILE="$profiles/%p.profraw" "$binary" conform --engine ref --filter 'main.*' >"$profiles/main.txt" 2>&1 || {
    tail -n 20 "$profiles/main.txt" >&2
    echo "spec-coverage: the main-thread cases do not pass on ref, so their coverage means little" >&2
    exit 2
}
"$profdata" merge -sparse "$profiles"/*.profraw -o "$profiles/spec.profdata"

# Left out of the report: CABI.swift, the C interface (the spec drives ref through the Swift API; CABITests and the
# benchmarks' ref shim use it); InterleavingPoints.swift and ThreadProbes.swift, debug-build instrumentation that
# only InterleavingTests and WaitPathProbeTests install (a schedule of interleaving points, a thread's probe). The
# spec installs neither, so each hook in the loop stops at its one load that finds nothing installed, and nothing
# else in those files runs; what the hooks guard is measured in the files that call them.
files=()
for file in Sources/RefRunLoop/*.swift; do
    case ${file##*/} in
        CABI.swift | InterleavingPoints.swift | ThreadProbes.swift) ;;
        *) files+=("$file") ;;
    esac
done
echo
echo "Line coverage of Sources/RefRunLoop by the shipped spec on ref:"
"$cov" report "$binary" -instr-profile "$profiles/spec.profdata" "${files[@]}" |
    awk '/^-/ { next } { printf "  %-26s %8s %8s %8s\n", $1, $(NF-5), $(NF-4), $(NF-3) }' |
    sed '1s/.*/  file                          lines   missed    cover/'

# Unreached lines, each with the declaration it is in: the nearest line above it that declares a function, an
# initialiser, a subscript or a property.
explained=scripts/coverage/unreached.tsv
unexplained=0 listed=0
report=$profiles/unreached.txt
: >"$report"
for file in "${files[@]}"; do
    "$cov" show "$binary" -instr-profile "$profiles/spec.profdata" "$file" 2>/dev/null |
        awk -F'|' '$2 ~ /^ *0$/ { print $1 + 0 }' >"$profiles/lines"
    [[ -s $profiles/lines ]] || continue
    awk -v name="$(basename "$file")" '
        FNR == NR { unreached[$1] = 1; next }
        /^[[:space:]]*((public|private|fileprivate|internal|package|static|mutating|borrowing|consuming|override|final|@inline\(__always\)|@discardableResult)[[:space:]]+)*((func|init|deinit|subscript)[[:space:](<]|var [^=]*[{])/ {
            declaration = $0
            sub(/^[[:space:]]+/, "", declaration)
        }
        FNR in unreached {
            text = $0
            sub(/^[[:space:]]+/, "", text)
            printf "%s\t%s\t%d\t%s\n", name, declaration, FNR, text
        }' "$profiles/lines" "$file" >>"$report"
done
while IFS=$'\t' read -r name declaration number text; do
    reason=""
    while IFS=$'\t' read -r listed_file listed_declaration listed_reason; do
        [[ -z $listed_file || $listed_file == \#* ]] && continue
        if [[ $listed_file == "$name" && $declaration == "$listed_declaration"* ]]; then
            reason=$listed_reason
            break
        fi
    done <"$explained"
    if [[ -n $reason ]]; then
        listed=$((listed + 1))
        $show_lines && printf '  %s:%s  %s\n      in %s\n      listed: %s\n' "$name" "$number" "$text" "$declaration" "$reason"
    else
        unexplained=$((unexplained + 1))
        printf '  NOT EXPLAINED %s:%s  %s\n      in %s\n' "$name" "$number" "$text" "$declaration"
    fi
done <"$report"
echo
echo "unreached lines: $((listed + unexplained)); listed with a reason in $explained: $listed; not explained: $unexplained"
((unexplained == 0))
