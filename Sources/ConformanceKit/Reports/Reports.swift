// Renders a conformance report as a cases x engines table, as JSON, or as JUnit XML.

import Foundation
import MarkupKit

/// The output formats of `runloop conform`.
public enum ReportFormat: String, CaseIterable, Sendable {
    case table, json, junit

    public func render(_ report: ConformanceReport) -> String {
        switch self {
        case .table: return TableReport.render(report, rows: .all)
        case .json: return JSONReport.render(report)
        case .junit: return JUnitReport.render(report)
        }
    }
}

/// How a cell reads: the status, with the expectation when it differs.
func cellText(_ outcome: CaseOutcome) -> String {
    if outcome.isUnexpectedPass { return "XPASS!" }
    if outcome.expected != .pass, outcome.status == outcome.expected { return "x\(outcome.status.rawValue)" }
    return outcome.meetsExpectation ? outcome.status.rawValue : outcome.status.rawValue + "!"
}

/// Which cases the table lists (the summary and the details of what is not as expected always follow).
public enum TableRows: Sendable {
    /// Every case.
    case all
    /// Cases that did not pass on some engine: failures, expected failures, skips (the default on a terminal).
    case notPassing
    /// Cases not as expected on some engine (`--only-failures`).
    case notAsExpected
}

/// How many results of a run, or of one engine, ended each way. The closing line of the table says it; it is never
/// of the form "N passed, N failed", which CI systems read as a test runner's verdict.
public struct ResultTally: Sendable, Equatable {
    public var results = 0
    /// Results that met their expectation (an expected failure, a SKIP, a PASS expected to pass).
    public var asExpected = 0
    /// PASS, expected to pass.
    public var pass = 0
    /// Of those, the passes ``Triage`` flags as only vacuous.
    public var vacuous = 0
    /// Expected failures (FAIL, TIMEOUT, CRASH or ERROR as the expectations file says).
    public var expectedFailures = 0
    /// Expected failures that passed.
    public var unexpectedPasses = 0
    public var skip = 0
    /// Not as expected, by status.
    public var fail = 0, timeout = 0, crash = 0, error = 0

    public init(_ outcomes: [CaseOutcome], triage: Triage? = nil) {
        for outcome in outcomes {
            results += 1
            if outcome.meetsExpectation { asExpected += 1 }
            switch outcome.status {
            case .skip: skip += 1
            case .pass where outcome.expected == .pass:
                pass += 1
                if triage?.vacuous(caseID: outcome.caseID, engine: outcome.engine) != nil { vacuous += 1 }
            case .pass: unexpectedPasses += 1
            case let status where status == outcome.expected: expectedFailures += 1
            case .fail: fail += 1
            case .timeout: timeout += 1
            case .crash: crash += 1
            case .error: error += 1
            }
        }
    }

    /// The counts as a summary table's columns, in this order: PASS, xFAIL (expected failures), FAIL, SKIP, TIMEOUT,
    /// CRASH, ERROR (each of those three not as expected) and XPASS (an expected failure that passed).
    public var columns: [(label: String, count: Int)] {
        [
            ("PASS", pass), ("xFAIL", expectedFailures), ("FAIL", fail), ("SKIP", skip), ("TIMEOUT", timeout),
            ("CRASH", crash), ("ERROR", error), ("XPASS", unexpectedPasses),
        ]
    }

    /// Whether a column's results are not as expected (coloured as such on the pages).
    public static func isUnmet(column label: String) -> Bool { !["PASS", "xFAIL", "SKIP"].contains(label) }

    /// "846 results, 846 as expected: 842 PASS, 4 xFAIL, 0 FAIL, 0 SKIP, 0 TIMEOUT, 0 CRASH, 0 ERROR, 0 XPASS".
    public var text: String {
        let passes = "\(pass) PASS" + (vacuous > 0 ? " (\(vacuous) only vacuously)" : "")
        return
            "\(results) result\(results == 1 ? "" : "s"), \(asExpected) as expected: \(passes), \(expectedFailures) xFAIL, \(fail) FAIL, "
            + "\(skip) SKIP, \(timeout) TIMEOUT, \(crash) CRASH, \(error) ERROR, \(unexpectedPasses) XPASS"
    }
}

public enum TableReport {
    /// How many clusters the terminal lists (JSON and the page list them all).
    static let listedClusters = 10

