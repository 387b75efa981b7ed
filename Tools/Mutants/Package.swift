// swift-tools-version:6.0
// ref-mutants: generates mutants of the reference loop's sources (Sources/RefRunLoop) mechanically and writes them
// as mutant schemata: every mutant compiled into one build and chosen at run time with the environment variable
// REF_MUTANT. Its own package so the main package never builds swift-syntax; scripts/mutants.sh drives it.
import PackageDescription

let package = Package(
    name: "Mutants",
    products: [
        .executable(name: "ref-mutants", targets: ["ref-mutants"])
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1")
    ],
    targets: [
        // Sites, operators, the schemata rewriting, the manifest, the equivalents file and the report.
        .target(
            name: "MutantsKit",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftOperators", package: "swift-syntax"),
            ]
        ),
        // The command line: it parses arguments and calls MutantsKit.
        .executableTarget(name: "ref-mutants", dependencies: ["MutantsKit"]),
        .testTarget(name: "MutantsKitTests", dependencies: ["MutantsKit"]),
    ],
    swiftLanguageModes: [.v6]
)
