// swift-tools-version:6.0
// RunLoopSuite: an executable specification of CFRunLoop behaviour, engines that are checked against it,
// and tools to benchmark and compare run loops.
//
// Linux only: the reference loop is built on epoll, eventfd and timerfd (Sources/CRunLoopSystem), and the `cf` engine
// is the swift-corelibs CoreFoundation inside the toolchain's libFoundation.so. The benchmark harness is its own package,
// Benchmarks/Package.swift, which depends on this one (it needs Google Benchmark, GLib, libuv and libevent; building
// and testing this package needs none of them).
import PackageDescription

#if !os(Linux)
#error("RunLoopSuite builds on Linux only (epoll, eventfd, timerfd and the toolchain's libFoundation.so)")
#endif

let package = Package(
    name: "RunLoopSuite",
    products: [
        .executable(name: "runloop", targets: ["runloop"]),
        .library(name: "EngineKit", targets: ["EngineKit"]),
        .library(name: "RefRunLoop", targets: ["RefRunLoop"]),
        .library(name: "ConformanceKit", targets: ["ConformanceKit"]),
        .library(name: "ResultsKit", targets: ["ResultsKit"]),
        .library(name: "CompareKit", targets: ["CompareKit"]),
        .library(name: "HistoryKit", targets: ["HistoryKit"]),
        .library(name: "SiteKit", targets: ["SiteKit"]),
        .library(name: "BenchKit", targets: ["BenchKit"]),
        // For the benchmark package (Benchmarks/Package.swift): the C shims call ref through its C ABI and CF through
        // CFLoader's dlsym table.
        .library(name: "RefRunLoopABI", targets: ["RefRunLoopABI"]),
        .library(name: "CFLoader", targets: ["CFLoader"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // The benchmark history's index (HistoryKit), over the system SQLite (Debian's libsqlite3-dev).
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // Linux primitives Glibc's Swift overlay does not declare (eventfd, timerfd, epoll helpers), and libdispatch's
        // main-queue hooks for run loops. Not named CSystem: swift-system, which SwiftNIO brings into the benchmark
        // package's graph (Benchmarks/Package.swift), has a target of that name, and SwiftPM wants target names unique
        // across a package graph (module aliases do not apply to C targets).
        .target(name: "CRunLoopSystem", linkerSettings: [.linkedLibrary("dispatch")]),
        // The contract every engine implements so the conformance runner can drive it.
        .target(name: "EngineKit"),
        // A CoreFoundation implementation's run-loop C API as a table of functions: the toolchain's (found in the
        // process) or any shared library's, loaded with dlopen at run time.
        .target(name: "CFLoader", linkerSettings: [.linkedLibrary("dl")]),
        // The engines `cf` (the real CoreFoundation shipped with the toolchain, which this target links) and
        // `cf:PATH` (any CoreFoundation library), both through CFLoader's table.
        .target(
            name: "CFEngine",
            dependencies: ["CFLoader", "EngineKit"],
            linkerSettings: [.linkedLibrary("Foundation")]
        ),
        // The engine `foundation`: the toolchain's loop through swift-corelibs-foundation's RunLoop and Timer, and
        // through CF's C API (CFEngine's table) only where Foundation has none.
        .target(name: "FoundationEngine", dependencies: ["CFEngine", "EngineKit"]),
        // The reference run loop: CFRunLoop semantics in Swift on epoll, eventfd and timerfd. No unsafe flags, so
        // other packages can depend on it by version (scripts/consumer-check.sh builds one that does); Swift's
        // exclusivity checks stay on in every build.
        .target(name: "RefRunLoop", dependencies: ["CRunLoopSystem", "RefRunLoopABI"]),
        // The reference run loop's C header, for C and C++ callers (the benchmark shims); implemented in RefRunLoop.
        .target(name: "RefRunLoopABI"),
        // The `ref` engine: the reference run loop behind the engine contract.
        .target(name: "RefEngine", dependencies: ["RefRunLoop", "EngineKit"]),
        // The spec files (cases, per-engine expectations, the rule catalogue, the seed claims, format documentation) as
        // package resources.
        .target(
            name: "ConformanceSpec",
            exclude: ["INTERPRETING.md", "cf-platform-branches.yaml"],
            resources: [
                .copy("cases"), .copy("expectations"), .copy("catalogue.yaml"), .copy("fuzz-known.yaml"),
                .copy("seeds.yaml"),
            ]
        ),
        // Spec model, loader, scenario interpreter, runner and reports. It reads the shipped rule catalogue to check
        // the rule ids cases cite.
        .target(
            name: "ConformanceKit",
            dependencies: ["EngineKit", "CRunLoopSystem", "ConformanceSpec", "MarkupKit", "YAMLKit"]
        ),
        // The scenario fuzzer behind `runloop fuzz`: generates scenarios, runs them on engines through ConformanceKit's
        // worker sessions, shrinks divergences and writes them as spec cases.
        .target(
            name: "ConformanceFuzzer", dependencies: ["ConformanceKit", "EngineKit", "YAMLKit"],
            exclude: ["FUZZING.md"]),
        // Typed reading of YAML files (Yams's composed tree) with errors naming the file, line and field, for the spec
        // loader and the benchmark targets file.
        .target(name: "YAMLKit", dependencies: [.product(name: "Yams", package: "Yams")]),
        // The kit of pages, charts and tables, knowing nothing of benchmarks: XML escaping, the frame of the HTML
        // pages, SVG line charts and dot plots, terminal tables, number formatting.
        .target(name: "MarkupKit"),
        // The results model every benchmark tool reads: Google Benchmark CSVs with the run's context lines, their rows,
        // benchmarks by family, engine and variant, counters, and the statistics over repetitions.
        .target(name: "ResultsKit", dependencies: ["MarkupKit"]),
        // `runloop compare`: two runs, two machines or two engines, benchmark by benchmark (Mann-Whitney U, a
        // regression gate, a chart).
        .target(
            name: "CompareKit", dependencies: ["ResultsKit", "MarkupKit"],
            exclude: ["COMPARING.md"]),
        // `runloop report`: one results file's tables, findings and targets, and its page, as Benchmarks/targets.yaml
        // defines them.
        .target(name: "ReportKit", dependencies: ["ResultsKit", "MarkupKit", "YAMLKit"]),
        // The benchmark history: every results CSV indexed in an SQLite database (the CSVs stay the source of truth),
        // trends per benchmark and engine, change points (E-divisive means) and a regression check of the newest run.
        .target(
            name: "HistoryKit",
            dependencies: ["ResultsKit", "MarkupKit", .product(name: "GRDB", package: "GRDB.swift")],
            exclude: ["HISTORY.md"]),
        // `runloop site`: one static results site (overview, conformance, benchmarks, trends, engines, rules) made of
        // the other tools' pages and data, with a shared bar of links.
        .target(
            name: "SiteKit",
            dependencies: [
                "ConformanceKit", "ConformanceSpec", "EngineKit", "HistoryKit",
                "MarkupKit", "ReportKit", "ResultsKit",
            ]),
        // `runloop bench`: builds the benchmark harness (Benchmarks/), runs its families with process isolation,
        // random interleaving, watchdogs and hang handling, merges their CSVs, reports and records the run.
        .target(name: "BenchKit", dependencies: ["ResultsKit", "ReportKit", "HistoryKit"]),
        // The one list of built-in conformance engines (and the `cf:PATH` loader), for the CLI, the tests and the
        // test worker.
        .target(
            name: "Engines", dependencies: ["CFEngine", "FoundationEngine", "RefEngine", "ConformanceKit", "EngineKit"]),
        // The command-line tool: parses arguments and calls the libraries.
        .executableTarget(
            name: "runloop",
            dependencies: [
                "ConformanceKit", "ConformanceFuzzer", "ConformanceSpec", "Engines", "EngineKit", "ResultsKit",
                "CompareKit",
                "ReportKit", "HistoryKit", "SiteKit", "BenchKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // A conformance worker for the tests only: the built-in engines plus `faulty`, which crashes or hangs on
        // chosen cases (process isolation's own test). ConformanceTests runs it; it is not part of `runloop`.
        .executableTarget(
            name: "ConformanceTestWorker",
            dependencies: ["ConformanceKit", "Engines", "RefEngine", "EngineKit"],
            path: "Tests/ConformanceTestWorker"
        ),
        // What the conformance and fuzzer tests share: where they find ConformanceTestWorker.
        .target(name: "ConformanceTestSupport", dependencies: ["ConformanceKit"], path: "Tests/ConformanceTestSupport"),
        .testTarget(
            name: "ConformanceTests",
            dependencies: [
                "ConformanceKit", "ConformanceSpec", "Engines", "CFEngine", "FoundationEngine", "RefEngine", "CFLoader",
                "EngineKit", "ConformanceTestSupport",
                "ProcessTestSupport",
            ]
        ),
        .testTarget(
            name: "ConformanceFuzzerTests",
            dependencies: [
                "ConformanceFuzzer", "ConformanceKit", "ConformanceSpec", "EngineKit",
                "ConformanceTestSupport",
            ]
        ),
        .testTarget(name: "RefRunLoopTests", dependencies: ["RefRunLoop", "CRunLoopSystem"]),
        // What the ResultsKit, CompareKit and ReportKit tests share: fixture CSVs, the `runloop` binary built next to
        // them, and checks of XML and of figures.
        .target(
            name: "BenchTestSupport", dependencies: ["ResultsKit", "ProcessTestSupport"], path: "Tests/BenchTestSupport"
        ),
        // Running a command from a test with a deadline, its output in files.
        .target(name: "ProcessTestSupport", path: "Tests/ProcessTestSupport"),
        .testTarget(name: "ResultsKitTests", dependencies: ["ResultsKit", "BenchTestSupport"]),
        .testTarget(name: "CompareKitTests", dependencies: ["CompareKit", "ResultsKit", "BenchTestSupport"]),
        .testTarget(
            name: "ReportKitTests", dependencies: ["ReportKit", "ResultsKit", "MarkupKit", "BenchTestSupport"]),
        .testTarget(
            name: "SiteKitTests",
            dependencies: [
                "SiteKit", "ConformanceKit", "ConformanceSpec", "Engines",
                "EngineKit", "RefEngine",
            ]),
        .testTarget(name: "BenchKitTests", dependencies: ["BenchKit", "ResultsKit"]),
        .testTarget(
            name: "HistoryTests",
            dependencies: [
                "HistoryKit", "ResultsKit", "MarkupKit",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        // Keeps the docs for users: README's length, no dated figure in the user docs, every link and script path valid.
        .testTarget(name: "DocsTests"),
    ]
)

// RUNLOOP_PACKAGE_SUBSET=ref: only the reference loop and its tests. scripts/tsan-stress.sh builds them under
// ThreadSanitizer this way: the tests it runs need nothing else, and the whole package's sanitized build (every other
// target and the packages they use) would take several times as long. The package dependencies stay declared, unused
// and not built, so that resolving this subset keeps Package.resolved as the whole package has it.
if Context.environment["RUNLOOP_PACKAGE_SUBSET"] == "ref" {
    let kept: Set<String> = ["CRunLoopSystem", "RefRunLoopABI", "RefRunLoop", "RefRunLoopTests"]
    package.targets.removeAll { !kept.contains($0.name) }
    package.products.removeAll { $0.name != "RefRunLoop" }
}
