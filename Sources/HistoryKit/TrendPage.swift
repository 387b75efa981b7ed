// The trend page: per machine and profile, per benchmark, one SVG chart per engine side by side (the medians across
// runs in date order with their interquartile band, a mark where the commit changed, the change points), in the
// suite's page frame: no script, nothing from the network.
import Foundation
import MarkupKit

/// Renders trend series as one self-contained HTML page.
public enum TrendPage {
    /// The page for `series` of `metric`; `title` names what was asked for.
    public static func html(_ series: [TrendSeries], metric: String, pattern: String, generated: String) -> String {
        let step: String = HistoryText.minimumStep
        var body: String =
            "<p class=\"note\">Medians of <code>\(Markup.escape(metric))</code> per run, oldest run on the "
            + "left; the band is the repetitions' interquartile range. A dotted vertical line marks a run at a new "
            + "commit; a red line and label mark a change point (E-divisive means with a permutation test, "
            + "Matteson and James 2014; p &lt;= 0.05; for exact counts, such as instructions, a step of "
        body +=
            step + " % or more between two commits). Runs of different machines, CPUs or profiles are never "
            + "mixed in one chart. \(series.count) series.</p>\n"
        if series.isEmpty { body += "<p>No series matched.</p>\n" }
        body += charts(series, metric: metric, headingLevel: 2)
        body +=
            "<footer>runloop history trend \(Markup.escape(pattern)) --metric \(Markup.escape(metric)); "
            + "\(Markup.escape(generated))</footer>\n"
        return HTMLPage(
            title: "Benchmark history: \(metric)", subtitle: "benchmarks matching \(pattern)",
            body: body
        ).render()
    }

    /// The charts of `series` without the page around them (a site puts several metrics on one page): a heading
    /// per machine and profile (`<h\(headingLevel)>`), one per benchmark below it, the engines side by side, and
    /// each change point in words.
    public static func charts(_ series: [TrendSeries], metric: String, headingLevel: Int) -> String {
        let (outer, inner) = ("h\(headingLevel)", "h\(headingLevel + 1)")
        var body = ""
        var groups: [(String, [TrendSeries])] = []
        for s in series {
            let name = "\(s.machine), profile \(s.profile)"
            if let index = groups.firstIndex(where: { $0.0 == name }) {
                groups[index].1.append(s)
            } else {
                groups.append((name, [s]))
            }
        }
        // One colour per engine across the page.
        var engines: [String] = []
        for s in series where !engines.contains(s.engine ?? "") { engines.append(s.engine ?? "") }
        engines.sort()
        for (name, members) in groups {
            body += "<\(outer)>\(Markup.escape(name))</\(outer)>\n"
            var keys: [String] = []
            for s in members where !keys.contains(s.key) { keys.append(s.key) }
            for key in keys {
                let row = members.filter { $0.key == key }
                body += "<\(inner)><code>\(Markup.escape(key))</code></\(inner)>\n"
                // Engines side by side on one run axis: the runs that measured any of them.
                var runIDs: [Int64] = []
                var runs: [HistoryRun] = []
                for point in row.flatMap(\.points).sorted(by: { ($0.run.date, $0.run.id) < ($1.run.date, $1.run.id) })
                where !runIDs.contains(point.run.id) {
                    runIDs.append(point.run.id)
                    runs.append(point.run)
                }
                body += "<div class=\"charts\">\n"
                for s in row {
                    body += chart(
                        s, runs: runs, metric: metric,
                        color: Charts.color(engines.firstIndex(of: s.engine ?? "") ?? 0))
                }
                body += "</div>\n"
                for s in row {
                    guard let disagreement = s.disagreement else { continue }
                    body +=
                        "<p class=\"note\"><b>\(Markup.escape(s.engine ?? s.benchmark))</b>: "
                        + Markup.escape(HistoryText.disagreementNote(disagreement, in: s)) + "</p>\n"
                }
                for s in row where !s.changePoints.isEmpty {
                    body +=
                        "<p class=\"note\">"
                        + s.changePoints.map {
                            "<b>\(Markup.escape(s.engine ?? s.benchmark))</b>: "
                                + Markup.escape(HistoryText.changePoint($0, in: s, metric: metric))
                        }.joined(separator: "<br/>") + "</p>\n"
                }
            }
        }
        return body
    }

