// swift-tools-version:6.0
// Fuzz targets for the inputs RunLoopSuite reads from users: spec case files, expectations files and the results CSVs
// of `runloop compare`, so that the instrument never hangs or crashes on what a user hands it.
//
// A separate package because the targets only link with `-sanitize=fuzzer` (they call libFuzzer's driver): in the
// root package a plain `swift build` would fail to link them. Build and run them with `scripts/fuzz-inputs.sh`, which
// passes `-sanitize=fuzzer,address` to swiftc and `-fsanitize=fuzzer-no-link,address` to clang; the same flags instrument
// the root package's libraries and Yams (with its C libyaml), so coverage guides the fuzzer through the loaders.
import PackageDescription

let package = Package(
    name: "RunLoopSuiteFuzz",
    dependencies: [.package(name: "RunLoopSuite", path: "..")],
    targets: [
        // libFuzzer's driver entry point, which Swift cannot import from the toolchain.
        .target(name: "CFuzz"),
        // Starting libFuzzer, and the check that a rejection names its file and line.
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CFuzz",
                .product(name: "ConformanceKit", package: "RunLoopSuite"),
                .product(name: "ResultsKit", package: "RunLoopSuite"),
            ]
        ),
        // Spec case files, through SpecLoader.parse (what `runloop conform --spec FILE` reads).
        .executableTarget(
            name: "FuzzSpecCases",
            dependencies: ["FuzzSupport", .product(name: "ConformanceKit", package: "RunLoopSuite")]
        ),
        // Per-engine expectations files, through EngineExpectations.parse against a fixed set of case ids.
        .executableTarget(
            name: "FuzzExpectations",
            dependencies: ["FuzzSupport", .product(name: "ConformanceKit", package: "RunLoopSuite")]
        ),
        // Benchmark results CSVs, through ResultsReader.parse (what `runloop compare` reads).
        .executableTarget(
            name: "FuzzResultsCSV",
            dependencies: ["FuzzSupport", .product(name: "ResultsKit", package: "RunLoopSuite")]
        ),
    ]
)
