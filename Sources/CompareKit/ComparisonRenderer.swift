// Rendering a comparison report as a plain-text table, Markdown, JSON or CSV.
import Foundation
import MarkupKit
import ResultsKit

/// The output formats of `runloop compare`.
public enum OutputFormat: String, Sendable, CaseIterable, Codable {
    /// An aligned plain-text table for terminals.
    case table
    /// GitHub-flavoured Markdown (for pull-request comments and CI summaries).
    case markdown
    /// A JSON document with every number, for tools.
    case json
    /// One CSV row per benchmark, for spreadsheets.
    case csv
}

/// Turns a `ComparisonReport` into text.
enum ComparisonRenderer {
    /// Renders `report` in `format`. The result ends with a newline.
    static func render(_ report: ComparisonReport, as format: OutputFormat) -> String {
        switch format {
        case .table: return table(report)
        case .markdown: return markdown(report)
        case .json: return json(report)
        case .csv: return csv(report)
        }
    }

    // MARK: - Plain text

    /// The aligned plain-text rendering.
    static func table(_ report: ComparisonReport) -> String {
        var out = title(report) + "\n\n"
        let context = contextRows(report)
        if !context.isEmpty {
            // Two engines of one file share one context: show it once.
            // Long values (a compiler banner, a library's note) wrap at words instead of widening the column.
            let width = report.mode == .files ? 48 : 96
            var rows: [[String]] = []
            for row in context {
                let base = TextTable.wrap(row.base, width: width)
                let new = report.mode == .files ? TextTable.wrap(row.new, width: width) : []
                for index in 0..<max(base.count, new.count) {
                    let key = index == 0 ? row.key : ""
                    let left = index < base.count ? base[index] : ""
                    let right = index < new.count ? new[index] : ""
                    rows.append(
                        report.mode == .files
                            ? [key, left, right, index == 0 && row.differs ? "<- differs" : ""] : [key, left])
                }
            }
            out += TextTable.aligned(rows, indent: "  ") + "\n"
        }
        let header = ["Benchmark", report.base.label, report.new.label, "Change", "p-value", "n", "Verdict"]
        // Names without the run-type segments every row of a family shares (`/manual_time`), as in the chart.
        let names = RatioPlot.rowLabels(report.comparisons.map(\.name), limit: .max)
        let rows = zip(report.comparisons, names).map { comparison, name in
            [name] + cells(comparison, metric: report.metric, time: report.unit != nil).dropFirst()
        }
        out += TextTable.aligned([header] + rows, indent: "", underlineHeader: true)
        out += "\n" + summaryLines(report).joined(separator: "\n") + "\n"
        for (title, items) in apartLists(report, summarised: true) where !items.isEmpty {
            out += "\n\(title):\n" + items.map { "  \($0)" }.joined(separator: "\n") + "\n"
        }
        if !report.warnings.isEmpty {
            out += "\nWarnings:\n" + report.warnings.map { "  - \($0)" }.joined(separator: "\n") + "\n"
        }
        return out + "\n" + resultLine(report) + "\n"
    }

    // MARK: - Markdown

    /// The GitHub-flavoured Markdown rendering.
    static func markdown(_ report: ComparisonReport) -> String {
        var out = "### " + title(report) + "\n\n"
        let context = contextRows(report)
        if !context.isEmpty {
            out += "| | \(escapeMarkdown(report.base.label)) | \(escapeMarkdown(report.new.label)) |\n|---|---|---|\n"
            for row in context {
                let key = row.differs ? "**\(escapeMarkdown(row.key))**" : escapeMarkdown(row.key)
                out += "| \(key) | \(escapeMarkdown(row.base)) | \(escapeMarkdown(row.new)) |\n"
            }
            out += "\n"
        }
        out +=
            "| Benchmark | \(escapeMarkdown(report.base.label)) | \(escapeMarkdown(report.new.label)) "
            + "| Change | p-value | n | Verdict |\n|---|---:|---:|---:|---:|---:|---|\n"
        for comparison in report.comparisons {
            var row = cells(comparison, metric: report.metric, time: report.unit != nil).map(escapeMarkdown)
            row[0] = "`\(comparison.name)`"
            if comparison.verdict == .slower { row[6] = "**\(row[6])**" }
            out += "| " + row.joined(separator: " | ") + " |\n"
        }
        out +=
            "\n"
            + summaryLines(report).map { line in
                line.hasPrefix("  ") ? "  - " + line.trimmingCharacters(in: .whitespaces) : "- " + line
            }.joined(separator: "\n") + "\n"
        for (title, items) in apartLists(report, summarised: true) where !items.isEmpty {
            out += "\n**\(title)**:\n\n" + items.map { "- `\($0)`" }.joined(separator: "\n") + "\n"
        }
        if !report.warnings.isEmpty {
            out +=
                "\n> **Warnings**\n" + report.warnings.map { "> - \(escapeMarkdown($0))" }.joined(separator: "\n")
                + "\n"
        }
        return out + "\n**" + resultLine(report) + "**\n"
    }

