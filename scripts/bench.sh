#!/usr/bin/env bash
# Runs the run-loop benchmarks (Benchmarks/README.md) and writes one Google Benchmark CSV with the run's context.
#
#   scripts/bench.sh [--quick] [--filter REGEX] [--out FILE] [--label LABEL] [--engines LIST] [--repetitions N]
#
#   --quick          shorter measurements (coalescing windows of 0.1 s, scale up to N = 10,000): under 3 minutes
#   --filter REGEX   only benchmarks whose name matches (Google Benchmark's --benchmark_filter)
#   --out FILE       where to write the CSV (default results/<label>-<date>.csv)
#   --label LABEL    the label in the default file name (default <virtualisation>-<CPUs>cpu[-quick])
#   --engines LIST   comma-separated subset of ref,cf,glib,libuv,libevent,epoll, and cf:PATH for any CoreFoundation
#                    library loaded at run time (named cf:NAME after its file)
#   --repetitions N  repetitions per benchmark (default and minimum 5, wake latency at least 9; every one is kept)
#   --smoke          what scripts/bench-smoke.sh runs: every benchmark once, meaningless figures
#   --watchdog S     end a benchmark call that takes longer than S seconds (default: the profile's, in the harness)
#
# Builds the harness, its own package (Benchmarks/Package.swift), in release mode (scratch path .build-bench at the
# repository root), runs the families one after the other, each as one Google Benchmark invocation with random
# interleaving of its repetitions, merges their CSVs under one header (a counter a family does not have is an empty
# cell), puts "# key: value" context lines first, and prints a summary with the ratios the `ref` engine is held to,
# and the engines' findings (timers fired early: counted, not errors). A benchmark that hangs is ended by the
# harness's watchdog, which writes the finished rows and an error row for it ("error: no result after N s") and exits
# 3; the rest of that family then runs in a new process. Every family process also runs under an outer `timeout` as a
# last resort. Exit status: 0, or 1 if a benchmark reported an error (a skip is not an error, nor is an engine's
# finding) or the harness failed (a crash, a hang), 2 for bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

