#!/usr/bin/env bash
# Measures the spec against automatic mutants of `ref` (mutant schemata: every mutant in one build).
#
#   scripts/mutants.sh [SELECTION] [--format table|tsv] [--timeout S] [--mutant-timeout S] [--parallel N]
#                      [--budget SECONDS] [--spin VALUE] [--unit-tests] [--fuzz SECONDS [--fuzz-seed N]]
#   scripts/mutants.sh [SELECTION] --list | --check
#
#   --only ID|KEY    only this mutant (repeatable; ids are those of --list, keys are stable)
#   --operator OPS   only these operators, comma-separated (negate-condition, replace-comparison, drop-call,
#                    drop-assignment, swap-statements, return-early, off-by-one)
#   --file NAMES     only the mutants of these files of Sources/RefRunLoop, comma-separated
#   --sample N       a uniform sample of N of the selected mutants (seeded: --seed S, default 1); the report then
#                    covers the sample only, covered or not, so its score estimates the whole selection's
#   --list           print the selected mutants (id, file:line, key) and exit; --check: check the equivalents file
#                    against the mutants (no build) and exit
#   --format F       the report as a table (default) or tsv
#   --timeout S      watchdog per case (default 3 s: a mutant that hangs a case is killed by it)
#   --mutant-timeout S  outer deadline of each of one mutant's runs (default 300 s): past it, the mutant is "timed out"
#   --parallel N     mutants run at the same time (default 2), each with `--jobs 4` workers
#   --budget S       start no mutant after S seconds (default: none); those left are "not run" in the report (the
#                    mutants run in a shuffled order, so the ones a budget leaves out are a random few)
#   --resume         keep the results of the last run (.build-mutation/auto/results.tsv) and run only the others
#   --spin VALUE     a second configuration of the spec: a mutant the spec does not kill (or whose sites it does not
#                    reach) runs the whole spec again with REF_RUNLOOP_SPIN=VALUE (`every`: the spin before every
#                    wait; 1 or Nus: the governor's spin); killed there, it is "killed-spin"
#   --unit-tests     a second oracle outside the spec: a mutant no spec run kills runs the fast subset of ref's
#                    unit tests that scripts/mutation/unit-tests.txt names (the test bundle of the schemata build,
#                    as `swift test --skip-build` runs it); failed there, it is "killed-unit" (ref's own contract,
#                    such as its counters, not CF's behaviour)
#   --fuzz SECONDS   instead of the spec, `runloop fuzz --engines cf,ref --time SECONDS --until-found` against each
#                    mutant: killed when the fuzzer finds a divergence run twice (as scripts/mutation.sh --fuzz)
#   --fuzz-seed N    the fuzzer's first seed (default 1)
#
# How: Tools/Mutants (its own package, swift-syntax) generates the mutants of Sources/RefRunLoop/*.swift and writes
# instrumented copies where each site is switched by `__refMutantIs(id)` (REF_MUTANT=id picks the active mutant). The
# script copies the working tree to .build-mutation/auto/tree with those copies as Sources/RefRunLoop (the working
# tree is never changed) and builds `runloop` once (debug; with --unit-tests, the test products too). A mutant that
# makes the build fail is traced back from the compiler's errors (`ref-mutants blame`), left out, and the schemata
# generated again. Then the unmutated build (REF_MUTANT unset) must pass the whole spec on ref; that run is also the
# coverage run (REF_MUTANT_COVERAGE: which sites the spec reaches, in any worker process). With --spin, the unmutated
# build must pass the spec under REF_RUNLOOP_SPIN too, and with --unit-tests the chosen unit tests; each of those
# runs records its own coverage. Each mutant some oracle reaches then runs the whole spec on ref (`runloop conform
# --engine ref --jobs 4 --fail-fast`) when the spec reaches it: "killed" when a case is not as expected (or the
# runner dies), "timed out" past --mutant-timeout. One that passes (or that the spec does not reach) goes on to the
# spin configuration when that reaches it, then to the unit tests when they reach it: "killed-spin", "killed-unit",
# or "survived" when every oracle run passed. Mutants no oracle reaches are "not covered"; those listed in
# scripts/mutation/equivalent-mutants.tsv (key TAB why) are "equivalent". The report counts them per file and per
# operator and gives three scores, overall and over the semantic files (scripts/mutation/semantic-files.txt), each
# over the same mutants (killed + killed-spin + killed-unit + survived + timed out + not covered): `score`, the
# spec's own (killed by the spec as the conformance runs it: the second oracles never raise it), `spec+spin`
# (killed or killed-spin) and `combined` (any oracle). It lists the survivors with their keys, and which second
# oracle killed each of the others, with the first failure it reported.
#
# Files: .build-mutation/auto/ holds the manifest (mutants.tsv), the results (results.tsv, one line per mutant as it
# ends), the coverage (covered.txt: the spec's; covered-spin.txt, covered-unit.txt; covered-any.txt: their union),
# the build log and the report (report.txt).
#
# Exit status: 0 when no mutant survives, 1 when one survives or times out, 2 for bad arguments, a bad equivalents
# file, a schemata build that fails outside any mutant, or an unmutated ref that fails an oracle.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
source scripts/lib/setup.sh

