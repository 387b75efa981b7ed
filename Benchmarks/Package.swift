// swift-tools-version:6.0
// The run-loop benchmarks (README.md here): a Google Benchmark harness in C++ with one C shim per engine, as a package
// of its own so that building and testing RunLoopSuite (the parent directory) needs none of the Debian packages this
// one links: libbenchmark-dev, libglib2.0-dev, libuv1-dev, libevent-dev (scripts/lib/setup.sh: bench_packages).
//
// Linux only, like RunLoopSuite. Build it from the repository root with
//   swift build -c release --package-path Benchmarks --scratch-path .build-bench --product runloop-bench
// (scripts/bench.sh does); benchmark only `-c release`.
import PackageDescription

#if !os(Linux)
#error("the run-loop benchmarks build on Linux only (epoll, eventfd, timerfd and the toolchain's libFoundation.so)")
#endif

let package = Package(
    name: "RunLoopBenchmarks",
    products: [
        .executable(name: "runloop-bench", targets: ["RunLoopBench"]),
    ],
    dependencies: [
        // RunLoopSuite: ref (RefRunLoop and its C ABI) and CFLoader.
        .package(name: "RunLoopSuite", path: ".."),
    ],
    targets: [
        // The peer event loops, from Debian packages through pkg-config.
        .systemLibrary(name: "CGLib", path: "System/CGLib", pkgConfig: "glib-2.0",
                       providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(name: "CLibUV", path: "System/CLibUV", pkgConfig: "libuv",
                       providers: [.apt(["libuv1-dev"])]),
        .systemLibrary(name: "CLibEvent", path: "System/CLibEvent", pkgConfig: "libevent_pthreads",
                       providers: [.apt(["libevent-dev"])]),
        // One C shim per engine behind one interface (include/bench_engine.h): ref (its C ABI, RefRunLoopABI and
        // RefRunLoop), cf and cf:PATH (CoreFoundation's C API through CFLoader's dlsym table: the linked
        // libFoundation.so, or any library loaded at run time), glib, libuv, libevent, and the epoll floor.
        .target(
            name: "BenchShims",
            dependencies: [
                "CGLib", "CLibUV", "CLibEvent",
                .product(name: "CFLoader", package: "RunLoopSuite"),
                .product(name: "RefRunLoopABI", package: "RunLoopSuite"),
                .product(name: "RefRunLoop", package: "RunLoopSuite"),
            ],
            path: "Shims",
            linkerSettings: [.linkedLibrary("Foundation")]
        ),
        // The Google Benchmark harness (Debian's libbenchmark-dev), one file per family.
        .executableTarget(
            name: "RunLoopBench",
            dependencies: ["BenchShims"],
            path: "Harness",
            linkerSettings: [.linkedLibrary("benchmark"), .linkedLibrary("pthread")]
        ),
    ]
)
