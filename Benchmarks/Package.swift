// swift-tools-version:6.0
// The run-loop benchmarks (README.md here): a Google Benchmark harness in C++ with one C shim per engine, as a package
// of its own so that building and testing RunLoopSuite (the parent directory) needs none of the Debian packages this
// one links: libbenchmark-dev, libglib2.0-dev, libuv1-dev, libevent-dev (scripts/lib/setup.sh: bench_packages), and
// SwiftNIO (the `nio` engine), a Swift package only this package depends on.
//
// Linux only, like RunLoopSuite. Build it from the repository root with
//   swift build -c release --package-path Benchmarks --scratch-path .build-bench --product runloop-bench
// (`runloop bench` does); benchmark only `-c release`.
import Foundation
import PackageDescription

#if !os(Linux)
#error("the run-loop benchmarks build on Linux only (epoll, eventfd, timerfd and the toolchain's libFoundation.so)")
#endif

/// The toolchain's `usr/lib/swift`, where libdispatch's C headers are (`dispatch/dispatch.h`, for engine `dispatch`),
/// found from the `swift` on PATH, the one that builds this package (`runloop bench` and the sanitizer scripts run it
/// from PATH). The C compiler has no include path of its own into the toolchain's Swift library folder.
let toolchainSwiftLib: String = {
    let path = Context.environment["PATH"] ?? ""
    for folder in path.split(separator: ":") {
        let swift = URL(fileURLWithPath: String(folder)).appendingPathComponent("swift")
        guard FileManager.default.isExecutableFile(atPath: swift.path) else { continue }
        let lib = swift.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("lib/swift")
        if FileManager.default.fileExists(atPath: lib.appendingPathComponent("dispatch/dispatch.h").path) {
            return lib.path
        }
    }
    return "/usr/lib/swift"  // a toolchain installed under /usr
}()

let package = Package(
    name: "RunLoopBenchmarks",
    products: [
        .executable(name: "runloop-bench", targets: ["RunLoopBench"])
    ],
    dependencies: [
        // RunLoopSuite: ref (RefRunLoop and its C ABI) and CFLoader.
        .package(name: "RunLoopSuite", path: ".."),
        // The `nio` engine's event loop (MultiThreadedEventLoopGroup); the root package does not depend on it.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // The peer event loops, from Debian packages through pkg-config.
        .systemLibrary(
            name: "CGLib", path: "System/CGLib", pkgConfig: "glib-2.0",
            providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(
            name: "CLibUV", path: "System/CLibUV", pkgConfig: "libuv",
            providers: [.apt(["libuv1-dev"])]),
        .systemLibrary(
            name: "CLibEvent", path: "System/CLibEvent", pkgConfig: "libevent_pthreads",
            providers: [.apt(["libevent-dev"])]),
        // One C shim per engine behind one interface (include/bench_engine.h): ref (its C ABI, RefRunLoopABI and
        // RefRunLoop), cf and cf:PATH (CoreFoundation's C API through CFLoader's dlsym table: the linked
        // libFoundation.so, or any library loaded at run time), glib, libuv, libevent, libdispatch (the toolchain's,
        // through its C API), the table of `nio` (its functions are Swift, in BenchNIO), and the epoll floor.
        .target(
            name: "BenchShims",
            dependencies: [
                "CGLib", "CLibUV", "CLibEvent",
                .product(name: "CFLoader", package: "RunLoopSuite"),
                .product(name: "RefRunLoopABI", package: "RunLoopSuite"),
                .product(name: "RefRunLoop", package: "RunLoopSuite"),
            ],
            path: "Shims",
            cSettings: [.unsafeFlags(["-I", toolchainSwiftLib])],
            linkerSettings: [.linkedLibrary("Foundation"), .linkedLibrary("dispatch")]
        ),
        // The `nio` engine: SwiftNIO's SelectableEventLoop behind bench_engine.h, in Swift exporting C functions
        // (@_cdecl) that Shims/engine_nio.c puts in the table.
        .target(
            name: "BenchNIO",
            dependencies: [
                "BenchShims",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "NIOShim"
        ),
        // The `foundation` engine: the toolchain's loop through Foundation's RunLoop and Timer, in Swift exporting C
        // functions (@_cdecl) that Shims/engine_foundation.c puts in the table.
        .target(
            name: "BenchFoundation",
            dependencies: ["BenchShims", .product(name: "CFLoader", package: "RunLoopSuite")],
            path: "FoundationShim"
        ),
        // The Google Benchmark harness (Debian's libbenchmark-dev), one file per family.
        .executableTarget(
            name: "RunLoopBench",
            dependencies: ["BenchShims", "BenchNIO", "BenchFoundation"],
            path: "Harness",
            linkerSettings: [.linkedLibrary("benchmark"), .linkedLibrary("pthread")]
        ),
    ],
    // The language modes the C shims and the C++ harness are written in, pinned to what the toolchain's clang picks
    // by default today (GNU C17, GNU C++17), so a newer toolchain's default changes nothing.
    cLanguageStandard: .gnu17,
    cxxLanguageStandard: .gnucxx17
)
