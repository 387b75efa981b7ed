// The benchmark report as one self-contained HTML page: the run's context, a section per family with the charts a
// performance engineer reads it by (those the targets file's `page` section defines for the family) and its summary
// tables, the targets met and missed, and the findings.
import Foundation
import MarkupKit
import ResultsKit

/// Renders a `BenchReport` as HTML (well-formed XHTML: inline CSS and SVG, no script, nothing from the network).
enum BenchPage {
    /// The page. `navigation` goes above the heading (a site's bar of links); `footer` replaces the line saying
    /// which command made the page; `appendix` (markup) goes after the families.
    static func html(
        _ report: BenchReport, navigation: String = "", footer: String? = nil,
        appendix: String = ""
    ) -> String {
        let file = report.index.file
        var body = glance(report)
        body += "<h2 id=\"context\">Machine and run</h2>\n" + context(file)
        if !report.errors.isEmpty || !report.findings.isEmpty {
            body += "<h2 id=\"findings\">Errors and findings</h2>\n<ul>\n"
            for line in ErroredRow.lines(report.errors) {
                body += "<li><span class=\"missed\">ERROR</span> <code>\(Markup.escape(line))</code></li>\n"
            }
            for finding in report.findings {
                body +=
                    "<li><span class=\"xfail\">FINDING</span> \(Markup.escape(BenchReport.describe(finding))) "
                    + "(an engine firing timers before their date: counted, not an error)</li>\n"
            }
            body += "</ul>\n"
        }
        body += "<h2 id=\"targets\">Targets</h2>\n" + targets(report)
        let engines = report.index.engines
        let costs = CostReport(report.index)
        body +=
            "<h2 id=\"families\">Families</h2>\n<p class=\"note\">Engines: </p>"
            + Charts.legend(engines.enumerated().map { ($1, Charts.color($0), false) }) + "\n"
        for family in report.index.families {
            body += "<h3 id=\"\(Markup.escape(family))\">\(Markup.escape(family))</h3>\n"
            let page = report.pages.first { $0.family == family }
            if let note = page?.note { body += "<p class=\"note\">\(Markup.escape(note))</p>\n" }
            // A chart of several panels gets rows of its own; single charts share a row.
            var shared = ""
            for chart in page?.charts ?? [] {
                let (drawn, panels) = draw(chart, family: family, report: report)
                if panels > 1 {
                    if !shared.isEmpty { body += "<div class=\"charts\">\n" + shared + "</div>\n" }
                    shared = ""
                    body += "<div class=\"charts\">\n" + drawn + "</div>\n"
                } else {
                    shared += drawn
                }
            }
            if !shared.isEmpty { body += "<div class=\"charts\">\n" + shared + "</div>\n" }
            body += modes(page?.modes ?? [], family, report)
            body += costs.html(family: family, smoke: report.isSmoke)
            let tables = report.tables.filter { $0.table.selection.family == family }
            for table in tables { body += htmlTable(table, smoke: report.isSmoke) }
            if tables.isEmpty && family != CostReport.limitsFamily { body += medianTable(family, report) }
        }
        for table in report.tables where table.rows.isEmpty {
            body +=
                "<p class=\"none\">\(Markup.escape(table.table.title)): not measured (no rows of "
                + "\(Markup.escape(table.table.selection.description)))</p>\n"
        }
        body += appendix
        body +=
            "<footer>" + (footer ?? "Made by <code>runloop report \(Markup.escape(file.path)) --html</code>")
            + " from \(Markup.escape(report.targetsPath)). Medians over repetitions unless a target says otherwise; "
            + "hover a point for its value.</footer>\n"
        let label = file.contextValue("label") ?? (file.path as NSString).lastPathComponent
        let date = file.contextValue("date").map { ", \($0)" } ?? ""
        return HTMLPage(
            title: "Benchmark report: \(label)\(date)", subtitle: file.path, body: body,
            navigation: navigation
        ).render()
    }

    // MARK: - Sections

