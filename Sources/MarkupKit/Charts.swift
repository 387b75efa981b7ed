// Charts as inline SVG: a line chart (a quantity against a parameter, one line per series, log or linear axes) and a
// dot plot (a centre and a tail per row, rows grouped, on a log axis of times), their axes and a legend. Every point
// carries a <title>, so a browser shows its value on hover without any script.
import Foundation

/// One line of a line chart.
public struct ChartSeries {
    public var name: String
    public var color: String
    public var points: [(x: Double, y: Double)]
    /// A dashed line without markers (a bound or an optimum rather than a measurement).
    public var dashed = false

    /// Creates a series.
    public init(name: String, color: String, points: [(x: Double, y: Double)], dashed: Bool = false) {
        self.name = name
        self.color = color
        self.points = points
        self.dashed = dashed
    }
}

/// How an axis's numbers read.
public enum AxisStyle {
    /// Nanoseconds, labelled `100 ns`, `1 us`, `10 ms`.
    case time
    /// Plain numbers, labelled `0.01`, `100`, `10k`, `1M`.
    case plain

    public func label(_ value: Double) -> String {
        switch self {
        case .time:
            let units: [(Double, String)] = [(1e9, "s"), (1e6, "ms"), (1e3, "us"), (1, "ns")]
            let (scale, unit) = units.first { abs(value) >= $0.0 } ?? (1, "ns")
            return Charts.compact(value / scale) + " " + unit
        case .plain:
            if abs(value) >= 1e6 { return Charts.compact(value / 1e6) + "M" }
            if abs(value) >= 1e4 { return Charts.compact(value / 1e3) + "k" }
            return Charts.compact(value)
        }
    }
}

/// One axis: its domain, scale and ticks.
public struct ChartAxis {
    public let low: Double
    public let high: Double
    public let logarithmic: Bool
    public var ticks: [Double]

    /// An axis over `values` (positive ones only when logarithmic), padded a little.
    public init(_ values: [Double], logarithmic: Bool, includeZero: Bool = false) {
        self.logarithmic = logarithmic
        if logarithmic {
            let positive = values.filter { $0 > 0 && $0.isFinite }
            let minimum = positive.min() ?? 1
            let maximum = positive.max() ?? 10
            var low = minimum / 1.25
            var high = maximum * 1.25
            if high / low < 3 {
                low /= 1.6
                high *= 1.6
            }
            self.low = low
            self.high = high
            ticks = Charts.logTicks(low: low, high: high)
        } else {
            let finite = values.filter(\.isFinite)
            var minimum = finite.min() ?? 0
            var maximum = finite.max() ?? 1
            if includeZero { minimum = min(minimum, 0) }
            if maximum == minimum { maximum = minimum + 1 }
            let step = Charts.niceStep((maximum - minimum) / 5)
            low = (minimum / step).rounded(.down) * step
            high = (maximum / step).rounded(.up) * step
            ticks = stride(from: low, through: high + step / 2, by: step).map { $0 }
        }
    }

    /// The position of `value` in [0, 1].
    public func fraction(_ value: Double) -> Double {
        if logarithmic {
            return (log10(max(value, low)) - log10(low)) / (log10(high) - log10(low))
        }
        return (value - low) / (high - low)
    }
}

/// The SVG pieces.
public enum Charts {
    /// Colours for series, by their position in a list.
    static let palette = [
        "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#7f7f7f", "#e377c2", "#17becf",
        "#bcbd22", "#d62728",
    ]

    /// The colour of the series at `position`.
    public static func color(_ position: Int) -> String { palette[position % palette.count] }

