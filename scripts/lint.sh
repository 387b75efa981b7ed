#!/usr/bin/env bash
# Checks that the tree is formatted: the C and C++ files (shims, harness, C targets, test libraries) with clang-format
# and the repository's .clang-format, the Swift files (Sources, Tests, Benchmarks, InputFuzz, Tools and the
# Package.swift files) with `swift format lint --strict` and the repository's .swift-format; and the GitHub Actions
# workflows (.github/workflows) with actionlint. Changes nothing unless --fix.
#
#   scripts/lint.sh [--fix] [--c-only | --swift-only | --workflows-only]
#
#   --fix             format the files in place instead (clang-format -i, swift format format --in-place), then check
#   --c-only          only the C and C++ files
#   --swift-only      only the Swift files
#   --workflows-only  only the workflows (actionlint has no --fix)
#
# Installs Debian's clang-format (version 14, the one .clang-format is written for) when it is missing. The files are
# the ones git tracks, and new ones it does not ignore. Each file with a finding is named, with the findings of
# swift-format. Last line: "lint: passed: ..." or "lint: FAILED: ..."; exit 0, 1 on a finding, 2 for bad arguments.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

usage() { sed -n '7,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
fix=0 check_c=1 check_swift=1 check_workflows=1
while (($#)); do
    case "$1" in
        --fix) fix=1 ;;
        --c-only) check_swift=0 check_workflows=0 ;;
        --swift-only) check_c=0 check_workflows=0 ;;
        --workflows-only) check_c=0 check_swift=0 ;;
        -h|--help) usage ;;
        *) echo "lint: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done
((check_c + check_swift + check_workflows == 1 || check_c + check_swift + check_workflows == 3)) ||
    { echo "lint: --c-only, --swift-only and --workflows-only exclude each other" >&2; exit 2; }

# The files git knows or would add: tracked, and untracked but not ignored (never .build*, fetched checkouts).
files() { git ls-files --cached --others --exclude-standard -- "$@" | while read -r f; do [[ -f $f ]] && echo "$f"; done; }

failed=()    # files with a finding
summary=()   # one phrase per checker

if ((check_c)); then
    ensure_packages clang-format
    version=$(clang-format --version)
    [[ $version == *" 14."* ]] || echo "lint: warning: .clang-format is written for clang-format 14; this is: $version" >&2
    mapfile -t c_files < <(files '*.c' '*.h' '*.cpp' '*.hpp' '*.cc')
    if ((fix)) && ((${#c_files[@]})); then clang-format -i "${c_files[@]}"; fi
    # One call for every file: each finding is "PATH:LINE:COLUMN: error: code should be clang-formatted [...]".
    c_findings=$(mktemp "${TMPDIR:-/tmp}/lint-c.XXXXXX")
    c_status=0
    if ((${#c_files[@]})); then clang-format --dry-run --Werror "${c_files[@]}" >"$c_findings" 2>&1 || c_status=$?; fi
    mapfile -t c_failed < <(sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*\[-Wclang-format-violations\]$/\1/p' \
        "$c_findings" | sort -u)
    if ((c_status != 0)) && ((${#c_failed[@]} == 0)); then
        cat "$c_findings" >&2
        rm -f "$c_findings"
        echo "lint: FAILED: clang-format exited $c_status without naming a file (its output above)"
        exit 1
    fi
    rm -f "$c_findings"
    for f in "${c_failed[@]}"; do
        echo "lint: $f: not formatted (clang-format -i $f)"
        failed+=("$f")
    done
    summary+=("C/C++ ${#c_files[@]} files, ${#c_failed[@]} not formatted")
fi

if ((check_swift)); then
    require_swift
    mapfile -t swift_files < <(files 'Sources/*.swift' 'Tests/*.swift' 'Benchmarks/*.swift' 'InputFuzz/*.swift' \
        'Tools/*.swift' 'Package.swift')
    if ((fix)) && ((${#swift_files[@]})); then
        swift format format --in-place --parallel --configuration .swift-format "${swift_files[@]}"
    fi
    findings=$(mktemp "${TMPDIR:-/tmp}/lint.XXXXXX")
    trap 'rm -f "$findings"' EXIT
    swift_status=0
    if ((${#swift_files[@]})); then
        swift format lint --strict --parallel --configuration .swift-format "${swift_files[@]}" >"$findings" 2>&1 ||
            swift_status=$?
    fi
    # A finding is "PATH:LINE:COLUMN: error|warning: [Rule] text"; anything else in the output is a failure of its own.
    mapfile -t swift_failed < <(sed -n 's/^\([^:]*\.swift\):[0-9]*:[0-9]*: \(error\|warning\): .*/\1/p' "$findings" |
        sort -u)
    for f in "${swift_failed[@]}"; do
        echo "lint: $f: $(grep -c "^$f:" "$findings") finding(s) (swift format format --in-place $f):"
        grep "^$f:" "$findings" | sort -u -t: -k2,2n -k3,3n | head -n 5 | sed 's/^/    /'
        failed+=("$f")
    done
    if ((swift_status != 0)) && ((${#swift_failed[@]} == 0)); then
        cat "$findings" >&2
        echo "lint: FAILED: swift format lint exited $swift_status without naming a file (its output above)"
        exit 1
    fi
    summary+=("Swift ${#swift_files[@]} files, ${#swift_failed[@]} with findings")
fi

if ((check_workflows)); then
    # actionlint's findings are "PATH:LINE:COLUMN: text [rule]"; .github/actionlint.yaml names the self-hosted labels.
    if ! actionlint=$(ensure_actionlint); then
        echo "lint: FAILED: actionlint could not be installed (pip's output above)"
        exit 1
    fi
    mapfile -t workflow_files < <(files '.github/workflows/*.yml' '.github/workflows/*.yaml')
    workflow_findings=$(mktemp "${TMPDIR:-/tmp}/lint-workflows.XXXXXX")
    workflow_status=0
    if ((${#workflow_files[@]})); then
        "$actionlint" -no-color "${workflow_files[@]}" >"$workflow_findings" 2>&1 || workflow_status=$?
    fi
    mapfile -t workflow_failed < <(sed -n 's/^\(\.github\/[^:]*\):[0-9]*:[0-9]*: .*/\1/p' "$workflow_findings" | sort -u)
    for f in "${workflow_failed[@]}"; do
        echo "lint: $f: $(grep -c "^$f:" "$workflow_findings") finding(s) (actionlint $f):"
        grep "^$f:" "$workflow_findings" | head -n 5 | sed 's/^/    /'
        failed+=("$f")
    done
    if ((workflow_status != 0)) && ((${#workflow_failed[@]} == 0)); then
        cat "$workflow_findings" >&2
        rm -f "$workflow_findings"
        echo "lint: FAILED: actionlint exited $workflow_status without naming a file (its output above)"
        exit 1
    fi
    rm -f "$workflow_findings"
    summary+=("workflows ${#workflow_files[@]} files, ${#workflow_failed[@]} with findings")
fi

joined=$(IFS=';'; echo "${summary[*]}" | sed 's/;/; /g')
if ((${#failed[@]})); then
    echo "lint: FAILED: ${#failed[@]} files not formatted or with findings ($joined)"
    exit 1
fi
echo "lint: passed: $joined"