    static func glance(_ report: BenchReport) -> String {
        let counts = report.targetCounts
        var items: [String] = []
        if report.isSmoke {
            items.append("<span class=\"none\">smoke run: figures meaningless, targets not evaluated</span>")
        } else {
            items.append(
                "<a href=\"#targets\">targets</a>: <span class=\"met\">\(counts[.met] ?? 0) met</span>, "
                    + "<span class=\"missed\">\(counts[.missed] ?? 0) missed</span>, "
                    + "<span class=\"none\">\(counts[.notMeasured] ?? 0) not measured</span>"
                    + (counts[.reported].map { ", <span class=\"none\">\($0) reported, not judged</span>" } ?? "")
                    + (report.isQuick ? " (a quick run: judged only against quick bounds)" : ""))
        }
        items.append(
            "\(report.repetitionRows) repetition rows, \(report.aggregateRows) aggregate rows, "
                + "\(report.skippedRows) skipped, "
                + (report.errors.isEmpty ? "0 errors" : "<span class=\"missed\">\(report.errors.count) errors</span>"))
        if !report.findings.isEmpty { items.append("<a href=\"#findings\">\(report.findings.count) findings</a>") }
        items.append(
            "families: "
                + report.index.families.map {
                    "<a href=\"#\(Markup.escape($0))\">\(Markup.escape($0))</a>"
                }.joined(separator: ", "))
        return "<p>" + items.joined(separator: " · ") + "</p>\n"
    }

    /// The context lines shown open: what the run was and where; the others (versions, engines, CPU placement,
    /// load) open on a click.
    static let leadingContext: Set<String> = [
        "label", "date", "profile", "cpu_model", "cpus", "kernel", "commit",
        "duration_s",
    ]

    static func context(_ file: ResultsFile) -> String {
        func row(_ entry: ContextEntry) -> String {
            "<tr><td>\(Markup.escape(entry.key))</td><td>\(Markup.escape(entry.value))</td></tr>\n"
        }
        let entries = file.context.filter { $0.key != "gb" }
        let machine = file.context.filter { $0.key == "gb" }.map(\.value)
        let rest = entries.filter { !leadingContext.contains($0.key) }
        var out =
            "<table class=\"context\">\n" + entries.filter { leadingContext.contains($0.key) }.map(row).joined()
            + "</table>\n"
        if !rest.isEmpty {
            out +=
                "<details><summary>The rest of the run\u{2019}s context: versions, engines, CPUs, load "
                + "(\(rest.count) lines)</summary>\n<table class=\"context\">\n" + rest.map(row).joined()
                + "</table></details>\n"
        }
        if !machine.isEmpty {
            out +=
                "<details><summary>Google Benchmark's own context (\(machine.count) lines)</summary>\n<pre>"
                + Markup.escape(machine.joined(separator: "\n")) + "</pre></details>\n"
        }
        return out
    }

    /// The colour of the machine's limits in a chart: grey, apart from every engine's.
    static let limitColor = "#8a8a8a"

