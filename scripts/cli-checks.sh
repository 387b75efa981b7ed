#!/usr/bin/env bash
# Checks the `runloop` command line as a user meets it: exit codes, formats, and clear messages for bad input.
# Usage: scripts/cli-checks.sh PATH_TO_RUNLOOP
set -uo pipefail
runloop=${1:?usage: cli-checks.sh PATH_TO_RUNLOOP}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

# check NAME EXPECTED_EXIT PATTERN -- COMMAND...: the command exits EXPECTED_EXIT and its output matches PATTERN.
check() {
    local name=$1 want=$2 pattern=$3
    shift 4
    local output code
    output=$("$@" 2>&1)
    code=$?
    if [ "$code" -eq "$want" ] && grep -qE -- "$pattern" <<<"$output"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAILED: $name: exit $code (wanted $want), output did not match /$pattern/:" >&2
        head -20 <<<"$output" >&2
    fi
}

check "conform on cf, json" 0 '"all_as_expected" : true' -- "$runloop" conform --engine cf --format json --filter 'timer.*' --jobs 4
check "conform junit" 0 '<testsuites' -- "$runloop" conform --engine cf --format junit --filter 'order.*'
check "unknown engine" 2 "unknown engine 'nope'" -- "$runloop" conform --engine nope
check "unknown format" 2 "'yaml' is invalid for '--format <format>'. Please provide one of 'table', 'json' or 'junit'" -- "$runloop" conform --format yaml
check "no case matches" 2 "no case matches" -- "$runloop" conform --filter 'no-such-area.*'
check "unknown level" 2 "--level: unknown level 'kernel'" -- "$runloop" conform --level api,kernel
check "rules per level" 0 "rules per level: api [0-9]+, cf [0-9]+, platform [0-9]+" -- "$runloop" rules
printf 'catalogue_version: 2\ncf_source: {repository: r, tag: t, file: f}\nrules:\n  - {id: a.rule, text: x, cf: y, level: kernel}\n' >"$work/levels.yaml"
check "catalogue: unknown level" 2 "levels.yaml:4: .*rule 'a.rule': unknown level 'kernel'" -- \
    "$runloop" rules --catalogue "$work/levels.yaml"

printf 'spec_version: 1\ncases:\n  - id: bad.case\n    rule: x\n    source: observed\n    steps: [fly]\n    expect: []\n' >"$work/bad.yaml"
check "malformed spec: unknown action" 2 "bad.yaml:6: case 'bad.case': field 'steps\[0\]': unknown action 'fly'" -- \
    "$runloop" conform --spec "$work/bad.yaml" --expectations none
printf 'spec_version: 1\ncases:\n  - id: bad.case\n    rule: [x\n' >"$work/syntax.yaml"
check "malformed spec: YAML syntax" 2 "syntax.yaml:[0-9]+: YAML syntax error" -- \
    "$runloop" conform --spec "$work/syntax.yaml" --expectations none
check "missing spec path" 2 "no such file or directory" -- "$runloop" conform --spec "$work/none.yaml"

printf 'spec_version: 1\ncases:\n  - id: self.wrong\n    rule: x\n    source: observed\n    steps: [run]\n    expect: [run default, return stopped]\n' >"$work/wrong.yaml"
check "a failing case exits 1 with a diff" 1 '\+ return finished' -- \
    "$runloop" conform --engine cf --spec "$work/wrong.yaml" --expectations none

# Your own cases: --spec alone applies only the shipped expectations for cases it has; a file of your own must name
# cases of your spec, and the message says how to pass one or none.
mkdir -p "$work/my-cases" "$work/my-expectations"
printf 'spec_version: 1\ncases:\n  - id: mine.poll\n    rule: x\n    source: observed\n    items: {s: source0}\n    steps: [{add: s}, run]\n    expect: [run default, return timedOut]\n' >"$work/my-cases/mine.yaml"
check "--spec DIR alone" 0 '^conform: 3 results, 3 as expected: 3 PASS, 0 xFAIL, 0 FAIL' -- "$runloop" conform --spec "$work/my-cases"
# One run: its exit status, its output for the pattern, and no line of that output that reads as such a verdict.
check "conform: no closing line reads as a test runner's verdict" 0 '^conform: [0-9]+ results, ' -- \
    bash -c 'out=$("$0" conform --engine cf --filter "timer.*" --jobs 4) || exit; printf "%s\n" "$out"
        ! grep -E "^[0-9]+ passed, [0-9]+ failed$" <<<"$out"' "$runloop"
