#!/usr/bin/env bash
# Runs the run-loop benchmarks (Benchmarks/README.md) and writes one Google Benchmark CSV with the run's context.
#
#   scripts/bench.sh [--quick] [--filter REGEX] [--out FILE] [--label LABEL] [--engines LIST] [--repetitions N]
#
#   --quick          shorter measurements (coalescing windows of 0.1 s, scale up to N = 10,000): under 3 minutes
#   --filter REGEX   only benchmarks whose name matches (Google Benchmark's --benchmark_filter)
#   --out FILE       where to write the CSV (default results/<label>-<date>.csv)
#   --label LABEL    the label in the default file name (default <virtualisation>-<CPUs>cpu[-quick])
#   --engines LIST   comma-separated subset of the harness's engines (all_engines() in Benchmarks/Harness/common.cpp:
#                    ref,cf,glib,libuv,libevent,dispatch,nio,epoll), and cf:PATH for any CoreFoundation
#                    library loaded at run time (named cf:NAME after its file)
#   --repetitions N  repetitions per benchmark (default and minimum 5, wake latency at least 9; every one is kept)
#   --smoke          what scripts/bench-smoke.sh runs: every benchmark once, meaningless figures
#   --watchdog S     end a benchmark call that takes longer than S seconds (default: the profile's, in the harness);
#                    after two such hangs of one engine in a family, its other benchmarks there become skipped rows
#
# Builds the harness, its own package (Benchmarks/Package.swift), in release mode (scratch path .build-bench at the
# repository root), runs the families one after the other, each as one Google Benchmark invocation with random
# interleaving of its repetitions (scale and wake latency: one process per benchmark and repetition, in rounds of
# random order; see isolated_families), merges their CSVs under one header (a counter a family does not have is an empty
# cell), puts "# key: value" context lines first, and prints the summary of `runloop report` (the tables and the
# targets of Benchmarks/targets.yaml, and the engines' findings: timers fired early are counted, not errors). A
# benchmark that hangs is ended by the harness's watchdog, which writes the finished rows and an error row for it
# ("error: no result after N s") and exits 3; the rest of that family then runs in a new process. Every family
# process also runs under an outer `timeout` as a last resort. Exit status: 0, or 1 if a benchmark reported an error
# (a skip is not an error, nor is an engine's finding) or the harness failed (a crash, a hang), 2 for bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

usage() { sed -n '4,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

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
# `runloop results` reads and writes the CSVs below, and `runloop report` prints the summary: built before any
# benchmark runs, so that a broken build costs no run.
runloop=$(build_runloop bench "$work/runloop-build.log") || exit 1

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
# The version SwiftPM resolved for a package dependency of the harness (its workspace state in the scratch path).
resolved_version() {
    python3 -c 'import json, sys
state = json.load(open(sys.argv[1]))
print(next((d["state"]["checkoutState"].get("version", "revision " + d["state"]["checkoutState"]["revision"])
            for d in state["object"]["dependencies"] if d["packageRef"]["identity"] == sys.argv[2]), "unknown"))' \
        "$scratch/workspace-state.json" "$1" 2>/dev/null || echo unknown
}
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
    echo "# swiftnio: $(resolved_version swift-nio) (SwiftPM's resolution for Benchmarks/Package.swift)"
    echo "# libdispatch: the Swift toolchain's (the swift line; its path and build id in engine_dispatch)"
    "$binary" --rl_describe ${engines:+--rl_engines="$engines"}
} >"$work/context"

# MARK: run the families

# The families and their titles are the harness's own list (kFamilies in Benchmarks/Harness/main.cpp).
families=() titles=()
while IFS=$'\t' read -r family title; do
    families+=("$family") titles+=("$title")