    /// A line chart. Points with a non-positive coordinate on a log axis are left out.
    public static func lineChart(
        title: String, subtitle: String, xLabel: String, yLabel: String, series: [ChartSeries],
        xStyle: AxisStyle,
        yStyle: AxisStyle, logX: Bool = true, logY: Bool = true, width: Double = 374,
        height: Double = 280
    ) -> String {
        let plotted = series.map { line -> ChartSeries in
            var line = line
            line.points = line.points.filter { (!logX || $0.x > 0) && (!logY || $0.y > 0) && $0.y.isFinite }
            return line
        }
        var xAxis = ChartAxis(plotted.flatMap { $0.points.map(\.x) }, logarithmic: logX)
        // Few distinct x values (the parameter's values, 1, 8, 64, 512): ticks at exactly those.
        let distinct = Set(plotted.flatMap { $0.points.map(\.x) }).sorted()
        if distinct.count <= 8 { xAxis.ticks = distinct }
        let yAxis = ChartAxis(plotted.flatMap { $0.points.map(\.y) }, logarithmic: logY, includeZero: !logY)
        let left = 66.0
        let right = width - 14
        let top = subtitle.isEmpty ? 34.0 : 48.0
        let bottom = height - 44
        func px(_ x: Double) -> Double { left + xAxis.fraction(x) * (right - left) }
        func py(_ y: Double) -> Double { bottom - yAxis.fraction(y) * (bottom - top) }
        var svg = SVG.open(width: width, height: height)
        svg += SVG.text(x: 10, y: 20, Markup.escape(title), size: 13, weight: "bold")
        if !subtitle.isEmpty {
            svg += SVG.text(
                x: 10, y: 36, Markup.escape(subtitle), size: 11, fill: "#555",
                family: "DejaVu Sans Mono, monospace")
        }
        for tick in yAxis.ticks where tick >= yAxis.low && tick <= yAxis.high {
            svg += SVG.line(left, py(tick), right, py(tick), stroke: "#e4e4e4")
            svg += SVG.text(
                x: left - 6, y: py(tick) + 4, Markup.escape(yStyle.label(tick)), size: 10, anchor: "end",
                fill: "#444")
        }
        for tick in xAxis.ticks where tick >= xAxis.low && tick <= xAxis.high {
            svg += SVG.line(px(tick), top, px(tick), bottom, stroke: "#eeeeee")
            svg += SVG.text(
                x: px(tick), y: bottom + 15, Markup.escape(xStyle.label(tick)), size: 10, anchor: "middle",
                fill: "#444")
        }
        svg +=
            "<rect x=\"\(SVG.f(left))\" y=\"\(SVG.f(top))\" width=\"\(SVG.f(right - left))\" height=\"\(SVG.f(bottom - top))\" "
            + "fill=\"none\" stroke=\"#999\"/>\n"
        svg += SVG.text(
            x: (left + right) / 2, y: height - 10,
            Markup.escape(xLabel + (logX ? " (log)" : "")), size: 11, anchor: "middle")
        svg +=
            "<text x=\"14\" y=\"\(SVG.f((top + bottom) / 2))\" font-size=\"11\" text-anchor=\"middle\" "
            + "transform=\"rotate(-90 14 \(SVG.f((top + bottom) / 2)))\">\(Markup.escape(yLabel + (logY ? " (log)" : "")))</text>\n"
        if plotted.allSatisfy({ $0.points.isEmpty }) {
            svg += SVG.text(
                x: (left + right) / 2, y: (top + bottom) / 2, "no values", size: 12, anchor: "middle",
                fill: "#999")
        }
        for line in plotted where !line.points.isEmpty {
            let sorted = line.points.sorted { $0.x < $1.x }
            let path = sorted.map { "\(SVG.f(px($0.x))),\(SVG.f(py($0.y)))" }.joined(separator: " ")
            svg +=
                "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"\(line.dashed ? "1.5" : "2")\""
                + (line.dashed ? " stroke-dasharray=\"6,4\"" : "") + "/>\n"
            guard !line.dashed else { continue }
            for point in sorted {
                svg +=
                    "<circle cx=\"\(SVG.f(px(point.x)))\" cy=\"\(SVG.f(py(point.y)))\" r=\"3.2\" fill=\"\(line.color)\">"
                    + "<title>\(Markup.escape("\(line.name): \(xStyle.label(point.x)) → \(yStyle.label(point.y))"))</title></circle>\n"
            }
        }
        return svg + "</svg>\n"
    }