# Your own expectations add to the shipped ones: cf keeps its known failures beside a file of yours for ref (whose
# entry, for a case ref passes, is an XPASS: exit 1).
printf 'spec_version: 1\nengine: ref\nexpected:\n  timer.due.fires-in-poll-pass: {status: FAIL, reason: "a known failure of my own, with its evidence"}\n' >"$work/ref-mine.yaml"
check "--expectations FILE adds to the shipped ones" 1 '^cf: [0-9]+ results, [0-9]+ as expected: [0-9]+ PASS, [1-9][0-9]* xFAIL, 0 FAIL' -- \
    "$runloop" conform --engine cf,ref --filter 'timer.*' --jobs 4 --expectations "$work/ref-mine.yaml"
printf 'spec_version: 1\nengine: cf\nexpected:\n  other.case: {status: FAIL, reason: r}\n' >"$work/my-expectations/cf.yaml"
check "expectations for another spec" 2 "cf.yaml:4: case 'other.case'.*or --expectations none" -- \
    "$runloop" conform --spec "$work/my-cases" --expectations "$work/my-expectations"

# runloop rules: the shipped spec pins every rule with two cases; a spec of your own that pins a rule once, or cites
# an id the catalogue lacks, exits 1 and says which; a malformed spec exits 2.
check "rules: shipped spec" 0 "rules with fewer than 2 cases: none" -- "$runloop" rules
check "rules: json" 0 '"thin_rules" : \[' -- "$runloop" rules --format json
# runloop rules --seeds: the shipped seed claims with their counts; an unknown verdict is bad input, named by line.
check "rules: seed claims" 0 "[0-9]+ claims: [0-9]+ holds, [0-9]+ does not hold, [0-9]+ Darwin-only" -- \
    "$runloop" rules --seeds
printf 'seeds_version: 1\nseeds: [{file: a.txt, about: x}]\nclaims:\n  - {id: sa.one, seed: a.txt, claim: x, verdict: maybe}\n' \
    >"$work/seeds.yaml"
check "rules: a bad seed verdict" 2 "seeds.yaml:4: field 'claims\[0\].verdict': claim 'sa.one': unknown verdict 'maybe'" \
    -- "$runloop" rules --seeds-file "$work/seeds.yaml"
printf 'spec_version: 1\ncases:\n  - id: mine.poll\n    rule: x\n    source: observed\n    rules: [timeout.poll, no.such-rule]\n    items: {s: source0}\n    steps: [{add: s}, run]\n    expect: [run default, return timedOut]\n' >"$work/rules.yaml"
check "rules: a thin rule and an unknown id" 1 "rules.yaml:3: case 'mine.poll': field 'rules': unknown rule 'no.such-rule'" -- \
    "$runloop" rules --spec "$work/rules.yaml"
check "conform: an unknown rule id is bad input" 2 "rules.yaml:6: case 'mine.poll': field 'rules\[1\]': unknown rule 'no.such-rule'" -- \
    "$runloop" conform --spec "$work/rules.yaml" --expectations none
check "rules: malformed spec" 2 "bad.yaml:6: case 'bad.case'" -- "$runloop" rules --spec "$work/bad.yaml"
check "rules: unknown format" 2 "format" -- "$runloop" rules --format yaml

# Process isolation, with the tests' worker: its `faulty` engine aborts, segfaults and hangs on three of the order
# cases; each is one CRASH or TIMEOUT row and the other 20 cases still run and pass. A case that crashes must crash
# within its watchdog also on a loaded machine, where reaching the fault and reporting it can take more than a
# second: 3 s, and Swift's backtracer, which symbolicates in a process of its own, off for these planted crashes.
test_worker="$(dirname "$runloop")/ConformanceTestWorker"
check "a crashing engine costs one case each" 1 \
    'faulty: 23 results, 20 as expected: 20 PASS, 0 xFAIL, 0 FAIL, 0 SKIP, 1 TIMEOUT, 2 CRASH, 0 ERROR' -- \
    env SWIFT_BACKTRACE=enable=no RUNLOOP_TEST_FAULTS='abort=order.entry-exit.finished,segv=order.pass.sleeping-pass,hang=order.entry-exit.timed-out' \
    "$runloop" conform --worker "$test_worker" --engine faulty --filter 'order.*' --timeout 3 --expectations none
check "the crash row names the signal" 1 'killed by SIGSEGV \(signal 11\) during the case' -- \
    env RUNLOOP_TEST_FAULTS='segv=order.pass.sleeping-pass' \
    "$runloop" conform --worker "$test_worker" --engine faulty --filter 'order.pass.*' --expectations none
check "--worker that does not exist" 2 "cannot start $work/no-worker" -- \
    "$runloop" conform --worker "$work/no-worker"
