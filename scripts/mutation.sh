#!/usr/bin/env bash
# Measures the spec against our own semantic faults in `ref` (mutation testing).
#
#   scripts/mutation.sh [--only ID,...] [--format table|tsv] [--fuzz SECONDS] [--timeout S]
#   scripts/mutation.sh --list | --check
#
#   --list           print the faults (id, rule, file, what it does) and exit
#   --check          check that every fault's text occurs exactly once in its file (no build) and exit
#   --only ID,...    only these faults
#   --format F       table (default) or tsv: one line per fault, then the score
#   --fuzz SECONDS   instead of the spec, run `runloop fuzz --engines cf,ref --time SECONDS --until-found` against
#                    each mutant: a fault is found when the fuzzer reports an unexplained divergence; the table gives
#                    the seconds it took to find it, the shrunk case's trace length (the longer of the two engines'
#                    traces) and the seed
#   --timeout S      watchdog per case for the spec runs (default 3 s: a mutant that hangs a case is killed by it)
#
# The faults are scripts/mutation/faults.tsv, each a change to one file of Sources/RefRunLoop written from a rule of
# the catalogue. For each fault, one at a time, the script copies the working tree to a scratch tree
# (.build-mutation/tree; the working tree is never changed), applies the fault there, builds `runloop` (debug,
# incrementally, in .build-mutation/build), and runs the whole spec on `ref` in worker processes, so a mutant that
# crashes or hangs costs its cases (CRASH, TIMEOUT), not the run. A fault is killed when at least one case does not
# pass; the table lists how many cases kill it and which. It ends with the score, the faults killed by fewer than
# three cases, and the survivors. The unmutated tree must pass the whole spec first.
#
# Exit status: 0 when every fault is killed (found, with --fuzz), 1 when one survives or does not build, 2 for bad
# arguments, a fault whose text no longer occurs exactly once, or an unmutated ref that fails the spec.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
source scripts/lib/setup.sh