usage() { sed -n '4,32p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

mode=run format=table case_timeout=3 mutant_timeout=300 parallel=2 budget="" fuzz_seconds="" fuzz_seed=1 resume=0
spin="" unit_tests=0
selection=()
while (($#)); do
    case "$1" in
        --list) mode=list ;;
        --check) mode=check ;;
        --resume) resume=1 ;;
        --unit-tests) unit_tests=1 ;;
        --spin) (($# >= 2)) || usage; spin=$2; shift ;;
        --only|--operator|--file|--sample|--seed) (($# >= 2)) || usage; selection+=("$1" "$2"); shift ;;
        --format) (($# >= 2)) || usage; format=$2; shift ;;
        --timeout) (($# >= 2)) || usage; case_timeout=$2; shift ;;
        --mutant-timeout) (($# >= 2)) || usage; mutant_timeout=$2; shift ;;
        --parallel) (($# >= 2)) || usage; parallel=$2; shift ;;
        --budget) (($# >= 2)) || usage; budget=$2; shift ;;
        --fuzz) (($# >= 2)) || usage; fuzz_seconds=$2; shift ;;
        --fuzz-seed) (($# >= 2)) || usage; fuzz_seed=$2; shift ;;
        -h|--help) usage ;;
        *) echo "mutants: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done
[[ $format == table || $format == tsv ]] || { echo "mutants: --format is table or tsv, not '$format'" >&2; exit 2; }
[[ $case_timeout =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "mutants: --timeout needs a number of seconds" >&2; exit 2; }
[[ $mutant_timeout =~ ^[1-9][0-9]{0,5}$ ]] ||
    { echo "mutants: --mutant-timeout needs a number of seconds" >&2; exit 2; }
[[ $parallel =~ ^[1-8]$ ]] || { echo "mutants: --parallel is 1 to 8" >&2; exit 2; }
[[ -z $budget || $budget =~ ^[1-9][0-9]{0,6}$ ]] || { echo "mutants: --budget needs a number of seconds" >&2; exit 2; }
[[ -z $fuzz_seconds || $fuzz_seconds =~ ^[1-9][0-9]{0,4}$ ]] ||
    { echo "mutants: --fuzz needs a number of seconds" >&2; exit 2; }
[[ $fuzz_seed =~ ^[0-9]{1,19}$ ]] || { echo "mutants: --fuzz-seed needs a number" >&2; exit 2; }
[[ -z $spin || $spin =~ ^(every|1|[1-9][0-9]{0,5}us)$ ]] ||
    { echo "mutants: --spin is every, 1 or Nus (a REF_RUNLOOP_SPIN value), not '$spin'" >&2; exit 2; }
[[ -z $fuzz_seconds || (-z $spin && $unit_tests == 0) ]] ||
    { echo "mutants: --spin and --unit-tests add oracles to the spec runs, not to --fuzz" >&2; exit 2; }

require_swift
ensure_packages jq rsync
scratch=$repo/.build-mutation/auto
tree=$scratch/tree
build=$scratch/build
equivalents=scripts/mutation/equivalent-mutants.tsv
unit_list=scripts/mutation/unit-tests.txt
semantic=scripts/mutation/semantic-files.txt
mkdir -p "$scratch"
unit_filters=()
if ((unit_tests)); then
    mapfile -t unit_filters < <(grep -v '^#' "$unit_list" | grep . || true)
    ((${#unit_filters[@]})) || { echo "mutants: --unit-tests: $unit_list names no test" >&2; exit 2; }
fi

echo "mutants: building ref-mutants (Tools/Mutants)" >&2
if ! swift build --package-path Tools/Mutants --product ref-mutants >"$scratch/tool-build.log" 2>&1; then
    tail -n 20 "$scratch/tool-build.log" >&2
    echo "mutants: building ref-mutants failed" >&2
    exit 2
fi
tool=$(swift build --package-path Tools/Mutants --show-bin-path)/ref-mutants

# generate: the schemata into the scratch tree (the mutants in $scratch/excluded.txt left out), copied by content so
# that an unchanged file keeps its date and the next build does not compile it again.
generate() {
    "$tool" generate --sources "$repo/Sources/RefRunLoop" --out "$scratch/schemata" \
        --manifest "$scratch/mutants.tsv" --spans "$scratch/spans.tsv" --exclude "$scratch/excluded.txt" >&2 &&
        rsync -rc --delete "$scratch/schemata/" "$tree/Sources/RefRunLoop/"
}

# The working tree as it is (uncommitted changes included), without build folders, git metadata, the tool and the
# reference loop's sources (the schemata take their place).
rsync -a --delete --exclude '/.build*' --exclude '/.git' --exclude '/results' --exclude '/Tools/Mutants/.build' \
    --exclude '/Sources/RefRunLoop/' "$repo/" "$tree/"
: >"$scratch/excluded.txt"
generate || exit 2

case $mode in
    list)
        "$tool" select --manifest "$scratch/mutants.tsv" --equivalents "$equivalents" --format tsv "${selection[@]}"
        exit ;;
    check)
        "$tool" select --manifest "$scratch/mutants.tsv" --equivalents "$equivalents" "${selection[@]}" >/dev/null
        echo "mutants: $equivalents matches the mutants of Sources/RefRunLoop" >&2
        exit 0 ;;
esac

# Build the schemata; a mutant whose text does not compile is left out and the schemata generated again.
started=$SECONDS
build_what=(--product runloop)
((unit_tests)) && build_what=(--build-tests)
for round in 1 2 3 4 5 6; do
    echo "mutants: building the schemata (round $round)" >&2
    if swift build --package-path "$tree" --scratch-path "$build" "${build_what[@]}" >"$scratch/build.log" 2>&1; then
        break
    fi
    if ! blamed=$("$tool" blame --out "$tree/Sources/RefRunLoop" --manifest "$scratch/mutants.tsv" \
        --spans "$scratch/spans.tsv" --log "$scratch/build.log") || [[ -z $blamed ]]; then
        grep -m 20 'error:' "$scratch/build.log" >&2 || tail -n 20 "$scratch/build.log" >&2
        echo "mutants: the schemata do not build, and the errors are in no mutant's text ($scratch/build.log)" >&2
        exit 2
    fi
    echo "mutants: left out (they do not compile):" >&2
    sed 's/^/  /' <<<"$blamed" >&2
    printf '%s\n' "$blamed" >>"$scratch/excluded.txt"
    generate || exit 2
    ((round < 6)) || { echo "mutants: still no build after $round rounds ($scratch/build.log)" >&2; exit 2; }
done
binary=$build/debug/runloop
left_out=$(grep -c . "$scratch/excluded.txt" || true)

# The spec run of every mutant, and of the unmutated build first: the same command, so that a mutant's run that fails
# fails because of the mutant, never because of its arguments.
spec_run=("$binary" conform --engine ref --expectations none --timeout "$case_timeout" --jobs 4 --fail-fast
    --format json)

# unit_run: ref's chosen unit tests on the schemata build, the test bundle run directly (as `swift test --skip-build`
# runs it, without SwiftPM's lock on the build folder, so that two mutants run at once); REF_MUTANT and
# REF_MUTANT_COVERAGE pass through the environment.
unit_run=("$build/debug/RunLoopSuitePackageTests.xctest" --testing-library swift-testing)
for filter in "${unit_filters[@]}"; do
    if [[ $filter == !* ]]; then unit_run+=(--skip "${filter#!}"); else unit_run+=(--filter "$filter"); fi
done

# baseline NAME FILE ENV... -- COMMAND...: the unmutated build must pass this oracle; the same run records which
# sites it reaches in FILE.
baseline() {
    local name=$1 file=$2 environment=() baseline_started=$SECONDS
    shift 2
    while [[ $1 != -- ]]; do environment+=("$1"); shift; done
    shift
    rm -rf "$scratch/coverage" && mkdir -p "$scratch/coverage"
    echo "mutants: the unmutated schemata on $name, recording coverage" >&2
    if ! env "${environment[@]}" REF_MUTANT_COVERAGE="$scratch/coverage/sites" timeout 900 "$@" \
        >"$scratch/baseline-$name.out" 2>"$scratch/baseline-$name.err"; then
        tail -n 5 "$scratch/baseline-$name.err" "$scratch/baseline-$name.out" >&2
        echo "mutants: the unmutated ref does not pass $name, so no mutant can be measured by it" >&2
        exit 2
    fi
    echo "mutants: the unmutated $name run took $((SECONDS - baseline_started)) s" >&2
    cat "$scratch/coverage"/sites.* 2>/dev/null | sort -un >"$scratch/$file"
}
baseline spec covered.txt -- "${spec_run[@]}"
: >"$scratch/covered-spin.txt" && : >"$scratch/covered-unit.txt"
[[ -z $spin ]] || baseline spin covered-spin.txt "REF_RUNLOOP_SPIN=$spin" -- "${spec_run[@]}"
((unit_tests == 0)) || baseline unit-tests covered-unit.txt -- "${unit_run[@]}"
sort -un "$scratch"/covered{,-spin,-unit}.txt >"$scratch/covered-any.txt"
# In a shuffled order (seeded: the same every run), so that a budget leaves out a random few, not the last files.
mapfile -t ids < <("$tool" select --manifest "$scratch/mutants.tsv" --equivalents "$equivalents" \
    --coverage "$scratch/covered-any.txt" "${selection[@]}" | shuf --random-source=<(yes))
if ((resume)) && [[ -f $scratch/results.tsv ]]; then
    mapfile -t ids < <(printf '%s\n' "${ids[@]}" | grep -vxF -f <(cut -f1 "$scratch/results.tsv") || true)
    echo "mutants: resuming: $(grep -c . "$scratch/results.tsv") results kept" >&2
else
    : >"$scratch/results.tsv"
fi
generated=$(($(wc -l <"$scratch/mutants.tsv") - 1))
echo "mutants: $generated mutants ($left_out left out: no compile), $(wc -l <"$scratch/covered.txt") mutants" \
    "reached by the spec, $(wc -l <"$scratch/covered-any.txt") by some oracle, ${#ids[@]} to run" >&2

# run_mutant ID: one line "ID<TAB>verdict<TAB>detail" into $scratch/runs/ID. `timeout` signals its whole process
# group, the runner's workers included, so no worker of a timed-out mutant outlives it.
run_mutant() {
    local id=$1 out=$scratch/runs/$1 status=0 detail
    if [[ -n $fuzz_seconds ]]; then
        rm -rf "$scratch/runs/$id.fuzz"
        REF_MUTANT=$id timeout -k 10 "$mutant_timeout" "$binary" fuzz --engines cf,ref --seed "$fuzz_seed" \
            --time "$fuzz_seconds" --until-found --shrink-seconds 0 --out "$scratch/runs/$id.fuzz" --format json \
            >"$out.json" 2>"$out.err" || status=$?
        if ((status == 124 || status == 137)); then
            printf '%s\ttimed-out\t%s s\n' "$id" "$mutant_timeout" >"$out"
        elif detail=$(jq -er '[.findings[] | select(.explained_by == null and .rechecked)]
                | if length > 0 then .[0] | "found after \(.found_after_seconds) s, seed \(.seed)" else null end' \
                "$out.json" 2>/dev/null); then
            printf '%s\tkilled\t%s\n' "$id" "$detail" >"$out"
        elif jq -e '.findings' "$out.json" >/dev/null 2>&1; then
            printf '%s\tsurvived\tnot found in %s s\n' "$id" "$fuzz_seconds" >"$out"
        else
            printf '%s\tkilled\tthe fuzzer failed (status %s)\n' "$id" "$status" >"$out"
        fi
    else
        # The oracles in turn, each only where it reaches the mutant's site; the first that fails gives the verdict.
        if grep -qxF "$id" "$scratch/covered.txt"; then
            spec_oracle "$id" "$out" "" killed && return
        fi
        if [[ -n $spin ]] && grep -qxF "$id" "$scratch/covered-spin.txt"; then
            spec_oracle "$id" "$out" "$spin" killed-spin && return
        fi
        if ((unit_tests)) && grep -qxF "$id" "$scratch/covered-unit.txt"; then
            status=0
            REF_MUTANT=$id timeout -k 10 "$mutant_timeout" "${unit_run[@]}" >"$out.unit" 2>&1 || status=$?
            if ((status == 124 || status == 137)); then
                printf '%s\ttimed-out\tunit tests: %s s\n' "$id" "$mutant_timeout" >"$out"
                return
            elif ((status != 0)); then
                detail=$(grep -m1 -E "recorded an issue|' failed|Fatal error|Program crashed|error:|✘" "$out.unit" ||
                    echo "exit $status")
                printf '%s\tkilled-unit\t%s\n' "$id" "$(tr '\t' ' ' <<<"$detail" | cut -c1-160)" >"$out"
                return
            fi
        fi
        printf '%s\tsurvived\t\n' "$id" >"$out"
    fi
}

# spec_oracle ID OUT SPIN VERDICT: the whole spec on the mutant (under REF_RUNLOOP_SPIN=SPIN when SPIN is set);
# writes the verdict line and succeeds when the spec fails or times out, fails (writes nothing) when it passes.
spec_oracle() {
    local id=$1 out=$2 spin_value=$3 verdict=$4 status=0 detail label=""
    [[ -z $spin_value ]] || label="spin $spin_value: "
    env REF_MUTANT="$id" ${spin_value:+REF_RUNLOOP_SPIN=$spin_value} timeout -k 10 "$mutant_timeout" "${spec_run[@]}" \
        >/dev/null 2>"$out.err" || status=$?
    if ((status == 0)); then
        return 1
    elif ((status == 124 || status == 137)); then
        printf '%s\ttimed-out\t%s%s s\n' "$id" "$label" "$mutant_timeout" >"$out"
    elif detail=$(grep -m1 '^fail-fast: ' "$out.err"); then
        printf '%s\t%s\t%s%s\n' "$id" "$verdict" "$label" "${detail#fail-fast: ref }" >"$out"
    else
        printf '%s\t%s\t%srunner exit %s: %s\n' "$id" "$verdict" "$label" "$status" \
            "$(tail -n 1 "$out.err" | cut -c1-100)" >"$out"
    fi
}

rm -rf "$scratch/runs" && mkdir -p "$scratch/runs"
trap 'jobs -p | xargs -r kill 2>/dev/null; exit 130' INT TERM
runs_started=$SECONDS
done_count=0
collect() {
    local file
    for file in "$scratch"/runs/*; do
        [[ $file =~ /[0-9]+$ ]] || continue
        cat "$file" >>"$scratch/results.tsv"
        echo "mutants: [$((done_count + 1))/${#ids[@]}] $(cut -f1-3 "$file" | tr '\t' ' ')" >&2
        done_count=$((done_count + 1))
        mv "$file" "$file.done"
    done
}
for id in "${ids[@]}"; do
    if [[ -n $budget ]] && ((SECONDS - runs_started >= budget)); then
        echo "mutants: the budget of $budget s is spent; the other mutants are not run" >&2
        break
    fi
    while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; collect; done
    run_mutant "$id" &
done
wait || true
collect
trap - INT TERM

"$tool" report --manifest "$scratch/mutants.tsv" --equivalents "$equivalents" --semantic "$semantic" \
    --results "$scratch/results.tsv" --coverage "$scratch/covered-any.txt" --format "$format" \
    --wall $((SECONDS - started)) "${selection[@]}" | tee "$scratch/report.txt"
! grep -qE $'\t(survived|timed-out)\t' "$scratch/results.tsv"