    /// One row of a dot plot: a centre (a median) and a tail (a p99, the worst) of one labelled row.
    public struct DotRow {
        public var label: String
        public var color: String
        public var center: Double?
        public var tail: Double?
        /// Shown instead of the values at the row's end (`no value`).
        public var note: String?

        /// Creates a row.
        public init(label: String, color: String, center: Double?, tail: Double?, note: String?) {
            self.label = label
            self.color = color
            self.center = center
            self.tail = tail
            self.note = note
        }
    }

    /// A dot plot: groups of rows, a filled dot at the median and a hollow one at the tail joined by a line, on a
    /// log axis of times; an optional vertical reference line (a threshold).
    public static func dotPlot(
        title: String, centerName: String, tailName: String, groups: [(label: String, rows: [DotRow])],
        xLabel: String, reference: (value: Double, label: String)? = nil, width: Double = 860
    ) -> String {
        let rowHeight = 17.0
        let groupGap = 10.0
        let top = 52.0
        let left = 260.0
        let right = width - 150
        let rowCount = Double(groups.reduce(0) { $0 + $1.rows.count })
        let height = top + rowCount * rowHeight + Double(groups.count) * groupGap + 44
        var values = groups.flatMap { $0.rows.flatMap { [$0.center, $0.tail].compactMap { $0 } } }
        if let reference { values.append(reference.value) }
        let axis = ChartAxis(values, logarithmic: true)
        func px(_ x: Double) -> Double { left + axis.fraction(x) * (right - left) }
        var svg = SVG.open(width: width, height: height)
        svg += SVG.text(x: 10, y: 20, Markup.escape(title), size: 13, weight: "bold")
        svg += "<circle cx=\"16\" cy=\"36\" r=\"4\" fill=\"#333\"/>"
        svg += SVG.text(x: 24, y: 40, Markup.escape(centerName), size: 11)
        svg +=
            "<circle cx=\"\(SVG.f(40 + Double(centerName.count) * 6.5))\" cy=\"36\" r=\"4\" fill=\"white\" stroke=\"#333\" stroke-width=\"1.5\"/>"
        svg += SVG.text(x: 48 + Double(centerName.count) * 6.5, y: 40, Markup.escape(tailName), size: 11)
        let plotBottom = height - 40
        for tick in axis.ticks where tick >= axis.low && tick <= axis.high {
            svg += SVG.line(px(tick), top - 6, px(tick), plotBottom, stroke: "#e4e4e4")
            svg += SVG.text(
                x: px(tick), y: plotBottom + 14, Markup.escape(AxisStyle.time.label(tick)), size: 10,
                anchor: "middle", fill: "#444")
        }
        svg += SVG.text(
            x: (left + right) / 2, y: height - 10, Markup.escape(xLabel + " (log)"), size: 11, anchor: "middle")
        if let reference {
            svg += SVG.line(
                px(reference.value), top - 6, px(reference.value), plotBottom, stroke: "#cf222e", dash: "5,4")
            svg += SVG.text(
                x: px(reference.value) + 4, y: top - 10, Markup.escape(reference.label), size: 10, fill: "#cf222e")
        }
        var y = top
        for (index, group) in groups.enumerated() {
            if index % 2 == 0 {
                svg +=
                    "<rect x=\"0\" y=\"\(SVG.f(y - 3))\" width=\"\(SVG.f(width))\" "
                    + "height=\"\(SVG.f(Double(group.rows.count) * rowHeight + 6))\" fill=\"#f6f8fa\"/>\n"
            }
            svg += SVG.text(
                x: 10, y: y + 12, Markup.escape(group.label), size: 11.5, weight: "bold",
                family: "DejaVu Sans Mono, monospace")
            for row in group.rows {
                let center = y + rowHeight / 2
                svg += SVG.text(x: left - 8, y: center + 4, Markup.escape(row.label), size: 11, anchor: "end")
                // Zero (nothing measured, nothing detected) has no place on a log axis: only its label shows it.
                let row = Charts.DotRow(
                    label: row.label, color: row.color, center: row.center.flatMap { $0 > 0 ? $0 : nil },
                    tail: row.tail.flatMap { $0 > 0 ? $0 : nil },
                    note: row.note
                        ?? ([row.center, row.tail].contains { $0 == 0 }
                            ? [row.center, row.tail].compactMap { $0.map { AxisStyle.time.label($0) } }
                                .joined(separator: " / ") : nil))
                if let low = row.center, let high = row.tail {
                    svg += SVG.line(px(min(low, high)), center, px(max(low, high)), center, stroke: row.color, width: 2)
                }
                if let tail = row.tail {
                    svg +=
                        "<circle cx=\"\(SVG.f(px(tail)))\" cy=\"\(SVG.f(center))\" r=\"4\" fill=\"white\" stroke=\"\(row.color)\" "
                        + "stroke-width=\"1.5\"><title>\(Markup.escape("\(row.label) \(tailName): \(AxisStyle.time.label(tail))"))</title></circle>\n"
                }
                if let value = row.center {
                    svg +=
                        "<circle cx=\"\(SVG.f(px(value)))\" cy=\"\(SVG.f(center))\" r=\"4.5\" fill=\"\(row.color)\">"
                        + "<title>\(Markup.escape("\(row.label) \(centerName): \(AxisStyle.time.label(value))"))</title></circle>\n"
                }
                let label = [row.center.map { AxisStyle.time.label($0) }, row.tail.map { AxisStyle.time.label($0) }]
                    .compactMap { $0 }.joined(separator: " / ")
                svg += SVG.text(
                    x: right + 10, y: center + 4, Markup.escape(row.note ?? label), size: 10.5,
                    fill: row.note == nil ? "#333" : "#8c959f")
                y += rowHeight
            }
            y += groupGap
        }
        return svg + "</svg>\n"
    }