    /// The summary line per engine, the triage, the table of `rows` (every case: then a summary line per engine;
    /// some cases: after it), each case not as expected with its rule, traces and diff, and the closing tally.
    /// `catalogue` gives the rules' text when it could be loaded.
    public static func render(
        _ report: ConformanceReport, rows: TableRows = .all,
        catalogue: RuleCatalogue? = nil
    ) -> String {
        let triage = Triage(report)
        let listed = report.caseIDs.filter { id in
            let outcomes = report.outcomes.filter { $0.caseID == id }
            switch rows {
            case .all: return true
            case .notPassing:
                return outcomes.contains {
                    $0.status != .pass || $0.expected != .pass
                        || triage.vacuous(caseID: $0.caseID, engine: $0.engine) != nil
                }
            case .notAsExpected: return outcomes.contains { !$0.meetsExpectation }
            }
        }
        let idWidth = max(4, listed.map(\.count).max() ?? 0)
        let columnWidth = max(8, report.engines.map(\.count).max() ?? 0)
        func pad(_ text: String, _ width: Int) -> String {
            text + String(repeating: " ", count: max(0, width - text.count))
        }
        let summaryLines = report.engines.map { engine -> String in
            let tally = ResultTally(report.outcomes.filter { $0.engine == engine }, triage: triage)
            return "\(engine): \(tally.text)"
        }
        let levelLines = LevelSummary(report, triage: triage).textLines
        let summaryBlock = summaryLines + (levelLines.isEmpty ? [] : [""] + levelLines)
        // Listings of some cases start with the summary and the triage: on a terminal they are what is read first.
        var lines: [String] = rows == .all ? [] : summaryBlock + [""] + triageLines(triage, report: report) + [""]
        if rows != .all {
            let what =
                rows == .notPassing
                ? "did not pass on every engine (or passed only vacuously)"
                : "were not as expected on some engine"
            lines.append(
                "Cases that \(what): \(listed.count) of \(report.caseIDs.count) (--verbose lists every case)"
                    + (listed.isEmpty ? "." : ":"))
        }
        if !listed.isEmpty || rows == .all {
            lines.append(pad("case", idWidth) + report.engines.map { "  " + pad($0, columnWidth) }.joined())
            lines.append(String(repeating: "-", count: idWidth + report.engines.count * (columnWidth + 2)))
        }
        for id in listed {
            let cells = report.engines.map { engine in
                report.outcome(caseID: id, engine: engine).map {
                    cellText($0) + (triage.vacuous(caseID: id, engine: engine) != nil ? "?" : "")
                } ?? "-"
            }
            lines.append(pad(id, idWidth) + cells.map { "  " + pad($0, columnWidth) }.joined())
        }
        if rows == .all {
            lines.append("")
            lines += summaryBlock
            lines.append("")
            lines += triageLines(triage, report: report)
        }
        if !listed.isEmpty {
            lines.append(
                "Legend: xFAIL = expected failure (see expectations/<engine>.yaml), '!' = not as expected, "
                    + "XPASS! = an expected failure passed, PASS? = passed only vacuously (see the triage).")
        }
        for outcome in report.outcomes where !outcome.meetsExpectation {
            lines.append("")
            lines += details(outcome, facts: report.facts[outcome.caseID], catalogue: catalogue)
        }
        lines.append("")
        lines.append("conform: " + ResultTally(report.outcomes, triage: triage).text)
        return lines.joined(separator: "\n")
    }

    /// The triage: the clusters of results not as expected, the largest first, and the vacuous passes.
    static func triageLines(_ triage: Triage, report: ConformanceReport) -> [String] {
        let unmet = report.outcomes.filter { !$0.meetsExpectation && $0.status != .pass }.count
        guard unmet > 0 || !triage.vacuousPasses.isEmpty || !triage.clusters.isEmpty else {
            return ["Triage: every result is as expected; no pass is vacuous."]
        }
        var lines = [
            "Triage: \(unmet) result\(unmet == 1 ? "" : "s") not as expected in \(triage.clusters.count) "
                + "cluster\(triage.clusters.count == 1 ? "" : "s") by where the trace first departs "
                + "(INTERPRETING.md, \"Reading a run: triage\"):"
        ]
        for (index, cluster) in triage.clusters.prefix(listedClusters).enumerated() {
            lines += clusterLines(cluster, number: index + 1)
        }
        if triage.clusters.count > listedClusters {
            lines.append("  ... \(triage.clusters.count - listedClusters) more clusters (--format json lists them all)")
        }
        if !triage.vacuousPasses.isEmpty {
            for engine in report.engines {
                let passes = triage.vacuousPasses.filter { $0.engine == engine }
                guard !passes.isEmpty else { continue }
                lines.append(
                    "Passes only vacuously on \(engine): \(passes.count) (their items could make callouts "
                        + "this engine never made: \(triage.deadKinds[engine]?.joined(separator: ", ") ?? "")), "
                        + "e.g. " + passes.prefix(3).map(\.caseID).joined(separator: ", "))
            }
        }
        return lines
    }

