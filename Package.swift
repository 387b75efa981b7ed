// swift-tools-version:6.0
// RunLoopSuite: an executable specification of CFRunLoop behaviour, engines that are checked against it,
// and tools to benchmark and compare run loops.
import PackageDescription
import Foundation  // benchmarks: finding the toolchain's CoreFoundation headers (see the end of this file)

let package = Package(
    name: "RunLoopSuite",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "runloop", targets: ["runloop"]),
        .library(name: "EngineKit", targets: ["EngineKit"]),
        .library(name: "RefRunLoop", targets: ["RefRunLoop"]),
        .library(name: "ConformanceKit", targets: ["ConformanceKit"]),
        .library(name: "CompareKit", targets: ["CompareKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // Linux primitives Glibc's Swift overlay does not declare (eventfd, timerfd, epoll helpers).
        .target(name: "CSystem"),
        // The contract every engine implements so the conformance runner can drive it.
        .target(name: "EngineKit"),
        // Declarations of CF functions libFoundation.so exports but the toolchain's headers hide on Linux.
        .target(name: "CFPrivate"),
        // The `cf` engine: the real CoreFoundation shipped with the toolchain.
        .target(
            name: "CFEngine",
            dependencies: ["EngineKit", "CFPrivate"],
            linkerSettings: [.linkedLibrary("Foundation")]
        ),
        // Engines `cf:PATH`: any CoreFoundation implementation's shared library, loaded with dlopen at run time.
        .target(name: "CFLoader", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "LoadedCFEngine", dependencies: ["CFLoader", "EngineKit"]),
        // The reference run loop: CFRunLoop semantics in Swift on epoll, eventfd and timerfd.
        .target(name: "RefRunLoop", dependencies: ["CSystem"]),
        // The reference run loop's C header, for C and C++ callers (the benchmark shims); implemented in RefRunLoop.
        .target(name: "RefRunLoopABI"),
        // The `ref` engine: the reference run loop behind the engine contract.
        .target(name: "RefEngine", dependencies: ["RefRunLoop", "EngineKit"]),
        // The spec files (cases, per-engine expectations, format documentation) as package resources.
        .target(
            name: "ConformanceSpec",
            exclude: ["INTERPRETING.md"],
            resources: [.copy("cases"), .copy("expectations"), .copy("fuzz-known.yaml")]
        ),
        // Spec model, loader, scenario interpreter, runner and reports.
        .target(
            name: "ConformanceKit",
            dependencies: ["EngineKit", "CSystem", .product(name: "Yams", package: "Yams")],
            exclude: ["FUZZING.md"]
        ),
        // Reading benchmark CSVs and comparing them with statistics.
        .target(name: "CompareKit", exclude: ["COMPARING.md"]),
        // The command-line tool: parses arguments and calls the libraries.
        .executableTarget(
            name: "runloop",
            dependencies: [
                "ConformanceKit", "ConformanceSpec", "CFEngine", "RefEngine", "LoadedCFEngine", "CompareKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // A conformance worker for the tests only: the built-in engines plus `faulty`, which crashes or hangs on
        // chosen cases (process isolation's own test). ConformanceTests runs it; it is not part of `runloop`.
        .executableTarget(
            name: "ConformanceTestWorker",
            dependencies: ["ConformanceKit", "CFEngine", "RefEngine", "LoadedCFEngine", "EngineKit"],
            path: "Tests/ConformanceTestWorker"
        ),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["ConformanceKit", "ConformanceSpec", "CFEngine", "RefEngine", "LoadedCFEngine", "CFLoader", "EngineKit"]
        ),
        .testTarget(name: "RefRunLoopTests", dependencies: ["RefRunLoop", "CSystem"]),
        .testTarget(name: "CompareTests", dependencies: ["CompareKit"]),
    ]
)

// MARK: Benchmarks (Benchmarks/README.md): a Google Benchmark harness in C++ with one C shim per run-loop engine.

/// The root of the Swift toolchain building this package (`<root>/usr/bin/swift`), whose CoreFoundation C headers
/// live in `<root>/usr/lib/swift/CoreFoundation`. Taken from the PackageDescription library this manifest runs with
/// (so it is the toolchain doing the build), else from the `swift` on PATH; never hard-coded.
func benchToolchainRoot() -> String? {
    if let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8),
       let line = maps.split(separator: "\n").first(where: { $0.hasSuffix("/libPackageDescription.so") }),
       let slash = line.firstIndex(of: "/") {
        var url = URL(fileURLWithPath: String(line[slash...]))  // <root>/usr/lib/swift/pm/ManifestAPI/lib...so
        for _ in 0..<6 { url.deleteLastPathComponent() }
        return url.path
    }
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
        let swift = URL(fileURLWithPath: String(directory)).appendingPathComponent("swift")
        if FileManager.default.isExecutableFile(atPath: swift.path) {
            return swift.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().path
        }
    }
    return nil
}

/// `-I<root>/usr/lib/swift` when the toolchain's CoreFoundation headers are there. Without it the `cf` shim compiles
/// to a stub and its benchmarks report a skip.
let benchCoreFoundationFlags: [String] = {
    guard let root = benchToolchainRoot() else { return [] }
    let headers = root + "/usr/lib/swift"
    return FileManager.default.fileExists(atPath: headers + "/CoreFoundation/CoreFoundation.h") ? ["-I" + headers] : []
}()

package.products.append(.executable(name: "runloop-bench", targets: ["RunLoopBench"]))
package.targets.append(contentsOf: [
    // The peer event loops, from Debian packages through pkg-config (scripts/lib/setup.sh: bench_packages).
    .systemLibrary(name: "CGLib", path: "Benchmarks/System/CGLib", pkgConfig: "glib-2.0",
                   providers: [.apt(["libglib2.0-dev"])]),
    .systemLibrary(name: "CLibUV", path: "Benchmarks/System/CLibUV", pkgConfig: "libuv",
                   providers: [.apt(["libuv1-dev"])]),
    .systemLibrary(name: "CLibEvent", path: "Benchmarks/System/CLibEvent", pkgConfig: "libevent_pthreads",
                   providers: [.apt(["libevent-dev"])]),
    // One C shim per engine behind one interface (include/bench_engine.h): ref (its C ABI, RefRunLoopABI and
    // RefRunLoop), cf (CoreFoundation's C API from libFoundation.so), glib, libuv, libevent, and the epoll floor.
    .target(
        name: "BenchShims",
        dependencies: ["CGLib", "CLibUV", "CLibEvent", "CSystem", "RefRunLoopABI", "RefRunLoop"],
        path: "Benchmarks/Shims",
        cSettings: [.unsafeFlags(benchCoreFoundationFlags)],
        linkerSettings: [.linkedLibrary("Foundation")]
    ),
    // The Google Benchmark harness (Debian's libbenchmark-dev), one file per family. Benchmark only `-c release`.
    .executableTarget(
        name: "RunLoopBench",
        dependencies: ["BenchShims"],
        path: "Benchmarks/Harness",
        linkerSettings: [.linkedLibrary("benchmark"), .linkedLibrary("pthread")]
    ),
])
