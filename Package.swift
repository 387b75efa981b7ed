// swift-tools-version:6.0
// RunLoopSuite: an executable specification of CFRunLoop behaviour, engines that are checked against it,
// and tools to benchmark and compare run loops.
import PackageDescription

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
        // The reference run loop: CFRunLoop semantics in Swift on epoll, eventfd and timerfd.
        .target(name: "RefRunLoop", dependencies: ["CSystem"]),
        // The `ref` engine: the reference run loop behind the engine contract.
        .target(name: "RefEngine", dependencies: ["RefRunLoop", "EngineKit"]),
        // The spec files (cases, per-engine expectations, format documentation) as package resources.
        .target(
            name: "ConformanceSpec",
            exclude: ["INTERPRETING.md"],
            resources: [.copy("cases"), .copy("expectations")]
        ),
        // Spec model, loader, scenario interpreter, runner and reports.
        .target(
            name: "ConformanceKit",
            dependencies: ["EngineKit", "CSystem", .product(name: "Yams", package: "Yams")]
        ),
        // Reading benchmark CSVs and comparing them with statistics.
        .target(name: "CompareKit", exclude: ["COMPARING.md"]),
        // The command-line tool: parses arguments and calls the libraries.
        .executableTarget(
            name: "runloop",
            dependencies: [
                "ConformanceKit", "ConformanceSpec", "CFEngine", "RefEngine", "CompareKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["ConformanceKit", "ConformanceSpec", "CFEngine", "RefEngine", "EngineKit"]
        ),
        .testTarget(name: "RefRunLoopTests", dependencies: ["RefRunLoop", "CSystem"]),
        .testTarget(name: "CompareTests", dependencies: ["CompareKit"]),
    ]
)

