// `history check`: the newest run (or a chosen one) against the previous run of the same machine, CPU and profile,
// benchmark by benchmark: a two-sided Mann-Whitney U test on the repetitions (ResultsKit's statistics, as `runloop compare` runs it) and an effect-size
// threshold on the ratio of the medians.
import Foundation
import GRDB
import ResultsKit

/// One benchmark's change between the baseline run and the checked run.
public struct BenchmarkChange: Sendable {
    public let benchmark: String
    public let metric: String
    /// The run the benchmark was last measured in before the checked run.
    public let baseline: HistoryRun
    public let baseMedian: Double
    public let newMedian: Double
    public let baseCount: Int
    public let newCount: Int
    /// The test, when both sides have at least two values.
    public let test: MannWhitneyResult?
    /// Worse beyond the threshold and significant (or, when the sample sizes cannot reach alpha, beyond the threshold
    /// alone, as `runloop compare` does).
    public let regressed: Bool
    /// Better beyond the threshold, by the same rule.
    public let improved: Bool
    /// The verdict came from the threshold alone (the test could not reach alpha).
    public let thresholdOnly: Bool
    /// Not judged: one of the two runs lists the benchmark as not exact after all (`# inexact:`), so its one count
    /// is a single draw of a figure that varies between repetitions, and neither threshold nor test can judge it.
    public let notExact: Bool

    /// new / base - 1.
    public var change: Double? { baseMedian != 0 ? newMedian / baseMedian - 1 : nil }
}

/// What `history check` found.
public struct CheckReport: Sendable {
    /// The checked run.
    public let run: HistoryRun
    /// The previous runs of its machine and profile it was compared with (each benchmark with its latest).
    public let baselines: [HistoryRun]
    public let changes: [BenchmarkChange]
    public let thresholdPercent: Double
    public let alpha: Double

    public var regressions: [BenchmarkChange] { changes.filter(\.regressed) }
    public var improvements: [BenchmarkChange] { changes.filter(\.improved) }
    /// The changes left unjudged because a count was not exact (``BenchmarkChange/notExact``).
    public var notJudged: [BenchmarkChange] { changes.filter(\.notExact) }
}

extension HistoryDatabase {
    /// Checks `runFile`'s run (by its content), or the newest run with values of `metric`, against the previous runs
    /// of its machine, CPU and profile. Nil when there is no earlier run to compare with.
    public func check(
        runFile: String? = nil, metric: String = "real_time", thresholdPercent: Double = 10,
        alpha: Double = 0.05
    ) throws -> CheckReport? {
        guard thresholdPercent >= 0, alpha > 0, alpha < 1 else {
            throw HistoryError.usage("--threshold must be at least 0 and --alpha between 0 and 1")
        }
        let target: HistoryRun
        let all = try runs()
        if let runFile {
            let file = try RunFile.read(path: runFile)
            guard
                let id = try read({ db in
                    try Int64.fetchOne(
                        db, sql: "SELECT id FROM run WHERE content_hash = ?", arguments: [file.contentHash])
                }), let run = all.first(where: { $0.id == id })
            else {
                throw HistoryError.file(
                    runFile, "this file is not in the history \(path): add it first (runloop history add)")
            }
            target = run
        } else {
            guard !all.isEmpty else { throw HistoryError.database(path, "the history has no runs") }
            // The newest run that measured the metric: a newer run of another kind (instruction counts have no
            // real_time) has nothing to check.
            let measured = Set(
                try read { db in
                    try Int64.fetchAll(
                        db,
                        sql: """
                            SELECT DISTINCT m.run_id FROM measurement m JOIN series s ON s.id = m.series_id
                            WHERE s.metric = ?
                            """, arguments: [metric])
                })
            guard let newest = all.last(where: { measured.contains($0.id) }) else {
                throw HistoryError.database(path, "no run in the history has values of metric '\(metric)'")
            }
            target = newest
        }
        let earlier = all.filter {
            $0.machineKey == target.machineKey && $0.profile == target.profile
                && ($0.date, $0.id) < (target.date, target.id)
        }
        guard !earlier.isEmpty else { return nil }
        let higherIsBetter = Metric(metric).defaultHigherIsBetter
        let threshold = thresholdPercent / 100
        let byID = Dictionary(uniqueKeysWithValues: earlier.map { ($0.id, $0) })
        let changes = try read { db -> [BenchmarkChange] in
            var result: [BenchmarkChange] = []
            let current = try Row.fetchAll(
                db,
                sql: """
                    SELECT s.id, s.benchmark, m.samples FROM measurement m JOIN series s ON s.id = m.series_id
                    WHERE m.run_id = ? AND s.metric = ?
                    """, arguments: [target.id, metric])
            // The benchmarks each run lists as not exact after all (`# inexact:`).
            var inexact: Set<String> = []
            for row in try Row.fetchAll(
                db, sql: "SELECT run_id, value FROM run_context WHERE key = ?",
                arguments: [ResultsReader.inexactKey])
            {
                inexact.insert("\(row["run_id"] as Int64)\u{0}\(row["value"] as String)")
            }
            let previous = try db.makeStatement(
                sql: """
                    SELECT m.run_id, m.samples FROM measurement m JOIN run r ON r.id = m.run_id
                    WHERE m.series_id = ? AND m.run_id IN (\(earlier.map { String($0.id) }.joined(separator: ",")))
                    ORDER BY r.date DESC, r.id DESC LIMIT 1
                    """)
            for row in current {
                guard let base = try Row.fetchOne(previous, arguments: [row["id"] as Int64]),
                    let baseline = byID[base["run_id"]]
                else { continue }
                let new = Measurement.samples(fromBlob: row["samples"])
                let old = Measurement.samples(fromBlob: base["samples"])
                guard let newMedian = Statistics.median(new), let baseMedian = Statistics.median(old) else { continue }
                let test = Statistics.mannWhitneyU(old, new)
                let thresholdOnly =
                    test == nil
                    || Statistics.smallestPossiblePValue(n1: old.count, n2: new.count) >= alpha
                let significant = thresholdOnly || (test?.pValue ?? 1) < alpha
                let change = baseMedian != 0 ? newMedian / baseMedian - 1 : 0
                let benchmark: String = row["benchmark"]
                let notExact = [target.id, baseline.id].contains { inexact.contains("\($0)\u{0}\(benchmark)") }
                let judged = significant && !notExact
                let worse = higherIsBetter ? change < -threshold : change > threshold
                let better = higherIsBetter ? change > threshold : change < -threshold
                result.append(
                    BenchmarkChange(
                        benchmark: benchmark, metric: metric, baseline: baseline, baseMedian: baseMedian,
                        newMedian: newMedian, baseCount: old.count, newCount: new.count, test: test,
                        regressed: judged && worse, improved: judged && better, thresholdOnly: thresholdOnly,
                        notExact: notExact))
            }
            return result.sorted { BenchmarkName.naturalOrder($0.benchmark, $1.benchmark) }
        }
        var baselineIDs: [Int64] = []
        for change in changes where !baselineIDs.contains(change.baseline.id) { baselineIDs.append(change.baseline.id) }
        return CheckReport(
            run: target, baselines: baselineIDs.compactMap { byID[$0] }, changes: changes,
            thresholdPercent: thresholdPercent, alpha: alpha)
    }
}
