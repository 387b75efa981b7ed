#!/usr/bin/env bash
# Measures the spec against our own semantic faults in `ref` (mutation testing).
#
#   scripts/mutation.sh [--set own|blind|all] [--only ID,...] [--format table|tsv] [--fuzz SECONDS [--fuzz-seed N]] [--timeout S]
#   scripts/mutation.sh [--set own|blind|all] --list | --check
#
#   --set S          which faults: own (default for a run: scripts/mutation/faults.tsv), blind
#                    (scripts/mutation/faults-blind.tsv, written without reading the cases), or all (both, each set
#                    with its own table and score, then the total); --list and --check take both unless told
#   --list           print the faults (set, id, rule, file, what it does) and exit
#   --check          check that every fault's text occurs exactly once in its file (no mutant built) and exit
#   --only ID,...    only these faults (of the chosen sets)
#   --format F       table (default) or tsv: one line per fault, then the score
#   --fuzz SECONDS   instead of the spec, run `runloop fuzz --engines cf,ref --time SECONDS --until-found
#                    --shrink-seconds 0` against each mutant: a fault is found when the fuzzer reports an unexplained
#                    divergence (run twice, not shrunk: what is measured is how long finding takes); the table gives
#                    the seconds it took to find it, the divergent scenario's trace length (the longer of the two
#                    engines' traces) and the seed. A divergence found when the time was up, not run again, is
#                    "unconfirmed" and counts as not found.
#   --fuzz-seed N    the fuzzer's first seed (default 1, as `runloop fuzz`): another seed fuzzes other scenarios
#   --timeout S      watchdog per case for the spec runs (default 3 s: a mutant that hangs a case is killed by it)
#
# The faults are scripts/mutation/faults.tsv (set own) and scripts/mutation/faults-blind.tsv (set blind, written from
# the catalogue and the code without reading the cases: scripts/mutation/blind-faults.md), each a change to one file
# of Sources/RefRunLoop written from a rule of the catalogue. For each fault, one at a time, the script copies the working tree to a scratch tree
# (.build-mutation/tree; the working tree is never changed), applies the fault there, builds `runloop` (debug,
# incrementally, in .build-mutation/build), and runs the whole spec on `ref` in worker processes, so a mutant that
# crashes or hangs costs its cases (CRASH, TIMEOUT), not the run. A fault is killed when at least one case does not
# pass; the table lists how many cases kill it and which, and each verdict is also logged to stderr as it comes. It
# ends with the score, the faults killed by fewer than three cases, and the survivors, per set. The unmutated tree
# must pass the whole spec first.
#
# Automatic mutants (every comparison, condition, call, assignment, literal... of Sources/RefRunLoop, generated
# mechanically and compiled into one build): scripts/mutants.sh.
#
# Exit status: 0 when every fault is killed (found, with --fuzz), 1 when one survives or does not build, 2 for bad
# arguments, a fault whose text no longer occurs exactly once, or an unmutated ref that fails the spec.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
source scripts/lib/setup.sh

