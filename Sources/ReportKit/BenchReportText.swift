// The benchmark report as terminal text: counts, errors, findings, the summary tables and the targets.
import Foundation
import MarkupKit
import ResultsKit

extension BenchReport {
    /// The report for a terminal (what `runloop bench` prints after a run). Ends with a newline.
    func text() -> String {
        var out =
            "runloop report: \(index.file.path): profile \(profile ?? "unknown"), \(repetitionRows) repetition "
            + "rows, \(aggregateRows) aggregate rows, \(skippedRows) skipped, \(errors.count) errors\n"
        if let repetitions = repetitionsLine { out += "repetitions per benchmark: \(repetitions)\n" }
        for line in ErroredRow.lines(errors) { out += "  ERROR \(line)\n" }
        if !findings.isEmpty {
            out += "findings (engines firing timers before their date: counted, not errors):\n"
            for finding in findings { out += "  FINDING \(BenchReport.describe(finding))\n" }
        }
        for table in tables {
            out += "\n\(table.table.title) (\(isSmoke ? "one run each" : "median over repetitions")):\n"
            guard !table.rows.isEmpty else {
                out += "  not measured (no rows of \(table.table.selection.description))\n"
                continue
            }
            let header = ["variant"] + table.engines
            let rows = table.rows.map { row in
                [row.variant] + row.cells.map { BenchReport.cellText($0, table.table.metrics) }
            }
            out += TextTable.aligned([header] + rows, indent: "  ")
        }
        out += CostReport(index).text(smoke: isSmoke)
        if isSmoke {
            out += "\ntargets: not evaluated (a smoke run's figures are meaningless)\n"
            return out
        }
        out += "\n" + targetsLine() + "\n"
        var rows: [[String]] = []
        for result in targets {
            let target = result.target
            let bound = BenchReport.boundText(result)
            if result.outcomes.count == 1, let only = result.outcomes.first {
                rows.append([
                    BenchReport.statusWord(result.status), target.id, BenchReport.valueText(only, target),
                    bound, target.description + BenchReport.parenthesised(only, target),
                ])
                continue
            }
            rows.append([
                BenchReport.statusWord(result.status), target.id, "", bound,
                target.description + " (\(result.outcomes.count) variants)",
            ])
            for outcome in result.outcomes {
                rows.append([
                    BenchReport.statusWord(outcome.status), "  " + outcome.variant,
                    BenchReport.valueText(outcome, target), "",
                    BenchReport.explanation(outcome, target),
                ])
            }
        }
        out += TextTable.aligned(rows, indent: "  ")
        return out
    }

    // MARK: - Pieces (shared with the HTML page)

    /// `targets for ref (Benchmarks/targets.yaml): 12 met, 3 missed, 7 not measured`, with the quick run's count of
    /// targets reported and not judged.
    func targetsLine() -> String {
        let counts = targetCounts
        var line =
            "targets for \(targets.first?.target.engine ?? "ref") (\(targetsPath)"
            + (isQuick ? "; a quick run: judged only where a target has a quick bound" : "") + "): "
            + "\(counts[.met] ?? 0) met, \(counts[.missed] ?? 0) missed, \(counts[.notMeasured] ?? 0) not measured"
        if let reported = counts[.reported] { line += ", \(reported) reported, not judged" }
        return line
    }

    /// The bound a target was judged against: `<= 1.03x`; in a quick run `<= 0 (quick)`, or the full run's bound
    /// in parentheses when it was only reported.
    static func boundText(_ result: TargetResult) -> String {
        guard let bound = result.bound else { return "(full: \(result.target.bound.text))" }
        return result.target.quickBound == bound && result.target.bound != bound ? "\(bound.text) (quick)" : bound.text
    }

    /// Which figure a target uses, in words: `median over repetitions of latency_mean_ns, divided by epoll's`.
    static func figureText(_ target: BenchmarkTarget) -> String {
        let statistic: String
        switch target.statistic {
        case .median: statistic = "median over repetitions of "
        case .max: statistic = "largest over repetitions of "
        case .min: statistic = "smallest over repetitions of "
        }
        var text = statistic + target.metric.description
        switch target.comparison {
        case .absolute: break
        case .engine(let engine): text += ", divided by \(engine)'s"
        case .bestOf(let engines):
            text +=
                ", divided by the \(target.bound.atMost ? "smallest" : "largest") of "
                + engines.joined(separator: ", ") + " (every one must be measured)"
        case .counter(let counter): text += ", divided by the same statistic of \(counter)"
        case .limit(let handoff): text += ", divided by the same figure of the \(handoff) limit of the same pinning"
        case .difference(let engine): text += ", minus \(engine)'s"
        case .notDominated(let engines, let figures):
            text =
                "how many of " + engines.joined(separator: ", ") + " (every one must be measured) beat "
                + target.engine + " on every one of "
                + figures.map { statistic + $0.description }
                .joined(separator: ", ") + ", each in its own direction (rates higher, times and counts lower)"
        }
        if let flag = target.invalidIf { text += "; repetitions with \(flag) set are left out" }
        return text
    }