check "--worker that is not a worker" 2 "/bin/true is not a conformance worker" -- "$runloop" conform --worker /bin/true
check "--worker with --isolation none" 2 "needs --isolation process" -- \
    "$runloop" conform --worker "$test_worker" --isolation none
check "unknown engine of a worker" 2 "unknown engine 'nope' \(known: cf, ref, foundation, faulty, planted, silent-observers, all, cf:PATH\)" -- \
    "$runloop" conform --worker "$test_worker" --engine nope

# runloop fuzz: bad flags are exit 2 with a clear message; the test worker's `planted` engine (ref with one planted
# bug) diverges from ref, so a short campaign exits 1 and writes a case that loads; `faulty` without faults is ref,
# so ref against it exits 0.
check "fuzz: unknown engine" 2 "unknown engine 'nope'" -- "$runloop" fuzz --engines cf,nope
check "fuzz: one engine" 2 "needs two engines or more" -- "$runloop" fuzz --engines ref
check "fuzz: --count 0" 2 "--count must be at least 1" -- "$runloop" fuzz --count 0
check "fuzz: --time 0" 2 "--time must be a positive number" -- "$runloop" fuzz --time 0
check "fuzz: --max-steps 1" 2 "--max-steps must be 2 to 50" -- "$runloop" fuzz --max-steps 1
check "fuzz: unknown area" 2 "unknown area 'bogus' \(one of source0, " -- "$runloop" fuzz --areas observer,bogus
check "fuzz: unknown format" 2 "'yaml' is invalid for '--format <format>'. Please provide one of 'text' and 'json'" -- "$runloop" fuzz --format yaml
check "fuzz: a seed that is not a number" 2 "'abc' is invalid for '--seed" -- "$runloop" fuzz --seed abc
printf 'spec_version: 1\nknown:\n  - {id: a, engine: cf, reason: r}\n' >"$work/known.yaml"
check "fuzz: a known entry without a matcher" 2 "known.yaml:3.*needs 'lines', 'actions' or 'removes'" -- \
    "$runloop" fuzz --known "$work/known.yaml"
check "fuzz: a planted bug is found, once per defect" 1 "defects: 1 \\([0-9]+ divergent scenarios\\)" -- \
    "$runloop" fuzz --worker "$test_worker" --engines ref,planted --seed 1 --count 4 --out "$work/fuzz-out"
# Seed 3: a scenario whose run makes a BeforeSources callout (not every scenario does; the generator decides).
check "fuzz: the finding names the planted defect" 1 "^DIVERGENCE: planted: missing observer beforeSources" -- \
    "$runloop" fuzz --worker "$test_worker" --engines ref,planted --seed 3 --count 1
found=$(ls "$work"/fuzz-out/fuzz-seed-*.yaml 2>/dev/null | head -1)
check "fuzz: its case loads and fails on planted" 1 "planted: 1 result, 0 as expected: 0 PASS, 0 xFAIL, 1 FAIL" -- \
    "$runloop" conform --worker "$test_worker" --engine ref,planted --spec "${found:-$work/fuzz-out/none.yaml}" --expectations none
check "fuzz: identical engines, json" 0 '"unexplained" : 0' -- \
    "$runloop" fuzz --worker "$test_worker" --engines ref,faulty --count 20 --format json

# A CoreFoundation library loaded at run time (cf:PATH): the toolchain's own, with cf's expected failures in a file
# of its own; and the three kinds of wrong library.
foundation="$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift/linux/libFoundation.so"
sed 's/^engine: cf$/engine: cf:Foundation/' "$(dirname "$0")/../Sources/ConformanceSpec/expectations/cf.yaml" \
    >"$work/cf-foundation.yaml"
check "cf:libFoundation.so with its expectations file" 0 'cf:Foundation: [0-9]+ results, [0-9]+ as expected: [0-9]+ PASS, [0-9]+ xFAIL, 0 FAIL, 0 SKIP, 0 TIMEOUT, 0 CRASH, 0 ERROR, 0 XPASS' -- \
    "$runloop" conform --engine "cf:$foundation" --expectations "$work/cf-foundation.yaml" --filter 'timer.*' --jobs 4
check "cf:PATH that does not exist" 2 "cannot load $work/libNope.so" -- "$runloop" conform --engine "cf:$work/libNope.so"
check "cf:PATH that is not a shared library" 2 "bad.yaml: invalid ELF header" -- "$runloop" conform --engine "cf:$work/bad.yaml"
libc=$(ldd /bin/sh | awk '/libc\.so\.6/ {print $3}')
check "cf:PATH without the run-loop API" 2 "libc.so.6 is not a CoreFoundation run-loop library: it lacks CFRunLoopGetCurrent, " -- \
    "$runloop" conform --engine "cf:$libc"