    /// The SVG of one chart, and how many panels it has (0 when there is nothing to draw).
    static func draw(_ chart: ChartDefinition, family: String, report: BenchReport) -> (String, Int) {
        let index = report.index
        let benchmarks = index.benchmarks.filter { $0.family == family && $0.skipped == nil }
        let colorOf = Dictionary(uniqueKeysWithValues: index.engines.enumerated().map { ($1, Charts.color($0)) })
        switch chart {
        case .dots(let chart):
            guard benchmarks.contains(where: { $0.value(chart.center) != nil }) else { return ("", 0) }
            let groups = BenchIndex.orderedVariants(benchmarks).map {
                variant -> (label: String, rows: [Charts.DotRow]) in
                let rows = index.engines.compactMap { engine -> Charts.DotRow? in
                    guard let benchmark = benchmarks.first(where: { $0.variant == variant && $0.engine == engine })
                    else { return nil }
                    let middle = benchmark.value(chart.center)
                    let end = benchmark.value(chart.tail, chart.tailStatistic)
                    return Charts.DotRow(
                        label: engine, color: colorOf[engine] ?? "#333", center: middle, tail: end,
                        note: middle == nil && end == nil ? "no value" : nil)
                }
                // The machine's limits of the variant's pinning, below the engines: what no loop can beat.
                let pin = benchmarks.first { $0.variant == variant }?.parameter("pin")
                let limits =
                    !chart.withLimits || pin == nil
                    ? []
                    : index.benchmarks.filter { limit in
                        limit.family == CostReport.limitsFamily && limit.parameter("pin") == pin && limit.skipped == nil
                    }.compactMap { limit -> Charts.DotRow? in
                        let middle = limit.value(chart.center)
                        let end = limit.value(chart.tail, chart.tailStatistic)
                        guard middle != nil || end != nil else { return nil }
                        return Charts.DotRow(
                            label: "limit: " + (limit.parameter("handoff") ?? limit.variant),
                            color: BenchPage.limitColor, center: middle, tail: end, note: nil)
                    }
                return (variant.isEmpty ? family : variant, rows + limits)
            }
            // A target on this figure with an absolute time bound is drawn as a line (the lag monitor's 80 ms).
            let bound = report.targets.first { result in
                result.target.selection.family == family && result.target.comparison == .absolute
                    && result.target.metric == chart.center && result.target.metric.isTime
            }.map { ($0.target.bound.value, "target \($0.target.bound.text)") }
            return (
                Charts.dotPlot(
                    title: chart.title, centerName: chart.centerName, tailName: chart.tailName,
                    groups: groups, xLabel: chart.axis, reference: bound), 1
            )
        case .lines(let chart):
            let x = chart.x
            let metric = chart.y
            let withX = benchmarks.filter { $0.parameter(x).flatMap(Double.init) != nil && $0.value(metric) != nil }
            guard !withX.isEmpty else { return ("", 0) }
            // Panels: the parameters other than x.
            func panelKey(_ benchmark: IndexedBenchmark) -> String {
                benchmark.parameters.filter { $0.key != x }.map { "\($0.key):\($0.value)" }.joined(separator: "/")
            }
            var panels: [String] = []
            for key in BenchIndex.orderedVariants(withX).compactMap({ variant in
                withX.first { $0.variant == variant }.map(panelKey)
            }) where !panels.contains(key) { panels.append(key) }
            var out = ""
            for panel in panels {
                let members = withX.filter { panelKey($0) == panel }
                var series = index.engines.compactMap { engine -> ChartSeries? in
                    let points = members.filter { $0.engine == engine }.compactMap {
                        benchmark -> (x: Double, y: Double)? in
                        guard let xValue = benchmark.parameter(x).flatMap(Double.init),
                            let yValue = benchmark.value(metric)
                        else { return nil }
                        return (xValue, yValue)
                    }
                    return points.isEmpty
                        ? nil : ChartSeries(name: engine, color: colorOf[engine] ?? "#333", points: points)
                }
                if let optimumMetric = chart.optimum {
                    let subject = report.targets.first?.target.engine ?? index.engines.first ?? ""
                    let points = members.filter { $0.engine == subject }.compactMap {
                        benchmark -> (x: Double, y: Double)? in
                        guard let xValue = benchmark.parameter(x).flatMap(Double.init),
                            let yValue = benchmark.value(optimumMetric)
                        else { return nil }
                        return (xValue, yValue)
                    }
                    if !points.isEmpty {
                        series.append(ChartSeries(name: "optimum", color: "#000000", points: points, dashed: true))
                    }
                }
                out += Charts.lineChart(
                    title: chart.title, subtitle: panel, xLabel: x, yLabel: chart.axis,
                    series: series, xStyle: .plain, yStyle: metric.isTime ? .time : .plain,
                    logX: true, logY: chart.logY)
            }
            return (out, panels.count)
        }
    }

    static func htmlTable(_ table: TableResult, smoke: Bool) -> String {
        guard !table.rows.isEmpty else { return "" }
        var out =
            "<table>\n<caption class=\"note\">\(Markup.escape(table.table.title)) "
            + "(\(smoke ? "one run each" : "median over repetitions"))</caption>\n<tr><th>variant</th>"
            + table.engines.map { "<th class=\"num\">\(Markup.escape($0))</th>" }.joined() + "</tr>\n"
        for row in table.rows {
            out +=
                "<tr><td class=\"mono\">\(Markup.escape(row.variant))</td>"
                + row.cells.map {
                    "<td class=\"num\">\(Markup.escape(BenchReport.cellText($0, table.table.metrics)))</td>"
                }
                .joined() + "</tr>\n"
        }
        return out + "</table>\n"
    }

    /// A family without a table in the targets file: its real_time medians.
    static func medianTable(_ family: String, _ report: BenchReport) -> String {
        let table = BenchReport.fill(
            SummaryTable(
                title: "\(family), real_time", selection: BenchmarkSelection(family: family),
                metrics: [MetricExpression("real_time")!], line: 0), report.index)
        return htmlTable(table, smoke: report.isSmoke)
    }

