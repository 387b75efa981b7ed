// Exact counts in the history (callgrind's instructions from runloop bench --instructions): their results
// CSVs are read and kept apart from times, their change points are steps between commits (ExactSteps), and a broken
// instruction CSV is refused naming its file, line and field.
import Foundation
import FoundationXML
import ResultsKit
import Testing

@testable import HistoryKit

@Suite struct ExactCountTests {
    /// One instruction run per commit, `ref`'s timer taking `timer[index]` instructions, its source always 1,116.
    static func series(_ runs: SyntheticRuns, timer: [Double], runsPerCommit: Int = 1) throws -> [String] {
        var files: [String] = []
        for (index, count) in timer.enumerated() {
            for repeated in 0..<runsPerCommit {
                files.append(
                    try runs.write(
                        SyntheticRuns.instructionCSV(
                            date: SyntheticRuns.date(index * runsPerCommit + repeated),
                            commit: SyntheticRuns.commit(index), counts: ["source": 1116, "timer": count])))
            }
        }
        return files
    }

    @Test func anInstructionRunIsIngestedAsItsOwnMetricWithoutTimes() throws {
        let runs = try SyntheticRuns()
        let db = try HistoryDatabase(path: runs.path("h.sqlite"))
        let timeRun = try runs.write(SyntheticRuns.csv(date: SyntheticRuns.date(0), commit: SyntheticRuns.commit(0)))
        let files = try Self.series(runs, timer: [2537, 2007, 2013])
        let summary = try db.add(files: [timeRun] + files)
        #expect(summary.added.count == 4)
        let listed = try db.runs(RunFilter(profile: "callgrind"))
        #expect(listed.count == 3)
        #expect(listed.allSatisfy { $0.machine == "kvm-2cpu-instructions" && $0.engines["ref"] != nil })
        #expect(listed.map(\.commit) == (0..<3).map(SyntheticRuns.commit))
        #expect(try db.metrics().contains("instructions_per_item"))
        // No time series from the instruction runs, no instruction series from the time run.
        #expect(try db.trend(pattern: "BM_Scale").isEmpty)
        let series = try db.trend(pattern: "BM_Scale", metric: "instructions_per_item")
        #expect(series.map(\.key) == ["BM_Scale/item:source/n:10000", "BM_Scale/item:timer/n:10000"])
        #expect(series.allSatisfy { $0.exact && $0.profile == "callgrind" && $0.points.count == 3 })
        #expect(series[1].points.map(\.median) == [2537, 2007, 2013])
        #expect(try db.trend(pattern: "BM_Synth", metric: "instructions_per_item").isEmpty)
        #expect(try db.trend(pattern: "BM_Synth").allSatisfy { !$0.exact })
    }

    @Test func aStepBetweenCommitsIsAChangePointAndEqualCountsAreNot() throws {
        let runs = try SyntheticRuns()
        let db = try HistoryDatabase(path: runs.path("h.sqlite"))
        // The timer steps at the second commit (which E-divisive, with 3 runs a side, could never find), then moves
        // by less than 1 %; the source never moves.
        _ = try db.add(files: try Self.series(runs, timer: [2537, 2007, 2013, 2002, 2002]))
        let series = try db.trend(pattern: "BM_Scale", metric: "instructions_per_item")
        let source = try #require(series.first { $0.key.contains("source") })
        let timer = try #require(series.first { $0.key.contains("timer") })
        #expect(source.changePoints.isEmpty)
        #expect(timer.changePoints.map(\.index) == [1])
        let step = try #require(timer.changePoints.first)
        #expect(step.exact && step.before == 2537 && step.after == 2007)
        let text = HistoryText.trend(series, metric: "instructions_per_item")
        #expect(text.contains("change point: 0000001..0000002"))
        #expect(text.contains("2537 -> 2007, -20.9 %, exact"))
        #expect(text.contains("no change point (exact counts: a step of 1 % or more between commits)"))
    }