    static func clusterLines(_ cluster: TriageCluster, number: Int) -> [String] {
        let statuses = CaseStatus.allCases.compactMap { status in
            cluster.statuses[status].map { "\($0) \(status.rawValue)" }
        }.joined(separator: ", ")
        var lines = [
            "  \(number). \(cluster.engine): \(cluster.title): \(cluster.caseIDs.count) result"
                + (cluster.caseIDs.count == 1 ? "" : "s") + (statuses.isEmpty ? "" : " (\(statuses))")
        ]
        if let known = cluster.referenceDefect { lines.append("     " + known.note) }
        if cluster.alsoElsewhere > 0 {
            lines.append("     and lacking the same lines in \(cluster.alsoElsewhere) results clustered below")
        }
        if !cluster.instead.isEmpty {
            lines.append(
                "     instead: "
                    + cluster.instead.prefix(4).map { "\($0.kind) (\($0.cases))" }
                    .joined(separator: ", "))
        }
        if !cluster.rules.isEmpty {
            lines.append(
                "     rules: " + cluster.rules.prefix(5).map { "\($0.id) (\($0.cases))" }.joined(separator: ", ")
                    + (cluster.rules.count > 5 ? ", ... \(cluster.rules.count - 5) more" : ""))
        }
        if !cluster.caseIDs.isEmpty {
            lines.append("     start with: " + cluster.starters().joined(separator: ", "))
        }
        return lines
    }

    /// One result not as expected: its status, rule, and what happened (the diff of a FAIL; the reason, the crash
    /// excerpt, and the expected and actual traces of a TIMEOUT, CRASH or ERROR), each trace capped.
    static func details(_ outcome: CaseOutcome, facts: CaseFacts?, catalogue: RuleCatalogue?) -> [String] {
        var lines = [
            "\(outcome.status.rawValue): \(outcome.caseID) on \(outcome.engine) (expected \(outcome.expected.rawValue))"
        ]
        if let facts {
            lines.append("  rule: \(facts.rule)" + (facts.level.map { " (level \($0.rawValue))" } ?? ""))
            for id in facts.rules {
                lines.append("  rule \(id): " + (catalogue?.rule(id)?.text ?? "(see catalogue.yaml)"))
            }
        }
        if outcome.isUnexpectedPass, let reason = outcome.expectationReason {
            lines.append("  the expectations file says: \(reason)")
        }
        if let detail = outcome.detail { lines.append(TraceCap.apply(text: detail)) }
        if [.timeout, .crash, .error].contains(outcome.status) {
            lines += traceLines("expected trace", outcome.expectedTrace)
            lines += traceLines("actual trace", outcome.actualTrace)
        }
        return lines
    }

    static func traceLines(_ title: String, _ trace: [String]) -> [String] {
        guard !trace.isEmpty else { return ["\(title): (none)"] }
        return ["\(title) (\(trace.count) line\(trace.count == 1 ? "" : "s")):"]
            + TraceCap.apply(trace).map { "  " + $0 }
    }
}

/// Writes a report as a ``ConformanceDocument``.
enum JSONReport {
    static func render(_ report: ConformanceReport) -> String {
        let triage = Triage(report)
        var summary: [String: [String: Int]] = [:]
        for engine in report.engines {
            let counts = report.counts(engine: engine)
            summary[engine] = Dictionary(
                uniqueKeysWithValues: CaseStatus.allCases.map { ($0.rawValue, counts[$0] ?? 0) })
        }
        let results = report.outcomes.map { outcome in
            ConformanceDocument.Result(
                id: outcome.caseID, area: outcome.area, level: report.level(caseID: outcome.caseID)?.rawValue,
                engine: outcome.engine, status: outcome.status.rawValue,
                expected: outcome.expected.rawValue, as_expected: outcome.meetsExpectation,
                only_vacuously: triage.vacuous(caseID: outcome.caseID, engine: outcome.engine)?.kinds,
                reason: outcome.expectationReason, detail: outcome.detail.map { TraceCap.apply(text: $0) },
                seconds: (outcome.seconds * 1000).rounded() / 1000,
                expected_trace: TraceCap.apply(outcome.expectedTrace),
                expected_trace_lines: outcome.expectedTrace.count,
                actual_trace: TraceCap.apply(outcome.actualTrace), actual_trace_lines: outcome.actualTrace.count)
        }
        let clusters = triage.clusters.map { cluster in
            ConformanceDocument.Cluster(
                engine: cluster.engine, title: cluster.title, results: cluster.caseIDs.count,
                also_elsewhere: cluster.alsoElsewhere,
                statuses: Dictionary(uniqueKeysWithValues: cluster.statuses.map { ($0.key.rawValue, $0.value) }),
                rules: Dictionary(cluster.rules.map { ($0.id, $0.cases) }, uniquingKeysWith: +),
                instead: Dictionary(cluster.instead.map { ($0.kind, $0.cases) }, uniquingKeysWith: +),
                start_with: cluster.starters(), cases: cluster.caseIDs,
                known_defect: cluster.referenceDefect.map {
                    ConformanceDocument.KnownDefect(file: $0.file, reason: $0.reason)
                })
        }
        var levels: [String: [String: ConformanceDocument.Tally]] = [:]
        for cell in LevelSummary(report, triage: triage).cells {
            levels[cell.level.rawValue, default: [:]][cell.engine] = ConformanceDocument.Tally(cell.tally)
        }
        return JSONText.render(
            ConformanceDocument(
                engines: report.engines, runs: report.runs.isEmpty ? nil : report.runs, summary: summary,
                all_as_expected: report.allMeetExpectations,
                tally: ConformanceDocument.Tally(ResultTally(report.outcomes, triage: triage)), levels: levels,
                triage: ConformanceDocument.TriageDocument(dead_callouts: triage.deadKinds, clusters: clusters),
                results: results))
    }
}