done < <("$binary" --rl_list_families)
((${#families[@]})) || { echo "bench: the harness lists no benchmark family (--rl_list_families)" >&2; exit 1; }
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

# harness_failure FAMILY MESSAGE [NAME]: a CSV with one error row for a process that left no row behind for what
# did not run (a crash, the outer watchdog), so the merged CSV, the summary and bench-smoke.sh all see it. The row is
# named NAME (a benchmark of an isolated family) or else harness/family:FAMILY.
harness_failure() {
    local file="$work/$1.failure$((++failures)).csv"
    "$runloop" results error-rows --message "error: $2" "${3:-harness/family:$1}" >"$file"
    csvs+=("$file")
}
failures=0

# skip_rows FAMILY MESSAGE < NAMES: a CSV with one "skipped: MESSAGE" row per benchmark name on stdin. Call it in
# this shell (input by redirection, not a pipeline), so that its file joins `csvs`.
skip_rows() {
    local file="$work/$1.failure$((++failures)).csv" names
    mapfile -t names
    "$runloop" results error-rows --message "skipped: $2" "${names[@]}" >"$file"
    csvs+=("$file")
}

# A family's bound on a hanging engine: after kHangsPerEngine watchdog expiries of one engine's benchmarks in a family,
# the rest of that engine's benchmarks in the family are not run but become rows "skipped: engine hung twice ...", so
# an engine that hangs everywhere costs two watchdog periods per family, not one per benchmark (39 x 30 s in smoke).
hangs_per_engine=2
# engine_of NAME: the engine argument of a benchmark name (BM_X/engine:NAME/...).
engine_of() { sed -E 's#^[^/]*/engine:([^/]+).*#\1#' <<<"$1"; }
# note_hang FAMILY NAME: counts a watchdog expiry of benchmark NAME against its engine; sets `hung` to the engine
# when that was its hangs_per_engine-th in the family, else to "". (Not in a subshell: it updates `hangs`.)
declare -A hangs=()
note_hang() {
    local engine
    engine=$(engine_of "$2")
    hangs[$1/$engine]=$((${hangs[$1/$engine]:-0} + 1))
    hung=""
    ((${hangs[$1/$engine]} != hangs_per_engine)) || hung=$engine
}
# hung_engine FAMILY NAME: succeeds when NAME's engine already hung hangs_per_engine times in FAMILY.
hung_engine() { ((${hangs[$1/$(engine_of "$2")]:-0} >= hangs_per_engine)); }
hung_message="engine hung twice in this family (watchdog); its other benchmarks here were not run"

# family_rows FAMILY ARGUMENTS...: `runloop results rows ARGUMENTS` over the family's CSVs so far (none: nothing).
family_rows() {
    local files
    mapfile -t files < <(compgen -G "$work/$1.*.csv" || true)
    ((${#files[@]} == 0)) || "$runloop" results rows "${@:2}" "${files[@]}"
}

# report_family INDEX FAMILY TITLE: the family's line after its run, and its error rows counted against the run.
report_family() {
    local errors skips
    errors=$(family_rows "$2" --kind error | wc -l) || status=1
    skips=$(family_rows "$2" --kind skipped | wc -l) || status=1
    echo "bench: [$(($1 + 1))/${#families[@]}] $3: done in $((SECONDS - started)) s ($skips skipped rows, $errors error rows)" >&2
    ((errors == 0)) || status=1
}

# The families whose benchmarks each run in a process of their own, one repetition per process: in BM_Scale an
# iteration's cost depends on the allocator's state, which every earlier benchmark in the process left behind (where
# the free chunks lie, what one engine's retained memory does to the next one's layout), so one engine's figures moved
# with which others ran before it. The repetitions are still interleaved: each round runs every benchmark once, in a
# new random order (shuf). Wake latency too: what one engine keeps for all its repetitions in a process (where its
# threads' stacks and buffers landed, which CPU the hypervisor's wake-up interrupt goes to) belongs to the process, so
# five runs with every repetition in one process gave cross-CPU figures 6-24 % apart (results/stability/); with one
# process per repetition the median is taken over processes.
isolated_families=(scale wake)

# run_isolated INDEX FAMILY TITLE REPETITIONS: the family's benchmarks, one process per benchmark and repetition. A
# process that fails leaves its rows (a hang: the watchdog's error row) or, if none, an error row for its benchmark.
run_isolated() {
    local index=$1 family=$2 title=$3 rounds=$4 round name run=0 csv log code rows
    for ((round = 1; round <= rounds; round++)); do
        while read -r name; do
            if hung_engine "$family" "$name"; then
                # Not in a pipeline: skip_rows must run in this shell to add its file to `csvs`.
                ((round > 1)) || skip_rows "$family" "$hung_message" < <(base_names <<<"$name")
                continue
            fi
            run=$((run + 1))
            csv="$work/$family.$run.csv" log="$work/$family.$run.log"
            code=0
            # Names hold only letters, digits, '_', ':' and '/': no regex metacharacters to escape.
            timeout -k 10 "$family_limit" "$binary" --rl_family="$family" "${common[@]}" \
                --benchmark_filter="^$name\$" --benchmark_repetitions=1 --benchmark_out="$csv" \
                --benchmark_out_format=csv >"$log" 2>&1 || code=$?
            [[ -s $csv ]] && csvs+=("$csv")
            ((code == 0)) && continue
            status=1
            { grep "watchdog" "$log" || tail -n 5 "$log"; } | sed "s|^|bench: [$((index + 1))/${#families[@]}] $title: $name: |" >&2
            if ((code == 3)); then
                note_hang "$family" "$name"
                [[ -z $hung ]] ||
                    echo "bench: [$((index + 1))/${#families[@]}] $title: engine $hung hung twice: its other benchmarks in this family are skipped" >&2
            fi
            rows=$("$runloop" results rows --names "$csv" 2>/dev/null || true)
            grep -q "^$(base_names <<<"$name")" <<<"$rows" ||
                harness_failure "$family" "the harness exited with status $code" "$name"
        done < <(shuf "$work/$family.all")
    done
}

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
    if [[ " ${isolated_families[*]} " == *" $family "* ]]; then
        run_isolated "$index" "$family" "$title" "$family_repetitions"
        report_family "$index" "$family" "$title"
        continue
    fi
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
            { family_rows "$family" --names || true; } | grep '^BM_' | base_names | sort -u >"$work/$family.done"
            base_names <"$work/$family.all" | sort -u | comm -23 - "$work/$family.done" >"$work/$family.rest"
            # The benchmark that hung is the last row of this attempt's CSV ("error: no result after N s").
            hung_name=$({ "$runloop" results rows --kind error --message-prefix "error: no result after" --names "$csv" ||
                true; } | tail -n 1)
            if [[ -n $hung_name ]]; then
                note_hang "$family" "$hung_name"
                if [[ -n $hung ]]; then
                    echo "bench: [$((index + 1))/${#families[@]}] $title: engine $hung hung twice: its other benchmarks in this family are skipped" >&2
                    skip_rows "$family" "$hung_message" < <(grep "/engine:$hung/" "$work/$family.rest" || true)
                    grep -v "/engine:$hung/" "$work/$family.rest" >"$work/$family.rest.new" || true
                    mv "$work/$family.rest.new" "$work/$family.rest"
                fi
            fi
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
    report_family "$index" "$family" "$title"
done
((${#csvs[@]})) || { echo "bench: nothing ran" >&2; exit 1; }
echo "# duration_s: $((SECONDS - run_started))" >>"$work/context"
echo "# load_average_after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$work/context"

# MARK: merge: one header (the union of the families' counters), every row padded to it, GB's context kept as
# "# gb: ..." lines, GB 1.7.1's wrong `_cv` rows left out (ResultsMerge in Sources/ResultsKit).

if ! "$runloop" results merge "${csvs[@]}" >"$work/table"; then
    echo "bench: the families' CSVs could not be merged (message above); they are in $work, kept" >&2
    trap - EXIT
    exit 1
fi
cat "$work/context" "$work/table" >"$out.tmp"
mv "$out.tmp" "$out"

# MARK: summary: `runloop report` prints the row counts, errors, findings, the summary tables and the targets of
# Benchmarks/targets.yaml (the numbers live there, the logic in ReportKit).

"$runloop" report "$out" --targets Benchmarks/targets.yaml >&2 || {
    echo "bench: runloop report could not summarise $out (message above)" >&2
    status=1
}

echo "bench: total $((SECONDS - run_started)) s; CSV: $out" >&2
exit "$status"
