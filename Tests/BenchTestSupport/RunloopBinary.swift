// The `runloop` executable built next to the test bundles, for the tests that run the command itself.
import Foundation

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

    /// Runs `executable` with `arguments`; returns status, stdout and stderr.
    public static func run(
        _ executable: String,
        _ arguments: [String]
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: outData, as: UTF8.self),
            String(decoding: errData, as: UTF8.self)
        )
    }

    /// Runs `runloop` with `arguments`.
    public static func runloop(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(path ?? "runloop", arguments)
    }
}