enum JUnitReport {
    static func render(_ report: ConformanceReport) -> String {
        var lines = [#"<?xml version="1.0" encoding="UTF-8"?>"#]
        let failures = report.outcomes.filter { !$0.meetsExpectation && !isError($0) }.count
        let errors = report.outcomes.filter(isError).count
        lines.append(
            #"<testsuites name="runloop conform" tests="\#(report.outcomes.count)" failures="\#(failures)" errors="\#(errors)">"#
        )
        for engine in report.engines {
            let outcomes = report.outcomes.filter { $0.engine == engine }
            let engineFailures = outcomes.filter { !$0.meetsExpectation && !isError($0) }.count
            let engineErrors = outcomes.filter(isError).count
            let skipped = outcomes.filter { $0.status == .skip }.count
            let time = outcomes.reduce(0) { $0 + $1.seconds }
            lines.append(
                #"  <testsuite name="\#(Markup.escape(engine))" tests="\#(outcomes.count)" failures="\#(engineFailures)" errors="\#(engineErrors)" skipped="\#(skipped)" time="\#(time)">"#
            )
            for outcome in outcomes {
                let open =
                    #"    <testcase classname="\#(Markup.escape(engine)).\#(Markup.escape(outcome.area))" name="\#(Markup.escape(outcome.caseID))" time="\#(outcome.seconds)""#
                // The case's level as a property, so that a CI system can tell api and cf failures from platform ones.
                let properties =
                    report.level(caseID: outcome.caseID).map {
                        [#"      <properties><property name="level" value="\#($0.rawValue)"/></properties>"#]
                    } ?? []
                if outcome.status == .skip {
                    lines.append(open + ">")
                    lines += properties
                    lines.append(#"      <skipped message="\#(Markup.escape(outcome.detail ?? ""))"/>"#)
                    lines.append("    </testcase>")
                } else if !outcome.meetsExpectation {
                    lines.append(open + ">")
                    lines += properties
                    let message = "\(outcome.status.rawValue), expected \(outcome.expected.rawValue)"
                    let element = isError(outcome) ? "error" : "failure"
                    lines.append(
                        #"      <\#(element) message="\#(Markup.escape(message))">\#(Markup.escape(body(outcome)))</\#(element)>"#
                    )
                    lines.append("    </testcase>")
                } else if properties.isEmpty {
                    lines.append(open + "/>")
                } else {
                    lines += [open + ">"] + properties + ["    </testcase>"]
                }
            }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n")
    }

    /// A failure's text: its detail, and for a case that did not run to its end its traces, each capped.
    static func body(_ outcome: CaseOutcome) -> String {
        var lines = outcome.detail.map { [TraceCap.apply(text: $0)] } ?? []
        if [.timeout, .crash, .error].contains(outcome.status) {
            lines += TableReport.traceLines("expected trace", outcome.expectedTrace)
            lines += TableReport.traceLines("actual trace", outcome.actualTrace)
        }
        return lines.joined(separator: "\n")
    }

    /// JUnit's distinction: a case that did not run to its end (CRASH, TIMEOUT, ERROR) and was not expected to is an
    /// error; one that ran and did not match (FAIL, or an expected failure that passed) is a failure.
    static func isError(_ outcome: CaseOutcome) -> Bool {
        !outcome.meetsExpectation && [.crash, .timeout, .error].contains(outcome.status)
    }
}