usage() { sed -n '4,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

mode=run only="" format=table fuzz_seconds="" case_timeout=3 set="" fuzz_seed=1
while (($#)); do
    case "$1" in
        --list) mode=list ;;
        --check) mode=check ;;
        --only) (($# >= 2)) || usage; only=$2; shift ;;
        --set) (($# >= 2)) || usage; set=$2; shift ;;
        --format) (($# >= 2)) || usage; format=$2; shift ;;
        --fuzz) (($# >= 2)) || usage; fuzz_seconds=$2; shift ;;
        --fuzz-seed) (($# >= 2)) || usage; fuzz_seed=$2; shift ;;
        --timeout) (($# >= 2)) || usage; case_timeout=$2; shift ;;
        -h|--help) usage ;;
        *) echo "mutation: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done
[[ $format == table || $format == tsv ]] || { echo "mutation: --format is table or tsv, not '$format'" >&2; exit 2; }
[[ -z $fuzz_seconds || $fuzz_seconds =~ ^[1-9][0-9]{0,4}$ ]] || { echo "mutation: --fuzz needs a number of seconds" >&2; exit 2; }
[[ $fuzz_seed =~ ^[0-9]{1,19}$ ]] || { echo "mutation: --fuzz-seed needs a number" >&2; exit 2; }
[[ $case_timeout =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "mutation: --timeout needs a number of seconds" >&2; exit 2; }
[[ -z $set || $set == own || $set == blind || $set == all ]] || { echo "mutation: --set is own, blind or all, not '$set'" >&2; exit 2; }
# A run measures the own set unless told; listing and checking cover both files unless told.
[[ -n $set ]] || { [[ $mode == run ]] && set=own || set=all; }
case $set in
    own) set_names=(own) ;;
    blind) set_names=(blind) ;;
    all) set_names=(own blind) ;;
esac
set_file() { [[ $1 == own ]] && echo scripts/mutation/faults.tsv || echo scripts/mutation/faults-blind.tsv; }

# `runloop faults` reads the fault files and checks each fault's rule against the catalogue (MutationFaults in
# Sources/ConformanceKit), so runloop is brought up to date first (usually a no-op build).
require_swift
scratch=$repo/.build-mutation
mkdir -p "$scratch"
runloop=$(build_runloop mutation "$scratch/runloop-build.log") || exit 2

# The table: sets[i], ids[i], rules[i], files[i], anchors[i], replacements[i], descriptions[i], the text and the
# replacement with their escapes (\n, \t, \\) decoded.
sets=() ids=() rules=() files=() anchors=() replacements=() descriptions=()
load_faults() {
    local fault_set=$1 faults_file fields index
    faults_file=$(set_file "$fault_set")
    [[ -f $faults_file ]] || { echo "mutation: no fault file $faults_file" >&2; exit 2; }
    "$runloop" faults --catalogue Sources/ConformanceSpec/catalogue.yaml "$faults_file" >"$scratch/faults" || exit 2
    # Six NUL-ended fields a fault: id, rule, file, text, replacement, description.
    mapfile -t -d '' fields <"$scratch/faults"
    for ((index = 0; index + 5 < ${#fields[@]}; index += 6)); do
        sets+=("$fault_set") ids+=("${fields[index]}") rules+=("${fields[index + 1]}") files+=("${fields[index + 2]}")
        anchors+=("${fields[index + 3]}") replacements+=("${fields[index + 4]}") descriptions+=("${fields[index + 5]}")
    done
}
for name in "${set_names[@]}"; do load_faults "$name"; done

# Selected faults.
selected=()
if [[ -n $only ]]; then
    IFS=, read -r -a wanted <<<"$only"
    for id in "${wanted[@]}"; do
        found=""
        for index in "${!ids[@]}"; do
            [[ ${ids[index]} == "$id" ]] || continue
            [[ -z $found ]] || { echo "mutation: fault '$id' is in both sets; choose one with --set" >&2; exit 2; }
            found=$index
        done
        [[ -n $found ]] || { echo "mutation: no fault '$id' in set $set (--list lists them)" >&2; exit 2; }
        selected+=("$found")
    done
else
    selected=("${!ids[@]}")
fi

# occurrences TEXT NEEDLE: how many times NEEDLE occurs in TEXT (literal).
occurrences() {
    local text=$1 needle=$2 rest
    rest=${text//"$needle"/}
    echo $(((${#text} - ${#rest}) / ${#needle}))
}

check_fault() {
    local index=$1 path="Sources/RefRunLoop/${files[$1]}" content count
    [[ -f $path ]] || { echo "mutation: fault ${ids[index]}: no file $path" >&2; return 2; }
    content=$(<"$path")
    count=$(occurrences "$content" "${anchors[index]}")
    if ((count != 1)); then
        echo "mutation: fault ${ids[index]}: its text occurs $count times in $path, not once (update $(set_file "${sets[index]}"))" >&2
        return 2
    fi
}

case $mode in
    list)
        printf '%-6s %-36s %-36s %-24s %s\n' set fault rule file "what it does"
        for index in "${selected[@]}"; do
            printf '%-6s %-36s %-36s %-24s %s\n' "${sets[index]}" "${ids[index]}" "${rules[index]}" "${files[index]}" \
                "${descriptions[index]}"
        done
        exit 0 ;;
    check)
        status=0
        for index in "${selected[@]}"; do check_fault "$index" || status=2; done
        if ((status == 0)); then
            for name in "${set_names[@]}"; do
                in_set=0
                for index in "${selected[@]}"; do [[ ${sets[index]} == "$name" ]] && in_set=$((in_set + 1)); done
                echo "mutation: set $name ($(set_file "$name")): $in_set faults, each text found exactly once"
            done
        fi
        exit "$status" ;;
esac

for index in "${selected[@]}"; do check_fault "$index" || exit 2; done
ensure_packages jq rsync

tree=$scratch/tree
build=$scratch/build
# The working tree as it is (uncommitted changes included), without build folders and git metadata.
rsync -a --delete --exclude '/.build*' --exclude '/.git' --exclude '/results' "$repo/" "$tree/"
binary=$build/debug/runloop

build_tree() {
    swift build --package-path "$tree" --scratch-path "$build" --product runloop >"$scratch/build.log" 2>&1
}

# spec_failures FILE: the ids of the cases that did not pass on ref (one per line) into FILE. A SKIP is not one: it
# comes from the engine's features (the Foundation cases on an engine without Foundation), which no fault in
# Sources/RefRunLoop changes.
spec_failures() {
    local out=$1 json=$scratch/spec.json
    "$binary" conform --engine ref --expectations none --timeout "$case_timeout" --format json >"$json" 2>/dev/null || true
    if ! jq -e '.results' "$json" >/dev/null 2>&1; then
        echo "runner-error" >"$out"
        return
    fi
    jq -r '.results[] | select(.status != "PASS" and .status != "SKIP") | "\(.id) \(.status)"' "$json" >"$out"
}

# fuzz_finding FILE: "found LINES" or "missed" into FILE.
fuzz_finding() {
    local out=$1 json=$scratch/fuzz.json
    rm -rf "$scratch/fuzz-out"
    "$binary" fuzz --engines cf,ref --seed "$fuzz_seed" --time "$fuzz_seconds" --until-found --shrink-seconds 0 --out "$scratch/fuzz-out" --format json \
        >"$json" 2>/dev/null || true
    if ! jq -e '.findings' "$json" >/dev/null 2>&1; then
        echo "runner-error" >"$out"
        return
    fi
    # Only a divergence run twice counts: one found when the time was up was not run again and may be
    # nondeterministic (the mutant's trace differing from run to run), so it is "unconfirmed", not found.
    jq -r '[.findings[] | select(.explained_by == null)] as $unexplained |
           [$unexplained[] | select(.rechecked)] as $confirmed |
           if ($confirmed | length) > 0 then
               "found \($confirmed[0].found_after_seconds) s, \($confirmed[0].traces | [.[] | length] | max) lines, seed \($confirmed[0].seed)"
           elif ($unexplained | length) > 0 then "unconfirmed"
           else "missed" end' \
        "$json" >"$out"
}

echo "mutation: building the unmutated tree" >&2
build_tree || { tail -n 30 "$scratch/build.log" >&2; echo "mutation: the unmutated tree does not build" >&2; exit 2; }
spec_failures "$scratch/baseline"
if [[ -s $scratch/baseline ]]; then
    echo "mutation: the unmutated ref does not pass the spec, so no fault can be measured:" >&2
    head -n 20 "$scratch/baseline" >&2
    exit 2
fi

restore() { rsync -a --exclude '/.build*' --exclude '/.git' --exclude '/results' "$repo/Sources/RefRunLoop/" "$tree/Sources/RefRunLoop/"; }
trap restore EXIT

results=() verdict_sets=()
started=$SECONDS
for position in "${!selected[@]}"; do
    index=${selected[position]}
    id=${ids[index]}
    path="$tree/Sources/RefRunLoop/${files[index]}"
    restore
    content=$(<"$path")
    printf '%s\n' "${content/"${anchors[index]}"/"${replacements[index]}"}" >"$path"
    echo "mutation: [$((position + 1))/${#selected[@]}] $id" >&2
    verdict_sets+=("${sets[index]}")
    if ! build_tree; then
        results+=("$id	${rules[index]}	does-not-build	0	")
        echo "mutation: $id: does not build" >&2
        continue
    fi
    if [[ -n $fuzz_seconds ]]; then
        fuzz_finding "$scratch/result"
        verdict=$(<"$scratch/result")
        case $verdict in
            found*) results+=("$id	${rules[index]}	found	${verdict#found }	") ;;
            *) results+=("$id	${rules[index]}	$verdict	-	") ;;
        esac
        echo "mutation: $id: $verdict" >&2
    else
        spec_failures "$scratch/result"
        count=$(grep -c . "$scratch/result" || true)
        examples=$(head -n 3 "$scratch/result" | cut -d' ' -f1 | paste -sd, -)
        if ((count > 0)); then
            results+=("$id	${rules[index]}	killed	$count	$examples")
            echo "mutation: $id: killed by $count ($examples)" >&2
        else
            results+=("$id	${rules[index]}	SURVIVED	0	")
            echo "mutation: $id: SURVIVED" >&2
        fi
    fi
done
restore
trap - EXIT

what=$([[ -n $fuzz_seconds ]] && echo "found by the fuzzer in ${fuzz_seconds} s each" || echo "killed by the spec")
elapsed=$((SECONDS - started))
# report NAME: the table and the score of the faults of set NAME (every set when NAME is empty); sets the globals
# killed, survivors, thin and broken for it.
report() {
    local name=$1 position row id rule verdict count examples
    local rows=()
    killed=0 survivors=() thin=() broken=()
    for position in "${!results[@]}"; do
        [[ -z $name || ${verdict_sets[position]} == "$name" ]] || continue
        row=${results[position]}
        rows+=("$row")
        IFS=$'\t' read -r id rule verdict count examples <<<"$row"
        case $verdict in
            killed) killed=$((killed + 1)); ((count >= 3)) || thin+=("$id") ;;
            found) killed=$((killed + 1)) ;;
            does-not-build) broken+=("$id") ;;
            *) survivors+=("$id") ;;
        esac
    done
    if [[ $format == tsv ]]; then
        printf 'fault\trule\tverdict\tcases\texamples\n'
        ((${#rows[@]} == 0)) || printf '%s\n' "${rows[@]}"
    else
        if [[ -n $fuzz_seconds ]]; then
            printf '%-36s %-36s %-10s %s\n' fault rule verdict "time to find, trace lines of the shrunk case, seed"
        else
            printf '%-36s %-36s %-10s %6s  %s\n' fault rule verdict cases "e.g."
        fi
        for row in "${rows[@]}"; do
            IFS=$'\t' read -r id rule verdict count examples <<<"$row"
            if [[ -n $fuzz_seconds ]]; then
                printf '%-36s %-36s %-10s %s\n' "$id" "$rule" "$verdict" "$count"
            else
                printf '%-36s %-36s %-10s %6s  %s\n' "$id" "$rule" "$verdict" "$count" "$examples"
            fi
        done
    fi
    local total=${#rows[@]}
    echo
    echo "score${name:+ ($name)}: $killed of $total faults $what ($(awk -v k="$killed" -v t="$total" 'BEGIN { printf "%.1f", t ? 100 * k / t : 0 }') %), $elapsed s"
    [[ -n $fuzz_seconds ]] || echo "killed by fewer than 3 cases: ${thin[*]:-none}"
    echo "survivors: ${survivors[*]:-none}"
    ((${#broken[@]} == 0)) || echo "do not build (fix the fault): ${broken[*]}"
}
if ((${#set_names[@]} == 1)); then
    report ""
else
    for name in "${set_names[@]}"; do
        # A set none of whose faults was chosen (--only) gets no section.
        [[ " ${verdict_sets[*]} " == *" $name "* ]] || continue
        echo "== set $name ($(set_file "$name"))"
        report "$name"
        echo
    done
    echo "== both sets"
    report "" >/dev/null
    echo "score (all): $killed of ${#results[@]} faults $what, $elapsed s; survivors: ${survivors[*]:-none}"
    ((${#broken[@]} == 0)) || echo "do not build (fix the fault): ${broken[*]}"
fi
((${#survivors[@]} == 0 && ${#broken[@]} == 0))
