// A divergence set aside as nondeterministic is reported with the engine whose runs changed and where they part: fed
// two fixed sets of runs (no real race), the comparison names the engine and the first differing line, and the text
// summary, the event line and the JSON report all carry them.

import ConformanceTestSupport
import Foundation
import Testing

@testable import ConformanceFuzzer
@testable import ConformanceKit

@Suite("Nondeterministic scenarios")
struct FuzzNondeterminismTests {
    static func run(_ trace: [String], _ status: FuzzRunStatus = .done, detail: String? = nil) -> FuzzRun {
        FuzzRun(status: status, trace: trace, rawTrace: trace, detail: detail)
    }

    static let engines = ["cf", "ref"]
    /// The two runs of seed 980009881's pattern: the first time cf fires the timer in the poll where ref performs the
    /// version-1 source; the second time cf performs the source, as ref does both times.
    static let firstRuns = [
        run(["run work", "fire t1", "return timedOut"]), run(["run work", "perform p1", "return timedOut"]),
    ]
    static let secondRuns = [
        run(["run work", "perform p1", "return timedOut"]), run(["run work", "perform p1", "return timedOut"]),
    ]

    @Test func theEngineWhoseRunsChangedIsNamedWithTheFirstDifferingLine() throws {
        let changed = try #require(
            FuzzNondeterminism.compare(
                seed: 7, batch: [5, 6, 7, 8], engines: Self.engines, first: Self.firstRuns, second: Self.secondRuns,
                knownCandidates: ["cf.common-items-set-order"]))
        #expect(changed.engines == ["cf"])
        let change = try #require(changed.changes.first)
        #expect(change.firstDifference == 1)
        #expect(change.first.trace[1] == "fire t1" && change.second.trace[1] == "perform p1")
        #expect(change.text == "cf: line 2 of 3 and 3: `fire t1` the first time, `perform p1` when run again")
        #expect(
            changed.lines == [
                "seed 7: cf gave a different result when run again",
                "  cf: line 2 of 3 and 3: `fire t1` the first time, `perform p1` when run again",
                "  the first run's divergence fits fuzz-known.yaml's cf.common-items-set-order (its conditions only; "
                    + "nothing run)",
                "  first run: scenario 3 of the batch of seeds 5 to 8 (run again in a batch of its own or with the "
                    + "batch's other divergent scenarios)",
            ])
    }

    @Test func theSameRunsTwiceAreNotNondeterministic() {
        #expect(
            FuzzNondeterminism.compare(
                seed: 7, batch: [7], engines: Self.engines, first: Self.firstRuns, second: Self.firstRuns) == nil)
    }

    /// A run cut short by the watchdog the first time: its trace ends early and its status changed; both engines
    /// changed, in engine order.
    @Test func aChangedStatusAndAShorterTraceAreSaid() throws {
        let first = [
            Self.run(["run work"], .ended(.timeout), detail: "no result within 3 s\nmore"),
            Self.run(["run work", "fire t1", "return timedOut"]),
        ]
        let second = [
            Self.run(["run work", "perform p1", "return timedOut"]), Self.run(["run work", "return timedOut"]),
        ]
        let changed = try #require(
            FuzzNondeterminism.compare(seed: 9, batch: [9], engines: Self.engines, first: first, second: second))
        #expect(changed.engines == ["cf", "ref"])
        #expect(
            changed.changes[0].text
                == "cf: line 2 of 1 and 3: (its trace ended) the first time, `perform p1` when run again; ended "
                + "TIMEOUT (no result within 3 s) the first time, done when run again")
        #expect(changed.changes[1].firstDifference == 1)
        // Only the statuses differ: no line is named.
        let statusOnly = try #require(
            FuzzNondeterminism.compare(
                seed: 9, batch: [9], engines: ["cf"], first: [Self.run(["a"], .ended(.crash))],
                second: [Self.run(["a"], .ended(.timeout))]))
        #expect(statusOnly.changes[0].firstDifference == nil)
        #expect(statusOnly.changes[0].text == "cf: ended CRASH the first time, TIMEOUT when run again")
    }

    /// The summary, the line printed when it is set aside, and the JSON report say which engine changed and where.
    @Test func everyReportCarriesTheEngineAndBothRuns() throws {
        let changed = try #require(
            FuzzNondeterminism.compare(
                seed: 7, batch: [7, 8], engines: Self.engines, first: Self.firstRuns, second: Self.secondRuns))
        let options = FuzzOptions(
            engines: [TestWorker.engine("cf"), TestWorker.engine("ref")], seed: 7, count: 2, seconds: nil,
            shape: FuzzShape(), outDirectory: nil)
        let summary = FuzzSummary(
            engines: Self.engines, firstSeed: 7, scenarios: 2, skipped: 0, hung: [], failedEverywhere: [],
            nondeterministic: [changed], findings: [], seconds: 1)
        let text = FuzzOutput.text(summary, options: options)
        #expect(text.contains("1 nondeterministic"))
        #expect(text.contains("nondeterministic (set aside): seeds 7 (cf)\n  seed 7: cf gave a different result"))
        #expect(text.contains("  cf: line 2 of 3 and 3: `fire t1` the first time, `perform p1` when run again"))

        let event = FuzzOutput.eventText(.setAside(changed, after: 2.5), options: options)
        #expect(event.hasPrefix("[2.5 s] set aside as nondeterministic: seed 7: cf gave a different result"))

        let report = FuzzOutput.report(summary, options: options)
        #expect(report.nondeterministic_seeds == [7])
        let entry = try #require(report.nondeterministic_scenarios?.first)
        #expect(entry.seed == 7 && entry.batch == [7, 8])
        #expect(entry.changes.map(\.engine) == ["cf"])
        #expect(entry.changes[0].first_differing_line == 2)
        #expect(entry.changes[0].first_trace == Self.firstRuns[0].rawTrace)
        #expect(entry.changes[0].second_trace == Self.secondRuns[0].rawTrace)
        #expect(entry.changes[0].first_status == "done" && entry.changes[0].second_status == "done")
        // The document reads back, and one written before set-aside scenarios were recorded still reads.
        let json = FuzzOutput.json(summary, options: options)
        let decoded = try JSONDecoder().decode(FuzzReport.self, from: Data(json.utf8))
        #expect(decoded == report)
        var older = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        older.removeValue(forKey: "nondeterministic_scenarios")
        let olderReport = try JSONDecoder().decode(
            FuzzReport.self, from: JSONSerialization.data(withJSONObject: older))
        #expect(olderReport.nondeterministic_scenarios == nil && olderReport.nondeterministic_seeds == [7])
        // A merge of the report keeps them and says them.
        let merged = try FuzzMerge.merge([report], files: ["a.json"])
        #expect(merged.nondeterministic_scenarios == [entry])
        #expect(
            FuzzMerge.text(merged).contains(
                "nondeterministic (set aside): seed 7: cf: line 2 of 3 and 3: `fire t1` the first time"))
    }
}