    @Test func repeatedRunsOfOneCommitAgreeAndTheStepIsAtTheNewCommit() throws {
        let runs = try SyntheticRuns()
        let db = try HistoryDatabase(path: runs.path("h.sqlite"))
        _ = try db.add(files: try Self.series(runs, timer: [2661, 2141, 2015], runsPerCommit: 3))
        let timer = try #require(
            try db.trend(pattern: "item:timer", metric: "instructions_per_item").first)
        #expect(timer.points.count == 9)
        #expect(timer.disagreement == nil)
        #expect(timer.changePoints.map(\.index) == [3, 6])
        // Nine equal counts over three commits: none.
        let flat = try #require(try db.trend(pattern: "item:source", metric: "instructions_per_item").first)
        #expect(flat.changePoints.isEmpty)
    }

    @Test func exactStepsDirectly() {
        func runs(_ values: [(String, Double)]) -> [ExactSteps.Run] {
            values.map { ExactSteps.Run(build: $0.0, median: $0.1, minimum: $0.1, maximum: $0.1) }
        }
        let flat = ExactSteps().changePoints(runs([("a", 5), ("b", 5), ("c", 5), ("c", 5)]))
        #expect(flat == .success([]))
        let step = ExactSteps().changePoints(runs([("a", 100), ("b", 100), ("c", 90)]))
        #expect((try? step.get())?.map(\.index) == [2])
        let small = ExactSteps().changePoints(runs([("a", 1000), ("b", 1009)]))
        #expect(small == .success([]))
        var strict = ExactSteps()
        strict.minimumStep = 0
        #expect((try? strict.changePoints(runs([("a", 1000), ("b", 1001)])).get())?.map(\.index) == [1])
        #expect((try? strict.changePoints(runs([("a", 1000), ("b", 1000)])).get()) == [])
        // From zero, any count is a step.
        #expect((try? ExactSteps().changePoints(runs([("a", 0), ("b", 3)])).get())?.map(\.index) == [1])
        // Two runs of one build that differ, or one run whose repetitions differ: not exact.
        #expect(ExactSteps().changePoints(runs([("a", 5), ("a", 6)])) == .failure(.init(.init(index: 1, build: "a"))))
        let spread = [ExactSteps.Run(build: "a", median: 5, minimum: 4, maximum: 6)]
        #expect(ExactSteps().changePoints(spread) == .failure(.init(.init(index: 0, build: "a"))))
    }

    @Test func runsOfOneCommitThatDisagreeAreTestedAsNoise() throws {
        let runs = try SyntheticRuns()
        let db = try HistoryDatabase(path: runs.path("h.sqlite"))
        let files = try (0..<4).map { index in
            try runs.write(
                SyntheticRuns.instructionCSV(
                    date: SyntheticRuns.date(index), commit: SyntheticRuns.commit(0),
                    counts: ["timer": Double(2000 + index)]))
        }
        _ = try db.add(files: files)
        let timer = try #require(try db.trend(pattern: "item:timer", metric: "instructions_per_item").first)
        #expect(timer.exact)
        #expect(timer.disagreement == ExactSteps.Disagreement(index: 1, build: SyntheticRuns.commit(0)))
        #expect(timer.changePoints.isEmpty)
        let text = HistoryText.trend([timer], metric: "instructions_per_item")
        #expect(text.contains("the runs of 0000001 disagree"))
        #expect(text.contains("no change point (E-divisive means, p <= 0.05)"))
    }

    @Test func aBenchmarkARunListsAsNotExactIsTestedAsNoise() throws {
        let runs = try SyntheticRuns()
        let db = try HistoryDatabase(path: runs.path("h.sqlite"))
        // The timer's counts jump between commits as an engine's whose work varies from run to run; the third run's
        // repeat caught it and lists the timer, not the source.
        let files = try [2000.0, 2600, 2050].enumerated().map { index, timer in
            try runs.write(
                SyntheticRuns.instructionCSV(
                    date: SyntheticRuns.date(index), commit: SyntheticRuns.commit(index),
                    counts: ["source": 1116, "timer": timer], inexact: index == 2 ? ["ref/timer"] : []))
        }
        _ = try db.add(files: files)
        let timer = try #require(try db.trend(pattern: "item:timer", metric: "instructions_per_item").first)
        #expect(!timer.exact)
        #expect(timer.changePoints.allSatisfy { !$0.exact })
        let source = try #require(try db.trend(pattern: "item:source", metric: "instructions_per_item").first)
        #expect(source.exact)
        let text = HistoryText.trend([timer], metric: "instructions_per_item")
        #expect(!text.contains("(exact)"))
        #expect(!text.contains(", exact"))
    }

    @Test func theTrendPageDrawsTheStepOfAnInstructionSeries() throws {
        let runs = try SyntheticRuns()
        let db = try HistoryDatabase(path: runs.path("h.sqlite"))
        _ = try db.add(files: try Self.series(runs, timer: [2537, 2007, 2013, 2002, 2002]))
        let series = try db.trend(pattern: "BM_Scale", metric: "instructions_per_item")
        let page = TrendPage.html(series, metric: "instructions_per_item", pattern: "BM_Scale", generated: "test")
        _ = try XMLDocument(xmlString: page, options: [])
        #expect(page.components(separatedBy: "stroke=\"#c62828\"").count - 1 == 1)  // one step, one red line
        #expect(page.contains("instructions_per_item (exact)"))
    }

    /// A results CSV of instructions with one thing broken: what `history add` must say (exit 2), as
    /// `FILE:LINE: error: ...` naming the field or context line.
    static let broken: [(name: String, text: String, replacement: String, expected: String)] = [
        ("an empty count", ",,,,2537\n", ",,,,\n", ":14: error: missing value: field 'instructions_per_item'"),
        (
            "a count that is not a number", ",,,,2537\n", ",,,,25x7\n",
            ":14: error: non-numeric value: field 'instructions_per_item'"
        ),
        (
            "a time in a file of counts", ",,,,2537\n", ",1.5,,,2537\n",
            ":14: error: invalid argument: field 'real_time'"
        ),
        ("a short row", ",,,,2537\n", ",,,2537\n", ":14: error: wrong field count"),
        ("another timing", "# timing: none", "# timing: wall", ":9: error: invalid argument: field 'timing'"),
        (
            "an exact metric that is no column", "# exact_metrics: instructions_per_item", "# exact_metrics: cycles",
            ":10: error: missing column: field 'exact_metrics'"
        ),
        (
            "a benchmark listed as not exact that the file does not have", "# exact_metrics: instructions_per_item",
            "# exact_metrics: instructions_per_item\n# inexact: BM_Scale/engine:ref/item:observer/n:10000",
            ":11: error: missing value: field 'inexact'"
        ),
        (
            "a benchmark listed as not exact in a file with no exact metric", "# exact_metrics: instructions_per_item",
            "# inexact: BM_Scale/engine:ref/item:timer/n:10000", ":10: error: invalid argument: field 'inexact'"
        ),
    ]

    @Test(arguments: broken.indices)
    func aBrokenInstructionCSVIsExit2NamingFileLineAndField(index: Int) throws {
        let runs = try SyntheticRuns()
        let good = SyntheticRuns.instructionCSV(
            date: SyntheticRuns.date(0), commit: SyntheticRuns.commit(0), counts: ["timer": 2537])
        let broken = Self.broken[index]
        #expect(good.contains(broken.text))
        let file = try runs.write(good.replacingOccurrences(of: broken.text, with: broken.replacement))
        let database = runs.path("h.sqlite")
        let outcome = HistoryTool.add(database: database, files: [file])
        #expect(outcome.exitCode == 2, "\(Self.broken[index].name)")
        let message = outcome.diagnostics.joined()
        #expect(message.hasPrefix(file + Self.broken[index].expected), "\(Self.broken[index].name): \(message)")
        #expect(try HistoryDatabase(path: database).runs().isEmpty)
    }

    @Test func checkTakesTheNewestRunOfItsMetric() throws {
        let runs = try SyntheticRuns()
        let db = try HistoryDatabase(path: runs.path("h.sqlite"))
        let times = try TrendAndCheckTests.series(runs, count: 2, stepAt: 99)
        // Two instruction runs dated after the time runs, the timer 20 % lower at the second.
        let counts = try (0..<2).map { index in
            try runs.write(
                SyntheticRuns.instructionCSV(
                    date: SyntheticRuns.date(10 + index), commit: SyntheticRuns.commit(10 + index),
                    counts: ["timer": index == 0 ? 2537 : 2007]))
        }
        _ = try db.add(files: times + counts)
        let timeCheck = try #require(try db.check())
        #expect(timeCheck.run.file == times[1])
        #expect(!timeCheck.changes.isEmpty)
        let countCheck = try #require(try db.check(metric: "instructions_per_item"))
        #expect(countCheck.run.file == counts[1])
        #expect(countCheck.improvements.map(\.benchmark) == ["BM_Scale/engine:ref/item:timer/n:10000"])
        #expect(throws: HistoryError.self) { try db.check(metric: "no_such_metric") }
    }

    @Test func checkLeavesACountThatIsNotExactUnjudged() throws {
        let runs = try SyntheticRuns()
        let db = try HistoryDatabase(path: runs.path("h.sqlite"))
        // The timer 20 % higher and the source 20 % lower at the second run; the second run lists the timer as not
        // exact, the first lists the source: neither change can be judged, and nothing else changed.
        let files = try (0..<2).map { index in
            try runs.write(
                SyntheticRuns.instructionCSV(
                    date: SyntheticRuns.date(index), commit: SyntheticRuns.commit(index),
                    counts: ["timer": index == 0 ? 2000 : 2400, "source": index == 0 ? 1000 : 800],
                    inexact: index == 0 ? ["ref/source"] : ["ref/timer"]))
        }
        _ = try db.add(files: files)
        let check = try #require(try db.check(metric: "instructions_per_item"))
        #expect(check.regressions.isEmpty)
        #expect(check.improvements.isEmpty)
        #expect(
            check.notJudged.map(\.benchmark) == [
                "BM_Scale/engine:ref/item:source/n:10000", "BM_Scale/engine:ref/item:timer/n:10000",
            ])
        let text = HistoryText.check(check)
        #expect(text.contains("result: 0 regressed, 0 improved, 0 unchanged, 2 not judged (not exact)"))
        #expect(!text.contains("REGRESSED"))
        let outcome = HistoryTool.check(
            database: runs.path("h.sqlite"), runFile: files[1], metric: "instructions_per_item",
            thresholdPercent: 10, alpha: 0.05)
        #expect(outcome.exitCode == 0)
    }

    @Test func anInstructionCSVWithoutItsCommitIsExit2() throws {
        let runs = try SyntheticRuns()
        let file = try runs.write(
            SyntheticRuns.instructionCSV(date: SyntheticRuns.date(0), commit: "x", omit: ["commit"]))
        let outcome = HistoryTool.add(database: runs.path("h.sqlite"), files: [file])
        #expect(outcome.exitCode == 2)
        #expect(outcome.diagnostics.joined().hasPrefix(file + ": error: missing context line '# commit: ...'"))
    }
}
