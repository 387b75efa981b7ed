// How much each target's figure moves between runs of the same build: `runloop report RUN1.csv RUN2.csv ...` on
// files measured one after the other (separate processes). A target is only worth its verdict if the figure it
// judges moves less between processes than the distance its bound allows.
import Foundation
import MarkupKit
import ResultsKit

/// One variant of one target, across several results files.
struct TargetSpreadRow: Sendable {
    /// The target.
    let target: BenchmarkTarget
    /// The bound the files were judged against (a quick file's quick bound).
    let bound: TargetBound?
    /// The variant (`pin:same/load:none`).
    let variant: String
    /// The compared value in each file, in file order (`nil`: not measured there).
    let values: [Double?]
    /// The status in each file.
    let statuses: [TargetStatus]

    /// The measured values.
    var measured: [Double] { values.compactMap { $0 } }

    /// The median of the measured values.
    var median: Double? { Statistics.median(measured) }

    /// The largest minus the smallest value, over the median: how far the figure moves between processes.
    var spread: Double? {
        guard let median, median != 0, let low = measured.min(), let high = measured.max(), measured.count >= 2 else {
            return nil
        }
        return (high - low) / abs(median)
    }

    /// The room a ratio bound leaves from parity, relative (`<= 1.03x`: 0.03; `<= 0.85x`: 0.15; `<= 1x`: 0); `nil`
    /// for a bound that is not a ratio.
    var boundMargin: Double? {
        guard let bound, target.comparison.isRatio else { return nil }
        return abs(bound.value - 1)
    }

    /// The distance from the median to the bound, relative to the bound: how far the figure could move before the
    /// verdict changes.
    var distanceToBound: Double? {
        guard let bound, let median, bound.value != 0 else { return nil }
        return abs(bound.value - median) / abs(bound.value)
    }

    /// Whether every file gave this variant the same verdict.
    var verdictStable: Bool { Set(statuses).count == 1 }
}

/// The spread of every target's figures over several files.
struct TargetSpread: Sendable {
    /// The files, in order.
    let files: [String]
    /// One row per target variant, in the targets file's order.
    let rows: [TargetSpreadRow]

    /// Lines up the targets of `reports` (one per file, in `files` order, all judged against one targets file).
    init(files: [String], reports: [BenchReport]) {
        self.files = files
        var rows: [TargetSpreadRow] = []
        guard let first = reports.first else {
            self.rows = []
            return
        }
        for (position, result) in first.targets.enumerated() {
            var variants: [String] = []
            for report in reports where position < report.targets.count {
                for outcome in report.targets[position].outcomes where !variants.contains(outcome.variant) {
                    variants.append(outcome.variant)
                }
            }
            for variant in variants {
                var values: [Double?] = []
                var statuses: [TargetStatus] = []
                for report in reports {
                    let outcome =
                        position < report.targets.count
                        ? report.targets[position].outcomes.first { $0.variant == variant } : nil
                    values.append(outcome?.value)
                    statuses.append(outcome?.status ?? .notMeasured)
                }
                rows.append(
                    TargetSpreadRow(
                        target: result.target, bound: result.bound, variant: variant,
                        values: values, statuses: statuses))
            }
        }
        self.rows = rows.filter { !$0.measured.isEmpty }
    }

    /// The table `runloop report` prints for several files.
    func text() -> String {
        var lines = [
            "targets across \(files.count) files (one process each): the figure in each file, its spread "
                + "((largest - smallest) / median), the room the bound leaves from parity, the distance from the median to "
                + "the bound (relative to the bound), and the verdicts"
        ]
        for (number, file) in files.enumerated() { lines.append("  [\(number + 1)] \(file)") }
        guard !rows.isEmpty else {
            lines.append("  no target was measured in any of the files")
            return lines.joined(separator: "\n") + "\n"
        }
        var table: [[String]] = [
            ["target", "variant", "bound"]
                + files.indices.map { "[\($0 + 1)]" } + ["median", "spread", "bound room", "to bound", "verdicts"]
        ]
        for row in rows {
            let values = row.values.map { value in value.map { Self.format($0, row.target) } ?? "-" }
            let verdicts = Dictionary(grouping: row.statuses, by: { $0 }).map { "\($0.key.rawValue) \($0.value.count)" }
                .sorted().joined(separator: ", ")
            table.append(
                [row.target.id, row.variant, row.bound?.text ?? "(reported)"] + values + [
                    row.median.map { Self.format($0, row.target) } ?? "-",
                    row.spread.map(Self.percent) ?? "-",
                    row.boundMargin.map(Self.percent) ?? "-",
                    row.distanceToBound.map(Self.percent) ?? "-",
                    verdicts,
                ])
        }
        let widths = table[0].indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        for cells in table {
            lines.append(
                "  "
                    + cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                    .joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        }
        let judged = rows.filter { $0.bound != nil }
        let stable = judged.filter(\.verdictStable).count
        let narrow = judged.filter { row in
            guard let spread = row.spread, let room = row.boundMargin else { return false }
            return spread < room
        }.count
        let withRoom = judged.filter { $0.boundMargin != nil && $0.spread != nil }.count
        // A verdict the noise cannot flip: the figure moved less between files than its median's distance to the bound.
        let settled = judged.filter { row in
            guard let spread = row.spread, let distance = row.distanceToBound else { return false }
            return spread < distance
        }.count
        let withDistance = judged.filter { $0.spread != nil && $0.distanceToBound != nil }.count
        lines.append(
            "\(stable) of \(judged.count) judged variants got the same verdict in every file; "
                + "\(narrow) of \(withRoom) ratio variants moved less than the room their bound leaves from parity; "
                + "\(settled) of \(withDistance) moved less than the distance from their median to their bound")
        return lines.joined(separator: "\n") + "\n"
    }

    static func format(_ value: Double, _ target: BenchmarkTarget) -> String {
        target.comparison.isRatio
            ? String(format: "%.3fx", value)
            : target.metric.isTime ? NumberText.duration(value) : NumberText.exact(value)
    }

    static func percent(_ value: Double) -> String { String(format: "%.1f %%", value * 100) }
}
