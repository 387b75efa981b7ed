// index.html: what RunLoopSuite is, the newest conformance run's verdicts per engine and the newest benchmark run's
// targets at a glance, and the other pages. Every number comes from the inputs.
import ConformanceKit
import Foundation
import MarkupKit
import ReportKit

enum IndexPage {
    static func html(_ inputs: SiteInputs, bench: BenchSummary?) -> String {
        var body =
            "<p>RunLoopSuite is an executable specification of CoreFoundation\u{2019}s run loop (CFRunLoop): "
            + "cases observed on the real CoreFoundation, run against several engines, among them <code>ref</code>, "
            + "a run loop in Swift with the same semantics. Its benchmarks measure CoreFoundation, <code>ref</code> "
            + "and other event loops against targets, and keep every run for trends.</p>\n"
        body += conformance(inputs)
        body += benchmarks(inputs, bench: bench)
        body += "<h2 id=\"pages\">Pages</h2>\n<ul>\n"
        for page in SitePage.allCases where page != .index {
            body +=
                "<li><a href=\"\(page.fileName)\">\(Markup.escape(page.label))</a>: "
                + Markup.escape(page.summary) + "</li>\n"
        }
        body +=
            "</ul>\n<footer>" + SitePage.footer + " The pages are files: no script, nothing from the network."
            + "</footer>\n"
        return HTMLPage(
            title: "RunLoopSuite results", subtitle: "conformance and benchmarks at a glance",
            body: body, navigation: SitePage.index.navigation
        ).render()
    }

    /// The verdicts per engine: PASS, expected failures, and what was not as expected, by status.
    static func conformance(_ inputs: SiteInputs) -> String {
        var out = "<h2 id=\"conformance\">Conformance</h2>\n"
        guard let run = inputs.conformance else {
            return out + "<p class=\"none\">No conformance results yet: see <a href=\"conformance.html\">"
                + "Conformance</a> for how to make them.</p>\n"
        }
        let report = run.report
        let triage = Triage(report)
        out +=
            "<p>\(report.caseIDs.count) cases on \(report.engines.count) engine"
            + (report.engines.count == 1 ? "" : "s") + ", from <code>\(Markup.escape(run.path))</code>"
            + (run.modified.map { " (written \(Markup.escape(SiteDates.text($0))))" } ?? "") + ".</p>\n"
        out += ConformPage.summary(report, triage: triage)
        out +=
            "<p class=\"note\">PASS: the trace matched the spec. xFAIL: an expected failure (the "
            + "engine\u{2019}s expectations file gives the reason). FAIL, TIMEOUT, CRASH, ERROR: not as expected. "
            + "SKIP: the engine lacks a feature the case needs. XPASS: an expected failure passed. "
            + "<a href=\"conformance.html#triage\">The triage</a> groups what was not as expected.</p>\n"
        return out
    }

    /// The newest benchmark run: its targets met and missed.
    static func benchmarks(_ inputs: SiteInputs, bench: BenchSummary?) -> String {
        var out = "<h2 id=\"benchmarks\">Benchmarks</h2>\n"
        guard let run = inputs.newestRun, let bench else {
            return out + "<p class=\"none\">No results CSV in <code>\(Markup.escape(inputs.options.resultsDirectory))"
                + "</code> yet: <code>runloop bench</code> makes one.</p>\n"
        }
        out +=
            "<p>The newest of \(inputs.runs.count) run\(inputs.runs.count == 1 ? "" : "s"): <code>"
            + Markup.escape(run.name) + "</code>" + (run.date.isEmpty ? "" : ", \(Markup.escape(run.date))")
            + (bench.profile.map { ", profile \(Markup.escape($0))" } ?? "") + ".</p>\n"
        if bench.isSmoke {
            return out + "<p class=\"none\">A smoke run (every benchmark once): its figures mean nothing and its "
                + "targets are not judged.</p>\n"
        }
        out +=
            "<p class=\"glance\"><a href=\"bench.html#targets\">Targets</a>: <span class=\"met\">\(bench.met) met"
            + "</span>, <span class=\"missed\">\(bench.missed) missed</span>, <span class=\"none\">"
            + "\(bench.notMeasured) not measured</span>"
            + (bench.reported > 0 ? ", <span class=\"none\">\(bench.reported) reported, not judged</span>" : "")
            + ".</p>\n"
        if !bench.missedTargets.isEmpty {
            out +=
                "<p>Missed:</p>\n<ul>\n"
                + bench.missedTargets.map {
                    "<li><code>\(Markup.escape($0.id))</code>: \(Markup.escape($0.description))</li>\n"
                }.joined() + "</ul>\n"
        }
        return out + "<p class=\"note\"><a href=\"trends.html\">Trends</a> shows the key benchmarks across all "
            + "runs.</p>\n"
    }
}

/// Dates as the pages print them: ISO 8601 in UTC, to the minute.
enum SiteDates {
    static func text(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withTimeZone]
        return formatter.string(from: date)
    }
}
