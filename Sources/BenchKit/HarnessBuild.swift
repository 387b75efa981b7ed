// Building the benchmark harness: its own package (Benchmarks/Package.swift), in release mode, with its scratch path
// .build-bench at the checkout's root. `--harness PATH` skips this.
import Foundation

/// A failure of the run itself (a build, a harness that does not answer): exit status 1.
public struct BenchFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Builds runloop-bench.
public enum HarnessBuild {
    /// The harness's scratch path, at the checkout's root.
    public static let scratch = ".build-bench"
    /// The longest a build may take (from scratch on a small machine: several minutes).
    static let limitSeconds = 3600.0

    /// `swift build` arguments for the harness package of the checkout at `root`.
    static func buildArguments(root: String) -> [String] {
        ["build", "-c", "release", "--package-path", root + "/Benchmarks", "--scratch-path", root + "/" + scratch]
    }

    /// Builds the harness and returns its binary's path. The build's output goes to `log`; on a failure its last 40
    /// lines are in the error.
    public static func build(root: String, log: String, interruption: Interruption?) throws -> String {
        let arguments = buildArguments(root: root)
        // SwiftPM keeps its build plan (<scratch>/release.yaml) until a manifest of the harness package changes, and a
        // file added to a target of the checkout (its path dependency) since the last build is then not compiled: the
        // build fails on the new names. Planning again takes under a second; compiled files are kept.
        try? FileManager.default.removeItem(atPath: root + "/" + scratch + "/release.yaml")
        let end = try ChildProcess.run(
            "swift", arguments + ["--product", "runloop-bench"], output: log,
            limit: limitSeconds, interruption: interruption)
        guard end.succeeded else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let tail = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(40).joined(separator: "\n")
            throw BenchFailure(
                tail + "\nbench: " + end.describe("the build of runloop-bench", limit: Int(limitSeconds))
                    + " (its last 40 lines above)")
        }
        guard
            let binPath = ChildProcess.output("swift", arguments + ["--show-bin-path"], limit: 120)?
                .trimmingCharacters(in: .whitespacesAndNewlines), !binPath.isEmpty
        else {
            throw BenchFailure("bench: swift build --show-bin-path did not say where runloop-bench is")
        }
        return binPath + "/runloop-bench"
    }
}
