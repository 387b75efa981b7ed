#!/usr/bin/env bash
# Checks the results site (`runloop site`) in a real browser: renders every page with headless Chromium to a PNG and
# fails when a page does not render, when the page logs anything to the console (a script error; the pages have no
# script, so any console line is one), or when the browser asked for a file that is not there (a missing image):
#
#   scripts/site-check.sh [--screenshots] [--self-test] [DIR]
#
#   DIR            a site to check; without it, a site built from the repo's results/ and a small conformance run
#                  of ref (runloop conform --engine ref --filter 'stop.*') in a temporary directory
#   --screenshots  also write docs/screenshots/site-{index,conformance,bench,trends}.png (trimmed, 256 colours)
#   --self-test    also plant a page with a broken script and one with a missing image, and fail unless the check
#                  catches both
#
# Chromium runs with --enable-logging=stderr --v=0 (console messages are its ":INFO:CONSOLE" lines) and
# --vmodule=file_url_loader_factory=1 (a line per file:// URL it loads, which is checked against the disk). Installs
# Debian's chromium and imagemagick if missing (scripts/lib/setup.sh); builds runloop (debug) when it builds the
# site. Each page has 60 seconds. Exit status: 0 every page passed, 1 a page failed, 2 bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

usage() { sed -n '6,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
site="" screenshots=0 self_test=0
while (($#)); do
    case "$1" in
        --screenshots) screenshots=1 ;;
        --self-test) self_test=1 ;;
        -h|--help) usage ;;
        -*) echo "site-check: unknown argument '$1'" >&2; usage ;;
        *) [[ -z $site ]] || usage; site=$1 ;;
    esac
    shift
done
if [[ -n $site && ! -f $site/index.html ]]; then
    echo "site-check: $site: no index.html (build a site with runloop site DIR)" >&2
    exit 2
fi

ensure_packages chromium imagemagick fonts-dejavu-core
work=$(mktemp -d "${TMPDIR:-/tmp}/site-check.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [[ -z $site ]]; then
    require_swift
    swift build --product runloop >/dev/null
    runloop="$(swift build --show-bin-path)/runloop"
    # A small run: its cases are few and quick; exit 1 (a case not as expected) still makes a page to check.
    "$runloop" conform --engine ref --filter 'stop.*' --json-out "$work/conformance.json" >/dev/null || (($? == 1))
    site=$work/site
    "$runloop" site "$site" --results results --conformance "$work/conformance.json" >/dev/null
fi

# render PAGE PNG HEIGHT: 0 when the page rendered with no console message and every file it loaded exists.
render() {
    local page=$1 png=$2 height=$3 log=$work/chromium.log
    rm -f "$png"
    if ! timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile" \
        --enable-logging=stderr --v=0 --vmodule=file_url_loader_factory=1 --force-device-scale-factor=1 \
        --window-size="1280,$height" --default-background-color=ffffffff --screenshot="$png" \
        "file://$(realpath "$page")" >"$log" 2>&1 || [[ ! -s $png ]]; then
        tail -n 20 "$log" >&2
        echo "site-check: FAIL $page: chromium did not render it" >&2
        return 1
    fi
    local failed=0 url file
    if grep -q ':CONSOLE' "$log"; then
        grep ':CONSOLE' "$log" | sed 's/^.*:CONSOLE[^]]*] */  console: /' >&2
        echo "site-check: FAIL $page: console messages" >&2
        failed=1
    fi
    while read -r url; do
        # The URL's path, its %XX escapes decoded.
        file=$(printf '%b' "$(sed 's/%\([0-9A-Fa-f][0-9A-Fa-f]\)/\\x\1/g' <<<"${url#file://}")")
        if [[ ! -e $file ]]; then
            echo "site-check: FAIL $page: loads $url, which does not exist" >&2
            failed=1
        fi
    done < <(grep -o 'FileURLLoader::Start: file://[^ ]*' "$log" | sed 's/^FileURLLoader::Start: //')
    return $failed
}

failures=0
pages=0
for page in "$site"/*.html; do
    pages=$((pages + 1))
    if render "$page" "$work/page.png" 4000; then
        echo "site-check: ok $(basename "$page")"
    else
        failures=$((failures + 1))
    fi
done

if ((screenshots)); then
    mkdir -p docs/screenshots
    for name in index conformance bench trends; do
        # Tall enough for the page, then trimmed to its content and cut at 3000 pixels: the top of a long page.
        render "$site/$name.html" "$work/shot.png" 9000 || { failures=$((failures + 1)); continue; }
        convert "$work/shot.png" -trim +repage -crop 1280x3000+0+0 +repage -bordercolor white -border 24 \
            -colors 256 "PNG8:docs/screenshots/site-$name.png"
        png=docs/screenshots/site-$name.png
        echo "site-check: $png ($(identify -format '%wx%h' "$png"))"
    done
fi

if ((self_test)); then
    # A page with a script that throws, and one with an image that is not there: each must fail the check.
    printf '%s\n' '<!DOCTYPE html>' '<html xmlns="http://www.w3.org/1999/xhtml"><body><p>planted</p>' \
        '<script>notDefined();</script></body></html>' >"$work/planted-script.html"
    printf '%s\n' '<!DOCTYPE html>' '<html xmlns="http://www.w3.org/1999/xhtml"><body><p>planted</p>' \
        '<img src="no-such-image.png" alt="missing"/></body></html>' >"$work/planted-image.html"
    for planted in planted-script planted-image; do
        if render "$work/$planted.html" "$work/page.png" 800 2>"$work/planted.log"; then
            echo "site-check: FAIL self-test: the check passed $planted.html" >&2
            failures=$((failures + 1))
        else
            reason=$(grep -m1 'FAIL' "$work/planted.log" | sed 's/^.*: //')
            echo "site-check: ok self-test: caught $planted.html ($reason)"
        fi
    done
fi

if ((failures)); then
    echo "site-check: $failures of $pages pages failed" >&2
    exit 1
fi
echo "site-check: $pages pages rendered, no console message, no missing file"