# runloop engines: each engine, its features and why it lacks the others; a bare file name is in the current
# directory; two libraries with one file name cannot share a report; --without turns features off (and an unknown
# one is exit 2 listing the known ones).
check "engines: the built-in ones" 0 "^cf: CoreFoundation from .*libFoundation.so.*the toolchain's" -- "$runloop" engines
check "engines: ref's features" 0 "features: source1, stop-mode, tolerance, blocks, main-thread, main-queue" -- \
    "$runloop" engines ref
check "engines: unknown engine" 2 "unknown engine 'nope'" -- "$runloop" engines nope
mkdir -p "$work/here" "$work/a" "$work/b"
runloop_abs=$(readlink -f "$runloop")
ln -s "$foundation" "$work/here/libx.so"
check "engines: a bare file name is in the current directory" 0 "^cf:x: CoreFoundation from .*/here/libx.so" -- \
    sh -c "cd '$work/here' && '$runloop_abs' engines cf:libx.so"
check "conform: a bare file name that is not in the current directory" 2 "cannot load $work/libx.so" -- \
    sh -c "cd '$work' && '$runloop_abs' conform --engine cf:libx.so"
clang="$(dirname "$(readlink -f "$(command -v swift)")")/clang"
"$clang" -shared -fPIC -O1 -o "$work/b/libx.so" "$(dirname "$0")/../Tests/DefectiveCF/defective_cf.c" -ldl -lpthread
ln -s "$foundation" "$work/a/libx.so"
check "engines: two libraries named alike" 2 "'cf:$work/a/libx.so' and 'cf:$work/b/libx.so' would both be named cf:x.*ln -s" -- \
    "$runloop" engines "cf:$work/a/libx.so" "cf:$work/b/libx.so"
check "conform: two libraries named alike" 2 "would both be named cf:x" -- \
    "$runloop" conform --engine "cf:$work/a/libx.so,cf:$work/b/libx.so"
check "engines: one library twice is one engine" 0 "^cf:x: " -- \
    sh -c "cd '$work/here' && '$runloop_abs' engines cf:libx.so cf:./libx.so"
"$clang" -shared -fPIC -O1 -DDEFECTIVE_CF_CORE_ONLY -o "$work/libcore.so" \
    "$(dirname "$0")/../Tests/DefectiveCF/defective_cf.c" -ldl -lpthread
check "engines: a library's missing optional functions" 0 "lacks blocks: $work/libcore.so has no CFRunLoopPerformBlock" -- \
    "$runloop" engines "cf:$work/libcore.so"
check "engines: every one of them" 0 "lacks tolerance: $work/libcore.so has no CFRunLoopTimerGetTolerance, CFRunLoopTimerSetTolerance" -- \
    "$runloop" engines "cf:$work/libcore.so"
check "engines: the signalled query's function" 0 "lacks is-signalled: $work/libcore.so has no CFRunLoopSourceIsSignalled" -- \
    "$runloop" engines "cf:$work/libcore.so"
check "engines --without" 0 "lacks main-queue: turned off with --without main-queue" -- \
    "$runloop" engines cf --without main-queue
check "engines --without an unknown feature" 2 "unknown feature 'gcd' \(known: source1, stop-mode, tolerance, blocks, main-thread, main-queue, foundation, is-signalled\)" -- \
    "$runloop" engines --without gcd
check "conform --without an unknown feature" 2 "unknown feature 'gcd' \(known: " -- "$runloop" conform --without blocks,gcd
check "conform --without main-queue" 0 "cf: [0-9]+ results, [0-9]+ as expected: [0-9]+ PASS, 0 xFAIL, 0 FAIL, [1-9][0-9]* SKIP, 0 TIMEOUT, 0 CRASH, 0 ERROR" -- \
    "$runloop" conform --engine cf --filter 'main.*' --jobs 4 --without main-queue
check "conform --without: the reason" 0 "skipped message=.engine lacks: mainQueue \(turned off with --without main-queue\)" -- \
    "$runloop" conform --engine ref --filter 'main.queue-in-poll' --without main-queue --format junit
check "conform --without and --worker" 2 "--without works with runloop's own worker only" -- \
    "$runloop" conform --worker "$test_worker" --engine ref --without blocks