usage() { sed -n '4,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

arguments="$*"
profile=full filter="" out="" label="" engines="" repetitions=5 watchdog=""
while (($#)); do
    case "$1" in
        --quick) profile=quick ;;
        --smoke) profile=smoke ;;
        --filter) (($# >= 2)) || usage; filter=$2; shift ;;
        --out) (($# >= 2)) || usage; out=$2; shift ;;
        --label) (($# >= 2)) || usage; label=$2; shift ;;
        --engines) (($# >= 2)) || usage; engines=$2; shift ;;
        --repetitions) (($# >= 2)) || usage; repetitions=$2; shift ;;
        --watchdog) (($# >= 2)) || usage; watchdog=$2; shift ;;
        -h|--help) usage ;;
        *) echo "bench: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done
[[ $repetitions =~ ^[0-9]+$ ]] || { echo "bench: --repetitions needs a number" >&2; exit 2; }
[[ -z $watchdog || $watchdog =~ ^[1-9][0-9]{0,5}$ ]] || { echo "bench: --watchdog needs a number of seconds" >&2; exit 2; }
# family_limit: the outer watchdog on one family process, in seconds, a last resort behind the harness's own
# per-benchmark watchdog: several times the longest family of the profile (full: scale, about 6 minutes).
case $profile in
    full) min_time=0.3 family_limit=3600; ((repetitions >= 5)) || { echo "bench: at least 5 repetitions" >&2; exit 2; } ;;
    quick) min_time=0.03 family_limit=900; ((repetitions >= 5)) || { echo "bench: at least 5 repetitions" >&2; exit 2; } ;;
    smoke) min_time=0.000001 family_limit=300; repetitions=1 ;;
esac
# Wake latency gets at least 9 repetitions: its medians are the ones the targets for ref are checked on, and on a
# small shared VM a slow spell can land on 2 of 5 repetitions of one engine; each costs only 0.03-0.3 s.
wake_repetitions=$repetitions
[[ $profile == smoke ]] || ((wake_repetitions >= 9)) || wake_repetitions=9

require_swift
ensure_packages "${base_packages[@]}" "${bench_packages[@]}"

# MARK: build

scratch=.build-bench
work=$(mktemp -d "${TMPDIR:-/tmp}/runloop-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "bench: building runloop-bench (release, $scratch)" >&2
# The harness is its own package (Benchmarks/Package.swift); its scratch path stays at the repository root.
build=(swift build -c release --package-path Benchmarks --scratch-path "$scratch")
if ! "${build[@]}" --product runloop-bench >"$work/build.log" 2>&1; then
    tail -n 40 "$work/build.log" >&2
    echo "bench: the build failed (full log above, last 40 lines)" >&2
    exit 1
fi
binary="$("${build[@]}" --show-bin-path)/runloop-bench"

# MARK: context

# The machine kind: the hypervisor (not the container runtime), else "vm" or "metal" from the CPU flags.
virt=$(systemd-detect-virt --vm 2>/dev/null || true)
[[ -n $virt && $virt != none ]] || virt=$(grep -qw hypervisor /proc/cpuinfo && echo vm || echo metal)
cpus=$(nproc)
if [[ -z $label ]]; then
    label="$virt-${cpus}cpu"
    [[ $profile == full ]] || label="$label-$profile"
fi
if [[ -z $out ]]; then
    mkdir -p results
    out="results/$label-$(date -u +%Y%m%d-%H%M).csv"
fi
mkdir -p "$(dirname "$out")"

package_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "not installed"; }
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
# GIT_OPTIONAL_LOCKS=0: reading the status must not rewrite the index of a repository others are working in.
changed=$(GIT_OPTIONAL_LOCKS=0 git status --porcelain 2>/dev/null | wc -l)
{
    echo "# label: $label"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# profile: $profile (repetitions $repetitions, wake latency $wake_repetitions, min_time ${min_time} s, random"\
        "interleaving, every repetition kept)"
    echo "# command: scripts/bench.sh $arguments"
    echo "# filter: ${filter:-(all)}"
    echo "# cpu_model: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
    echo "# cpus: $cpus ($virt)"
    echo "# kernel: $(uname -srm)"
    echo "# os: $(. /etc/os-release && echo "$PRETTY_NAME")"
    echo "# clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
    echo "# load_average_before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# commit: $commit ($changed uncommitted paths)"
    echo "# swift: $(swift --version 2>/dev/null | head -n 1)"
    echo "# libbenchmark: $(package_version libbenchmark-dev) (Debian's build is a DEBUG build: Google Benchmark prints"\
        "\"Library was built as DEBUG\"; the timed loops are this harness's own, compiled -O, only GB's bookkeeping"\
        "between iterations is unoptimised)"
    echo "# libglib2.0: $(package_version libglib2.0-dev)"
    echo "# libuv1: $(package_version libuv1-dev)"
    echo "# libevent: $(package_version libevent-dev)"
    "$binary" --rl_describe ${engines:+--rl_engines="$engines"}
} >"$work/context"

# MARK: run the families

families=(wake observers coalescing scale resident lag)
titles=("wake latency" "observer dispatch" "timer coalescing" "scale" "resident thread throughput" "lag monitor")
common=(--rl_profile="$profile" --benchmark_min_time="$min_time" --benchmark_enable_random_interleaving=true)
[[ -z $engines ]] || common+=(--rl_engines="$engines")
[[ -z $watchdog ]] || common+=(--rl_watchdog_s="$watchdog")
selection=()
[[ -z $filter ]] || selection=(--benchmark_filter="$filter")
status=0
run_started=$SECONDS
csvs=()

# A benchmark's name without Google Benchmark's suffixes (/iterations:1, /manual_time, /real_time, _median, ...):
# the name the harness registers and its watchdog writes. Reads names on stdin.
base_names() { sed -E 's#/(iterations:[0-9]+|manual_time|real_time)##g; s#_(mean|median|stddev|cv)$##'; }

# harness_failure FAMILY MESSAGE: a CSV with one error row for a family process that left no row behind for what
# did not run (a crash, the outer watchdog), so the merged CSV, the summary and bench-smoke.sh all see it.
harness_failure() {
    local file="$work/$1.failure$((++failures)).csv"
    echo 'name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message' >"$file"
    echo "\"harness/family:$1\",,,,,,,,true,\"error: $2\"" >>"$file"
    csvs+=("$file")
}
failures=0

for index in "${!families[@]}"; do
    family=${families[$index]} title=${titles[$index]}
    family_repetitions=$repetitions
    [[ $family != wake ]] || family_repetitions=$wake_repetitions
    "$binary" --rl_family="$family" "${common[@]}" "${selection[@]}" --benchmark_list_tests=true 2>/dev/null |
        grep '^BM_' >"$work/$family.all" || true
    count=$(wc -l <"$work/$family.all")
    if ((count == 0)); then
        echo "bench: [$((index + 1))/${#families[@]}] $title: no benchmark matches, skipped" >&2
        continue
    fi
    echo "bench: [$((index + 1))/${#families[@]}] $title: $count benchmarks x $family_repetitions repetitions ..." >&2
    started=$SECONDS
    family_selection=("${selection[@]}")
    attempt=0
    # One attempt per process; after a hang (exit 3: the watchdog wrote the finished rows and the hung one's error
    # row) the next attempt runs exactly the benchmarks with no row yet. Each attempt finishes at least one
    # benchmark or ends the loop, so there are at most `count` of them.
    while :; do
        attempt=$((attempt + 1))
        csv="$work/$family.$attempt.csv" log="$work/$family.$attempt.log"
        code=0
        timeout -k 10 "$family_limit" "$binary" --rl_family="$family" "${common[@]}" "${family_selection[@]}" \
            --benchmark_repetitions="$family_repetitions" --benchmark_out="$csv" \
            --benchmark_out_format=csv >"$log" 2>&1 || code=$?
        [[ -s $csv ]] && csvs+=("$csv")
        ((code == 0)) && break
        status=1
        if ((code == 3)) && [[ -s $csv ]]; then
            grep "watchdog" "$log" | sed "s/^/bench: [$((index + 1))\/${#families[@]}] $title: /" >&2 || true
            cat "$work/$family".*.csv | grep '^"BM_' | cut -d, -f1 | tr -d '"' | base_names | sort -u >"$work/$family.done"
            base_names <"$work/$family.all" | sort -u | comm -23 - "$work/$family.done" >"$work/$family.rest"
            rest=$(wc -l <"$work/$family.rest")
            ((rest > 0 && attempt < count)) || break
            echo "bench: [$((index + 1))/${#families[@]}] $title: running the $rest benchmarks not yet done" >&2
            # Names hold only letters, digits, '_', ':' and '/': no regex metacharacters to escape.
            family_selection=(--benchmark_filter="^($(paste -sd'|' "$work/$family.rest"))(/|\$)")
            continue
        fi
        tail -n 20 "$log" >&2
        if ((code == 124 || code == 137)); then
            message="the family process did not finish in $family_limit s (outer watchdog)"
        else
            message="the harness exited with status $code"
        fi
        echo "bench: [$((index + 1))/${#families[@]}] $title: $message (last 20 lines above)" >&2
        harness_failure "$family" "$message"
        break
    done
    errors=$(cat "$work/$family".*.csv | grep -c ',true,"error:' || true)
    skips=$(cat "$work/$family".*.csv | grep -c ',true,"skipped:' || true)
    echo "bench: [$((index + 1))/${#families[@]}] $title: done in $((SECONDS - started)) s ($skips skipped rows, $errors error rows)" >&2
    ((errors == 0)) || status=1
done
((${#csvs[@]})) || { echo "bench: nothing ran" >&2; exit 1; }
echo "# duration_s: $((SECONDS - run_started))" >>"$work/context"
echo "# load_average_after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$work/context"

# MARK: merge: one header (the union of the families' counters), every row padded to it, GB's context kept as
# "# gb: ..." lines. Google Benchmark 1.7.1's `_cv` aggregate rows are wrong (their times are not ratios, their
# counters can be nan), so they are left out; CV = stddev / mean from the other rows.

awk '
function split_csv(line, fields,    n, i, c, field, quoted) {
    n = 0; field = ""; quoted = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (quoted) {
            field = field c
            if (c == "\"") {
                if (substr(line, i + 1, 1) == "\"") { field = field "\""; i++ } else quoted = 0
            }
        } else if (c == "\"") { quoted = 1; field = field c }
        else if (c == ",") { fields[++n] = field; field = "" }
        else field = field c
    }
    fields[++n] = field
    return n
}
function unquote(text) { gsub(/^"|"$/, "", text); return text }
FNR == 1 { in_table = 0; files++ }
!in_table && /^name,/ {
    in_table = 1
    columns = split_csv($0, header)
    for (i = 11; i <= columns; i++) {
        counter = unquote(header[i]); column_of[files, i] = counter
        if (!(counter in known)) { known[counter] = 1; counters[++counter_count] = counter }
    }
    next
}
!in_table { if (files == 1 && $0 != "") gb_context[++gb_lines] = $0; next }
{
    n = split_csv($0, fields)
    if (unquote(fields[1]) ~ /_cv$/) next
    rows++
    fixed = fields[1]
    for (i = 2; i <= 10; i++) fixed = fixed "," (i <= n ? fields[i] : "")
    row_fixed[rows] = fixed
    for (i = 11; i <= n; i++) value[rows, column_of[files, i]] = fields[i]
}
END {
    for (i = 1; i <= gb_lines; i++) print "# gb: " gb_context[i]
    line = "name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message"
    for (c = 1; c <= counter_count; c++) line = line ",\"" counters[c] "\""
    print line
    for (r = 1; r <= rows; r++) {
        line = row_fixed[r]
        for (c = 1; c <= counter_count; c++) line = line "," ((r, counters[c]) in value ? value[r, counters[c]] : "")
        print line
    }
}' "${csvs[@]}" >"$work/table"
cat "$work/context" "$work/table" >"$out.tmp"
mv "$out.tmp" "$out"

# MARK: summary

awk -v out="$out" -v profile="$profile" '
function split_csv(line, fields,    n, i, c, field, quoted) {
    n = 0; field = ""; quoted = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (quoted) { if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { field = field "\""; i++ } else quoted = 0 } else field = field c }
        else if (c == "\"") quoted = 1
        else if (c == ",") { fields[++n] = field; field = "" }
        else field = field c
    }
    fields[++n] = field
    return n
}
function get(name, column) { return ((name, column) in val) ? val[name, column] : "" }
function scaled(x, divisor) { return x == "" ? "" : x / divisor }  # an engine not in the run stays "-"
function fmt(x, unit) { return x == "" ? "-" : sprintf(x >= 1000 ? "%.0f%s" : "%.3g%s", x, unit) }
function ratio_line(what, a, b, target, unit,    r) {
    if (a == "" || b == "" || b == 0) { printf "  %-52s   n/a (not measured)\n", what; return }
    r = a / b
    printf "  %-52s %6.3fx (target <= %sx)  %s\n", what, r, target, (r <= target ? "met" : "MISSED")
}
/^#/ { next }
/^name,/ { n = split_csv($0, header); for (i = 1; i <= n; i++) col[header[i]] = i; next }
{
    n = split_csv($0, f)
    name = f[1]
    if (f[col["error_occurred"]] == "true") {
        if (f[col["error_message"]] ~ /^skipped:/) skipped++; else { errors++; error_names[errors] = name ": " f[col["error_message"]] }
        base = name; sub(/\/(real|manual)_time$/, "", base); sub(/\/iterations:1$/, "", base)
        failed[base] = 1
        next
    }
    kind = "repetition"
    if (name ~ /_(mean|median|stddev)$/) { kind = name; sub(/.*_/, "", kind); sub(/_(mean|median|stddev)$/, "", name) }
    sub(/\/(real|manual)_time$/, "", name); sub(/\/iterations:1$/, "", name)
    if (kind == "repetition") {
        repetitions_seen++
        # Lateness is held to its worst repetition, not to the median one.
        late = f[col["lateness_max_ns"]]
        if (name ~ /^BM_TimerCoalescing/ && late + 0 > worst[name] + 0) worst[name] = late
        # Early fires are the engine'"'"'s finding, not an error: counted per benchmark over its repetitions.
        if (name ~ /^BM_TimerCoalescing/) {
            measured[name]++
            early = f[col["early_fires"]] + 0
            if (early > 0) {
                if (!(name in early_reps)) early_names[++early_count] = name
                early_reps[name]++; early_total[name] += early
                by = f[col["earliest_by_ns"]] + 0
                if (by > earliest[name]) earliest[name] = by
            }
        }
        if (profile != "smoke") next
    } else {
        aggregates++
        if (kind != "median") next
    }
    for (i = 2; i <= n; i++) val[name, header[i]] = f[i]
}
END {
    split("ref cf glib libuv libevent epoll", engines, " ")
    printf "bench: wrote %s: %d repetition rows, %d aggregate rows, %d skipped, %d errors\n", out, repetitions_seen, aggregates, skipped, errors
    for (e = 1; e <= errors; e++) printf "  ERROR %s\n", error_names[e]
    if (early_count) printf "findings (engines firing timers before their date: counted, not errors):\n"
    for (e = 1; e <= early_count; e++) {
        k = early_names[e]; engine = k; sub(/^[^\/]*\/engine:/, "", engine); sub(/\/.*/, "", engine)
        printf "  FINDING %s: %s: %d early fires in %d of %d repetitions, the earliest %.2f us before its date\n", engine, k, early_total[k], early_reps[k], measured[k], earliest[k] / 1000
    }
    printf "\nwake latency, round trip p50 (median over repetitions):\n"
    split("same/load:none same/load:idle1000 same/load:burn diff/load:none", cases, " ")
    for (c = 1; c <= 4; c++) {
        line = sprintf("  pin:%-20s", cases[c])
        for (e = 1; e <= 6; e++) line = line sprintf(" %s %s", engines[e], fmt(scaled(get("BM_WakeLatency/engine:" engines[e] "/pin:" cases[c], "latency_p50_ns"), 1000), " us"))
        print line
    }
    printf "observer dispatch, ns per callout (median):\n"
    split("1 64 512", ns, " ")
    for (c = 1; c <= 3; c++) {
        line = sprintf("  observers:%-15s", ns[c])
        for (e = 1; e <= 6; e++) { v = get("BM_ObserverDispatch/engine:" engines[e] "/observers:" ns[c], "ns_per_callout"); line = line sprintf(" %s %s", engines[e], v == "" ? "skip" : fmt(v, "")) }
        print line
    }
    printf "timer coalescing, 1,000 timers, no burner: wakeups_per_fire / lateness p99 (median):\n"
    split("0pct 10pct", tols, " ")
    for (c = 1; c <= 2; c++) {
        line = sprintf("  tolerance:%-15s", tols[c])
        for (e = 1; e <= 6; e++) { k = "BM_TimerCoalescing/engine:" engines[e] "/timers:1000/tolerance:" tols[c] "/burn:no"; line = line sprintf(" %s %s/%s", engines[e], fmt(get(k, "wakeups_per_fire"), ""), fmt(scaled(get(k, "lateness_p99_ns"), 1e6), "ms")) }
        print line
    }
    printf "scale, ns per add + remove at N = 10,000 (median):\n"
    split("timer observer source", items, " ")
    for (c = 1; c <= 3; c++) {
        line = sprintf("  item:%-20s", items[c])
        for (e = 1; e <= 6; e++) { k = "BM_Scale/engine:" engines[e] "/item:" items[c] "/n:10000"; a = get(k, "ns_per_add"); line = line sprintf(" %s %s", engines[e], a == "" ? "skip" : fmt(a + get(k, "ns_per_remove"), "")) }
        print line
    }
    if (profile == "smoke") exit
    printf "\ntargets for ref, from this run (ratios of medians over repetitions):\n"
    ratio_line("same-CPU wake latency p50 / epoll", get("BM_WakeLatency/engine:ref/pin:same/load:none", "latency_p50_ns"), get("BM_WakeLatency/engine:epoll/pin:same/load:none", "latency_p50_ns"), 1.10)
    ratio_line("same-CPU wake latency p50 / cf", get("BM_WakeLatency/engine:ref/pin:same/load:none", "latency_p50_ns"), get("BM_WakeLatency/engine:cf/pin:same/load:none", "latency_p50_ns"), 0.85)
    ratio_line("observer ns per callout at N = 64 / cf", get("BM_ObserverDispatch/engine:ref/observers:64", "ns_per_callout"), get("BM_ObserverDispatch/engine:cf/observers:64", "ns_per_callout"), 0.5)
    k = "BM_TimerCoalescing/engine:ref/timers:1000/tolerance:10pct/burn:no"
    ratio_line("wakeups_per_fire, K = 1,000, 10 % tolerance / cf", get(k, "wakeups_per_fire"), get("BM_TimerCoalescing/engine:cf/timers:1000/tolerance:10pct/burn:no", "wakeups_per_fire"), 0.25)
    if (k in worst) printf "  %-52s %6.2f ms (target <= 11 ms: 10 ms tolerance + 1 ms)  %s\n", "worst lateness of ref there, over all repetitions", worst[k] / 1e6, (worst[k] + 0 <= 11e6 ? "met" : "MISSED")
}' "$out" >&2

echo "bench: total $((SECONDS - run_started)) s; CSV: $out" >&2
exit "$status"
