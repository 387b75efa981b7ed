#!/usr/bin/env bash
# Checks that the release build kept the C ABI's six item functions (a source's, a timer's and an observer's add and
# remove) as six bodies of their own. Their Swift implementations are written to differ in shape (CABI.swift) because
# LLVM's function merging folds identical bodies into one and turns the others into a jump to it, which costs every
# add and remove a jump and the branch predictor a shared target (journal/2026-12-07-timer-observer-glue.md). Only an
# instruction count would show a later edit that made two bodies identical again; this shows it from the binary.
#
#   scripts/unfolded-check.sh [--self-test] BINARY
#
#   BINARY       a release build that links RefRunLoop (the harness: .build-bench/release/runloop-bench)
#   --self-test  first prove the check on an object assembled here: a thunk and the function it jumps to must be
#                reported as one body, and a function of its own must not
#
# Each function's body is found by following jumps: a function of at most four instructions that ends in an
# unconditional jump to another function (a thunk, as function merging leaves) stands for that function's body, to a
# depth of four. Two functions with one body, or one address, are folded.
#
# Exit status: 0 six bodies, 1 a folded pair (named) or a function missing from the binary, 2 bad arguments.
set -euo pipefail

functions=(
    ref_runloop_add_source ref_runloop_remove_source ref_runloop_add_timer ref_runloop_remove_timer
    ref_runloop_add_observer ref_runloop_remove_observer
)
self_test=0
binary=
while (($#)); do
    case "$1" in
        --self-test) self_test=1 ;;
        -*) echo "unfolded-check: unknown option '$1' (usage: scripts/unfolded-check.sh [--self-test] BINARY)" >&2; exit 2 ;;
        *)
            [[ -z $binary ]] || { echo "unfolded-check: one binary only (got '$binary' and '$1')" >&2; exit 2; }
            binary=$1
            ;;
    esac
    shift
done
[[ -n $binary ]] || { echo "unfolded-check: no binary given (usage: scripts/unfolded-check.sh [--self-test] BINARY)" >&2; exit 2; }
[[ -f $binary ]] || { echo "unfolded-check: $binary: no such file" >&2; exit 2; }
command -v objdump >/dev/null || { echo "unfolded-check: objdump (binutils) is not installed" >&2; exit 2; }

# load BINARY: its functions' addresses (bare hex) and names, for `address` and `body`.
symbols=
load() {
    binary=$1
    symbols=$(nm --defined-only "$binary" | awk '$2 ~ /^[tTwW]$/ { print $1, $3 }' |
        while read -r addr name; do printf '%x %s\n' $((16#$addr)) "$name"; done)
}

# address NAME: the symbol's address as bare hex, or nothing.
address() { awk -v name="$1" '$2 == name { print $1; exit }' <<<"$symbols"; }

# body ADDRESS: the address of the body the function at ADDRESS stands for (see the header).
body() {
    local addr=$1 depth target listing count last
    for depth in 1 2 3 4; do
        # The function's instructions, from its symbol to the next symbol's, without the alignment padding.
        listing=$(objdump -d --no-show-raw-insn --start-address=0x"$addr" --stop-address=$((0x$addr + 64)) "$binary" |
            awk '/^[0-9a-f]+ <.*>:$/ { n++ } n == 1 && /^ +[0-9a-f]+:\t/ && !/\t(nop|int3)/ { print } n > 1 { exit }')
        count=$(grep -c . <<<"$listing" || true)
        last=$(tail -n 1 <<<"$listing")
        target=$(sed -nE 's/^ +[0-9a-f]+:\t+jmp +([0-9a-f]+) <[^+>]*>$/\1/p' <<<"$last")
        if ((count <= 4)) && [[ -n $target ]]; then
            addr=$target
        else
            break
        fi
    done
    echo "$addr"
}

# check NAME...: prints each function's body, reports any two that share one; returns 1 if any do.
check() {
    local name addr folded=0
    declare -A owner=()
    for name in "$@"; do
        addr=$(address "$name")
        if [[ -z $addr ]]; then
            echo "unfolded-check: $binary: no function $name" >&2
            return 1
        fi
        local found
        found=$(body "$addr")
        echo "  $name: 0x$addr -> body 0x$found"
        if [[ -n ${owner[$found]:-} ]]; then
            echo "unfolded-check: FOLDED: $name and ${owner[$found]} share the body at 0x$found" >&2
            folded=1
        else
            owner[$found]=$name
        fi
    done
    return "$folded"
}

if ((self_test)); then
    scratch=$(mktemp -d /tmp/unfolded-check.XXXXXX)
    trap 'rm -rf "$scratch"' EXIT
    # thunk jumps to body (as function merging leaves a folded duplicate); other is a body of its own.
    printf '%s\n' '.text' 'body: xorl %eax, %eax' 'ret' '.p2align 4' 'thunk: pushq %rbp' 'movq %rsp, %rbp' \
        'popq %rbp' 'jmp body' '.p2align 4' 'other: movl $1, %eax' 'ret' >"$scratch/planted.s"
    clang -c "$scratch/planted.s" -o "$scratch/planted.o" ||
        { echo "unfolded-check: self-test: clang could not assemble the planted object" >&2; exit 1; }
    real=$binary
    load "$scratch/planted.o"
    if check thunk body >/dev/null 2>&1; then
        echo "unfolded-check: self-test FAILED: a thunk and the function it jumps to were not reported" >&2
        exit 1
    fi
    if ! check thunk other >/dev/null 2>&1; then
        echo "unfolded-check: self-test FAILED: two functions of their own were reported as one" >&2
        exit 1
    fi
    echo "unfolded-check: self-test: a planted thunk is reported, a function of its own is not"
    binary=$real
fi
load "$binary"
echo "unfolded-check: $binary: the C ABI's item functions and their bodies"
if ! check "${functions[@]}"; then
    exit 1
fi
echo "unfolded-check: six functions, six bodies"