usage() { sed -n '4,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

faults_file=scripts/mutation/faults.tsv
mode=run only="" format=table fuzz_seconds="" case_timeout=3
while (($#)); do
    case "$1" in
        --list) mode=list ;;
        --check) mode=check ;;
        --only) (($# >= 2)) || usage; only=$2; shift ;;
        --format) (($# >= 2)) || usage; format=$2; shift ;;
        --fuzz) (($# >= 2)) || usage; fuzz_seconds=$2; shift ;;
        --timeout) (($# >= 2)) || usage; case_timeout=$2; shift ;;
        -h|--help) usage ;;
        *) echo "mutation: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done
[[ $format == table || $format == tsv ]] || { echo "mutation: --format is table or tsv, not '$format'" >&2; exit 2; }
[[ -z $fuzz_seconds || $fuzz_seconds =~ ^[1-9][0-9]{0,4}$ ]] || { echo "mutation: --fuzz needs a number of seconds" >&2; exit 2; }
[[ $case_timeout =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "mutation: --timeout needs a number of seconds" >&2; exit 2; }

# The table: ids[i], rules[i], files[i], anchors[i], replacements[i], descriptions[i]. Escapes (\n, \t, \\) are
# decoded with printf %b, which turns every other backslash pair back into itself.
ids=() rules=() files=() anchors=() replacements=() descriptions=()
line_number=0
while IFS= read -r line || [[ -n $line ]]; do
    line_number=$((line_number + 1))
    [[ -z $line || $line == \#* ]] && continue
    # Split on every tab (read would merge the two tabs around an empty replacement).
    fields=() rest=$line
    while [[ $rest == *$'\t'* ]]; do fields+=("${rest%%$'\t'*}"); rest=${rest#*$'\t'}; done
    fields+=("$rest")
    id=${fields[0]} rule=${fields[1]:-} file=${fields[2]:-} anchor=${fields[3]:-} replacement=${fields[4]:-}
    description=${fields[5]:-}
    if ((${#fields[@]} != 6)) || [[ -z $id || -z $rule || -z $file || -z $anchor || -z $description ]]; then
        echo "mutation: $faults_file:$line_number: a fault needs six tab-separated fields (id, rule, file, text, replacement, description)" >&2
        exit 2
    fi
    printf -v decoded_anchor '%b' "$anchor"
    printf -v decoded_replacement '%b' "$replacement"
    ids+=("$id") rules+=("$rule") files+=("$file") anchors+=("$decoded_anchor")
    replacements+=("$decoded_replacement") descriptions+=("$description")
done <"$faults_file"

# Every fault names a rule of the catalogue, and ids are unique.
for index in "${!ids[@]}"; do
    grep -q "^  - id: ${rules[index]}\$" Sources/ConformanceSpec/catalogue.yaml || {
        echo "mutation: fault ${ids[index]}: rule '${rules[index]}' is not in Sources/ConformanceSpec/catalogue.yaml" >&2
        exit 2
    }
done
duplicate=$(printf '%s\n' "${ids[@]}" | sort | uniq -d | head -1)
[[ -z $duplicate ]] || { echo "mutation: $faults_file: fault id '$duplicate' is used twice" >&2; exit 2; }

# Selected faults.
selected=()
if [[ -n $only ]]; then
    IFS=, read -r -a wanted <<<"$only"
    for id in "${wanted[@]}"; do
        found=""
        for index in "${!ids[@]}"; do [[ ${ids[index]} == "$id" ]] && found=$index; done
        [[ -n $found ]] || { echo "mutation: no fault '$id' in $faults_file (--list lists them)" >&2; exit 2; }
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
        echo "mutation: fault ${ids[index]}: its text occurs $count times in $path, not once (update $faults_file)" >&2
        return 2
    fi
}

case $mode in
    list)
        printf '%-36s %-36s %-24s %s\n' fault rule file "what it does"
        for index in "${selected[@]}"; do
            printf '%-36s %-36s %-24s %s\n' "${ids[index]}" "${rules[index]}" "${files[index]}" "${descriptions[index]}"
        done
        exit 0 ;;
    check)
        status=0
        for index in "${selected[@]}"; do check_fault "$index" || status=2; done
        ((status == 0)) && echo "mutation: ${#selected[@]} faults, each text found exactly once"
        exit "$status" ;;
esac

for index in "${selected[@]}"; do check_fault "$index" || exit 2; done
require_swift
ensure_packages jq rsync

scratch=$repo/.build-mutation
tree=$scratch/tree
build=$scratch/build
mkdir -p "$scratch"
# The working tree as it is (uncommitted changes included), without build folders and git metadata.
rsync -a --delete --exclude '/.build*' --exclude '/.git' --exclude '/results' "$repo/" "$tree/"
binary=$build/debug/runloop

build_tree() {
    swift build --package-path "$tree" --scratch-path "$build" --product runloop >"$scratch/build.log" 2>&1
}

# spec_failures FILE: the ids of the cases that did not pass on ref (one per line) into FILE.
spec_failures() {
    local out=$1 json=$scratch/spec.json
    "$binary" conform --engine ref --expectations none --timeout "$case_timeout" --format json >"$json" 2>/dev/null || true
    if ! jq -e '.results' "$json" >/dev/null 2>&1; then
        echo "runner-error" >"$out"
        return
    fi
    jq -r '.results[] | select(.status != "PASS") | "\(.id) \(.status)"' "$json" >"$out"
}

# fuzz_finding FILE: "found LINES" or "missed" into FILE.
fuzz_finding() {
    local out=$1 json=$scratch/fuzz.json
    rm -rf "$scratch/fuzz-out"
    "$binary" fuzz --engines cf,ref --time "$fuzz_seconds" --until-found --out "$scratch/fuzz-out" --format json \
        >"$json" 2>/dev/null || true
    if ! jq -e '.findings' "$json" >/dev/null 2>&1; then
        echo "runner-error" >"$out"
        return
    fi
    jq -r '[.findings[] | select(.explained_by == null)] |
           if length == 0 then "missed"
           else "found \(.[0].found_after_seconds) s, \(.[0].traces | [.[] | length] | max) lines, seed \(.[0].seed)" end' \
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

killed=0 survivors=() thin=() broken=()
results=()
started=$SECONDS
for position in "${!selected[@]}"; do
    index=${selected[position]}
    id=${ids[index]}
    path="$tree/Sources/RefRunLoop/${files[index]}"
    restore
    content=$(<"$path")
    printf '%s\n' "${content/"${anchors[index]}"/"${replacements[index]}"}" >"$path"
    echo "mutation: [$((position + 1))/${#selected[@]}] $id" >&2
    if ! build_tree; then
        broken+=("$id")
        results+=("$id	${rules[index]}	does-not-build	0	")
        continue
    fi
    if [[ -n $fuzz_seconds ]]; then
        fuzz_finding "$scratch/result"
        verdict=$(<"$scratch/result")
        case $verdict in
            found*) killed=$((killed + 1)); results+=("$id	${rules[index]}	found	${verdict#found }	") ;;
            *) survivors+=("$id"); results+=("$id	${rules[index]}	$verdict	-	") ;;
        esac
    else
        spec_failures "$scratch/result"
        count=$(grep -c . "$scratch/result" || true)
        examples=$(head -n 3 "$scratch/result" | cut -d' ' -f1 | paste -sd, -)
        if ((count > 0)); then
            killed=$((killed + 1))
            ((count >= 3)) || thin+=("$id")
            results+=("$id	${rules[index]}	killed	$count	$examples")
        else
            survivors+=("$id")
            results+=("$id	${rules[index]}	SURVIVED	0	")
        fi
    fi
done
restore
trap - EXIT

total=${#selected[@]}
what=$([[ -n $fuzz_seconds ]] && echo "found by the fuzzer in ${fuzz_seconds} s each" || echo "killed by the spec")
if [[ $format == tsv ]]; then
    printf 'fault\trule\tverdict\tcases\texamples\n'
    printf '%s\n' "${results[@]}"
else
    if [[ -n $fuzz_seconds ]]; then
        printf '%-36s %-36s %-10s %s\n' fault rule verdict "time to find, trace lines of the shrunk case, seed"
    else
        printf '%-36s %-36s %-10s %6s  %s\n' fault rule verdict cases "e.g."
    fi
    for row in "${results[@]}"; do
        IFS=$'\t' read -r id rule verdict count examples <<<"$row"
        if [[ -n $fuzz_seconds ]]; then
            printf '%-36s %-36s %-10s %s\n' "$id" "$rule" "$verdict" "$count"
        else
            printf '%-36s %-36s %-10s %6s  %s\n' "$id" "$rule" "$verdict" "$count" "$examples"
        fi
    done
fi
echo
echo "score: $killed of $total faults $what ($(awk -v k="$killed" -v t="$total" 'BEGIN { printf "%.1f", 100 * k / t }') %), $((SECONDS - started)) s"
[[ -n $fuzz_seconds ]] || echo "killed by fewer than 3 cases: ${thin[*]:-none}"
echo "survivors: ${survivors[*]:-none}"
((${#broken[@]} == 0)) || echo "do not build (fix the fault): ${broken[*]}"
((${#survivors[@]} == 0 && ${#broken[@]} == 0))