    static func targets(_ report: BenchReport) -> String {
        if report.isSmoke { return "<p class=\"none\">Not evaluated: a smoke run's figures are meaningless.</p>\n" }
        guard !report.targets.isEmpty else { return "<p class=\"none\">The targets file has no targets.</p>\n" }
        var out =
            "<p class=\"note\">" + Markup.escape(report.targetsLine()) + ". A target is met only when every "
            + "variant it names was measured: a variant the subject failed or lacks is missed; a figure that is absent "
            + "(a counter this file does not have, a peer engine absent or failed) or degenerate (0, not finite) is not "
            + "measured."
            + (report.isQuick
                ? " A quick run is judged only against a target's quick bound; the others "
                    + "are reported, not judged." : "") + "</p>\n"
        out +=
            "<table>\n<tr><th>status</th><th>target</th><th>what</th><th>figure</th><th class=\"num\">value</th>"
            + "<th>bound</th><th>figures</th></tr>\n"
        func statusCell(_ status: TargetStatus) -> String {
            let style = status == .met ? "met" : status == .missed ? "missed" : "none"
            return "<td class=\"\(style) nowrap\">\(Markup.escape(BenchReport.statusWord(status)))</td>"
        }
        for result in report.targets {
            let target = result.target
            let origin = target.why.map { " <span class=\"none\">(\(Markup.escape($0)))</span>" } ?? ""
            let figure = "<td class=\"note\">\(Markup.escape(BenchReport.figureText(target)))</td>"
            let bound = "<td class=\"mono nowrap\">\(Markup.escape(BenchReport.boundText(result)))</td>"
            if result.outcomes.count == 1, let only = result.outcomes.first {
                out +=
                    "<tr>" + statusCell(result.status) + "<td class=\"mono\">\(Markup.escape(target.id))</td>"
                    + "<td>\(Markup.escape(target.description))\(origin)</td>" + figure
                    + "<td class=\"num\">\(Markup.escape(BenchReport.valueText(only, target)))</td>" + bound
                    + "<td>\(Markup.escape(BenchReport.explanation(only, target)))</td></tr>\n"
                continue
            }
            out +=
                "<tr>" + statusCell(result.status) + "<td class=\"mono\">\(Markup.escape(target.id))</td>"
                + "<td>\(Markup.escape(target.description))\(origin)</td>" + figure + "<td></td>" + bound
                + "<td>\(result.outcomes.count) variants:</td></tr>\n"
            for outcome in result.outcomes {
                out +=
                    "<tr>" + statusCell(outcome.status) + "<td></td>"
                    + "<td class=\"mono\">\(Markup.escape(outcome.variant))</td><td></td>"
                    + "<td class=\"num\">\(Markup.escape(BenchReport.valueText(outcome, target)))</td><td></td>"
                    + "<td>\(Markup.escape(BenchReport.explanation(outcome, target)))</td></tr>\n"
            }
        }
        return out + "</table>\n"
    }

    /// The modes of a latency distribution the harness reports (the family's `modes` in the targets file's `page`
    /// section; Benchmarks/README.md defines the columns): per variant and engine, each mode's share of the round
    /// trips and its median, medians over repetitions. Empty when the family has no such figures.
    static func modes(_ modes: [LatencyMode], _ family: String, _ report: BenchReport) -> String {
        let index = report.index
        let columns = modes.map { ($0.name, $0.share, $0.median) }
        let benchmarks = index.benchmarks.filter { $0.family == family }
        guard let first = columns.first, benchmarks.contains(where: { $0.value(first.1) != nil }) else { return "" }
        let engines = index.engines.filter { engine in benchmarks.contains { $0.engine == engine } }
        var out =
            "<table>\n<caption class=\"note\">the round trips' modes: each mode's share of the round trips and its "
            + "median (medians over repetitions; a distribution with one mode shows one)</caption>\n"
            + "<tr><th>variant</th>" + engines.map { "<th class=\"num\">\(Markup.escape($0))</th>" }.joined()
            + "</tr>\n"
        for variant in BenchIndex.orderedVariants(benchmarks) {
            out += "<tr><td class=\"mono\">\(Markup.escape(variant))</td>"
            for engine in engines {
                guard let benchmark = benchmarks.first(where: { $0.variant == variant && $0.engine == engine }) else {
                    out += "<td class=\"num\">-</td>"
                    continue
                }
                if benchmark.skipped != nil || benchmark.isErrored {
                    out += "<td class=\"num\">\(benchmark.skipped != nil ? "skip" : "error")</td>"
                    continue
                }
                let found = columns.compactMap { name, shareMetric, medianMetric -> (String, Double, Double)? in
                    guard let share = benchmark.value(shareMetric), share > 0,
                        let median = benchmark.value(medianMetric), median > 0
                    else { return nil }
                    return (name, share, median)
                }
                let parts =
                    found.count == 1 && found[0].1 >= 0.995
                    ? ["one mode at " + NumberText.duration(found[0].2)]
                    : found.map {
                        "\($0.0) " + String(format: "%.0f %%", $0.1 * 100) + " at "
                            + NumberText.duration($0.2)
                    }
                out += "<td class=\"num\">\(parts.isEmpty ? "-" : Markup.escape(parts.joined(separator: "; ")))</td>"
            }
            out += "</tr>\n"
        }
        return out + "</table>\n"
    }
}
