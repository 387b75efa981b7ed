// A conformance matrix merged from several runs: each run's context recorded in its JSON and read back, columns
// qualified where two runs share an engine name, the site's conformance page showing every column with its run;
// documents of the older format still read; every bad input refused by name.
import ConformanceKit
import ConformanceSpec
import Engines
import Foundation
import RefEngine
import SiteKit
import XCTest

final class ConformanceMergeTests: XCTestCase {
    /// A run of `ref` on a few cases, written as JSON to `path` with a context of `host`, `date`.
    func writeRun(_ fixture: SiteFixture, to path: String, host: String, date: String) throws -> ConformanceReport {
        let request = ConformanceRequest(
            specPath: SpecResources.casesDirectory!,
            expectationsPath: SpecResources.expectationsDirectory, filter: SiteKitTests.conformanceFilter)
        let engine = ReferenceEngine()
        var report = try Conformance.runInProcess(request, engines: [engine])
        var context = ConformanceRunContext.gather(engines: [EngineDescription(engine)])
        context.machine.hostname = host
        context.date = date
        report.runs = [context]
        try ReportFormat.json.render(report).write(toFile: path, atomically: true, encoding: .utf8)
        return report
    }

    func testARunRecordsItsContextAndReadsItBack() throws {
        let fixture = try SiteFixture()
        let path = fixture.directory + "/a.json"
        let written = try writeRun(fixture, to: path, host: "alpha", date: "2026-12-06T08:00:00Z")
        let read = try ConformanceJSON.read(path: path)
        XCTAssertEqual(read.runs, written.runs)
        let context = try XCTUnwrap(read.runs.first)
        XCTAssertEqual(context.engines.map(\.column), ["ref"])
        XCTAssertGreaterThan(context.machine.cpus, 0)
        XCTAssertTrue(context.machine.kernel.hasPrefix("Linux "), context.machine.kernel)
        XCTAssertTrue(context.engines[0].build.contains("build id"), context.engines[0].build)
        XCTAssertTrue(context.label.hasPrefix("alpha, "), context.label)
    }

    /// Two runs of `ref` on two machines: two columns, `ref #1` and `ref #2`, each with its context, on the site.
    func testTwoRunsMergeIntoOneMatrixThatTheSiteShows() throws {
        let fixture = try SiteFixture()
        let first = fixture.directory + "/a.json"
        let second = fixture.directory + "/b.json"
        let run = try writeRun(fixture, to: first, host: "alpha", date: "2026-12-06T08:00:00Z")
        _ = try writeRun(fixture, to: second, host: "beta", date: "2026-12-06T09:00:00Z")
        let merged = try ConformanceMerge.merge(paths: [first, second])
        XCTAssertEqual(merged.engines, ["ref #1", "ref #2"])
        XCTAssertEqual(merged.runs.map(\.machine.hostname), ["alpha", "beta"])
        XCTAssertEqual(merged.runs.map(\.file), [first, second])
        XCTAssertEqual(merged.runs.flatMap { $0.engines.map(\.column) }, ["ref #1", "ref #2"])
        XCTAssertEqual(merged.outcomes.count, 2 * run.outcomes.count)
        XCTAssertEqual(merged.caseIDs, run.caseIDs)
        let path = fixture.directory + "/merged.json"
        try ReportFormat.json.render(merged).write(toFile: path, atomically: true, encoding: .utf8)
        let read = try ConformanceJSON.read(path: path)
        XCTAssertEqual(read.engines, merged.engines)
        XCTAssertEqual(read.runs, merged.runs)
        try fixture.writeRuns(1)
        _ = try SiteBuilder.build(
            SiteOptions(
                directory: fixture.site, resultsDirectory: fixture.results, conformancePath: path,
                targetsPath: SiteFixture.targetsPath,
                engines: BuiltinEngines.catalogue.engines.map { EngineDescription($0) }))
        let page = try String(contentsOfFile: fixture.site + "/conformance.html", encoding: .utf8)
        for text in ["ref #1", "ref #2", "alpha, ", "beta, ", "Runs"] {
            XCTAssertTrue(page.contains(text), "the page lacks \(text)")
        }
        // A merged file merges again with a third run: the columns stay apart.
        let third = fixture.directory + "/c.json"
        _ = try writeRun(fixture, to: third, host: "gamma", date: "2026-12-06T10:00:00Z")
        XCTAssertEqual(try ConformanceMerge.merge(paths: [path, third]).runs.count, 3)
    }

