// The conformance report as one self-contained HTML page: the matrix of areas by engines with counts, and every case
// that did not simply pass, expandable to its rules (catalogue ids with their text), its trace diff and the reason its
// engine's expectations file gives.

import Foundation
import MarkupKit

/// Renders a `ConformanceReport` as HTML (well-formed XHTML: inline CSS, no script, nothing from the network).
public enum ConformPage {
    /// The page. `cases` are the run's cases (their rules and sentences); `catalogue` gives the rules' text, when
    /// it could be loaded; `specName` names the spec under the title; `navigation` goes above the heading (a site's
    /// bar of links) and `footer` replaces the line saying which command made the page.
    public static func html(
        _ report: ConformanceReport, cases: [SpecCase], catalogue: RuleCatalogue?,
        specName: String, navigation: String = "",
        footer: String = "Made by <code>runloop conform --html</code>."
    ) -> String {
        let caseByID = Dictionary(cases.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var areas: [String] = []
        for id in report.caseIDs {
            let area = caseByID[id]?.area ?? String(id.split(separator: ".").first ?? Substring(id))
            if !areas.contains(area) { areas.append(area) }
        }
        let triage = Triage(report)
        var body = runsSection(report) + summary(report, triage: triage)
        body += LevelSummary(report, triage: triage).html
        body += triageSection(triage, report: report)
        body += "<h2 id=\"matrix\">Areas by engine</h2>\n" + matrix(report, areas: areas, triage: triage)
        let notPassed = report.outcomes.filter {
            $0.status != .pass || $0.expected != .pass || triage.vacuous(caseID: $0.caseID, engine: $0.engine) != nil
        }
        body += "<h2 id=\"cases\">Cases that did not simply pass (\(notPassed.count))</h2>\n"
        if notPassed.isEmpty {
            body += "<p class=\"met\">Every case passed on every engine.</p>\n"
        } else {
            body +=
                "<p class=\"note\">Not as expected first, then expected failures and skips; each opens to its rules, "
                + "its trace diff and its expectation.</p>\n"
            let ordered = notPassed.filter { !$0.meetsExpectation } + notPassed.filter(\.meetsExpectation)
            // Open: every case not as expected (what the reader came for), else the first one, to show what is inside.
            let anyUnmet = ordered.contains { !$0.meetsExpectation }
            for (position, outcome) in ordered.enumerated() {
                let open = !outcome.meetsExpectation || (!anyUnmet && position == 0)
                body += details(
                    outcome, specCase: caseByID[outcome.caseID], catalogue: catalogue, open: open,
                    vacuous: triage.vacuous(caseID: outcome.caseID, engine: outcome.engine))
            }
        }
        body +=
            "<footer>" + footer + " Legend: xFAIL = an expected failure (the "
            + Markup.escape("engine's expectations/<engine>.yaml")
            + " gives the reason), XPASS = an expected failure that passed "
            + "(the expectations file is stale), SKIP = the engine lacks a feature the case needs, '!' = not as expected, "
            + "PASS? = passed only vacuously (the engine never made a callout the case's items could make)."
            + "</footer>\n"
        let engines = report.engines.joined(separator: ", ")
        return HTMLPage(
            title: "Conformance report: \(engines)",
            subtitle: "\(report.caseIDs.count) cases from \(specName)", body: body,
            navigation: navigation
        ).render()
    }

    // MARK: - Sections

    /// Per engine the results by ``ResultTally/columns`` (expected failures apart from failures) and the verdict;
    /// `runloop site`'s overview shows the same table.
    public static func summary(_ report: ConformanceReport, triage: Triage) -> String {
        let labels = ResultTally([]).columns.map(\.label)
        var out =
            "<table>\n<tr><th>engine</th>" + labels.map { "<th class=\"num\">\($0)</th>" }.joined()
            + "<th>as expected</th></tr>\n"
        for engine in report.engines {
            let tally = ResultTally(report.outcomes.filter { $0.engine == engine }, triage: triage)
            let unmet = tally.results - tally.asExpected
            out +=
                "<tr><td><b>\(Markup.escape(engine))</b></td>"
                + tally.columns.map { label, count in
                    let style = count == 0 ? " none" : ResultTally.isUnmet(column: label) ? " missed" : ""
                    return "<td class=\"num\(style)\">\(count)</td>"
                }.joined()
                + (unmet == 0 ? "<td class=\"met\">all</td>" : "<td class=\"missed\">\(unmet) not as expected</td>")
                + "</tr>\n"
        }
        return out + "</table>\n<p>" + Markup.escape(ResultTally(report.outcomes, triage: triage).text) + "</p>\n"
    }

    /// The runs the columns come from, with each engine's build, the machine, toolchain and date; nothing for a report
    /// that records no run (a document older than format version 4).
    static func runsSection(_ report: ConformanceReport) -> String {
        guard !report.runs.isEmpty else { return "" }
        var out =
            "<h2 id=\"runs\">Runs</h2>\n<p class=\"note\">Where each column comes from"
            + (report.runs.count > 1 ? " (<code>runloop conform merge</code> of \(report.runs.count) runs)" : "")
            + ": the engine\u{2019}s build, the machine, the toolchain and the date its run recorded.</p>\n"
            + "<table>\n<tr><th>column</th><th>engine and build</th><th>machine</th><th>toolchain</th>"
            + "<th>date and file</th></tr>\n"
        for run in report.runs {
            for engine in run.engines {
                out +=
                    "<tr><td><b>\(Markup.escape(engine.column))</b></td><td><code>"
                    + Markup.escape(engine.selector) + "</code><br/>\(Markup.escape(engine.build))</td><td>"
                    + Markup.escape("\(run.machine.hostname), \(run.machine.kernel), \(run.machine.cpus) CPUs")
                    + "</td><td>" + Markup.escape(run.toolchain.swift_version)
                    + "<br/><span class=\"none\">built with \(Markup.escape(run.toolchain.compiled_with))</span></td>"
                    + "<td>\(Markup.escape(run.date))"
                    + (run.file.map { "<br/><span class=\"none\">\(Markup.escape($0))</span>" } ?? "") + "</td></tr>\n"
            }
        }
        return out + "</table>\n"
    }

    /// A column's heading: its name, and under it its run's label when the columns come from several runs.
    static func columnHeading(_ column: String, report: ConformanceReport) -> String {
        guard report.runs.count > 1, let run = report.runs.first(where: { $0.engines.contains { $0.column == column } })
        else { return "<th>\(Markup.escape(column))</th>" }
        return "<th>\(Markup.escape(column))<br/><span class=\"none\">\(Markup.escape(run.label))</span></th>"
    }

    /// The clusters of results not as expected, the largest first, and the vacuous passes.
    static func triageSection(_ triage: Triage, report: ConformanceReport) -> String {
        var out = "<h2 id=\"triage\">Triage</h2>\n"
        if triage.clusters.isEmpty, triage.vacuousPasses.isEmpty {
            return out + "<p class=\"met\">Every result is as expected; no pass is vacuous.</p>\n"
        }
        out +=
            "<p class=\"note\">Results not as expected, grouped by where their trace first departs from the "
            + "expected one (INTERPRETING.md, \u{201C}Reading a run: triage\u{201D}), the largest group first, the "
            + "known defects of the toolchain\u{2019}s CoreFoundation last.</p>\n"
        out +=
            "<table>\n<tr><th class=\"num\">#</th><th>engine</th><th>where the trace departs</th>"
            + "<th class=\"num\">results</th><th>rules</th><th>start with</th></tr>\n"
        for (index, cluster) in triage.clusters.enumerated() {
            let statuses = CaseStatus.allCases.compactMap { status in
                cluster.statuses[status].map { "\($0) \(status.rawValue)" }
            }.joined(separator: ", ")
            var what = Markup.escape(cluster.title)
            if !cluster.instead.isEmpty {
                what +=
                    "<br/><span class=\"none\">instead: "
                    + Markup.escape(
                        cluster.instead.prefix(4)
                            .map { "\($0.kind) (\($0.cases))" }.joined(separator: ", ")) + "</span>"
            }
            if let known = cluster.referenceDefect {
                what += "<br/><span class=\"none\">" + Markup.escape(known.note) + "</span>"
            }
            if cluster.alsoElsewhere > 0 {
                what +=
                    "<br/><span class=\"none\">and lacking the same lines in \(cluster.alsoElsewhere) results "
                    + "of other clusters</span>"
            }
            out +=
                "<tr><td class=\"num\">\(index + 1)</td><td>\(Markup.escape(cluster.engine))</td><td>\(what)</td>"
                + "<td class=\"num\">\(cluster.caseIDs.count)"
                + (statuses.isEmpty ? "" : " (\(Markup.escape(statuses)))")
                + "</td><td class=\"mono\">"
                + Markup.escape(
                    cluster.rules.prefix(5).map { "\($0.id) (\($0.cases))" }
                        .joined(separator: ", ")) + "</td><td class=\"mono\">"
                + Markup.escape(cluster.starters().joined(separator: ", ")) + "</td></tr>\n"
        }
        out += "</table>\n"
        for engine in report.engines {
            let passes = triage.vacuousPasses.filter { $0.engine == engine }
            guard !passes.isEmpty else { continue }
            out +=
                "<p class=\"missed\">Passes only vacuously on " + Markup.escape(engine) + ": \(passes.count) (their "
                + "items could make callouts this engine never made: "
                + Markup.escape(triage.deadKinds[engine]?.joined(separator: ", ") ?? "") + ").</p>\n"
        }
        return out
    }

    static func matrix(_ report: ConformanceReport, areas: [String], triage: Triage) -> String {
        var out =
            "<table>\n<tr><th>area</th><th class=\"num\">cases</th>"
            + report.engines.map { columnHeading($0, report: report) }.joined() + "</tr>\n"
        for area in areas {
            let ids = Set(report.outcomes.filter { $0.area == area }.map(\.caseID))
            out += "<tr><td class=\"mono\">\(Markup.escape(area))</td><td class=\"num\">\(ids.count)</td>"
            for engine in report.engines {
                let outcomes = report.outcomes.filter { $0.area == area && $0.engine == engine }
                out += cell(outcomes, triage: triage)
            }
            out += "</tr>\n"
        }
        out +=
            "<tr><th>all</th><th class=\"num\">\(report.caseIDs.count)</th>"
            + report.engines.map { engine in cell(report.outcomes.filter { $0.engine == engine }, triage: triage) }
            .joined() + "</tr>\n"
        return out + "</table>\n"
    }

    /// `12 PASS, 1 xFAIL, 1 CRASH!`, coloured by the worst: not as expected, expected failure, skip, pass.
    static func cell(_ outcomes: [CaseOutcome], triage: Triage? = nil) -> String {
        guard !outcomes.isEmpty else { return "<td class=\"none\">-</td>" }
        var counts: [(String, Int)] = []
        func add(_ label: String, _ count: Int) { if count > 0 { counts.append((label, count)) } }
        func vacuous(_ outcome: CaseOutcome) -> Bool {
            triage?.vacuous(caseID: outcome.caseID, engine: outcome.engine) != nil
        }
        let passes = outcomes.filter { $0.status == .pass && $0.expected == .pass }
        add("PASS", passes.filter { !vacuous($0) }.count)
        add("PASS?", passes.filter(vacuous).count)
        for status in CaseStatus.allCases where status != .pass {
            add(
                status == .skip ? "SKIP" : "x" + status.rawValue,
                outcomes.filter {
                    $0.status == status && $0.meetsExpectation && (status == .skip || $0.expected == status)
                }.count)
        }
        // Not as expected, by status, marked as in the terminal table: `1 TIMEOUT!`, `1 XPASS!`.
        let unmet = outcomes.filter { !$0.meetsExpectation }
        add("XPASS!", unmet.filter(\.isUnexpectedPass).count)
        for status in CaseStatus.allCases where status != .pass {
            add(status.rawValue + "!", unmet.filter { $0.status == status }.count)
        }
        let style =
            !unmet.isEmpty
            ? "fail"
            : outcomes.contains { $0.expected != .pass || vacuous($0) }
                ? "xfail"
                : outcomes.contains { $0.status == .skip } ? "skip" : "pass"
        let text = counts.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
        return "<td class=\"\(style)\">\(Markup.escape(text))</td>"
    }

    static func details(
        _ outcome: CaseOutcome, specCase: SpecCase?, catalogue: RuleCatalogue?, open: Bool,
        vacuous: VacuousPass? = nil
    ) -> String {
        let label =
            outcome.isUnexpectedPass
            ? "XPASS"
            : vacuous != nil
                ? "PASS?"
                : outcome.meetsExpectation && outcome.status != .skip && outcome.status != .pass
                    ? "x" + outcome.status.rawValue : outcome.status.rawValue
        let badge =
            outcome.isUnexpectedPass
            ? "xpass"
            : outcome.meetsExpectation && outcome.status != .skip
                ? "xfail" : outcome.status.rawValue.lowercased()
        let verdict =
            outcome.meetsExpectation
            ? ""
            : " <span class=\"missed\">not as expected (expected "
                + "\(outcome.expected.rawValue))</span>"
        var out =
            (open ? "<details open=\"open\">" : "<details>")
            + "<summary><span class=\"badge \(badge)\">\(Markup.escape(label))</span> "
            + "<code>\(Markup.escape(outcome.caseID))</code> on <b>\(Markup.escape(outcome.engine))</b>\(verdict)"
            + "</summary>\n"
        if let specCase {
            out +=
                "<p><b>Rule:</b> \(Markup.escape(specCase.rule)) <span class=\"none\">("
                + "\(Markup.escape((specCase.location.file as NSString).lastPathComponent)):\(specCase.location.line); source: \(Markup.escape(specCase.source)))</span></p>\n"
            if !specCase.rules.isEmpty {
                out += "<ul>\n"
                for id in specCase.rules {
                    let rule = catalogue?.rule(id)
                    out +=
                        "<li><code>\(Markup.escape(id))</code>: "
                        + Markup.escape(rule?.text ?? "(not in the catalogue)")
                        + (rule.map { " <span class=\"none\">(CF: \(Markup.escape($0.cf)))</span>" } ?? "") + "</li>\n"
                }
                out += "</ul>\n"
            }
        }
        if let reason = outcome.expectationReason {
            out +=
                "<p><b>Expectation (\(Markup.escape(outcome.engine)): \(Markup.escape(outcome.expected.rawValue))."
                + "</b> \(Markup.escape(reason))</p>\n"
        }
        if let vacuous {
            out +=
                "<p class=\"missed\">Passes only vacuously: its items could make callouts that "
                + Markup.escape(outcome.engine) + " never made in this run ("
                + Markup.escape(vacuous.kinds.joined(separator: ", "))
                + "), so its trace may match only because of that.</p>\n"
        }
        if let detail = outcome.detail, !detail.isEmpty {
            out +=
                "<pre class=\"diff\">"
                + TraceCap.apply(text: detail).split(separator: "\n", omittingEmptySubsequences: false).map { line in
                    let text = Markup.escape(String(line))
                    if line.hasPrefix("- ") || line.hasPrefix("--- ") { return "<span class=\"del\">\(text)</span>" }
                    if line.hasPrefix("+ ") || line.hasPrefix("+++ ") { return "<span class=\"add\">\(text)</span>" }
                    return text
                }.joined(separator: "\n") + "</pre>\n"
        } else if outcome.status == .pass, !outcome.expectedTrace.isEmpty, vacuous == nil {
            out += "<p class=\"note\">The trace matched the spec.</p>\n"
        }
        if [.timeout, .crash, .error].contains(outcome.status) || vacuous != nil {
            for (title, trace) in [("Expected trace", outcome.expectedTrace), ("Actual trace", outcome.actualTrace)] {
                out +=
                    "<p><b>\(title)</b> (\(trace.count) lines)</p>\n<pre>"
                    + Markup.escape(TraceCap.apply(trace).joined(separator: "\n")) + "</pre>\n"
            }
        }
        return out + "</details>\n"
    }
}