# The whole spec on ref with its spin policy on (REF_RUNLOOP_SPIN: 1 spins before a wait while work keeps coming,
# every spins before each wait): spinning changes when the loop sleeps, never what it does, so each tally is the parked
# loop's, which has no result that is not as expected (its SKIPs are the cases ref cannot express, the same in all).
parked=$("$runloop" conform --engine ref --jobs 4 2>&1 | grep -E '^ref: ')
check "the whole spec on ref, parked" 0 "0 FAIL, [0-9]+ SKIP, 0 TIMEOUT, 0 CRASH, 0 ERROR, 0 XPASS" -- echo "$parked"
parked_line="^$(sed 's/[][\.*^$+?(){}|]/\\&/g' <<<"$parked")\$"
for spin in 1 every; do
    check "the whole spec on ref with REF_RUNLOOP_SPIN=$spin" 0 "$parked_line" -- \
        env REF_RUNLOOP_SPIN=$spin "$runloop" conform --engine ref --jobs 4
done
check "REF_RUNLOOP_SPIN with a bad value" 2 "REF_RUNLOOP_SPIN" -- env REF_RUNLOOP_SPIN=often "$runloop" conform --engine ref

# runloop compare: a Google Benchmark CSV with 9 repetitions of two benchmarks, against itself, slowed, and broken.
{
    echo '# commit: cli-check'
    # Google Benchmark's header with one counter.
    printf '%s%s\n' 'name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,' \
        'error_occurred,error_message,"latency_p50_ns"'
    for rep in 1 2 3 4 5 6 7 8 9; do
        echo "BM_WakeLatency/engine:cf/pin:same,1000,$((6000 + rep * 37)),$((5000 + rep * 11)),ns,,,,,,$((5900 + rep))"
        echo "BM_WakeLatency/engine:ref/pin:same,1000,$((4000 + rep * 29)),$((3500 + rep * 13)),ns,,,,,,$((3900 + rep))"
    done
} >"$work/base.csv"
awk -F, 'BEGIN { OFS = "," } /^BM_/ { $3 = $3 * 1.5; $4 = $4 * 1.5 } { print }' "$work/base.csv" >"$work/slower.csv"
head -c 300 "$work/base.csv" >"$work/truncated.csv"
printf 'this is not a csv\n\x00\x01garbage\n' >"$work/garbage.csv"
check "compare: a file with itself" 0 "no significant change" -- "$runloop" compare "$work/base.csv" "$work/base.csv"
check "compare: every time x1.5" 1 "slower" -- "$runloop" compare "$work/base.csv" "$work/slower.csv"
check "compare: truncated file" 2 "truncated.csv" -- "$runloop" compare "$work/base.csv" "$work/truncated.csv"
check "compare: garbage file" 2 "garbage.csv" -- "$runloop" compare "$work/garbage.csv" "$work/base.csv"
check "compare: engines in one file" 0 "ref" -- "$runloop" compare "$work/base.csv" --engines cf,ref

check "compare: both directions" 2 "had already been set" -- \
    "$runloop" compare "$work/base.csv" --engines cf,ref --higher-is-better --lower-is-better

# runloop report: the summary and the targets of Benchmarks/targets.yaml; a target without rows is "not measured";
# a broken CSV or targets file is exit 2 with its file and line; --html writes a page.
check "report: a results file" 0 "not measured +observers.64.cf" -- "$runloop" report "$work/base.csv" --html "$work/report.html"
check "report: the page" 0 "</html>" -- cat "$work/report.html"
check "report: truncated file" 2 "truncated.csv:[0-9]+: error" -- "$runloop" report "$work/truncated.csv"

# runloop faults (what mutation.sh reads fault files with): bad input is exit 2 naming the file and line.
printf 'f1\trun.common-modes-refused\tA.swift\ttext\n' >"$work/faults.tsv"
check "faults: a line without six fields" 2 "faults.tsv:1: a fault needs six tab-separated fields" -- "$runloop" faults "$work/faults.tsv"
printf 'f1\tno.such-rule\tA.swift\ttext\tnew\twhat\n' >"$work/faults.tsv"
check "faults: a rule not in the catalogue" 2 "faults.tsv:1: field 'rule': fault f1: rule 'no.such-rule'" -- "$runloop" faults "$work/faults.tsv"
printf 'format: 1\nengine: ref\ntargets:\n  - id: t\n    description: d\n    family: BM_X\n    metric: m\n    bound: 3\n' >"$work/targets.yaml"
check "report: a bound without its comparison" 2 "targets.yaml:8: error: .*field 'targets\[0\].bound'" -- \
    "$runloop" report "$work/base.csv" --targets "$work/targets.yaml"
check "conform --html" 0 "" -- "$runloop" conform --engine cf --filter 'timer.*' --jobs 4 --html "$work/conform.html"
check "conform: the page" 0 "timer.tolerance.one-shot-returns-set-value" -- cat "$work/conform.html"
check "conform: --verbose and --only-failures" 2 "exclude each other" -- "$runloop" conform --verbose --only-failures

