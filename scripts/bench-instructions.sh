#!/usr/bin/env bash
# Instructions per wake-up round trip, or per item added and removed, per engine, counted by valgrind's callgrind: a
# figure that does not move with the machine's load, unlike nanoseconds.
#
#   scripts/bench-instructions.sh [--family wake|scale] [--load none|idle1000] [--engines LIST] [--iterations N]
#                                 [--out FILE.csv] [--results FILE.csv] [--label LABEL] [--tree DIR]
#
#   --family F       wake (default): per same-CPU wake-up round trip; scale: per item added and removed at N = 10,000
#   --load L         wake only: the round trip's load, none (default) or idle1000 (1,000 idle sources and timers)
#   --engines LIST   engines, comma-separated, as for `runloop bench` (default
#                    ref,cf,glib,libuv,libevent,dispatch,nio,epoll)
#   --iterations N   iterations in the shorter of the two runs per engine (default 4000 round trips for wake, 2
#                    rounds of 10,000 items for scale; the longer runs 2N)
#   --out FILE       also write the table as CSV (wake: engine,round_trips,instructions_per_round_trip,vs_epoll;
#                    scale: engine,item,items,instructions_per_item,vs_epoll)
#   --results FILE   also write a results CSV for `runloop history` (results/README.md): the run's context (commit,
#                    machine, engines; profile callgrind, or callgrind-N for another --iterations N), `# timing: none`
#                    and `# exact_metrics:`, one row per benchmark with its count in instructions_per_round_trip
#                    (wake) or instructions_per_item (scale)
#   --label LABEL    the results CSV's machine label (default <virtualisation>-<CPUs>cpu-instructions)
#   --tree DIR       count the harness of the checkout at DIR (another commit's worktree), built in DIR/.build-bench;
#                    the results CSV names DIR's commit (default: this checkout)
#
# The round trip is BM_WakeLatency/pin:same/load:L (Benchmarks/Harness/wake_latency.cpp): the benchmark thread
# signals a source and wakes the loop, the loop thread runs the callout, which writes a reply eventfd that the
# benchmark thread reads. Each engine runs twice under callgrind, N and 2N round trips (`runloop-bench
# --rl_iterations`), and the figure is the difference of the two runs' instruction totals divided by N: every thread's
# instructions for the round trips themselves (dispatch's: the worker that runs the queue and libdispatch's manager
# thread too), with process start, engine set-up and teardown cancelled out. The
# kernel's work (epoll_wait, the eventfd writes and reads) is not counted: callgrind sees user space only.
#
# With --family scale the unit is one item of BM_Scale/n:10000 (Benchmarks/Harness/scale.cpp), for each item kind
# (source, timer, timer-random: timers added and removed in random order, observer): the shim's add and remove, the
# engine's, the item's allocation and freeing, and its share of the round's final pass; (instructions of 2N rounds - of
# N rounds) / (N x 10,000). An engine without observers (libevent) has no observer row.
#
# valgrind 3.19 (Debian bookworm) cannot read the DWARF 5 debug information the toolchain's clang writes, so the
# script counts a copy of the harness stripped of it (strip -g); function names stay in the symbol table.
#
# Exit status: 0 when every engine was counted, 1 when one could not be, 2 for bad arguments.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
source scripts/lib/setup.sh

