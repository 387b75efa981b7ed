// rules.html: the rule catalogue (Sources/ConformanceSpec/catalogue.yaml), each rule an anchor with its text, its
// level, where CoreFoundation implements it, what a violation would expose, and the cases that cite it
// (RuleCoverage, as `runloop rules` lists them).
import ConformanceKit
import MarkupKit

enum RulesPage {
    static func html(_ inputs: SiteInputs) -> String {
        let coverage = inputs.coverage
        var body =
            "<p class=\"note\">What CFRunLoop does, one rule at a time, each pinned to the lines of "
            + Markup.escape(coverage.catalogue.cfSource) + " that implement it. Every case of the spec cites the "
            + "rules it checks; a rule needs at least \(RuleCoverage.minimumCases) cases. "
            + "<code>runloop rules</code> prints the same.</p>\n"
        body +=
            "<p>\(coverage.rows.count) rules, \(inputs.cases.count) cases"
            + (coverage.thinRules.isEmpty
                ? ""
                : "; <span class=\"missed\">\(coverage.thinRules.count) rules with "
                    + "too few cases</span>") + "; " + Markup.escape(coverage.levelCountsText)
            + " (api: Apple\u{2019}s documented contract; cf: CF\u{2019}s shared algorithm; platform: the wait "
            + "mechanism of the platform, on Linux epoll, eventfd and timerfd).</p>\n"
        // The index: every rule by area, linking to its entry.
        var areas: [(String, [RuleCoverage.Row])] = []
        for row in coverage.rows {
            let area = String(row.rule.split(separator: ".").first ?? Substring(row.rule))
            if let index = areas.firstIndex(where: { $0.0 == area }) {
                areas[index].1.append(row)
            } else {
                areas.append((area, [row]))
            }
        }
        body += "<table>\n<tr><th>area</th><th>rules (cases)</th></tr>\n"
        for (area, rows) in areas {
            body +=
                "<tr><td class=\"mono\">\(Markup.escape(area))</td><td class=\"mono\">"
                + rows.map {
                    "<a href=\"#\(anchor($0.rule))\">\(Markup.escape($0.rule))</a> (\($0.cases.count))"
                }.joined(separator: ", ") + "</td></tr>\n"
        }
        body += "</table>\n"
        for (area, rows) in areas {
            body += "<h2 id=\"area-\(anchor(area))\">\(Markup.escape(area))</h2>\n"
            for row in rows {
                body += entry(row, rule: coverage.catalogue.rule(row.rule))
            }
        }
        body += "<footer>" + SitePage.footer + " From " + Markup.escape(coverage.catalogue.path) + ".</footer>\n"
        return HTMLPage(
            title: "Rule catalogue", subtitle: "the behaviour the spec pins, and the cases that pin it",
            body: body, navigation: SitePage.rules.navigation
        ).render()
    }

    static func entry(_ row: RuleCoverage.Row, rule: CatalogueRule?) -> String {
        var out = "<h3 id=\"\(anchor(row.rule))\"><code>\(Markup.escape(row.rule))</code></h3>\n"
        if let rule {
            out +=
                "<p>\(Markup.escape(rule.text))</p>\n<p class=\"note\">Level: <b>\(rule.level.rawValue)</b>. "
                + "CF: \(Markup.escape(rule.cf))</p>\n"
            if let platform = rule.platform {
                out += "<p class=\"note\">Platform branches: \(Markup.escape(platform))</p>\n"
            }
            if let note = rule.note { out += "<p class=\"note\">Note: \(Markup.escape(note))</p>\n" }
        }
        if let exposes = row.exposes {
            out += "<p class=\"note\"><b>What a violation changes:</b> \(Markup.escape(exposes))</p>\n"
        }
        let style = row.cases.count < RuleCoverage.minimumCases ? "missed" : ""
        out +=
            "<p class=\"\(style)\">Cited by \(row.cases.count) case\(row.cases.count == 1 ? "" : "s")"
            + (row.cases.isEmpty ? "." : ", in " + Markup.escape(row.contexts.summary) + ":") + "</p>\n"
        if !row.caseContexts.isEmpty {
            out +=
                "<ul class=\"cases\">\n"
                + row.caseContexts.map {
                    "<li><code>\(Markup.escape($0.caseID))</code> <span class=\"none\">(\(Markup.escape($0.contexts)))"
                        + "</span></li>\n"
                }.joined() + "</ul>\n"
        }
        return out
    }

    /// A rule id as an id attribute: the id itself, which is letters, digits, dots and dashes.
    static func anchor(_ id: String) -> String {
        Markup.escape(String(id.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" ? $0 : "-" }))
    }
}
