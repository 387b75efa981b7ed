#!/usr/bin/env bash
# The benchmark history at scale: writes N synthetic results CSVs (default 1,000 runs of 1,296 rows each: 6 engines x
# 27 benchmarks x 5 repetitions and 3 aggregates, with the context lines `runloop bench` writes; benchmark case:0 of
# engine ref steps 30 % up half-way), then times `runloop history add` of all of them (one transaction) and a
# `runloop history trend` over them, and prints the database's size.
#
#   scripts/history-scale.sh [--runs N] [--keep DIR] [--binary PATH]
#
# Uses the release build (`swift build -c release --product runloop`, built if missing). Nothing here is part of the
# shipped CLI: the generator is this script's awk.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=1000 keep="" binary=.build/release/runloop
while [[ $# -gt 0 ]]; do
    case $1 in
        --runs) runs=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        --binary) binary=$2; shift 2 ;;
        *) echo "usage: scripts/history-scale.sh [--runs N] [--keep DIR] [--binary PATH]" >&2; exit 2 ;;
    esac
done
[[ $runs =~ ^[0-9]+$ && $runs -ge 1 ]] || { echo "error: --runs takes a positive number, not '$runs'" >&2; exit 2; }

if [[ ! -x $binary ]]; then
    echo "building $binary (swift build -c release --product runloop)" >&2
    swift build -c release --product runloop >&2
fi

work=${keep:-$(mktemp -d)}
mkdir -p "$work/csv"
[[ -n $keep ]] || trap 'rm -rf "$work"' EXIT

start=$(date +%s.%N)
# Google Benchmark's header with the two counters.
header='name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,'
header+='error_message,"latency_p50_ns","latency_p99_ns"'
awk -v runs="$runs" -v dir="$work/csv" -v header="$header" 'BEGIN {
    srand(12345)
    split("ref cf glib libuv libevent epoll", engines, " ")
    for (r = 0; r < runs; r++) {
        file = sprintf("%s/synthetic-%05d.csv", dir, r)
        t = 1767225600 + r * 3600
        printf "# label: kvm-2cpu\n# date: %s\n", strftime("%Y-%m-%dT%H:%M:%SZ", t, 1) > file
        printf "# profile: full (repetitions 5, min_time 0.3 s, random interleaving, every repetition kept)\n" > file
        printf "# command: scripts/history-scale.sh\n# filter: (all)\n# cpu_model: AMD EPYC\n# cpus: 2 (kvm)\n" > file
        printf "# commit: %07x%033d (0 uncommitted paths)\n", r + 1, 0 > file
        for (e = 1; e <= 6; e++) printf "# engine_%s: synthetic %s\n", engines[e], engines[e] > file
        print header > file
        for (e = 1; e <= 6; e++) {
            for (b = 0; b < 27; b++) {
                name = sprintf("BM_Synthetic/engine:%s/case:%d/manual_time", engines[e], b)
                level = 1000 * (1 + b) * (1 + e / 10)
                if (e == 1 && b == 0 && r >= runs / 2) level *= 1.3
                sum = 0
                for (k = 0; k < 5; k++) {
                    v = level * (1 + 0.04 * (rand() - 0.5)); sum += v
                    printf "\"%s\",1000,%.2f,%.2f,ns,,,,,,%.0f,%.0f\n", name, v, v / 2, v * 0.9, v * 1.8 > file
                }
                m = sum / 5
                printf "\"%s_mean\",5,%.2f,%.2f,ns,,,,,,%.0f,%.0f\n", name, m, m / 2, m * 0.9, m * 1.8 > file
                printf "\"%s_median\",5,%.2f,%.2f,ns,,,,,,%.0f,%.0f\n", name, m, m / 2, m * 0.9, m * 1.8 > file
                printf "\"%s_stddev\",5,%.2f,%.2f,ns,,,,,,%.0f,%.0f\n", name, m / 50, m / 100, m / 60, m / 30 > file
            }
        }
        close(file)
    }
}'
generated=$(date +%s.%N)
rows=$(grep -vc '^#' "$work/csv/synthetic-00000.csv" || true)
printf 'generated %d runs of %d rows (header included) in %.1f s\n' "$runs" "$rows" "$(awk "BEGIN { print $generated - $start }")"

db="$work/history.sqlite"
rm -f "$db"
t0=$(date +%s.%N)
find "$work/csv" -name '*.csv' | sort | xargs "$binary" history add --db "$db" >/dev/null
t1=$(date +%s.%N)
"$binary" history trend --db "$db" 'BM_Synthetic/engine:ref/case:0/' >"$work/trend.txt"
t2=$(date +%s.%N)
"$binary" history trend --db "$db" 'BM_Synthetic/.*/case:0/' --html "$work/trend.html" >/dev/null
t3=$(date +%s.%N)
"$binary" history check --db "$db" >/dev/null && check=0 || check=$?
t4=$(date +%s.%N)
printf 'history add of %d runs (one transaction): %.1f s\n' "$runs" "$(awk "BEGIN { print $t1 - $t0 }")"
printf 'history trend of one benchmark and engine over %d runs (with change points): %.3f s\n' "$runs" "$(awk "BEGIN { print $t2 - $t1 }")"
printf 'history trend of one benchmark on 6 engines with the HTML page: %.3f s\n' "$(awk "BEGIN { print $t3 - $t2 }")"
printf 'history check of the newest run: %.3f s (exit %d)\n' "$(awk "BEGIN { print $t4 - $t3 }")" "$check"
printf 'database: %s bytes (%d MiB)\n' "$(stat -c %s "$db")" "$(( $(stat -c %s "$db") / 1048576 ))"
grep 'change point' "$work/trend.txt" || echo "no change point found in the trend (expected one at run $((runs / 2)))"
