// Renders a conformance report as a cases x engines table, as JSON, or as JUnit XML.

import Foundation
import MarkupKit

/// The output formats of `runloop conform`.
public enum ReportFormat: String, CaseIterable, Sendable {
    case table, json, junit

    public func render(_ report: ConformanceReport) -> String {
        switch self {
        case .table: return TableReport.render(report)
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

public enum TableReport {
    /// The table of `rows` (every case: then a summary line per engine; some cases: after it), each case not as
    /// expected with its diff, and the count line.
    public static func render(_ report: ConformanceReport, rows: TableRows = .all) -> String {
        let listed = report.caseIDs.filter { id in
            let outcomes = report.outcomes.filter { $0.caseID == id }
            switch rows {
            case .all: return true
            case .notPassing: return outcomes.contains { $0.status != .pass || $0.expected != .pass }
            case .notAsExpected: return outcomes.contains { !$0.meetsExpectation }
            }
        }
        let idWidth = max(4, listed.map(\.count).max() ?? 0)
        let columnWidth = max(8, report.engines.map(\.count).max() ?? 0)
        func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        let summaryLines = report.engines.map { engine -> String in
            let counts = report.counts(engine: engine)
            let summary = CaseStatus.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
            let unmet = report.outcomes.filter { $0.engine == engine && !$0.meetsExpectation }.count
            return "\(engine): \(summary); \(unmet == 0 ? "all as expected" : "\(unmet) not as expected")"
        }
        // Listings of some cases start with the summary: on a terminal it is what is read first.
        var lines: [String] = rows == .all ? [] : summaryLines + [""]
        if rows != .all {
            let what = rows == .notPassing ? "did not pass on every engine" : "not as expected on some engine"
            lines.append("Cases that \(what): \(listed.count) of \(report.caseIDs.count) (--verbose lists every case)"
                + (listed.isEmpty ? "." : ":"))
        }
        if !listed.isEmpty || rows == .all {
            lines.append(pad("case", idWidth) + report.engines.map { "  " + pad($0, columnWidth) }.joined())
            lines.append(String(repeating: "-", count: idWidth + report.engines.count * (columnWidth + 2)))
        }
        for id in listed {
            let cells = report.engines.map { engine in
                report.outcome(caseID: id, engine: engine).map(cellText) ?? "-"
            }
            lines.append(pad(id, idWidth) + cells.map { "  " + pad($0, columnWidth) }.joined())
        }
        if rows == .all {
            lines.append("")
            lines += summaryLines
        }
        if !listed.isEmpty {
            lines.append("Legend: xFAIL = expected failure (see expectations/<engine>.yaml), '!' = not as expected, XPASS! = an expected failure passed.")
        }
        let problems = report.outcomes.filter { !$0.meetsExpectation }
        for outcome in problems {
            lines.append("")
            lines.append("\(outcome.status.rawValue): \(outcome.caseID) on \(outcome.engine) (expected \(outcome.expected.rawValue))")
            if outcome.isUnexpectedPass, let reason = outcome.expectationReason {
                lines.append("  the expectations file says: \(reason)")
            }
            if let detail = outcome.detail { lines.append(detail) }
        }
        lines.append("")
        lines.append("\(report.outcomes.filter(\.meetsExpectation).count) passed, \(problems.count) failed")
        return lines.joined(separator: "\n")
    }
}

enum JSONReport {
    struct Document: Encodable {
        var format_version = 1
        var summary: [String: [String: Int]]
        var all_as_expected: Bool
        var results: [Result]
    }

    struct Result: Encodable {
        var id: String
        var area: String
        var engine: String
        var status: String
        var expected: String
        var as_expected: Bool
        var reason: String?
        var detail: String?
        var seconds: Double
        var expected_trace: [String]?
        var actual_trace: [String]?
    }

    static func render(_ report: ConformanceReport) -> String {
        var summary: [String: [String: Int]] = [:]
        for engine in report.engines {
            let counts = report.counts(engine: engine)
            summary[engine] = Dictionary(uniqueKeysWithValues: CaseStatus.allCases.map { ($0.rawValue, counts[$0] ?? 0) })
        }
        let results = report.outcomes.map { outcome in
            let showTraces = [.fail, .timeout, .crash].contains(outcome.status)
            return Result(id: outcome.caseID, area: outcome.area, engine: outcome.engine, status: outcome.status.rawValue,
                          expected: outcome.expected.rawValue, as_expected: outcome.meetsExpectation,
                          reason: outcome.expectationReason, detail: outcome.detail,
                          seconds: (outcome.seconds * 1000).rounded() / 1000,
                          expected_trace: showTraces ? outcome.expectedTrace : nil,
                          actual_trace: showTraces ? outcome.actualTrace : nil)
        }
        return JSONText.render(Document(summary: summary, all_as_expected: report.allMeetExpectations,
                                        results: results))
    }
}

enum JUnitReport {
    static func render(_ report: ConformanceReport) -> String {
        var lines = [#"<?xml version="1.0" encoding="UTF-8"?>"#]
        let failures = report.outcomes.filter { !$0.meetsExpectation && !isError($0) }.count
        let errors = report.outcomes.filter(isError).count
        lines.append(#"<testsuites name="runloop conform" tests="\#(report.outcomes.count)" failures="\#(failures)" errors="\#(errors)">"#)
        for engine in report.engines {
            let outcomes = report.outcomes.filter { $0.engine == engine }
            let engineFailures = outcomes.filter { !$0.meetsExpectation && !isError($0) }.count
            let engineErrors = outcomes.filter(isError).count
            let skipped = outcomes.filter { $0.status == .skip }.count
            let time = outcomes.reduce(0) { $0 + $1.seconds }
            lines.append(#"  <testsuite name="\#(Markup.escape(engine))" tests="\#(outcomes.count)" failures="\#(engineFailures)" errors="\#(engineErrors)" skipped="\#(skipped)" time="\#(time)">"#)
            for outcome in outcomes {
                let open = #"    <testcase classname="\#(Markup.escape(engine)).\#(Markup.escape(outcome.area))" name="\#(Markup.escape(outcome.caseID))" time="\#(outcome.seconds)""#
                if outcome.status == .skip {
                    lines.append(open + ">")
                    lines.append(#"      <skipped message="\#(Markup.escape(outcome.detail ?? ""))"/>"#)
                    lines.append("    </testcase>")
                } else if !outcome.meetsExpectation {
                    lines.append(open + ">")
                    let message = "\(outcome.status.rawValue), expected \(outcome.expected.rawValue)"
                    let element = isError(outcome) ? "error" : "failure"
                    lines.append(#"      <\#(element) message="\#(Markup.escape(message))">\#(Markup.escape(outcome.detail ?? ""))</\#(element)>"#)
                    lines.append("    </testcase>")
                } else {
                    lines.append(open + "/>")
                }
            }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n")
    }

    /// JUnit's distinction: a case that did not run to its end (CRASH, TIMEOUT, ERROR) and was not expected to is an
    /// error; one that ran and did not match (FAIL, or an expected failure that passed) is a failure.
    static func isError(_ outcome: CaseOutcome) -> Bool {
        !outcome.meetsExpectation && [.crash, .timeout, .error].contains(outcome.status)
    }
}
