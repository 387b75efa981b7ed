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

check "conform on cf, json" 0 '"FAIL" : 0' -- "$runloop" conform --engine cf --format json
check "conform junit" 0 '<testsuites' -- "$runloop" conform --engine cf --format junit --filter 'order.*'
check "unknown engine" 2 "unknown engine 'nope'" -- "$runloop" conform --engine nope
check "unknown format" 2 "unknown format 'yaml'" -- "$runloop" conform --format yaml
check "no case matches" 2 "no case matches" -- "$runloop" conform --filter 'no-such-area.*'

printf 'spec_version: 1\ncases:\n  - id: bad.case\n    rule: x\n    source: observed\n    steps: [fly]\n    expect: []\n' >"$work/bad.yaml"
check "malformed spec: unknown action" 2 "bad.yaml:6: case 'bad.case': field 'steps\[0\]': unknown action 'fly'" -- \
    "$runloop" conform --spec "$work/bad.yaml" --expectations none
printf 'spec_version: 1\ncases:\n  - id: bad.case\n    rule: [x\n' >"$work/syntax.yaml"
check "malformed spec: YAML syntax" 2 "syntax.yaml:[0-9]+: YAML syntax error" -- \
    "$runloop" conform --spec "$work/syntax.yaml" --expectations none
check "missing spec path" 2 "no such file or directory" -- "$runloop" conform --spec "$work/none.yaml"

printf 'spec_version: 1\ncases:\n  - id: self.wrong\n    rule: x\n    source: observed\n    steps: [run]\n    expect: [run default, return finished]\n' >"$work/wrong.yaml"
check "a failing case exits 1 with a diff" 1 '\+ return timedOut' -- \
    "$runloop" conform --engine cf --spec "$work/wrong.yaml" --expectations none

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
