// The results site built from fixture data: every page written, well-formed, without script, its links and anchors
// resolving; the numbers of the overview from the data; bad input named and nothing written.
import ConformanceKit
import Engines
import Foundation
import SiteKit
import XCTest

final class SiteKitTests: XCTestCase {
    /// The cases of the small conformance run: few, quick, and on `ref` in this process.
    static let conformanceFilter = "stop.*"

    func options(_ fixture: SiteFixture, conformance: String? = nil) -> SiteOptions {
        SiteOptions(
            directory: fixture.site, resultsDirectory: fixture.results, conformancePath: conformance,
            targetsPath: SiteFixture.targetsPath,
            engines: BuiltinEngines.catalogue.engines.map { EngineDescription($0) })
    }

    func read(_ fixture: SiteFixture, _ page: SitePage) throws -> String {
        try String(contentsOfFile: fixture.site + "/" + page.fileName, encoding: .utf8)
    }

    func testTheWholeSiteLinksUp() throws {
        let fixture = try SiteFixture()
        try fixture.writeRuns(8)
        let report = try fixture.writeConformance(
            filter: Self.conformanceFilter,
            to: fixture.results + "/conformance.json")
        XCTAssertFalse(report.outcomes.isEmpty)
        let written = try SiteBuilder.build(options(fixture))
        XCTAssertEqual(written.map { ($0 as NSString).lastPathComponent }, SitePage.allCases.map(\.fileName))
        XCTAssertEqual(try SiteLinkCheck.problems(in: fixture.site), [])
        XCTAssertGreaterThan(try SiteLinkCheck.linkCount(in: fixture.site), SitePage.allCases.count * 6)
        // The overview's verdicts are the run's: ref's PASS count, and the newest run named.
        let index = try read(fixture, .index)
        let tally = ResultTally(report.outcomes, triage: Triage(report))
        XCTAssertTrue(index.contains("<td class=\"num\(tally.pass == 0 ? " none" : "")\">\(tally.pass)</td>"), index)
        XCTAssertTrue(index.contains("\(report.caseIDs.count) cases on 1 engine"))
        XCTAssertTrue(index.contains("kvm-2cpu-20261108-1000.csv"))
        XCTAssertTrue(try read(fixture, .bench).contains("All runs (8)"))
        // The trends found the step of ref's wake latency at the fifth run.
        let trends = try read(fixture, .trends)
        XCTAssertTrue(trends.contains("engine ref"))
        XCTAssertTrue(trends.contains("#c62828"), "no change point drawn")
        XCTAssertTrue(try read(fixture, .conformance).contains("Areas by engine"))
        XCTAssertTrue(try read(fixture, .rules).contains("id=\"stop.innermost-only\""))
        XCTAssertTrue(try read(fixture, .engines).contains("<b>ref</b>"))
        // The site left no history database beside the results.
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: fixture.results).filter {
                !$0.hasSuffix(".csv") && !$0.hasSuffix(".json")
            }, [])
    }

    func testInstructionRunsAreDrawnOnTheTrendsPageAndTheNewestReportedOnTheBenchPage() throws {
        let fixture = try SiteFixture()
        try fixture.writeRuns(3)
        try fixture.writeInstructionRuns([2537, 2007, 2013])
        try SiteBuilder.build(options(fixture))
        XCTAssertEqual(try SiteLinkCheck.problems(in: fixture.site), [])
        // The newest run of the overview and the bench page is the newest time run, not a newer instruction run.
        XCTAssertTrue(try read(fixture, .index).contains("kvm-2cpu-20261103-1000.csv"))
        let bench = try read(fixture, .bench)
        XCTAssertTrue(bench.contains("All runs (3)"))
        // Below the timed report, the newest instruction run alone, with its table and the targets that read counts
        // (not measured: the fixture counts ref only, and a peers target needs every peer).
        let counts = try XCTUnwrap(bench.components(separatedBy: "<h2 id=\"instructions\">").last)
        XCTAssertTrue(counts.contains("kvm-2cpu-instructions-20261203-1000.csv"))
        XCTAssertFalse(counts.contains("kvm-2cpu-instructions-20261202-1000.csv"))
        XCTAssertTrue(counts.contains("scale.instructions.peers"))
        XCTAssertTrue(counts.contains("<td class=\"num\">2013</td>"))
        XCTAssertFalse(
            try XCTUnwrap(bench.components(separatedBy: "<h2 id=\"instructions\">").first).contains(
                "scale.instructions.peers"))
        // The trends page: ref's source and timer in instructions, one change point (the timer's step at the
        // second commit; its +0.3 % after is under the 1 % a step needs), each of the three runs on the axis.
        let trends = try read(fixture, .trends)
        let section = try XCTUnwrap(trends.components(separatedBy: "in instructions</h2>").last)
        XCTAssertTrue(section.contains("BM_Scale/item:source/n:10000"))
        XCTAssertTrue(section.contains("BM_Scale/item:timer/n:10000"))
        XCTAssertEqual(section.components(separatedBy: "stroke=\"#c62828\"").count - 1, 1)
        XCTAssertTrue(section.contains("2537 -&gt; 2007, -20.9 %, exact"), section)
        XCTAssertTrue(section.contains("3 runs, instructions_per_item (exact)"))
    }

    func testWithoutConformanceOrRunsThePagesSayHowToMakeThem() throws {
        let fixture = try SiteFixture()
        try SiteBuilder.build(options(fixture))
        XCTAssertEqual(try SiteLinkCheck.problems(in: fixture.site), [])
        XCTAssertTrue(try read(fixture, .conformance).contains("runloop conform --engine cf,ref --json-out"))
        XCTAssertTrue(try read(fixture, .bench).contains("runloop bench"))
        XCTAssertTrue(try read(fixture, .index).contains("No conformance results yet"))
    }

    func testTheJSONReadsBackAsTheRun() throws {
        let fixture = try SiteFixture()
        let path = fixture.directory + "/c.json"
        let report = try fixture.writeConformance(filter: Self.conformanceFilter, to: path)
        let read = try ConformanceJSON.read(path: path)
        XCTAssertEqual(read.engines, report.engines)
        XCTAssertEqual(read.caseIDs, report.caseIDs)
        XCTAssertEqual(
            read.outcomes.map { "\($0.caseID) \($0.engine) \($0.status) \($0.expected)" },
            report.outcomes.map { "\($0.caseID) \($0.engine) \($0.status) \($0.expected)" })
    }

    func testBadConformanceJSONIsNamedAndNothingIsWritten() throws {
        let fixture = try SiteFixture()
        try fixture.writeRuns(1)
        let path = fixture.directory + "/c.json"
        let text = ReportFormat.json.render(try fixture.writeConformance(filter: Self.conformanceFilter, to: path))
        let cases: [(String, String)] = [
            (String(text.prefix(text.count / 2)), "cut short: the file ends at line "),
            ("{\"format_version\": 3,, }", "not JSON"),
            ("{\"tests\": []}", "not a runloop conform JSON report"),
            ("{\"results\": [{\"id\": \"a\"}], \"format_version\": 4}", "field results[0].area: missing"),
            (
                text.replacingOccurrences(of: "\"status\" : \"PASS\"", with: "\"status\" : \"GREEN\""),
                ".status: 'GREEN' is not a status"
            ),
            (
                text.replacingOccurrences(
                    of: "\"format_version\" : \(ConformanceDocument.formatVersion)", with: "\"format_version\" : 99"),
                "field format_version: 99"
            ),
        ]
        for (content, message) in cases {
            try content.write(toFile: path, atomically: true, encoding: .utf8)
            XCTAssertThrowsError(try SiteBuilder.build(options(fixture, conformance: path))) { error in
                let text = "\(error)"
                XCTAssertTrue(text.hasPrefix(path + ": "), text)
                XCTAssertTrue(text.contains(message), text)
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: fixture.site))
        }
        XCTAssertThrowsError(try SiteBuilder.build(options(fixture, conformance: fixture.directory + "/none.json"))) {
            XCTAssertTrue("\($0)".contains("none.json: no such file"), "\($0)")
        }
    }

    func testABrokenResultsCSVIsNamedWithItsLine() throws {
        let fixture = try SiteFixture()
        try fixture.writeRuns(2)
        let broken = fixture.results + "/broken.csv"
        let text = SiteFixture.csv(date: "2026-11-20T10:00:00Z", commit: "abc", wakeLevel: 1, seed: 1)
        try (text + "\"BM_Scale/engine:ref/item:timer/n:10000/real_time\",10,oops\n")
            .write(toFile: broken, atomically: true, encoding: .utf8)
        let line = text.split(separator: "\n").count + 1
        XCTAssertThrowsError(try SiteBuilder.build(options(fixture))) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(broken):\(line): "), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: fixture.site))
    }
}