    /// One engine's chart: x is the run's position on the shared run axis.
    static func chart(_ s: TrendSeries, runs: [HistoryRun], metric: String, color: String) -> String {
        let width = 368.0
        let height = 262.0
        let left = 66.0
        let right = width - 14
        let top = 44.0
        let bottom = height - 62
        let position = Dictionary(uniqueKeysWithValues: runs.enumerated().map { ($1.id, $0) })
        let values = s.points.flatMap { [$0.q1, $0.q3, $0.median] }
        let isTime = metric == "real_time" || metric.hasSuffix("_ns")
        // Exact counts from zero: a flat series is then drawn flat, and a step at its true size.
        let yAxis = ChartAxis(values, logarithmic: false, includeZero: s.exact)
        let count = max(runs.count - 1, 1)
        func px(_ index: Int) -> Double {
            runs.count == 1 ? (left + right) / 2 : left + Double(index) / Double(count) * (right - left)
        }
        func py(_ y: Double) -> Double { bottom - yAxis.fraction(y) * (bottom - top) }
        func label(_ value: Double) -> String { isTime ? AxisStyle.time.label(value) : AxisStyle.plain.label(value) }
        var svg = SVG.open(width: width, height: height)
        svg += SVG.text(
            x: 10, y: 18, Markup.escape(s.engine.map { "engine \($0)" } ?? s.benchmark), size: 13,
            weight: "bold")
        svg += SVG.text(
            x: 10, y: 34,
            Markup.escape(
                "\(s.points.count) run\(s.points.count == 1 ? "" : "s"), \(metric)"
                    + (s.exact ? " (exact)" : "")), size: 11, fill: "#555")
        for tick in yAxis.ticks where tick >= yAxis.low && tick <= yAxis.high {
            svg += SVG.line(left, py(tick), right, py(tick), stroke: "#e4e4e4")
            svg += SVG.text(
                x: left - 6, y: py(tick) + 4, Markup.escape(label(tick)), size: 10, anchor: "end",
                fill: "#444")
        }
        // Commit changes: a dotted line before the first run of each new commit, labelled with the commit.
        var lastCommit: String?
        var lastLabelX = -Double.infinity
        for (index, run) in runs.enumerated() {
            defer { lastCommit = run.commit }
            guard run.commit != lastCommit else { continue }
            let x = px(index)
            if index > 0 { svg += SVG.line(x, top, x, bottom, stroke: "#b0b0b0", dash: "2,3") }
            if x - lastLabelX >= 16 {
                svg +=
                    "<text x=\"\(SVG.f(x))\" y=\"\(SVG.f(bottom + 12))\" font-size=\"9\" fill=\"#555\" "
                    + "text-anchor=\"end\" font-family=\"DejaVu Sans Mono, monospace\" transform=\"rotate(-40 "
                    + "\(SVG.f(x)) \(SVG.f(bottom + 12)))\">\(Markup.escape(run.shortCommit))</text>\n"
                lastLabelX = x
            }
        }
        svg +=
            "<rect x=\"\(SVG.f(left))\" y=\"\(SVG.f(top))\" width=\"\(SVG.f(right - left))\" "
            + "height=\"\(SVG.f(bottom - top))\" fill=\"none\" stroke=\"#999\"/>\n"
        let points = s.points.compactMap { point in position[point.run.id].map { (index: $0, point: point) } }
        // The interquartile band.
        if points.count > 1 {
            let upper = points.map { "\(SVG.f(px($0.index))),\(SVG.f(py($0.point.q3)))" }
            let lower = points.reversed().map { "\(SVG.f(px($0.index))),\(SVG.f(py($0.point.q1)))" }
            svg +=
                "<polygon points=\"\((upper + lower).joined(separator: " "))\" fill=\"\(color)\" "
                + "fill-opacity=\"0.18\" stroke=\"none\"/>\n"
            svg +=
                "<polyline points=\"\(points.map { "\(SVG.f(px($0.index))),\(SVG.f(py($0.point.median)))" }.joined(separator: " "))\" "
                + "fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.8\"/>\n"
        }
        let radius = points.count > 200 ? 1.2 : points.count > 50 ? 2 : 3.2
        for (index, point) in points {
            let tip =
                "\(point.run.date) \(point.run.shortCommit): median \(label(point.median)), IQR "
                + "\(label(point.q1)) - \(label(point.q3)), n = \(point.count)"
            svg +=
                "<circle cx=\"\(SVG.f(px(index)))\" cy=\"\(SVG.f(py(point.median)))\" r=\"\(radius)\" "
                + "fill=\"\(color)\"><title>\(Markup.escape(tip))</title></circle>\n"
        }
        // Change points: a red line before the first run of the new level, labelled with the step.
        for change in s.changePoints where change.index < s.points.count {
            guard let index = position[s.points[change.index].run.id] else { continue }
            let x = (px(index) + px(max(index - 1, 0))) / 2
            svg += SVG.line(x, top - 4, x, bottom, stroke: "#c62828", width: 1.6)
            svg += SVG.text(
                x: min(x + 3, right - 60), y: top + 10, Markup.escape(HistoryText.percent(change.change)),
                size: 10, weight: "bold", fill: "#c62828")
        }
        svg += SVG.text(
            x: (left + right) / 2, y: height - 4, "runs, oldest first (commit at each change)",
            size: 10, anchor: "middle", fill: "#444")
        return svg + "</svg>\n"
    }
}