    // MARK: - JSON

    /// The JSON document: `{"exitCode": 0|1, "regressions": [...names], "report": {...}}`.
    static func json(_ report: ComparisonReport) -> String {
        struct Envelope: Encodable {
            let exitCode: Int32
            let regressions: [String]
            let report: ComparisonReport
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let envelope = Envelope(exitCode: report.exitCode, regressions: report.regressions.map(\.name), report: report)
        guard let data = try? encoder.encode(envelope) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    // MARK: - CSV

    /// The CSV columns written by `csv(_:)`.
    static let csvColumns = [
        "benchmark", "family", "parameters", "metric", "unit", "base_median", "new_median", "ratio",
        "change_percent", "u", "p_value", "test", "base_n", "new_n", "verdict", "threshold_only",
    ]

    /// One row per compared benchmark, then rows with verdict `only in base` / `only in new`.
    /// Times are in nanoseconds (`unit` column).
    static func csv(_ report: ComparisonReport) -> String {
        var lines = [csvColumns.joined(separator: ",")]
        let unit = report.unit ?? ""
        for c in report.comparisons {
            let fields: [String] = [
                c.name, c.family, c.parameters, report.metric, unit, NumberText.exact(c.base.median),
                NumberText.exact(c.new.median),
                c.ratio.map(NumberText.exact) ?? "", c.change.map { NumberText.exact($0 * 100) } ?? "",
                c.test.map { NumberText.exact($0.u) } ?? "", c.test.map { NumberText.exact($0.pValue) } ?? "",
                c.test?.method.rawValue ?? "", "\(c.base.count)", "\(c.new.count)", c.verdict.rawValue,
                c.thresholdOnly ? "true" : "false",
            ]
            lines.append(fields.map(escapeCSV).joined(separator: ","))
        }
        for (names, verdict) in [(report.onlyInBase, "only in base"), (report.onlyInNew, "only in new")] {
            for name in names {
                let benchmark = BenchmarkName(name)
                let fields = [
                    name, benchmark.family, benchmark.parameters, report.metric, unit,
                    "", "", "", "", "", "", "", "", "", verdict, "",
                ]
                lines.append(fields.map(escapeCSV).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - Pieces shared by the text formats

    /// "Comparing real_time (lower is better) ...".
    static func title(_ report: ComparisonReport) -> String {
        let direction = report.higherIsBetter ? "higher is better" : "lower is better"
        let what: String
        switch report.mode {
        case .files:
            what = "\(report.new.path) against \(report.base.path)"
        case .engines:
            what =
                "engine \(report.new.label) against engine \(report.base.label) in \(report.base.path) "
                + "(ratio = \(report.new.label) / \(report.base.label))"
        }
        return "runloop compare: \(what): \(report.metric) (\(direction)), threshold "
            + "\(Comparator.formatPercent(report.thresholdPercent)), alpha \(NumberText.exact(report.alpha)), "
            + "two-sided Mann-Whitney U"
    }

    /// The context keys of both sides, with whether they differ. Engine mode shows one file.
    static func contextRows(_ report: ComparisonReport) -> [(key: String, base: String, new: String, differs: Bool)] {
        var keys: [String] = []
        for entry in report.base.context + report.new.context where !keys.contains(entry.key) { keys.append(entry.key) }
        var rows: [(String, String, String, Bool)] = []
        if report.mode == .files {
            rows.append(("file", report.base.path, report.new.path, false))
        }
        for key in keys {
            let base = report.base.context.first(where: { $0.key == key })?.value ?? "-"
            let new = report.new.context.first(where: { $0.key == key })?.value ?? "-"
            rows.append((key, base, new, report.mode == .files && base != new))
        }
        if report.mode == .files {
            // Google Benchmark's own "Run on (...)" line identifies the machine.
            let baseRun = report.base.otherContext.first(where: { $0.hasPrefix("Run on") }) ?? "-"
            let newRun = report.new.otherContext.first(where: { $0.hasPrefix("Run on") }) ?? "-"
            if baseRun != "-" || newRun != "-" { rows.append(("machine", baseRun, newRun, baseRun != newRun)) }
        }
        return rows
    }

    /// The table cells of one comparison.
    static func cells(_ c: BenchmarkComparison, metric: String, time: Bool) -> [String] {
        let unit = c.base.source == .repetitions ? "" : " (agg)"
        return [
            c.name,
            FigureText.value(c.base.median, metric: metric, time: time) + unit,
            FigureText.value(c.new.median, metric: metric, time: time) + (c.new.source == .repetitions ? "" : " (agg)"),
            c.change.map(NumberText.signedPercent) ?? "n/a",
            c.test.map { pValue($0.pValue) } ?? "-",
            "\(c.base.count)/\(c.new.count)",
            c.verdict.rawValue + (c.thresholdOnly ? " *" : ""),
        ]
    }

    /// Geometric means and counts.
    static func summaryLines(_ report: ComparisonReport) -> [String] {
        var lines: [String] = []
        let ratioName = report.mode == .engines ? "\(report.new.label)/\(report.base.label)" : "new/base"
        if let mean = report.geometricMean {
            lines.append(
                "Geometric mean of \(report.comparisons.count) ratio(s) (\(ratioName)): "
                    + String(format: "%.4f", mean) + " (\(NumberText.signedPercent(mean - 1)))")
        } else {
            lines.append("Geometric mean of ratios: n/a (no positive ratios)")
        }
        if report.families.count > 1 || report.mode == .engines {
            for family in report.families {
                let mean =
                    family.geometricMean.map { String(format: "%.4f", $0) + " (\(NumberText.signedPercent($0 - 1)))" }
                    ?? "n/a"
                lines.append(
                    "  \(family.family): \(mean) over \(family.count), \(family.slower) slower, \(family.faster) faster"
                )
            }
        }
        let counts = Verdict.allCases.map { verdict in
            "\(report.comparisons.filter { $0.verdict == verdict }.count) \(verdict.rawValue)"
        }
        lines.append("Verdicts: " + counts.joined(separator: ", "))
        return lines
    }

    /// The "listed apart" sections, titled with their counts. `summarised`: benchmarks without the metric are
    /// counted per family (a results file has dozens of benchmarks without, say, `latency_p50_ns`) instead of listed.
    static func apartLists(_ report: ComparisonReport, summarised: Bool = false) -> [(String, [String])] {
        var withoutValues = report.withoutValues
        var withoutTitle = "No value for \(report.metric) (\(withoutValues.count))"
        if summarised, !withoutValues.isEmpty {
            var order: [String] = []
            var counts: [String: Int] = [:]
            for name in withoutValues {
                let family = BenchmarkName(name).family
                if counts[family] == nil { order.append(family) }
                counts[family, default: 0] += 1
            }
            withoutValues = order.map { "\($0): \(counts[$0] ?? 0) benchmark(s)" }
            withoutTitle =
                "No value for \(report.metric): \(report.withoutValues.count) benchmark(s) in "
                + "\(order.count) famil\(order.count == 1 ? "y" : "ies")"
        }
        let errored = ErroredRow.lines(report.errored)
        return [
            ("Only in \(report.base.label) (\(report.onlyInBase.count))", report.onlyInBase),
            ("Only in \(report.new.label) (\(report.onlyInNew.count))", report.onlyInNew),
            (withoutTitle, withoutValues),
            ("Errored rows (error_occurred=true) (\(errored.count))", errored),
        ]
    }

    /// The final line stating the gate's outcome.
    static func resultLine(_ report: ComparisonReport) -> String {
        let slower = report.regressions
        if slower.isEmpty {
            return "Result: no benchmark is significantly slower beyond "
                + "\(Comparator.formatPercent(report.thresholdPercent)) (exit 0)"
        }
        let qualifier = slower.allSatisfy(\.thresholdOnly) ? "" : "significantly "
        return "Result: \(slower.count) benchmark(s) \(qualifier)slower beyond "
            + "\(Comparator.formatPercent(report.thresholdPercent)) (exit 1): "
            + slower.map(\.name).joined(separator: ", ")
    }

    // MARK: - Formatting helpers

    /// A p-value with four decimals, or `<0.0001`.
    static func pValue(_ p: Double) -> String {
        p < 1e-4 ? "<0.0001" : String(format: "%.4f", p)
    }

    /// Quotes a CSV field when needed.
    static func escapeCSV(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Escapes the characters that break a Markdown table cell.
    static func escapeMarkdown(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|")
    }
}
