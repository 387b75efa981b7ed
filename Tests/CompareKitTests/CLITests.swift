// `runloop compare` through the built binary: a file against itself exits 0, a 1.5x slower file exits 1, broken input
// exits 2 naming the file. The binary is looked for next to the test bundle; the suite is skipped when it is absent.
import BenchTestSupport
import Foundation
import Testing

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
        let result = try RunloopBinary.runloop([
            "compare", base, "--engines", "cf,ref", "--plot", svg, "--format", "markdown",
        ])
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
