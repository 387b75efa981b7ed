// `runloop compare` through the built binary: a file against itself exits 0, a 1.5x slower file exits 1, broken input
// exits 2 naming the file. The binary is looked for next to the test bundle; the suite is skipped when it is absent.
import Foundation
import Testing

/// Runs the `runloop` executable built alongside the tests.
enum RunloopBinary {
    /// The executable, if it was built and knows `compare`.
    static let path: String? = {
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
               result.stdout.contains("--engines") {
                return binary
            }
        }
        return nil
    }()

    /// Whether the binary is available.
    static var available: Bool { path != nil }

    /// Runs `executable` with `arguments`; returns status, stdout and stderr.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    /// Runs `runloop` with `arguments`.
    static func runloop(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(path ?? "runloop", arguments)
    }
}

@Suite(.enabled(if: RunloopBinary.available, "the runloop binary is not built next to the tests"))
struct CLITests {
    let base: String
    let slower: String

    init() throws {
        (base, slower) = try Fixtures.baseAndSlower()
    }

    @Test func sameFileExitsZero() throws {
        let result = try RunloopBinary.runloop(["compare", base, base])
        #expect(result.status == 0, "\(result.stderr)")
        let verdictLines = result.stdout.split(separator: "\n").filter { $0.hasPrefix("BM_") }
        #expect(verdictLines.count == 5)
        #expect(verdictLines.allSatisfy { $0.hasSuffix("no significant change") })
    }

    @Test func oneAndAHalfTimesSlowerExitsOne() throws {
        let result = try RunloopBinary.runloop(["compare", base, slower, "--format", "json"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("\"exitCode\" : 1"))
    }

    @Test func truncatedAndGarbageExitTwoNamingTheFile() throws {
        let suite = Fixtures.suite()
        let truncated = try Fixtures.write(String(suite.prefix(suite.count / 2)), name: "truncated.csv")
        let garbage = try Fixtures.write("\u{1}\u{2}garbage\u{0},\"\n", name: "garbage.csv")
        for path in [truncated, garbage] {
            let result = try RunloopBinary.runloop(["compare", base, path])
            #expect(result.status == 2)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix(path + ":"), "\(result.stderr)")
        }
    }

    @Test func enginesAndPlot() throws {
        let svg = try Fixtures.scratchPath("cli.svg")
        let result = try RunloopBinary.runloop(["compare", base, "--engines", "cf,ref", "--plot", svg, "--format", "markdown"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("`BM_WakeLatency/pin:same`"))
        #expect(FileManager.default.fileExists(atPath: svg))
    }

    @Test func badOptionValueExitsTwo() throws {
        let result = try RunloopBinary.runloop(["compare", base, base, "--format", "yaml"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--format"))
        let both = try RunloopBinary.runloop(["compare", base, base, "--higher-is-better", "--lower-is-better"])
        #expect(both.status == 2)
    }
}
