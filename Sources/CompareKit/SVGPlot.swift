// The SVG chart of a comparison: one row per benchmark showing the ratio of the medians, the
// spread of the new samples and of the base samples (both relative to the base median), on a
// logarithmic axis centred on 1, coloured by verdict.
import Foundation
import MarkupKit
import ResultsKit

/// Draws a `ComparisonReport` as a self-contained SVG document.
///
/// Each row shows, relative to the base median:
/// - a grey bar: the base samples' range (their noise around 1.0);
/// - a coloured whisker and box: the new samples' range and interquartile range;
/// - a dot: the ratio of the medians (hollow when the verdict came from the threshold alone).
///
/// Dashed lines mark the threshold on both sides of 1. The last row is the geometric mean.
enum RatioPlot {
    /// Colours by verdict.
    static let colors: [Verdict: String] = [.slower: "#c62828", .faster: "#2e7d32", .noSignificantChange: "#607d8b"]

    /// Renders the chart.
    static func svg(_ report: ComparisonReport) -> String {
        let rows = report.comparisons
        let rowHeight = 24.0
        let top = 78.0
        let axisGap = 34.0
        let labels = rowLabels(rows.map(\.name), limit: 72) + ["geometric mean"]
        let labelWidth = min(560, max(130, Double(labels.map(\.count).max() ?? 10) * 7.4 + 24))
        let plotWidth = 460.0
        let annotationWidth = 270.0
        let left = labelWidth
        let right = left + plotWidth
        let width = right + annotationWidth
        let plotBottom = top + Double(labels.count) * rowHeight
        let height = plotBottom + axisGap + 58

        // Domain: every plotted ratio and the threshold lines, padded, on a log scale.
        let threshold = report.thresholdPercent / 100
        var extremes: [Double] = [1 + threshold, max(1 - threshold, 0.01), 0.9, 1.1]
        for c in rows where c.base.median > 0 {
            extremes += [c.base.minimum, c.base.maximum, c.new.minimum, c.new.maximum].map { $0 / c.base.median }
        }
        if let mean = report.geometricMean { extremes.append(mean) }
        let positive = extremes.filter { $0 > 0 && $0.isFinite }
        let low = log((positive.min() ?? 0.5) / 1.06)
        let high = log((positive.max() ?? 2) * 1.06)
        func x(_ ratio: Double) -> Double {
            let clamped = min(max(log(max(ratio, 1e-12)), low), high)
            return left + (clamped - low) / (high - low) * plotWidth
        }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(SVG.f(width))" height="\(SVG.f(height))" \
            viewBox="0 0 \(SVG.f(width)) \(SVG.f(height))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>

            """
        let ratioName = report.mode == .engines ? "\(report.new.label) / \(report.base.label)" : "new / base"
        let direction = report.higherIsBetter ? "higher is better" : "lower is better"
        svg += SVG.text(
            x: 12, y: 24, Markup.escape("\(report.metric): \(ratioName) (\(direction))"), size: 16, weight: "bold")
        svg += SVG.text(
            x: 12, y: 44,
            Markup.escape(
                report.mode == .engines
                    ? "\(report.base.path): engine \(report.new.label) vs engine \(report.base.label)"
                    : "\(report.new.label) vs \(report.base.label)"), size: 12, fill: "#444")
        let (newName, baseName) = report.mode == .engines ? (report.new.label, report.base.label) : ("new", "base")
        let subtitle =
            "dot = median ratio; box = \(newName) IQR, whisker = \(newName) range, grey = \(baseName) range "
            + "(all relative to the \(baseName) median); dashed = threshold ±\(Comparator.formatPercent(report.thresholdPercent))"
        svg += SVG.text(x: 12, y: 62, Markup.escape(subtitle), size: 11, fill: "#666")

        // Alternate row shading and the axis grid.
        for index in labels.indices where index % 2 == 0 {
            svg +=
                "<rect x=\"0\" y=\"\(SVG.f(top + Double(index) * rowHeight))\" width=\"\(SVG.f(width))\" "
                + "height=\"\(SVG.f(rowHeight))\" fill=\"#f5f5f5\"/>\n"
        }
        for tick in ticks(low: exp(low), high: exp(high), position: x) {
            let px = x(tick)
            svg += SVG.line(
                px, top - 4, px, plotBottom, stroke: tick == 1 ? "#222" : "#ddd", width: tick == 1 ? 1.4 : 1)
            svg += SVG.text(x: px, y: plotBottom + 16, tickLabel(tick), size: 11, anchor: "middle", fill: "#333")
        }
        for bound in [1 + threshold, 1 - threshold] where bound > 0 {
            svg += SVG.line(x(bound), top - 4, x(bound), plotBottom, stroke: "#e09000", width: 1, dash: "5,4")
        }
        svg += SVG.text(
            x: left + plotWidth / 2, y: plotBottom + 34,
            Markup.escape("ratio \(ratioName) of \(report.metric) (log scale)"), size: 12, anchor: "middle")

        // One row per benchmark.
        for (index, c) in rows.enumerated() {
            let center = top + (Double(index) + 0.5) * rowHeight
            let color = colors[c.verdict] ?? "#607d8b"
            svg += SVG.text(
                x: left - 8, y: center + 4, Markup.escape(labels[index]), size: 12, anchor: "end",
                family: "DejaVu Sans Mono, Menlo, monospace")
            guard c.base.median > 0 else {
                svg += SVG.text(x: left + 6, y: center + 4, "base median is 0: no ratio", size: 11, fill: "#999")
                continue
            }
            let b = c.base.median
            svg +=
                "<rect x=\"\(SVG.f(x(c.base.minimum / b)))\" y=\"\(SVG.f(center + 4))\" "
                + "width=\"\(SVG.f(max(x(c.base.maximum / b) - x(c.base.minimum / b), 1)))\" height=\"4\" fill=\"#9e9e9e\"/>\n"
            svg += SVG.line(
                x(c.new.minimum / b), center - 2, x(c.new.maximum / b), center - 2, stroke: color, width: 1.5)
            svg +=
                "<rect x=\"\(SVG.f(x(c.new.lowerQuartile / b)))\" y=\"\(SVG.f(center - 7))\" "
                + "width=\"\(SVG.f(max(x(c.new.upperQuartile / b) - x(c.new.lowerQuartile / b), 1.5)))\" height=\"10\" "
                + "fill=\"\(color)\" fill-opacity=\"0.25\" stroke=\"\(color)\"/>\n"
            if let ratio = c.ratio {
                let fill = c.thresholdOnly ? "white" : color
                svg +=
                    "<circle cx=\"\(SVG.f(x(ratio)))\" cy=\"\(SVG.f(center - 2))\" r=\"4.5\" fill=\"\(fill)\" "
                    + "stroke=\"\(color)\" stroke-width=\"2\"/>\n"
            }
            var note = c.change.map { NumberText.signedPercent($0) } ?? "n/a"
            if let test = c.test { note += "  p=" + ComparisonRenderer.pValue(test.pValue) }
            note += "  " + c.verdict.rawValue + (c.thresholdOnly ? " *" : "")
            svg += SVG.text(x: right + 10, y: center + 4, Markup.escape(note), size: 11, fill: color)
        }

        // The geometric mean row.
        let meanCenter = top + (Double(rows.count) + 0.5) * rowHeight
        svg += SVG.text(x: left - 8, y: meanCenter + 4, "geometric mean", size: 12, anchor: "end", weight: "bold")
        if let mean = report.geometricMean {
            let px = x(mean)
            let py = meanCenter - 2
            svg +=
                "<path d=\"M \(SVG.f(px)) \(SVG.f(py - 7)) L \(SVG.f(px + 7)) \(SVG.f(py)) L \(SVG.f(px)) \(SVG.f(py + 7)) "
                + "L \(SVG.f(px - 7)) \(SVG.f(py)) Z\" fill=\"#37474f\"/>\n"
            svg += SVG.text(
                x: right + 10, y: meanCenter + 4,
                String(format: "%.4f", mean) + " (" + NumberText.signedPercent(mean - 1) + ")",
                size: 11, weight: "bold")
        }

        // Legend.
        let legendY = plotBottom + axisGap + 30
        var legendX = 12.0
        for (verdict, label) in [
            (Verdict.slower, "slower"), (.faster, "faster"), (.noSignificantChange, "no significant change"),
        ] {
            let color = colors[verdict] ?? "#000"
            svg += "<circle cx=\"\(SVG.f(legendX + 5))\" cy=\"\(SVG.f(legendY - 4))\" r=\"4.5\" fill=\"\(color)\"/>\n"
            svg += SVG.text(x: legendX + 14, y: legendY, label, size: 11)
            legendX += 28 + Double(label.count) * 6.5
        }
        svg +=
            "<circle cx=\"\(SVG.f(legendX + 5))\" cy=\"\(SVG.f(legendY - 4))\" r=\"4.5\" fill=\"white\" stroke=\"#607d8b\" stroke-width=\"2\"/>\n"
        svg += SVG.text(x: legendX + 14, y: legendY, "* threshold only (too few repetitions)", size: 11)
        legendX += 250
        svg +=
            "<rect x=\"\(SVG.f(legendX))\" y=\"\(SVG.f(legendY - 6))\" width=\"22\" height=\"4\" fill=\"#9e9e9e\"/>\n"
        svg += SVG.text(x: legendX + 28, y: legendY, Markup.escape("\(baseName) spread"), size: 11)
        return svg + "</svg>\n"
    }

    /// Writes the chart to `path`.
    /// - Throws: `InputError.Kind.unwritableOutput` if the file cannot be written.
    static func write(_ report: ComparisonReport, to path: String) throws {
        do {
            try svg(report).write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw InputError(
                .unwritableOutput, file: path, field: "--plot",
                detail: "cannot write the SVG: \(error.localizedDescription)")
        }
    }

    /// Readable tick positions within [low, high] (ratios such as 0.5, 0.9, 1, 1.1, 1.5, 2), at
    /// least 44 pixels apart, always including 1 and chosen outwards from it.
    static func ticks(low: Double, high: Double, position: (Double) -> Double) -> [Double] {
        let candidates: [Double] = [
            0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 0.67, 0.75, 0.8, 0.9, 0.95, 1,
            1.05, 1.1, 1.25, 1.5, 2, 3, 4, 5, 10, 20, 50, 100,
        ]
        let inside = candidates.filter { $0 >= low && $0 <= high }
        let spacing = 44.0
        var kept: [Double] = [1]
        var last = 1.0
        for tick in inside where tick > 1 && position(tick) - position(last) >= spacing {
            kept.append(tick)
            last = tick
        }
        last = 1
        for tick in inside.reversed() where tick < 1 && position(last) - position(tick) >= spacing {
            kept.append(tick)
            last = tick
        }
        return kept.filter { $0 >= low && $0 <= high }.sorted()
    }

    /// `1`, `1.5`, `0.67`.
    static func tickLabel(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) + "×" : String(format: "%g", value) + "×"
    }

    /// The row labels: the names without the run-type segments Google Benchmark appends (`/manual_time`,
    /// `/real_time`, `/iterations:N`: the same on every row of a family) when the labels stay distinct, and a name
    /// still longer than `limit` characters shortened in the middle. A whole coalescing name of this suite
    /// (`BM_TimerCoalescing/engine:libevent/timers:10000/tolerance:10pct/burn:yes`, 71 characters) fits.
    static func rowLabels(_ names: [String], limit: Int) -> [String] {
        let stripped = names.map(BenchmarkName.withoutRunTypeSegments)
        let labels = Set(stripped).count == names.count ? stripped : names
        return labels.map { shorten($0, to: limit) }
    }

    /// Shortens long names in the middle with an ellipsis.
    static func shorten(_ name: String, to limit: Int) -> String {
        guard name.count > limit else { return name }
        let head = name.prefix(limit / 2 - 1)
        let tail = name.suffix(limit / 2 - 1)
        return head + "…" + tail
    }
}
