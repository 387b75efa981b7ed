#!/usr/bin/env bash
# System calls per wake-up round trip (BM_WakeLatency) for every engine, counted by the kernel: perf's syscall
# tracepoints (`perf stat -e 'syscalls:sys_enter_write,...'`, Debian's linux-perf), which count without slowing the
# traced threads down the way ptrace does. Prints one table.
#
#   scripts/bench-syscalls.sh [--engines LIST] [--round-trips N]
#
#   --engines LIST    comma-separated engines (default: every engine of the harness)
#   --round-trips N   round trips of the longer run (default 20000; the shorter run makes N / 10)
#
# For each engine and each of pin:same/load:none, pin:same/load:idle1000 and pin:diff/load:none, the harness runs the
# one benchmark twice with a fixed iteration count (--rl_iterations: N / 10, then N round trips) under `perf stat`,
# which counts the system calls of every thread of the process; the difference of the two counts over the difference
# of the round trips is the cost of one round trip, with set-up, warm-up and tear-down cancelled out. A round trip
# includes the harness's own reply: the loop's callout writes an eventfd (1 write) and the benchmark thread blocks
# in read() on it (1 read); the rest is the engine's signal, wake-up and wait. Counts are means: a same-CPU round trip
# that finds the loop awake skips the wake-up, so an engine that defers wake-ups shows fractions.
#
# If perf or its syscall tracepoints are not usable here (no tracefs, perf_event_paranoid too high in a container),
# the script says so and falls back to `strace -c -f` over the same two runs, labelled as such: ptrace stops every
# system call, which changes the timing and so how often a loop is found awake; its figures are only indicative.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

usage() { sed -n '6,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
engines="" round_trips=20000
while (($#)); do
    case "$1" in
        --engines) (($# >= 2)) || usage; engines=$2; shift ;;
        --round-trips) (($# >= 2)) || usage; round_trips=$2; shift ;;
        -h|--help) usage ;;
        *) echo "bench-syscalls: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done
[[ $round_trips =~ ^[1-9][0-9]{2,8}$ ]] || { echo "bench-syscalls: --round-trips needs a number of at least 100" >&2; exit 2; }
short=$((round_trips / 10))

require_swift
ensure_packages "${base_packages[@]}" "${bench_packages[@]}"

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-syscalls.XXXXXX")
trap 'rm -rf "$work"' EXIT
build=(swift build -c release --package-path Benchmarks --scratch-path .build-bench)
echo "bench-syscalls: building runloop-bench (release, .build-bench)" >&2
if ! "${build[@]}" --product runloop-bench >"$work/build.log" 2>&1; then
    tail -n 40 "$work/build.log" >&2
    echo "bench-syscalls: the build failed (last 40 lines above)" >&2
    exit 1
fi
binary="$("${build[@]}" --show-bin-path)/runloop-bench"
[[ -n $engines ]] || engines=$("$binary" --rl_describe | sed -n 's/^# engine_\([^:]*\):.*/\1/p' | paste -sd, -)

# The system calls shown, each a column; epoll_wait, epoll_pwait and epoll_pwait2 are one column, poll and ppoll
# another; "all" is every system call (raw_syscalls:sys_enter), "other" what the named columns leave out of it.
columns=(write read epoll_wait poll futex timerfd_settime other all)
syscalls_of() {
    case $1 in
        epoll_wait) echo "epoll_wait epoll_pwait epoll_pwait2" ;;
        poll) echo "poll ppoll" ;;
        *) echo "$1" ;;
    esac
}

method=perf
events=()
for column in "${columns[@]}"; do
    [[ $column == all ]] && { events+=(raw_syscalls:sys_enter); continue; }
    [[ $column == other ]] && continue
    for call in $(syscalls_of "$column"); do
        # A tracepoint this kernel lacks (epoll_pwait2 before 5.11) is left out.
        perf list "syscalls:sys_enter_$call" 2>/dev/null | grep -q "sys_enter_$call" && events+=("syscalls:sys_enter_$call")
    done
done
if ! command -v perf >/dev/null || ! perf stat -x, -e syscalls:sys_enter_write -- true >/dev/null 2>"$work/probe" ||
    grep -qiE 'not supported|permission|<not' "$work/probe"; then
    method=strace
    ensure_packages strace
    echo "bench-syscalls: perf's syscall tracepoints are not usable here ($(head -n 1 "$work/probe" 2>/dev/null))," \
        "falling back to strace -c -f: figures distorted by ptrace" >&2