# runloop bench: bad input is exit 2 naming the option, before anything runs. The families and engines are the
# harness's lists: a stand-in harness answers for them here (scripts/bench-smoke.sh checks the real one's).
cat >"$work/fake-harness" <<'HARNESS'
#!/bin/sh
case "$*" in
    *--rl_list_families*) printf 'wake\tmachine limits and wake latency\nscale\tscale\n' ;;
    *--rl_engines=*nope*) echo "runloop-bench: unknown engine 'nope' (engines: ref, cf, or cf:PATH)" >&2; exit 2 ;;
    *--rl_describe*) echo "# engine_ref: stand-in" ;;
    *) exit 1 ;;
esac
HARNESS
chmod +x "$work/fake-harness"
check "bench: unknown family" 2 "bench: --family: unknown family 'nope' \(families: wake, scale\)" -- \
    "$runloop" bench --harness "$work/fake-harness" --family wake,nope --no-history --out "$work/bench.csv"
check "bench: unknown engine" 2 "bench: --engines: 'ref,nope': unknown engine 'nope'" -- \
    "$runloop" bench --harness "$work/fake-harness" --engines ref,nope --no-history --out "$work/bench.csv"
check "bench: too few repetitions" 2 "bench: --repetitions: at least 5" -- "$runloop" bench --repetitions 3
check "bench: repetitions not a number" 2 "'x' is invalid for '--repetitions" -- "$runloop" bench --repetitions x
check "bench: two profiles" 2 "--quick, --full and --smoke exclude each other" -- "$runloop" bench --quick --full
check "bench: a harness that is not there" 2 "bench: --harness: '$work/none' is not an executable file" -- \
    "$runloop" bench --harness "$work/none"
check "bench: --load without --instructions" 2 "bench: --load: only with --instructions" -- \
    "$runloop" bench --load idle1000
check "bench: --instructions of a timed family" 2 "bench: --family: --instructions counts one family, wake or scale" \
    -- "$runloop" bench --instructions --family coalescing
check "bench: --instructions with a profile" 2 "bench: --quick, --full or --smoke: not with --instructions" -- \
    "$runloop" bench --instructions --quick
check "bench: --instructions of a load that is not one" 2 "bench: --load: none or idle1000, not 'idle5'" -- \
    "$runloop" bench --instructions --load idle5
check "bench: --instructions of another tree that is not a checkout" 2 "bench: --tree: '$work' has no Benchmarks" -- \
    "$runloop" bench --instructions --tree "$work"
check "bench: --syscalls with --instructions" 2 "bench: --syscalls: not with --instructions" -- \
    "$runloop" bench --syscalls --instructions
check "bench: --syscalls with a timing option" 2 "bench: --repetitions: not with --syscalls" -- \
    "$runloop" bench --syscalls --repetitions 9
check "bench: --syscalls with too few round trips" 2 \
    "bench: --iterations: with --syscalls, the longer run's round trips" -- "$runloop" bench --syscalls --iterations 50
check "bench: nothing written on bad input" 0 "" -- test ! -e "$work/bench.csv"

# runloop history: the shipped results in a database of their own; a CSV without the context a run needs is exit 2,
# a regression against the previous run exit 1 (the baseline's run against the one before it, both committed).
results_dir="$(dirname "$0")/../results"
check "history: a CSV without context" 2 "base.csv: error: missing context line '# date: ...'" -- \
    "$runloop" history add --db "$work/history.sqlite" "$work/base.csv"
check "history: rebuild from results/" 0 "runs added, 0 already present" -- \
    "$runloop" history rebuild --db "$work/history.sqlite" "$results_dir"
check "history: the same file again" 0 "0 runs added, 1 already present" -- \
    "$runloop" history add --db "$work/history.sqlite" "$results_dir/kvm-2cpu-20261127-0119.csv"
check "history: list" 0 "kvm-2cpu-20261127-0119.csv" -- "$runloop" history list --db "$work/history.sqlite" --profile full
check "history: trend with a page" 0 "wrote $work/trend.html" -- "$runloop" history trend --db "$work/history.sqlite" \
    'BM_Scale/.*/n:10000/' --machine kvm-2cpu --html "$work/trend.html"
check "history: trend of nothing" 2 "no benchmark matches 'no-such-benchmark'" -- \
    "$runloop" history trend --db "$work/history.sqlite" no-such-benchmark
check "history: a regressed benchmark" 1 "regressed: BM_ObserverDispatch/engine:cf/observers:64/real_time: \+17.1 % \(c2c8805..0c6b8cb\)" -- \
    "$runloop" history check --db "$work/history.sqlite" --run "$results_dir/kvm-2cpu-20261127-0119.csv"
