// The history's terminal output: the runs, a trend per series with its change points, a check's verdicts.
import Foundation
import MarkupKit
import ResultsKit

/// Plain-text rendering of the history's answers.
public enum HistoryText {
    /// `12.3 us` for times (`real_time`, `*_ns` counters), three significant digits otherwise.
    public static func value(_ value: Double, metric: String) -> String {
        guard value.isFinite else { return "n/a" }
        if metric == "real_time" || metric == "cpu_time" || metric.hasSuffix("_ns") {
            let units: [(Double, String)] = [(1e9, "s"), (1e6, "ms"), (1e3, "us"), (1, "ns")]
            let (scale, unit) = units.first { abs(value) >= $0.0 } ?? (1, "ns")
            return significant(value / scale) + " " + unit
        }
        if abs(value) >= 1e6 { return significant(value / 1e6) + " M" }
        return significant(value)
    }

    /// Three significant digits, no exponent.
    static func significant(_ value: Double) -> String {
        if value == 0 { return "0" }
        if abs(value) >= 100 { return String(format: "%.0f", value) }
        if abs(value) >= 10 { return String(format: "%.1f", value) }
        if abs(value) >= 1 { return String(format: "%.2f", value) }
        return String(format: "%.3g", value)
    }

    /// `+12.3 %`.
    public static func percent(_ fraction: Double?) -> String {
        guard let fraction, fraction.isFinite else { return "n/a" }
        return String(format: "%+.1f %%", fraction * 100)
    }

    /// The runs as a table, oldest first.
    public static func runs(_ runs: [HistoryRun]) -> String {
        guard !runs.isEmpty else { return "no runs\n" }
        var rows: [[String]] = [["date", "machine", "cpu", "profile", "commit", "rows", "errors", "engines", "file"]]
        for run in runs {
            rows.append([
                run.date, run.machine, run.cpu, run.profile, run.shortCommit, String(run.rowCount),
                String(run.errorRows), run.engines.keys.sorted().joined(separator: ","), run.file,
            ])
        }
        return table(rows) + "\(runs.count) run\(runs.count == 1 ? "" : "s")\n"
    }

    /// Each series: one line per run (date, commit, median, IQR, n; `|` where the commit changed, `>>` where a
    /// change point starts), then its change points.
    public static func trend(_ series: [TrendSeries], metric: String) -> String {
        guard !series.isEmpty else { return "no series matched\n" }
        var out = ""
        var lastGroup = ""
        for s in series {
            let group = "\(s.machine), profile \(s.profile)"
            if group != lastGroup {
                out += "== \(group)\n"
                lastGroup = group
            }
            out +=
                "\n\(s.benchmark)  [\(metric)\(s.exact ? " (exact)" : ""), "
                + "\(s.points.count) run\(s.points.count == 1 ? "" : "s")]\n"
            let starts = Set(s.changePoints.map(\.index))
            var rows: [[String]] = [["", "date", "commit", "median", "IQR", "range", "n"]]
            for (index, point) in s.points.enumerated() {
                let commitChanged = index > 0 && s.points[index - 1].run.commit != point.run.commit
                let mark = starts.contains(index) ? ">>" : commitChanged ? "|" : ""
                rows.append([
                    mark, point.run.date, point.run.shortCommit, value(point.median, metric: metric),
                    value(point.q1, metric: metric) + " - " + value(point.q3, metric: metric),
                    value(point.minimum, metric: metric) + " - " + value(point.maximum, metric: metric),
                    String(point.count),
                ])
            }
            out += table(rows, indent: "  ")
            if let disagreement = s.disagreement {
                out += "  " + disagreementNote(disagreement, in: s) + "\n"
            }
            if s.changePoints.isEmpty {
                out += "  no change point (\(method(s)))\n"
            }
            for point in s.changePoints {
                out += "  change point: " + changePoint(point, in: s, metric: metric) + "\n"
            }
        }
        return out
    }

    /// The smallest step between exact counts that is a change point, in percent: `1`.
    static var minimumStep: String { String(format: "%g", ExactSteps().minimumStep * 100) }

    /// How the series' change points were found.
    public static func method(_ series: TrendSeries) -> String {
        series.exact && series.disagreement == nil
            ? "exact counts: a step of \(minimumStep) % or more between commits"
            : "E-divisive means, p <= 0.05"
    }

