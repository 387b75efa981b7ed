// The conformance report as one self-contained HTML page: the matrix of areas by engines with counts, and every case
// that did not simply pass, expandable to its rules (catalogue ids with their text), its trace diff and the reason its
// engine's expectations file gives.

import Foundation
import MarkupKit

/// Renders a `ConformanceReport` as HTML (well-formed XHTML: inline CSS, no script, nothing from the network).
public enum ConformPage {
    /// The page. `cases` are the run's cases (their rules and sentences); `catalogue` gives the rules' text, when
    /// it could be loaded; `specName` names the spec under the title.
    public static func html(_ report: ConformanceReport, cases: [SpecCase], catalogue: RuleCatalogue?,
                            specName: String) -> String {
        let caseByID = Dictionary(cases.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var areas: [String] = []
        for id in report.caseIDs {
            let area = caseByID[id]?.area ?? String(id.split(separator: ".").first ?? Substring(id))
            if !areas.contains(area) { areas.append(area) }
        }
        var body = summary(report)
        body += "<h2 id=\"matrix\">Areas by engine</h2>\n" + matrix(report, areas: areas)
        let notPassed = report.outcomes.filter { $0.status != .pass || $0.expected != .pass }
        body += "<h2 id=\"cases\">Cases that did not simply pass (\(notPassed.count))</h2>\n"
        if notPassed.isEmpty {
            body += "<p class=\"met\">Every case passed on every engine.</p>\n"
        } else {
            body += "<p class=\"note\">Not as expected first, then expected failures and skips; each opens to its rules, "
                + "its trace diff and its expectation.</p>\n"
            let ordered = notPassed.filter { !$0.meetsExpectation } + notPassed.filter(\.meetsExpectation)
            // Open: every case not as expected (what the reader came for), else the first one, to show what is inside.
            let anyUnmet = ordered.contains { !$0.meetsExpectation }
            for (position, outcome) in ordered.enumerated() {
                let open = !outcome.meetsExpectation || (!anyUnmet && position == 0)
                body += details(outcome, specCase: caseByID[outcome.caseID], catalogue: catalogue, open: open)
            }
        }
        body += "<footer>Made by <code>runloop conform --html</code>. Legend: xFAIL = an expected failure (the "
            + Markup.escape("engine's expectations/<engine>.yaml") + " gives the reason), XPASS = an expected failure that passed "
            + "(the expectations file is stale), SKIP = the engine lacks a feature the case needs, '!' = not as expected."
            + "</footer>\n"
        let engines = report.engines.joined(separator: ", ")
        return HTMLPage(title: "Conformance report: \(engines)",
                        subtitle: "\(report.caseIDs.count) cases from \(specName)", body: body).render()
    }

    // MARK: - Sections

    static func summary(_ report: ConformanceReport) -> String {
        var out = "<table>\n<tr><th>engine</th>" + CaseStatus.allCases.map { "<th class=\"num\">\($0.rawValue)</th>" }
            .joined() + "<th>as expected</th></tr>\n"
        for engine in report.engines {
            let counts = report.counts(engine: engine)
            let unmet = report.outcomes.filter { $0.engine == engine && !$0.meetsExpectation }.count
            out += "<tr><td><b>\(Markup.escape(engine))</b></td>"
                + CaseStatus.allCases.map { "<td class=\"num\">\(counts[$0] ?? 0)</td>" }.joined()
                + (unmet == 0 ? "<td class=\"met\">all</td>" : "<td class=\"missed\">\(unmet) not as expected</td>")
                + "</tr>\n"
        }
        return out + "</table>\n"
    }

    static func matrix(_ report: ConformanceReport, areas: [String]) -> String {
        var out = "<table>\n<tr><th>area</th><th class=\"num\">cases</th>"
            + report.engines.map { "<th>\(Markup.escape($0))</th>" }.joined() + "</tr>\n"
        for area in areas {
            let ids = Set(report.outcomes.filter { $0.area == area }.map(\.caseID))
            out += "<tr><td class=\"mono\">\(Markup.escape(area))</td><td class=\"num\">\(ids.count)</td>"
            for engine in report.engines {
                let outcomes = report.outcomes.filter { $0.area == area && $0.engine == engine }
                out += cell(outcomes)
            }
            out += "</tr>\n"
        }
        out += "<tr><th>all</th><th class=\"num\">\(report.caseIDs.count)</th>"
            + report.engines.map { engine in cell(report.outcomes.filter { $0.engine == engine }) }.joined() + "</tr>\n"
        return out + "</table>\n"
    }

    /// `12 PASS, 1 xFAIL, 1 CRASH!`, coloured by the worst: not as expected, expected failure, skip, pass.
    static func cell(_ outcomes: [CaseOutcome]) -> String {
        guard !outcomes.isEmpty else { return "<td class=\"none\">-</td>" }
        var counts: [(String, Int)] = []
        func add(_ label: String, _ count: Int) { if count > 0 { counts.append((label, count)) } }
        add("PASS", outcomes.filter { $0.status == .pass && $0.expected == .pass }.count)
        for status in CaseStatus.allCases where status != .pass {
            add(status == .skip ? "SKIP" : "x" + status.rawValue,
                outcomes.filter { $0.status == status && $0.meetsExpectation && (status == .skip || $0.expected == status) }.count)
        }
        // Not as expected, by status, marked as in the terminal table: `1 TIMEOUT!`, `1 XPASS!`.
        let unmet = outcomes.filter { !$0.meetsExpectation }
        add("XPASS!", unmet.filter(\.isUnexpectedPass).count)
        for status in CaseStatus.allCases where status != .pass {
            add(status.rawValue + "!", unmet.filter { $0.status == status }.count)
        }
        let style = !unmet.isEmpty ? "fail" : outcomes.contains { $0.expected != .pass } ? "xfail"
            : outcomes.contains { $0.status == .skip } ? "skip" : "pass"
        let text = counts.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
        return "<td class=\"\(style)\">\(Markup.escape(text))</td>"
    }

    static func details(_ outcome: CaseOutcome, specCase: SpecCase?, catalogue: RuleCatalogue?, open: Bool) -> String {
        let label = outcome.isUnexpectedPass ? "XPASS" : outcome.meetsExpectation && outcome.status != .skip
            ? "x" + outcome.status.rawValue : outcome.status.rawValue
        let badge = outcome.isUnexpectedPass ? "xpass" : outcome.meetsExpectation && outcome.status != .skip
            ? "xfail" : outcome.status.rawValue.lowercased()
        let verdict = outcome.meetsExpectation ? "" : " <span class=\"missed\">not as expected (expected "
            + "\(outcome.expected.rawValue))</span>"
        var out = (open ? "<details open=\"open\">" : "<details>") + "<summary><span class=\"badge \(badge)\">\(Markup.escape(label))</span> "
            + "<code>\(Markup.escape(outcome.caseID))</code> on <b>\(Markup.escape(outcome.engine))</b>\(verdict)"
            + "</summary>\n"
        if let specCase {
            out += "<p><b>Rule:</b> \(Markup.escape(specCase.rule)) <span class=\"none\">("
                + "\(Markup.escape((specCase.location.file as NSString).lastPathComponent)):\(specCase.location.line); source: \(Markup.escape(specCase.source)))</span></p>\n"
            if !specCase.rules.isEmpty {
                out += "<ul>\n"
                for id in specCase.rules {
                    let rule = catalogue?.rule(id)
                    out += "<li><code>\(Markup.escape(id))</code>: "
                        + Markup.escape(rule?.text ?? "(not in the catalogue)")
                        + (rule.map { " <span class=\"none\">(CF: \(Markup.escape($0.cf)))</span>" } ?? "") + "</li>\n"
                }
                out += "</ul>\n"
            }
        }
        if let reason = outcome.expectationReason {
            out += "<p><b>Expectation (\(Markup.escape(outcome.engine)): \(Markup.escape(outcome.expected.rawValue))."
                + "</b> \(Markup.escape(reason))</p>\n"
        }
        if let detail = outcome.detail, !detail.isEmpty {
            out += "<pre class=\"diff\">" + detail.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                let text = Markup.escape(String(line))
                if line.hasPrefix("- ") || line.hasPrefix("--- ") { return "<span class=\"del\">\(text)</span>" }
                if line.hasPrefix("+ ") || line.hasPrefix("+++ ") { return "<span class=\"add\">\(text)</span>" }
                return text
            }.joined(separator: "\n") + "</pre>\n"
        } else if outcome.status == .pass, !outcome.expectedTrace.isEmpty {
            out += "<p class=\"note\">The trace matched the spec.</p>\n"
        }
        return out + "</details>\n"
    }
}