    /// A document of format version 3 (no runs) still reads, and merges with a column of its own.
    func testAVersion3DocumentStillReads() throws {
        let fixture = try SiteFixture()
        let path = fixture.directory + "/old.json"
        _ = try writeRun(fixture, to: path, host: "alpha", date: "2026-12-06T08:00:00Z")
        var object = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        object["runs"] = nil
        object["format_version"] = 3
        let old = fixture.directory + "/v3.json"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: old))
        let read = try ConformanceJSON.read(path: old)
        XCTAssertEqual(read.engines, ["ref"])
        XCTAssertTrue(read.runs.isEmpty)
        let merged = try ConformanceMerge.merge(paths: [path, old])
        XCTAssertEqual(merged.engines, ["ref #1", "ref #2"])
        XCTAssertEqual(merged.runs[1].date, "unknown")
    }

    func testBadInputsAreRefusedByName() throws {
        let fixture = try SiteFixture()
        let good = fixture.directory + "/good.json"
        _ = try writeRun(fixture, to: good, host: "alpha", date: "2026-12-06T08:00:00Z")
        let text = try String(contentsOfFile: good, encoding: .utf8)
        let fuzz = "{\"format\": \"runloop fuzz\", \"format_version\": 2, \"findings\": []}"
        let inputs: [(String, String)] = [
            ("", "empty file"),
            (String(text.prefix(text.count / 2)), "cut short: the file ends at line "),
            (fuzz, "a fuzz report (runloop fuzz --json-out), not conformance results"),
            ("# date: 2026-12-06\nname,real_time\nBM_A,1\n", "not JSON (a CSV file?)"),
            ("{\"tests\": []}", "not a runloop conform JSON report"),
        ]
        let bad = fixture.directory + "/bad.json"
        for (content, message) in inputs {
            try content.write(toFile: bad, atomically: true, encoding: .utf8)
            XCTAssertThrowsError(try ConformanceMerge.merge(paths: [good, bad])) { error in
                XCTAssertEqual((error as? ConformanceJSONError)?.file, bad, "\(error)")
                XCTAssertTrue("\(error)".contains(message), "\(error)")
            }
        }
        // A document listing one run twice, or one column twice (a hand-made concatenation): refused too.
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let runs = try XCTUnwrap(object["runs"] as? [Any])
        object["runs"] = runs + runs
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: bad))
        XCTAssertThrowsError(try ConformanceJSON.read(path: bad)) { error in
            XCTAssertTrue("\(error)".contains("field runs[1]: the same run as runs[0]"), "\(error)")
        }
        object["runs"] = runs
        object["engines"] = ["ref", "ref"]
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: bad))
        XCTAssertThrowsError(try ConformanceJSON.read(path: bad)) { error in
            XCTAssertTrue("\(error)".contains("field engines[1]: 'ref' twice"), "\(error)")
        }
        // The same run twice: the same file, and a copy of it.
        XCTAssertThrowsError(try ConformanceMerge.merge(paths: [good, good])) { error in
            XCTAssertTrue("\(error)".contains("given twice"), "\(error)")
        }
        let copy = fixture.directory + "/copy.json"
        try FileManager.default.copyItem(atPath: good, toPath: copy)
        XCTAssertThrowsError(try ConformanceMerge.merge(paths: [good, copy])) { error in
            XCTAssertEqual((error as? ConformanceJSONError)?.file, copy)
            XCTAssertTrue("\(error)".contains("again: \(good) has it too"), "\(error)")
        }
    }
}