    /// A legend: one swatch per series.
    public static func legend(_ entries: [(name: String, color: String, dashed: Bool)]) -> String {
        var x = 6.0
        var body = ""
        for entry in entries {
            body +=
                "<line x1=\"\(SVG.f(x))\" y1=\"12\" x2=\"\(SVG.f(x + 22))\" y2=\"12\" stroke=\"\(entry.color)\" stroke-width=\"2.5\""
                + (entry.dashed ? " stroke-dasharray=\"6,4\"" : "") + "/>"
            if !entry.dashed { body += "<circle cx=\"\(SVG.f(x + 11))\" cy=\"12\" r=\"3.2\" fill=\"\(entry.color)\"/>" }
            body += SVG.text(x: x + 28, y: 16, Markup.escape(entry.name), size: 12)
            x += 40 + Double(entry.name.count) * 7.2
        }
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(SVG.f(x))\" height=\"24\" class=\"legend\" "
            + "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\(body)</svg>\n"
    }

    // MARK: - Helpers

    /// Decades, and 2 and 5 times them when the axis spans fewer than three decades.
    static func logTicks(low: Double, high: Double) -> [Double] {
        let first = Int(floor(log10(low)))
        let last = Int(ceil(log10(high)))
        let multiples: [Double] = log10(high / low) < 2.5 ? [1, 2, 5] : [1]
        var ticks: [Double] = []
        for exponent in first...last {
            for multiple in multiples {
                let tick = multiple * pow(10, Double(exponent))
                if tick >= low, tick <= high { ticks.append(tick) }
            }
        }
        return ticks
    }

    /// 1, 2 or 5 times a power of ten, near `raw`.
    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let magnitude = pow(10, floor(log10(raw)))
        let fraction = raw / magnitude
        return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * magnitude
    }

    /// At most three significant digits, never an exponent: `0.001`, `2.5`, `120`, `1000`.
    static func compact(_ value: Double) -> String {
        if abs(value) >= 100 { return String(format: "%.0f", value) }
        return String(format: "%.3g", value)
    }
}