usage() { sed -n '5,22p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

engines=ref,cf,glib,libuv,libevent,dispatch,nio,epoll iterations="" out="" family=wake load=none
results="" label="" tree=$repo arguments=("$@")
while (($#)); do
    case "$1" in
        --family) (($# >= 2)) || usage; family=$2; shift ;;
        --load) (($# >= 2)) || usage; load=$2; shift ;;
        --engines) (($# >= 2)) || usage; engines=$2; shift ;;
        --iterations) (($# >= 2)) || usage; iterations=$2; shift ;;
        --out) (($# >= 2)) || usage; out=$2; shift ;;
        --results) (($# >= 2)) || usage; results=$2; shift ;;
        --label) (($# >= 2)) || usage; label=$2; shift ;;
        --tree) (($# >= 2)) || usage; tree=$2; shift ;;
        -h|--help) usage ;;
        *) echo "bench-instructions: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done
# The results CSV's profile: a count per unit depends a little on the iterations (the amortised share of the
# loop's growth), so another --iterations is a profile, and a series, of its own.
profile=callgrind default_iterations=4000
[[ $family != scale ]] || default_iterations=2
[[ -z $iterations || $iterations == "$default_iterations" ]] || profile=callgrind-$iterations
case $family in
    wake) iterations=${iterations:-4000} ;;
    scale) iterations=${iterations:-2} ;;
    *) echo "bench-instructions: --family must be wake or scale, not '$family'" >&2; exit 2 ;;
esac
case $load in
    none|idle1000) ;;
    *) echo "bench-instructions: --load must be none or idle1000, not '$load'" >&2; exit 2 ;;
esac
[[ $iterations =~ ^[1-9][0-9]{0,6}$ ]] || { echo "bench-instructions: --iterations needs a positive number, not '$iterations'" >&2; exit 2; }
[[ -n $engines ]] || { echo "bench-instructions: --engines needs at least one engine" >&2; exit 2; }
bad() { echo "bench-instructions: $1" >&2; exit 2; }
[[ -z $label || $label =~ ^[A-Za-z0-9._-]+$ ]] || bad "--label takes letters, digits, '.', '_' and '-', not '$label'"
[[ -f $tree/Benchmarks/Package.swift ]] || bad "--tree $tree: no Benchmarks/Package.swift there (not a checkout)"
tree=$(cd "$tree" && pwd)
if [[ -n $results ]]; then
    [[ -d $(dirname "$results") ]] || bad "--results $results: its directory does not exist"
    # Read before the run, as the run's context: the commit measured and how many paths differed from it.
    commit=$(git -C "$tree" rev-parse HEAD 2>/dev/null) || bad "--tree $tree is not a git checkout"
    uncommitted=$(GIT_OPTIONAL_LOCKS=0 git -C "$tree" status --porcelain | wc -l)
    started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
fi

require_swift
ensure_packages "${base_packages[@]}" "${bench_packages[@]}" valgrind binutils

# Each checkout builds its own harness: two commits never share a build directory.
scratch=$tree/.build-bench
echo "bench-instructions: building runloop-bench (release, $scratch)" >&2
mkdir -p "$scratch"
if ! swift build -c release --package-path "$tree/Benchmarks" --scratch-path "$scratch" --product runloop-bench \
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
describe=$("$binary" --rl_engines="$engines" --rl_describe) || exit 2

# instructions ENGINE N FILTER FAMILY: the total instructions callgrind collected for N iterations of the benchmarks
# FILTER selects (one benchmark) in FAMILY; "skip" when the engine skips it (it lacks the feature, as libevent lacks
# observers); nothing when the benchmark did not finish.
instructions() {
    local engine=$1 count=$2 filter=$3 family=$4 log
    log=$work/callgrind-$count.log
    timeout -k 10 900 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$binary" --rl_engines="$engine" --rl_family="$family" --rl_iterations="$count" \
        --benchmark_filter="$filter" >"$log" 2>&1 || true
    if grep -q "ERROR OCCURRED: 'skipped:" "$log"; then echo skip; return 0; fi
    grep -q "^BM_.*/iterations:$count" "$log" || return 0
    grep -q "ERROR OCCURRED" "$log" && return 0
    sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$log" | tail -n 1
}

# per_unit ENGINE FILTER FAMILY UNITS: (instructions of 2N iterations - of N) / (N x UNITS), "skip", or nothing.
per_unit() {
    local short long
    short=$(instructions "$1" "$iterations" "$2" "$3")
    [[ $short != skip ]] || { echo skip; return 0; }
    long=$(instructions "$1" "$((2 * iterations))" "$2" "$3")
    [[ -n $short && -n $long ]] || return 0
    echo $(((long - short) / (iterations * $4)))
}

declare -A per_trip=()
failed=()
rows=()  # the results CSV's rows: name,iterations,,,,count
IFS=, read -r -a selected <<<"$engines"
pattern() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

if [[ $family == scale ]]; then
    # timer-random: BM_Scale's timers added and removed in random order (/order:random).
    items=(source timer timer-random observer)
    for engine in "${selected[@]}"; do
        for item in "${items[@]}"; do
            echo "bench-instructions: $engine $item ($iterations and $((2 * iterations)) rounds of 10,000 under callgrind)" >&2
            benchmark="item:$item/n:10000"
            [[ $item != timer-random ]] || benchmark="item:timer/n:10000/order:random"
            count=$(per_unit "$engine" "^BM_Scale/engine:$(pattern "$engine")/$benchmark/iterations:" scale 10000)
            case $count in
                skip) echo "bench-instructions: $engine skips $item (it lacks the feature)" >&2 ;;
                "") failed+=("$engine/$item") ;;
                *) per_trip[$engine/$item]=$count ;;
            esac
        done
    done
    printf '%-24s %-12s %14s  %s\n' engine item "instr/item" "vs epoll floor"
    [[ -z $out ]] || echo "engine,item,items,instructions_per_item,vs_epoll" >"$out"
    for engine in "${selected[@]}"; do
        for item in "${items[@]}"; do
            [[ -n ${per_trip[$engine/$item]:-} ]] || continue
            floor=${per_trip[epoll/$item]:-} ratio=""
            [[ -z $floor ]] || ratio=$(awk -v a="${per_trip[$engine/$item]}" -v b="$floor" 'BEGIN { printf "%.2fx", a / b }')
            printf '%-24s %-12s %14s  %s\n' "$engine" "$item" "${per_trip[$engine/$item]}" "${ratio:--}"
            [[ -z $out ]] || echo "$engine,$item,$((iterations * 10000)),${per_trip[$engine/$item]},${ratio%x}" >>"$out"
            name="BM_Scale/engine:$engine/item:$item/n:10000"
            [[ $item != timer-random ]] || name="BM_Scale/engine:$engine/item:timer/n:10000/order:random"
            rows+=("\"$name\",$((iterations * 10000)),,,,${per_trip[$engine/$item]}")
        done
    done
else
    for engine in "${selected[@]}"; do
        echo "bench-instructions: $engine ($iterations and $((2 * iterations)) round trips under callgrind)" >&2
        # The engine's default wait only: not a variant named after the load (ref's /spin:on).
        count=$(per_unit "$engine" "^BM_WakeLatency/engine:$(pattern "$engine")/pin:same/load:$load/iterations:" wake 1)
        if [[ -n $count && $count != skip ]]; then per_trip[$engine]=$count; else failed+=("$engine"); fi
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
        rows+=("\"BM_WakeLatency/engine:$engine/pin:same/load:$load\",$iterations,,,,${per_trip[$engine]}")
    done
fi
if [[ -n $results ]] && ((${#failed[@]} == 0)); then
    # The one results format (results/README.md), with the counts in a counter column and no time columns' values.
    metric=instructions_per_item unit="items added and removed at N = 10,000"
    [[ $family == scale ]] || metric=instructions_per_round_trip unit="same-CPU wake-up round trips, load $load"
    virtualisation=$(systemd-detect-virt --vm 2>/dev/null || true)
    if [[ -z $virtualisation || $virtualisation == none ]]; then
        virtualisation=metal
        ! grep -qw hypervisor /proc/cpuinfo || virtualisation=vm
    fi
    cpus=$(nproc)
    {
        echo "# label: ${label:-$virtualisation-${cpus}cpu-instructions}"
        echo "# date: $started"
        echo "# profile: $profile (family $family: $iterations and $((2 * iterations)) iterations per benchmark under" \
            "valgrind's callgrind, their difference in user-space instructions per unit, $unit)"
        echo "# command: scripts/bench-instructions.sh ${arguments[*]}"
        echo "# filter: family $family"
        echo "# cpu_model: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
        echo "# cpus: $cpus ($virtualisation)"
        echo "# kernel: $(uname -srm)"
        echo "# os: $(sed -n 's/^PRETTY_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release)"
        echo "# commit: $commit ($uncommitted uncommitted paths)"
        echo "# swift: $(swift --version 2>/dev/null | head -n 1)"
        echo "# valgrind: $(valgrind --version)"
        echo "# timing: none"
        echo "# exact_metrics: $metric"
        printf '%s\n' "$describe"
        echo "name,iterations,real_time,cpu_time,time_unit,$metric"
        printf '%s\n' "${rows[@]}"
    } >"$results.tmp"
    mv "$results.tmp" "$results"
    echo "bench-instructions: wrote $results" >&2
elif [[ -n $results ]]; then
    echo "bench-instructions: $results not written: not every benchmark was counted" >&2
fi
if ((${#failed[@]})); then
    echo "bench-instructions: not counted (the benchmark did not finish under callgrind): ${failed[*]}" >&2
    exit 1
fi