fi

# count ENGINE PIN LOAD ITERATIONS OUT: the process's system calls by name ("name count" lines) into OUT.
# The filter takes the engine's default wait only: not a variant named after the load (ref's /spin:on), which
# would run in the same process and add its counts.
count() {
    local engine=$1 pin=$2 load=$3 iterations=$4 out=$5
    local run=("$binary" --rl_profile=quick --rl_family=wake --rl_engines="$engine" --rl_iterations="$iterations"
        --benchmark_filter="^BM_WakeLatency/engine:$engine/pin:$pin/load:$load(/iterations:|/manual_time|\$)"
        --benchmark_repetitions=1)
    if [[ $method == perf ]]; then
        local event_list
        event_list=$(IFS=,; echo "${events[*]}")
        timeout 300 perf stat -x, -o "$work/perf" -e "$event_list" -- "${run[@]}" >"$work/run.log" 2>&1 || return 1
        # perf -x, lines: value,unit,event,...
        awk -F, '$3 ~ /^(syscalls|raw_syscalls):sys_enter/ { name = $3; sub(/^.*sys_enter_?/, "", name);
            if (name == "") name = "all"; print name, ($1 ~ /^[0-9]+$/ ? $1 : 0) }' "$work/perf" >"$out"
    else
        timeout 600 strace -c -f -o "$work/strace" -- "${run[@]}" >"$work/run.log" 2>&1 || return 1
        # strace -c: "% time seconds usecs/call calls errors syscall" rows, then a "total" row.
        awk '$NF ~ /^[a-z_0-9]+$/ && $(NF - 1) ~ /^[0-9]+$/ { print $NF, ($(NF - 2) ~ /^[0-9]+$/ && NF == 6 ? $(NF - 2) : $(NF - 1)) }
             $NF == "total" { print "all", $(NF - 1) ~ /^[0-9]+$/ ? $(NF - 1) : $(NF - 2) }' "$work/strace" >"$out"
    fi
    grep -q "BM_WakeLatency" "$work/run.log" || return 1
}

# per_round_trip SHORT_FILE LONG_FILE COLUMN: (long - short) / (N - N/10) for the column's system calls.
per_round_trip() {
    local calls named="" column
    calls=$(syscalls_of "$3")
    if [[ $3 == other ]]; then
        # every system call less the named columns' ones
        for column in "${columns[@]}"; do
            [[ $column == other || $column == all ]] || named="$named $(syscalls_of "$column")"
        done
        calls="all"
    fi
    awk -v calls=" $calls " -v named=" $named " -v trips=$((round_trips - short)) '
        FNR == NR { if (index(calls, " " $1 " ")) before += $2; if (index(named, " " $1 " ")) before -= $2; next }
        { if (index(calls, " " $1 " ")) after += $2; if (index(named, " " $1 " ")) after -= $2 }
        END { v = (after - before) / trips; if (v > -0.005 && v < 0.005) v = 0; printf "%.2f", v }' "$1" "$2"
}

configs=("same none" "same idle1000" "diff none")
width() { echo $((${#1} > 6 ? ${#1} : 6)); }
{
    echo "system calls per round trip, $method ($([[ $method == perf ]] && echo "syscall tracepoints, every thread" ||
        echo "strace -c -f: ptrace-distorted, indicative only")); $short and $round_trips round trips, differenced;"
    echo "each round trip includes the harness's reply: 1 write by the loop's callout, 1 read by the benchmark thread"
    printf '%-10s %-24s' engine benchmark
    for column in "${columns[@]}"; do printf ' %*s' "$(width "$column")" "$column"; done
    printf '\n'
} >"$work/table"
cat "$work/table"
status=0
IFS=, read -r -a engine_list <<<"$engines"
for engine in "${engine_list[@]}"; do
    for config in "${configs[@]}"; do
        read -r pin load <<<"$config"
        printf '%-10s %-24s' "$engine" "pin:$pin/load:$load"
        if ! count "$engine" "$pin" "$load" "$short" "$work/short" || ! count "$engine" "$pin" "$load" "$round_trips" "$work/long"; then
            printf ' the run failed: %s\n' "$(tail -n 1 "$work/run.log")"
            status=1
            continue
        fi
        for column in "${columns[@]}"; do
            printf ' %*s' "$(width "$column")" "$(per_round_trip "$work/short" "$work/long" "$column")"
        done
        printf '\n'
    done
done
exit "$status"