    /// `cf: BM_...: 3 early fires in 2 of 5 repetitions, the earliest 1.20 us before its date`.
    static func describe(_ finding: EarlyFireFinding) -> String {
        var text =
            "\(finding.engine): \(finding.benchmark): \(NumberText.exact(finding.fires)) early fires in "
            + "\(finding.repetitions) of \(finding.measured) repetitions"
        if let by = finding.earliestByNs {
            text += ", the earliest " + String(format: "%.2f us", by / 1000) + " before its date"
        }
        return text
    }

    /// `met`, `MISSED`, `not measured`, `reported`.
    static func statusWord(_ status: TargetStatus) -> String {
        switch status {
        case .missed: return "MISSED"
        case .reported: return "reported"
        default: return status.rawValue
        }
    }

    /// A figure of `metric` with its unit: `4.68 us` for times, `0.0159` otherwise.
    static func figure(_ value: Double, _ metric: MetricExpression) -> String {
        if metric.isTime { return NumberText.duration(value) }
        if metric.higherIsBetter { return FigureText.value(value, metric: metric.description, time: false) }
        // Four significant digits without trailing zeros: counts read 64, ratios 0.0892, 1.
        return abs(value) >= 1e4 ? String(format: "%.0f", value) : String(format: "%.4g", value)
    }

    /// The compared value: `1.021x`, or the figure for an absolute bound; `-` when not measured.
    static func valueText(_ outcome: TargetOutcome, _ target: BenchmarkTarget) -> String {
        guard let value = outcome.value else { return "-" }
        if outcome.reference != nil { return ratio(value) }
        switch target.comparison {
        case .notDominated: return NumberText.exact(value) + (value == 1 ? " beats it" : " beat it")
        case .difference: return (value > 0 ? "+" : "") + figure(value, target.metric)
        default: break
        }
        return figure(value, target.metric)
    }

    /// `1.021x`, `12.8x`, `0.0159x`.
    static func ratio(_ value: Double) -> String { NumberText.significant(value) + "x" }

    /// `ref 4.78 us, epoll 4.68 us`, or why it was not measured.
    static func explanation(_ outcome: TargetOutcome, _ target: BenchmarkTarget) -> String {
        var parts: [String] = []
        if let subject = outcome.subject {
            var text = "\(target.engine) " + figure(subject, target.metric)
            if let reference = outcome.reference {
                let unitOf: MetricExpression = {
                    if case .counter(let counter) = target.comparison { return counter }
                    return target.metric
                }()
                text += ", \(reference.label) " + figure(reference.value, unitOf)
            }
            parts.append(text)
        }
        if let note = outcome.note { parts.append(note) }
        return parts.joined(separator: "; ")
    }

    /// ` (ref 4.78 us, epoll 4.68 us)`, or empty.
    static func parenthesised(_ outcome: TargetOutcome, _ target: BenchmarkTarget) -> String {
        let text = explanation(outcome, target)
        return text.isEmpty ? "" : " (\(text))"
    }

    /// A table cell: `4.68 us`, `0.0159 / 1.20 ms`, `skip`, `-`.
    static func cellText(_ cell: TableResult.Cell, _ metrics: [MetricExpression]) -> String {
        switch cell {
        case .absent: return "-"
        case .skipped: return "skip"
        case .errored: return "error"
        case .values(let values):
            return zip(values, metrics).map { value, metric in value.map { figure($0, metric) } ?? "-" }
                .joined(separator: " / ")
        }
    }

    /// How many repetitions each family's benchmarks had (their measured rows; fewest-most where they differ), so a
    /// reader sees what every median stands on: `BM_WakeLatency 9, BM_Scale 5`. Nil when nothing was measured.
    var repetitionsLine: String? {
        let parts = index.families.compactMap { family -> String? in
            let counts = index.benchmarks.filter { $0.family == family && !$0.rows.isEmpty }.map(\.rows.count)
            guard let fewest = counts.min(), let most = counts.max() else { return nil }
            return "\(family) \(fewest == most ? "\(fewest)" : "\(fewest)-\(most)")"
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}
