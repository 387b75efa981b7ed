// The pages of the results site, their files and their titles, and the bar of links every page shares.
import MarkupKit

/// A page of the site. Every page links to every other one by a relative link, so the site works opened from disk.
public enum SitePage: String, CaseIterable, Sendable {
    case index, conformance, bench, trends, engines, rules

    /// The page's file in the site's directory.
    public var fileName: String { rawValue + ".html" }

    /// Its name in the bar of links.
    var label: String {
        switch self {
        case .index: return "Overview"
        case .conformance: return "Conformance"
        case .bench: return "Benchmarks"
        case .trends: return "Trends"
        case .engines: return "Engines"
        case .rules: return "Rules"
        }
    }

    /// What it shows, in a line (the overview's list of pages).
    var summary: String {
        switch self {
        case .index: return "this page: the newest verdicts at a glance"
        case .conformance:
            return "the newest conformance run: areas by engines, the triage, every case that did "
                + "not simply pass"
        case .bench: return "the newest benchmark run: its targets, charts and tables, and the list of all runs"
        case .trends: return "the key benchmarks across all runs, with their change points"
        case .engines: return "the conformance engines and their features, and the benchmark engines"
        case .rules: return "the rule catalogue, each rule with the cases that cite it"
        }
    }

    /// The bar of links at the top of every page, `self` marked as the current one.
    var navigation: String {
        "<nav class=\"site\">"
            + SitePage.allCases.map { page in
                "<a href=\"\(page.fileName)\"" + (page == self ? " class=\"here\"" : "") + ">"
                    + Markup.escape(page.label) + "</a>"
            }.joined(separator: " ") + "</nav>\n"
    }

    /// The small print of a page the site made from another tool's page.
    static let footer = "Made by <code>runloop site</code>."
}