check "history: no database" 2 "no history database here" -- "$runloop" history list --db "$work/none.sqlite"
# Instruction counts (`runloop bench --instructions`): exact, so the step of ref's timer between two commits
# is a change point; a count left empty is exit 2 naming the file, line and column.
check "history: an instruction step" 0 "change point: 85a0857\.\.c779713 .*: 2537 -> 2007, -20\.9 %, exact" -- \
    "$runloop" history trend --db "$work/history.sqlite" '^BM_Scale/engine:ref/item:timer/n:10000$' \
    --metric instructions_per_item
instructions_csv=$(ls "$results_dir"/*-instructions-*.csv | head -n 1)
sed 's/^\("BM_Scale\/engine:ref\/item:timer\/n:10000",[0-9]*,,,,\)[0-9]*$/\1/' "$instructions_csv" \
    >"$work/instructions-empty.csv"
check "history: an instruction CSV with an empty count" 2 \
    "instructions-empty.csv:[0-9]+: error: missing value: field 'instructions_per_item'" -- \
    "$runloop" history add --db "$work/history.sqlite" "$work/instructions-empty.csv"

# runloop site: a conformance JSON cut short, a foreign JSON and a missing one are exit 2 naming the file (and the line
# or field), and nothing is written; a broken results CSV names its line. The site itself: SiteKitTests and
# scripts/site-check.sh.
"$runloop" conform --engine ref --filter 'stop.*' --json-out "$work/conformance.json" >/dev/null
# One run is enough for what these checks read (the inputs are read before anything is written).
mkdir -p "$work/site-results"
cp "$results_dir/kvm-2cpu-20261127-0119.csv" "$work/site-results/"
head -c 2000 "$work/conformance.json" >"$work/cut.json"
check "site: a JSON cut short" 2 "cut.json: cut short: the file ends at line [0-9]+" -- \
    "$runloop" site "$work/site" --results "$work/site-results" --conformance "$work/cut.json"
echo '{"tests": []}' >"$work/foreign.json"
check "site: a foreign JSON" 2 "foreign.json: not a runloop conform JSON report" -- \
    "$runloop" site "$work/site" --results "$work/site-results" --conformance "$work/foreign.json"
check "site: a missing JSON" 2 "none.json: no such file" -- \
    "$runloop" site "$work/site" --results "$work/site-results" --conformance "$work/none.json"
mkdir -p "$work/broken-results"
printf '# date: 2026-01-01T00:00:00Z\nname,iterations,real_time,cpu_time,time_unit\n"BM_X",1,2\n' \
    >"$work/broken-results/run.csv"
check "site: a broken results CSV" 2 "run.csv:3: error: wrong field count" -- \
    "$runloop" site "$work/site" --results "$work/broken-results" --conformance "$work/conformance.json"
check "site: nothing written on bad input" 0 "" -- test ! -e "$work/site"

# runloop conform merge: two runs make one matrix (a column each); an empty, cut, foreign (a fuzz report, a CSV) or
# repeated input is exit 2 naming the file. runloop fuzz merge: the shards of a campaign make the whole campaign; the
# same bad inputs, a shard given twice and a shard of another campaign are exit 2 naming the file; so is a bad --shard.
"$runloop" conform --engine cf --filter 'stop.*' --json-out "$work/conformance-cf.json" >/dev/null
check "conform merge: two runs, one matrix" 0 "^conform: [0-9]+ results" -- \
    "$runloop" conform merge "$work/conformance.json" "$work/conformance-cf.json" --json-out "$work/merged.json"
check "conform merge: each run's context" 0 '"hostname" : ' -- cat "$work/merged.json"
: >"$work/empty.json"
check "conform merge: an empty file" 2 "empty.json: empty file" -- \
    "$runloop" conform merge "$work/conformance.json" "$work/empty.json"
check "conform merge: a file cut short" 2 "cut.json: cut short" -- \
    "$runloop" conform merge "$work/conformance.json" "$work/cut.json"
printf '# date: 2026-01-01T00:00:00Z\nname,iterations,real_time\n' >"$work/run.csv"
check "conform merge: a CSV" 2 "run.csv: not JSON \(a CSV file\?\)" -- \
    "$runloop" conform merge "$work/conformance.json" "$work/run.csv"
check "conform merge: the same file twice" 2 "conformance.json: given twice" -- \
    "$runloop" conform merge "$work/conformance.json" "$work/conformance.json"
cp "$work/conformance.json" "$work/copy.json"
check "conform merge: a run twice" 2 "copy.json: the run of .* again" -- \
    "$runloop" conform merge "$work/conformance.json" "$work/copy.json"
check "conform merge: an option of conform" 2 "Unknown option '--engine' \(options of .runloop conform. do not apply" -- \
    "$runloop" conform merge --engine ref "$work/conformance.json" "$work/conformance-cf.json"
check "conform merge: an option of conform before merge" 2 "--level api: options of .runloop conform. do not apply" -- \
    "$runloop" conform --level api merge "$work/conformance.json" "$work/conformance-cf.json"
for k in 1 2; do
    "$runloop" fuzz --worker "$test_worker" --engines ref,faulty --seed 7 --count 8 --shard $k/2 \
        --json-out "$work/shard$k.json" >/dev/null
done
"$runloop" fuzz --worker "$test_worker" --engines ref,faulty --seed 8 --count 8 --shard 2/2 \
    --json-out "$work/other.json" >/dev/null
check "fuzz: --shard 0/4" 2 "--shard '0/4': K must be 1 to N \(4\)" -- "$runloop" fuzz --shard 0/4
check "fuzz: --shard 5/4" 2 "--shard '5/4': K must be 1 to N \(4\)" -- "$runloop" fuzz --shard 5/4
check "fuzz: --shard x" 2 "--shard 'x': not of the form K/N" -- "$runloop" fuzz --shard x
check "fuzz merge: two shards, the whole campaign" 0 "every seed 7 to 14 \(8 scenarios\) = the whole count 8" -- \
    "$runloop" fuzz merge "$work/shard1.json" "$work/shard2.json"
check "fuzz merge: a conformance results file" 2 "conformance.json: a conformance results file" -- \
    "$runloop" fuzz merge "$work/shard1.json" "$work/conformance.json"
check "conform merge: a fuzz report" 2 "shard1.json: a fuzz report \(runloop fuzz --json-out\), not conformance" -- \
    "$runloop" conform merge "$work/conformance.json" "$work/shard1.json"
check "fuzz merge: an option of fuzz" 2 "Unknown option '--seed' \(options of .runloop fuzz. do not apply" -- \
    "$runloop" fuzz merge --seed 3 "$work/shard1.json" "$work/shard2.json"
check "fuzz merge: an empty file" 2 "empty.json: empty file" -- "$runloop" fuzz merge "$work/shard1.json" "$work/empty.json"
head -c 500 "$work/shard1.json" >"$work/shard-cut.json"
check "fuzz merge: a file cut short" 2 "shard-cut.json: cut short" -- \
    "$runloop" fuzz merge "$work/shard1.json" "$work/shard-cut.json"
check "fuzz merge: a CSV" 2 "run.csv: not JSON \(a CSV file\?\)" -- "$runloop" fuzz merge "$work/shard1.json" "$work/run.csv"
check "fuzz merge: a shard twice" 2 "shard1.json: shard 1/2 of the campaign again" -- \
    "$runloop" fuzz merge "$work/shard1.json" "$work/shard2.json" "$work/shard1.json"
check "fuzz merge: another campaign" 2 "other.json: another campaign than .*shard1.json's \(first_seed 8, not 7\)" -- \
    "$runloop" fuzz merge "$work/shard1.json" "$work/other.json"

# The mutation faults (scripts/mutation/faults.tsv and faults-blind.tsv) still apply: each text occurs exactly once in
# its file, so a change to ref that moves one fails here instead of in the next mutation run. No build.
check "mutation faults apply" 0 "set own .*faults, each text found exactly once" -- "$(dirname "$0")/mutation.sh" --check
check "mutation blind faults apply" 0 "set blind .*faults, each text found exactly once" -- "$(dirname "$0")/mutation.sh" --check
check "mutation: unknown set" 2 "is own, blind or all, not 'nope'" -- "$(dirname "$0")/mutation.sh" --set nope --check
check "mutation: unknown fault" 2 "no fault 'nope'" -- "$(dirname "$0")/mutation.sh" --only nope
check "mutation: a seed that is not a number" 2 "fuzz-seed needs a number" -- "$(dirname "$0")/mutation.sh" --fuzz 10 --fuzz-seed x --check

# scripts/mutants.sh's oracle flags: bad values are exit 2 naming the flag, before any build.
check "mutants: an unknown spin value" 2 "--spin is every, 1 or Nus .*, not 'always'" -- \
    "$(dirname "$0")/mutants.sh" --spin always
check "mutants: a second oracle with --fuzz" 2 "--spin and --unit-tests add oracles to the spec runs, not to" -- \
    "$(dirname "$0")/mutants.sh" --fuzz 10 --unit-tests

# scripts/consumer-check.sh (the package that depends on RefRunLoop by version, built by the test command): a bad
# argument is exit 2 naming it, before any clone or build.
check "consumer-check: an unknown argument" 2 "unknown argument 'nope'" -- "$(dirname "$0")/consumer-check.sh" nope

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
