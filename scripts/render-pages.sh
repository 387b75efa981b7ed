#!/usr/bin/env bash
# Renders each kind of page `runloop` writes with headless Chromium to PNG, to check them in a real browser and for
# the README's screenshots (docs/screenshots/):
#
#   scripts/render-pages.sh [--out DIR] [--pages DIR] [RESULTS.csv]
#
#   bench-report.png   runloop report RESULTS.csv --html          (default: the newest results/*.csv)
#   conform-report.png runloop conform --engine all --html        (a real run of the shipped spec)
#   compare-plot.png   runloop compare RESULTS.csv --engines cf,ref --metric latency_p50_ns --plot
#   history-trend.png  runloop history trend 'BM_Scale/.*/n:10000/' --machine kvm-2cpu --html  (every results/*.csv)
#
# The pages themselves (.html, .svg) go to a temporary directory (--pages DIR keeps them). Installs Debian's chromium and imagemagick if
# missing (scripts/lib/setup.sh), builds runloop (debug) if needed. Each page is shot in a window 1280 pixels wide
# and taller than the page, then trimmed to its content and reduced to 256 colours. Exit status: 0, 1 if a step
# failed, 2 for bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

usage() { sed -n '5,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
out=docs/screenshots results="" pages=""
while (($#)); do
    case "$1" in
        --out) (($# >= 2)) || usage; out=$2; shift ;;
        --pages) (($# >= 2)) || usage; pages=$2; shift ;;
        -h|--help) usage ;;
        -*) echo "render-pages: unknown argument '$1'" >&2; usage ;;
        *) [[ -z $results ]] || usage; results=$1 ;;
    esac
    shift
done
if [[ -z $results ]]; then
    results=$(ls -t results/*.csv 2>/dev/null | head -n 1 || true)
    [[ -n $results ]] || { echo "render-pages: no results/*.csv; pass a results file" >&2; exit 2; }
fi
[[ -f $results ]] || { echo "render-pages: $results: no such file" >&2; exit 2; }

require_swift
ensure_packages chromium imagemagick fonts-dejavu-core
swift build --product runloop >/dev/null
runloop="$(swift build --show-bin-path)/runloop"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/render-pages.XXXXXX")
trap 'rm -rf "$work"' EXIT
pages=${pages:-$work/pages}
mkdir -p "$pages"

# shoot PAGE PNG: the page in headless Chromium (a throw-away profile, no network needed), trimmed and quantised.
shoot() {
    local page=$1 png=$2
    timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile" \
        --force-device-scale-factor=1 --window-size=1280,14000 --default-background-color=ffffffff \
        --screenshot="$work/shot.png" "file://$(realpath "$page")" >"$work/chromium.log" 2>&1 || {
        tail -n 20 "$work/chromium.log" >&2
        echo "render-pages: chromium could not render $page" >&2
        exit 1
    }
    convert "$work/shot.png" -trim +repage -bordercolor white -border 24 -colors 256 "PNG8:$png"
    echo "render-pages: $png ($(identify -format '%wx%h' "$png"))" >&2
}

"$runloop" report "$results" --html "$pages/bench-report.html" >/dev/null
shoot "$pages/bench-report.html" "$out/bench-report.png"

# A conformance run is exit 1 when a case is not as expected: the page is still the one to look at.
"$runloop" conform --engine all --html "$pages/conform-report.html" >/dev/null || (($? == 1))
shoot "$pages/conform-report.html" "$out/conform-report.png"

"$runloop" compare "$results" --engines cf,ref --metric latency_p50_ns --plot "$pages/compare-plot.svg" >/dev/null \
    || (($? == 1))
shoot "$pages/compare-plot.svg" "$out/compare-plot.png"

# The history of every CSV in results/, in a database of its own; the item churn at N = 10,000 on the label kvm-2cpu.
"$runloop" history rebuild --db "$work/history.sqlite" results >/dev/null
"$runloop" history trend --db "$work/history.sqlite" 'BM_Scale/.*/n:10000/' --machine kvm-2cpu \
    --html "$pages/history-trend.html" >/dev/null
shoot "$pages/history-trend.html" "$out/history-trend.png"