    /// Why a series said to be exact was tested as a noisy one.
    public static func disagreementNote(_ disagreement: ExactSteps.Disagreement, in series: TrendSeries) -> String {
        let run = series.points[disagreement.index].run
        return "the runs of \(run.shortCommit) disagree (from the run of \(run.date)): the counts are not exact, "
            + "so the series is tested as a noisy one"
    }

    /// `b990f9c..fe1b8f7 (2026-11-26T13:20:11Z .. 2026-11-26T16:31:02Z): 671 ns -> 597 ns, -11.0 %, p = 0.005`;
    /// `exact` in place of p for a step between exact counts.
    public static func changePoint(_ point: ChangePoint, in series: TrendSeries, metric: String) -> String {
        let before = series.points[point.index - 1].run
        let after = series.points[point.index].run
        return "\(before.shortCommit)..\(after.shortCommit) (\(before.date) .. \(after.date)): "
            + "\(value(point.before, metric: metric)) -> \(value(point.after, metric: metric)), "
            + "\(percent(point.change)), " + (point.exact ? "exact" : "p = \(String(format: "%.3f", point.pValue))")
    }

    /// The check's regressions first, then the improvements, then a summary line.
    public static func check(_ report: CheckReport) -> String {
        let run = report.run
        var out =
            "history check: \(run.file) (\(run.date), \(run.shortCommit)) against the previous run"
            + " of \(run.machineKey), profile \(run.profile)\n"
        for baseline in report.baselines {
            out +=
                "  baseline: \(baseline.file) (\(baseline.date), \(baseline.shortCommit)); commits "
                + "\(String(baseline.commit.prefix(7)))..\(String(run.commit.prefix(7)))\n"
        }
        out +=
            "  \(report.changes.count) benchmarks of \(report.changes.first?.metric ?? "real_time") compared: "
            + "Mann-Whitney U, alpha \(report.alpha), threshold \(HistoryText.significant(report.thresholdPercent)) %\n"
        for (title, changes) in [("REGRESSED", report.regressions), ("improved", report.improvements)]
        where !changes.isEmpty {
            out += "\n\(title) (\(changes.count)):\n"
            var rows: [[String]] = [["benchmark", "before", "now", "change", "p", "n", "commits"]]
            for change in changes {
                rows.append([
                    change.benchmark, value(change.baseMedian, metric: change.metric),
                    value(change.newMedian, metric: change.metric), percent(change.change),
                    (change.test.map { String(format: "%.4f", $0.pValue) } ?? "-")
                        + (change.thresholdOnly ? " *" : ""),
                    "\(change.baseCount)/\(change.newCount)",
                    "\(String(change.baseline.commit.prefix(7)))..\(String(run.commit.prefix(7)))",
                ])
            }
            out += table(rows, indent: "  ")
        }
        if report.changes.contains(where: { $0.thresholdOnly && !$0.notExact }) {
            out += "  * too few repetitions for the test to reach alpha: judged on the threshold alone\n"
        }
        let notJudged = report.notJudged
        if !notJudged.isEmpty {
            out += "\nnot judged, a count not exact in one of the runs (`# inexact:`) (\(notJudged.count)):\n"
            var rows: [[String]] = [["benchmark", "before", "now", "change", "commits"]]
            for change in notJudged {
                rows.append([
                    change.benchmark, value(change.baseMedian, metric: change.metric),
                    value(change.newMedian, metric: change.metric), percent(change.change),
                    "\(String(change.baseline.commit.prefix(7)))..\(String(run.commit.prefix(7)))",
                ])
            }
            out += table(rows, indent: "  ")
        }
        let unchanged = report.changes.count - report.regressions.count - report.improvements.count - notJudged.count
        out +=
            "\nresult: \(report.regressions.count) regressed, \(report.improvements.count) improved, "
            + "\(unchanged) unchanged" + (notJudged.isEmpty ? "" : ", \(notJudged.count) not judged (not exact)") + "\n"
        return out
    }

    /// Columns padded to their widest cell.
    static func table(_ rows: [[String]], indent: String = "") -> String {
        TextTable.aligned(rows, indent: indent)
    }
}
