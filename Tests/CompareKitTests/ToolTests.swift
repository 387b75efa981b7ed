// The `runloop compare` entry point (CompareTool) through the library API: verdicts on a file against itself and on a
// slower one, exit codes, formats and the plot.
import BenchTestSupport
import Foundation
import Testing

@testable import CompareKit
@testable import ResultsKit

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite struct ToolTests {
    let base: String
    let slower: String

    init() throws {
        (base, slower) = try Fixtures.baseAndSlower()
    }

    // MARK: - Verdicts and exit codes

    @Test func fileAgainstItselfHasNoSignificantChange() {
        let outcome = CompareTool.run(CompareOptions(files: [base, base]))
        #expect(outcome.exitCode == 0)
        #expect(outcome.report?.comparisons.count == 5)
        #expect(outcome.report?.comparisons.allSatisfy { $0.verdict == .noSignificantChange } == true)
        #expect(outcome.output.contains("no significant change"))
        #expect(!outcome.output.contains("slower  "))
    }

    @Test func oneAndAHalfTimesSlowerExitsOne() {
        let outcome = CompareTool.run(CompareOptions(files: [base, slower]))
        #expect(outcome.exitCode == 1)
        #expect(outcome.report?.regressions.count == 5)
        #expect(outcome.output.contains("+50.0%"))
        #expect(outcome.output.contains("Result: 5 benchmark(s) significantly slower"))
    }

    @Test(arguments: [
        ("truncated", "truncated.csv"), ("garbage", "garbage.csv"), ("empty", "empty.csv"),
    ])
    func badFileExitsTwoNamingTheFile(_ kind: String, _ name: String) throws {
        let suite = Fixtures.suite()
        let text: String
        switch kind {
        case "truncated": text = String(suite.prefix(suite.count * 2 / 3))
        case "garbage": text = "\u{1}\u{2}GIF89a\u{0}\u{0}garbage,\"not csv\n\u{ff}\u{fe}"
        default: text = ""
        }
        let path = try Fixtures.write(text, name: name)
        for files in [[base, path], [path, base]] {
            let outcome = CompareTool.run(CompareOptions(files: files))
            #expect(outcome.exitCode == 2)
            #expect(outcome.output.isEmpty)
            #expect(outcome.diagnostics.count == 1)
            #expect(outcome.diagnostics.first?.hasPrefix(path + ":") == true, "\(outcome.diagnostics)")
        }
    }

    /// Every truncation point and a set of byte substitutions: never a crash, always 0, 1 or 2,
    /// and a diagnostic naming the file whenever the status is 2.
    @Test func mutatedFilesNeverCrash() throws {
        let suite = Array(Fixtures.suite().utf8)
        var variants: [[UInt8]] = stride(from: 0, to: suite.count, by: 37).map { Array(suite[..<$0]) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let replacements = Array(",\"\n\r0x.-e".utf8) + [0, 0xFF]
        for _ in 0..<150 {
            var mutated = suite
            for _ in 0..<3 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let position = Int(state >> 33) % mutated.count
                mutated[position] = replacements[Int(state >> 20) % replacements.count]
            }
            variants.append(mutated)
        }
        for bytes in variants {
            let path = try Fixtures.write(String(decoding: bytes, as: UTF8.self), name: "mutated.csv")
            let outcome = CompareTool.run(CompareOptions(files: [base, path]))
            #expect([0, 1, 2].contains(outcome.exitCode))
            if outcome.exitCode == 2 {
                #expect(outcome.diagnostics.first?.hasPrefix(path) == true, "\(outcome.diagnostics)")
            }
        }
    }

    @Test func missingFileIsExitTwo() {
        let outcome = CompareTool.run(CompareOptions(files: [base, "/no/such/new.csv"]))
        #expect(outcome.exitCode == 2)
        #expect(outcome.diagnostics == ["/no/such/new.csv: error: file not found: no such file"])
    }

    // MARK: - Arguments

    @Test(arguments: [
        CompareOptions(files: ["only-one.csv"]),
        CompareOptions(files: ["a.csv", "b.csv", "c.csv"]),
        CompareOptions(files: ["a.csv", "b.csv"], format: "html"),
        CompareOptions(files: ["a.csv", "b.csv"], thresholdPercent: -1),
        CompareOptions(files: ["a.csv", "b.csv"], alpha: 1.5),
        CompareOptions(files: ["a.csv", "b.csv"], metric: "time_unit"),
        CompareOptions(files: ["a.csv"], engines: "cf"),
        CompareOptions(files: ["a.csv"], engines: "cf,cf"),
        CompareOptions(files: ["a.csv", "b.csv"], engines: "cf,ref"),
    ])
    func badArgumentsAreExitTwo(_ options: CompareOptions) {
        let outcome = CompareTool.run(options)
        #expect(outcome.exitCode == 2)
        #expect(outcome.diagnostics.first?.hasPrefix("<arguments>: error: invalid argument") == true)
    }

    @Test func missingCounterColumnIsExitTwoAtTheHeader() {
        let outcome = CompareTool.run(CompareOptions(files: [base, slower], metric: "latency_p50_ns"))
        #expect(outcome.exitCode == 2)
        #expect(
            outcome.diagnostics.first?.hasPrefix(base + ":11: error: missing column: field 'latency_p50_ns'") == true)
    }

    @Test func enginesMode() {
        let outcome = CompareTool.run(CompareOptions(files: [base], engines: "cf,ref"))
        #expect(outcome.exitCode == 1)  // ref is 20 % slower than cf in the fixture
        #expect(outcome.report?.comparisons.map(\.name) == ["BM_WakeLatency/pin:same"])
        #expect(outcome.output.contains("engine ref against engine cf"))
        let reversed = CompareTool.run(CompareOptions(files: [base], engines: "ref,cf"))
        #expect(reversed.exitCode == 0)
        #expect(reversed.report?.comparisons.first?.verdict == .faster)
    }

    // MARK: - Formats

    @Test func tableShowsBothContexts() throws {
        let other = try Fixtures.write(
            Fixtures.csv(
                [FixtureBenchmark(name: "BM_TimerFire/1", times: Fixtures.noisy(1200))],
                context: Fixtures.context(commit: "def5678", cpu: "AMD EPYC 7B13")))
        let outcome = CompareTool.run(CompareOptions(files: [base, other]))
        let lines = outcome.output.split(separator: "\n").map(String.init)
        #expect(
            lines.contains {
                $0.contains("commit") && $0.contains("abc1234") && $0.contains("def5678") && $0.contains("differs")
            })
        #expect(lines.contains { $0.contains("cpu") && $0.contains("AMD EPYC 7B13") })
        #expect(lines.contains { $0.contains("kernel") && !$0.contains("differs") })
        #expect(outcome.output.contains("Only in base.csv (4):"))
        #expect(outcome.exitCode == 0)
    }

    @Test func markdownFormat() {
        let outcome = CompareTool.run(CompareOptions(files: [base, slower], format: "markdown"))
        #expect(outcome.output.hasPrefix("### runloop compare"))
        #expect(outcome.output.contains("| Benchmark | base.csv | new.csv | Change | p-value | n | Verdict |"))
        #expect(
            outcome.output.contains("| `BM_TimerFire/1` | 1.200 us | 1.800 us | +50.0% | 0.0004 | 9/9 | **slower** |"))
        #expect(outcome.exitCode == 1)
    }

    @Test func jsonFormat() throws {
        let outcome = CompareTool.run(CompareOptions(files: [base, slower], format: "json"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
        #expect(object["exitCode"] as? Int == 1)
        #expect((object["regressions"] as? [String])?.count == 5)
        let report = try #require(object["report"] as? [String: Any])
        #expect(report["metric"] as? String == "real_time")
        #expect(report["unit"] as? String == "ns")
        // Warnings (fewer than 9 repetitions etc.) go to stderr for machine formats; none here.
        #expect(outcome.diagnostics.isEmpty)
        // It decodes back into the model.
        struct Envelope: Decodable { let report: ComparisonReport }
        let decoded = try JSONDecoder().decode(Envelope.self, from: Data(outcome.output.utf8))
        #expect(decoded.report == outcome.report)
    }

    @Test func csvFormat() throws {
        let other = try Fixtures.write(
            Fixtures.csv([FixtureBenchmark(name: "BM_TimerFire/1", times: [1300, 1310, 1290])]))
        let outcome = CompareTool.run(CompareOptions(files: [base, other], format: "csv"))
        let document = try CSVReader.parse(text: "name\n" + outcome.output, file: "out.csv")
        #expect(document.records.first?.fields == ComparisonRenderer.csvColumns)
        let rows = document.records.dropFirst()
        #expect(rows.count == 5)
        #expect(rows.allSatisfy { $0.fields.count == ComparisonRenderer.csvColumns.count })
        let first = try #require(rows.first)
        #expect(first.fields[0] == "BM_TimerFire/1")
        #expect(first.fields[14] == "slower")
        // 9 against 3 without ties: exact test, smallest p = 2 / C(12, 3) < 0.05, so not threshold-only.
        #expect(first.fields[11] == "exact")
        #expect(first.fields[15] == "false")
        #expect(rows.dropFirst().allSatisfy { $0.fields[14] == "only in base" })
        #expect(outcome.diagnostics.contains { $0.hasPrefix("warning:") && $0.contains("fewer than 9") })
    }

    // MARK: - Plot

    @Test func plotIsWrittenAndWellFormed() throws {
        let svgPath = try Fixtures.scratchPath("compare.svg")
        let outcome = CompareTool.run(CompareOptions(files: [base, slower], plotPath: svgPath))
        #expect(outcome.exitCode == 1)
        let svg = try String(contentsOfFile: svgPath, encoding: .utf8)
        #expect(svg.hasPrefix("<svg"))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("BM_WakeLatency/engine:ref/pin:same"))
        #expect(svg.contains("geometric mean"))
        #if canImport(FoundationXML) || os(macOS)
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "the SVG is not well-formed XML: \(String(describing: parser.parserError))")
        #endif
    }

    @Test func plotLabelsDropRunTypeSegmentsAndKeepWholeNames() {
        let names = [
            "BM_TimerCoalescing/engine:libevent/timers:10000/tolerance:10pct/burn:yes/iterations:1/manual_time",
            "BM_TimerCoalescing/engine:libevent/timers:10000/tolerance:0pct/burn:yes/iterations:1/manual_time",
            "BM_Scale/engine:ref/item:timer/n:100000/real_time",
        ]
        #expect(
            RatioPlot.rowLabels(names, limit: 72) == [
                "BM_TimerCoalescing/engine:libevent/timers:10000/tolerance:10pct/burn:yes",
                "BM_TimerCoalescing/engine:libevent/timers:10000/tolerance:0pct/burn:yes",
                "BM_Scale/engine:ref/item:timer/n:100000",
            ])
        // Stripping that would make two rows alike is not done.
        let alike = ["BM_X/1/real_time", "BM_X/1/manual_time"]
        #expect(RatioPlot.rowLabels(alike, limit: 72) == alike)
        // A name still too long is shortened in the middle.
        let long = "BM_" + String(repeating: "a", count: 100)
        let label = RatioPlot.rowLabels([long], limit: 72)[0]
        #expect(label.count == 71 && label.contains("…") && label.hasPrefix("BM_aaa"))
    }

    @Test func unwritablePlotIsExitTwo() {
        let outcome = CompareTool.run(CompareOptions(files: [base, base], plotPath: "/no/such/dir/plot.svg"))
        #expect(outcome.exitCode == 2)
        #expect(outcome.diagnostics.first?.hasPrefix("/no/such/dir/plot.svg: error: unwritable output") == true)
    }
}
