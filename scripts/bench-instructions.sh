#!/usr/bin/env bash
# Instructions per wake-up round trip, per engine, counted by valgrind's callgrind: a figure that does not move with
# the machine's load, unlike the wake latency's nanoseconds.
#
#   scripts/bench-instructions.sh [--engines LIST] [--iterations N] [--out FILE.csv]
#
#   --engines LIST   engines, comma-separated, as for scripts/bench.sh (default ref,cf,glib,libuv,libevent,epoll)
#   --iterations N   round trips in the shorter of the two runs per engine (default 4000; the longer runs 2N)
#   --out FILE       also write the table as CSV (engine,round_trips,instructions_per_round_trip,vs_epoll)
#
# The round trip is BM_WakeLatency/pin:same/load:none (Benchmarks/Harness/wake_latency.cpp): the benchmark thread
# signals a source and wakes the loop, the loop thread runs the callout, which writes a reply eventfd that the
# benchmark thread reads. Each engine runs twice under callgrind, N and 2N round trips (`runloop-bench
# --rl_iterations`), and the figure is the difference of the two runs' instruction totals divided by N: both threads'
# instructions for the round trips themselves, with process start, engine set-up and teardown cancelled out. The
# kernel's work (epoll_wait, the eventfd writes and reads) is not counted: callgrind sees user space only.
#
# valgrind 3.19 (Debian bookworm) cannot read the DWARF 5 debug information the toolchain's clang writes, so the
# script counts a copy of the harness stripped of it (strip -g); function names stay in the symbol table.
#
# Exit status: 0 when every engine was counted, 1 when one could not be, 2 for bad arguments.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
source scripts/lib/setup.sh

usage() { sed -n '5,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

engines=ref,cf,glib,libuv,libevent,epoll iterations=4000 out=""
while (($#)); do
    case "$1" in
        --engines) (($# >= 2)) || usage; engines=$2; shift ;;
        --iterations) (($# >= 2)) || usage; iterations=$2; shift ;;
        --out) (($# >= 2)) || usage; out=$2; shift ;;
        -h|--help) usage ;;
        *) echo "bench-instructions: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done
[[ $iterations =~ ^[1-9][0-9]{0,6}$ ]] || { echo "bench-instructions: --iterations needs a positive number, not '$iterations'" >&2; exit 2; }
[[ -n $engines ]] || { echo "bench-instructions: --engines needs at least one engine" >&2; exit 2; }

require_swift
ensure_packages "${base_packages[@]}" "${bench_packages[@]}" valgrind binutils

scratch=.build-bench
echo "bench-instructions: building runloop-bench (release, $scratch)" >&2
mkdir -p "$scratch"
if ! swift build -c release --package-path Benchmarks --scratch-path "$scratch" --product runloop-bench \
    >"$scratch/instructions-build.log" 2>&1; then
    tail -n 30 "$scratch/instructions-build.log" >&2
    echo "bench-instructions: the harness does not build" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
binary=$work/runloop-bench
cp "$scratch/release/runloop-bench" "$binary"
strip -g "$binary"
# The harness checks the engine names (exit 2 for an unknown one).
"$binary" --rl_engines="$engines" --rl_describe >/dev/null || exit 2

# instructions ENGINE N: the total instructions callgrind collected for N round trips of ENGINE, or nothing.
instructions() {
    local engine=$1 count=$2 pattern log
    pattern=$(printf '%s' "$engine" | sed 's/[][\.*^$+?(){}|/]/\\&/g')
    log=$work/callgrind-$count.log
    timeout -k 10 900 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$binary" --rl_engines="$engine" --rl_family=wake --rl_iterations="$count" \
        --benchmark_filter="^BM_WakeLatency/engine:$pattern/pin:same/load:none/" >"$log" 2>&1 || true
    grep -q "latency_p50_ns" "$log" || return 0
    sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$log" | tail -n 1
}

declare -A per_trip=()
failed=()
IFS=, read -r -a selected <<<"$engines"
for engine in "${selected[@]}"; do
    echo "bench-instructions: $engine ($iterations and $((2 * iterations)) round trips under callgrind)" >&2
    short=$(instructions "$engine" "$iterations")
    long=$(instructions "$engine" "$((2 * iterations))")
    if [[ -z $short || -z $long ]]; then
        failed+=("$engine")
        continue
    fi
    per_trip[$engine]=$(((long - short) / iterations))
done

floor=${per_trip[epoll]:-}
printf '%-24s %14s  %s\n' engine "instr/round trip" "vs epoll floor"
[[ -z $out ]] || echo "engine,round_trips,instructions_per_round_trip,vs_epoll" >"$out"
for engine in "${selected[@]}"; do
    [[ -n ${per_trip[$engine]:-} ]] || continue
    ratio=""
    [[ -z $floor ]] || ratio=$(awk -v a="${per_trip[$engine]}" -v b="$floor" 'BEGIN { printf "%.2fx", a / b }')
    printf '%-24s %14s  %s\n' "$engine" "${per_trip[$engine]}" "${ratio:--}"
    [[ -z $out ]] || echo "$engine,$iterations,${per_trip[$engine]},${ratio%x}" >>"$out"
done
if ((${#failed[@]})); then
    echo "bench-instructions: not counted (the benchmark did not finish under callgrind): ${failed[*]}" >&2
    exit 1
fi
