// Running a command from a test: its output in files (so neither stream can fill a pipe and stall it), and a deadline,
// so a command that hangs fails its test instead of holding the whole run until the test command's last-resort limit.
import Foundation

public enum TestProcess {
    /// A command that did not finish within its deadline (it was killed).
    public struct DeadlineExceeded: Error, CustomStringConvertible {
        public let command: String
        public let seconds: Double
        public var description: String { "\(command) did not finish within \(seconds) s and was killed" }
    }

    /// Runs `executable` with `arguments` (and `environment` added to this process's), waits at most `deadline`
    /// seconds, and returns its exit status (128 + the signal if one ended it), standard output and standard error.
    /// Throws ``DeadlineExceeded`` after killing it when it takes longer.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], deadline: Double = 600
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("test-process-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        defer {
            try? out.close()
            try? err.close()
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = out
        process.standardError = err
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        if finished.wait(timeout: .now() + deadline) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            _ = finished.wait(timeout: .now() + 10)
            throw DeadlineExceeded(
                command: ([executable] + arguments).joined(separator: " "), seconds: deadline)
        }
        let stdout = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
        let stderr = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
        let status =
            process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return (status, stdout, stderr)
    }
}
