// The `runloop` executable built next to the test bundles, for the tests that run the command itself.
import Foundation
import ProcessTestSupport

/// Runs the `runloop` executable built alongside the tests.
public enum RunloopBinary {
    /// The executable, if it was built and knows `compare`.
    public static let path: String? = {
        var candidates: [URL] = []
        if let argument = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: argument).deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL)
        for directory in candidates {
            let binary = directory.appendingPathComponent("runloop").path
            if FileManager.default.isExecutableFile(atPath: binary),
                let result = try? run(binary, ["compare", "--help"]), result.status == 0,
                result.stdout.contains("--engines")
            {
                return binary
            }
        }
        return nil
    }()

    /// Whether the binary is available.
    public static var available: Bool { path != nil }

    /// Runs `executable` with `arguments` under TestProcess's deadline; returns status, stdout and stderr.
    public static func run(
        _ executable: String,
        _ arguments: [String]
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        try TestProcess.run(executable, arguments)
    }

    /// Runs `runloop` with `arguments`.
    public static func runloop(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(path ?? "runloop", arguments)
    }
}
