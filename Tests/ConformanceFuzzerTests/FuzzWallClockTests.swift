// A fuzz run made while the wall clock moved is made again; a scenario whose runs kept moving with it is not compared.

import ConformanceKit
import ConformanceTestSupport
import Foundation
import Testing

@testable import ConformanceFuzzer

@Suite("Fuzzing on a moving wall clock")
struct FuzzWallClockTests {
    /// One scenario that runs to its end on ref and traces a date: a timer far away, its fire date queried. With
    /// `dated` false, the same without the query.
    static func scenario(dated: Bool = true) throws -> SpecCase {
        try FuzzTests.onlyCase(
            """
            spec_version: 1
            cases:
              - id: fuzz.clock
                rule: x
                source: observed
                items: {t: {timer: {fire: 30}}}
                steps: [{add: t}, \(dated ? "{query: [fireDate, t]}, " : "")run]
                expect: []
            """)
    }

    private static func executor(_ clock: MovingClockOffset) -> FuzzExecutor {
        var executor = FuzzExecutor(
            launcher: TestWorker.launcher(), engines: [TestWorker.engine("ref")], timeout: 10,
            directory: NSTemporaryDirectory())
        executor.clockOffset = { clock.read() }
        return executor
    }

    @Test func aRunMadeWhileTheClockMovedIsMadeAgain() throws {
        // 10 ms across the first run (its two reads), then steady.
        let clock = MovingClockOffset(step: 0.010, movingReads: 2)
        let run = try #require(try Self.executor(clock).run([Self.scenario()]).first?.first)
        #expect(run.status == .done, "\(run)")
        #expect(clock.reads == 4, "two runs, each between two reads")
    }

    @Test func aScenarioWhoseRunsKeptMovingWithTheClockIsNotCompared() throws {
        let clock = MovingClockOffset(step: 0.010)
        let run = try #require(try Self.executor(clock).run([Self.scenario()]).first?.first)
        #expect(run.status == .ended(.skip), "\(run)")
        #expect(run.detail?.contains("the wall clock moved") == true, "\(run.detail ?? "no detail")")
        #expect(clock.reads == 2 * WallClock.attempts)
    }

    @Test func aTraceWithNoDateIsNotMadeAgain() throws {
        let clock = MovingClockOffset(step: 0.010)
        let run = try #require(try Self.executor(clock).run([Self.scenario(dated: false)]).first?.first)
        #expect(run.status == .done, "\(run)")
        #expect(clock.reads == 2)
    }

    @Test func aCampaignCountsTheScenariosTheClockLeftUnjudgedBySeed() throws {
        let options = FuzzOptions(
            engines: [TestWorker.engine("ref"), TestWorker.engine("planted")], seed: 1, count: 12, seconds: nil,
            shape: FuzzShape(), outDirectory: nil, timeout: 10)
        var campaign = FuzzCampaign(options: options, launcher: TestWorker.launcher())
        let clock = MovingClockOffset(step: 0.010)
        campaign.executor.clockOffset = { clock.read() }
        let summary = try campaign.run()
        // Every scenario that traces a date moved with the clock on each of its runs; the others ran as usual.
        let dated = (1...12).map(UInt64.init).filter { seed in
            FuzzScenario.allActions(of: FuzzGenerator().scenario(seed: seed)).contains(where: FuzzExecutor.queriesDate)
        }
        #expect(!dated.isEmpty, "no scenario of seeds 1 to 12 traces a date: choose other seeds")
        #expect(summary.skippedForTheClock == dated)
        #expect(summary.skipped >= dated.count)
        #expect(FuzzOutput.text(summary, options: options).contains("(\(dated.count) for the moving wall clock)"))
        // The report carries the seeds, and a merge of it says the same.
        let report = try FuzzMerge.parse(
            Data(JSONText.render(FuzzOutput.report(summary, options: options)).utf8), file: "r.json")
        #expect(report.skipped_for_the_clock_seeds == dated)
        let merged = try FuzzMerge.merge([report], files: ["r.json"])
        #expect(merged.skipped_for_the_clock_seeds == dated)
        #expect(FuzzMerge.text(merged).contains("(\(dated.count) for the moving wall clock)"))
    }

    @Test func aSteadyClockCostsOneRun() throws {
        let clock = MovingClockOffset(step: 0)
        let run = try #require(try Self.executor(clock).run([Self.scenario()]).first?.first)
        #expect(run.status == .done)
        #expect(clock.reads == 2)
    }
}
