// A conformance run's results by rule level (RuleLevel) and engine, so that a report can say "nothing is amiss at api
// and cf level" and leave the platform-level results apart. The terminal summary, the JSON report and the page show it.

import Foundation
import MarkupKit

/// The results of a report by case level and engine.
public struct LevelSummary: Sendable {
    /// One level's results on one engine.
    public struct Cell: Sendable {
        public var level: RuleLevel
        public var engine: String
        public var tally: ResultTally
        /// Results not as expected (failures, timeouts, crashes, errors, unexpected passes).
        public var notAsExpected: Int { tally.results - tally.asExpected }
    }

    /// The levels the report's cases have, from the most general.
    public var levels: [RuleLevel]
    public var engines: [String]
    /// Level by level, engine by engine.
    public var cells: [Cell]
    /// Results of cases without a level (a spec of your own whose cases cite no rule).
    public var unleveled: Int

    public init(_ report: ConformanceReport, triage: Triage? = nil) {
        levels = report.levels
        engines = report.engines
        cells = levels.flatMap { level in
            report.engines.map { engine in
                Cell(
                    level: level, engine: engine,
                    tally: ResultTally(
                        report.outcomes.filter {
                            $0.engine == engine && report.level(caseID: $0.caseID) == level
                        }, triage: triage))
            }
        }
        unleveled = report.outcomes.filter { report.level(caseID: $0.caseID) == nil }.count
    }

    public func cell(level: RuleLevel, engine: String) -> Cell? {
        cells.first { $0.level == level && $0.engine == engine }
    }

    /// Results not as expected at `level`, over every engine.
    public func notAsExpected(level: RuleLevel) -> Int {
        cells.filter { $0.level == level }.reduce(0) { $0 + $1.notAsExpected }
    }

    /// "Not as expected by level: api 0, cf 0, platform 2 (INTERPRETING.md, "The rule catalogue")", or nil when no
    /// case has a level.
    public var verdict: String? {
        guard !levels.isEmpty else { return nil }
        return "Not as expected by level: "
            + levels.map { "\($0.rawValue) \(notAsExpected(level: $0))" }
            .joined(separator: ", ") + " (levels: INTERPRETING.md, \u{201C}The rule catalogue\u{201D})"
    }

    /// The terminal's lines: the verdict, then a line per level and engine with its tally.
    public var textLines: [String] {
        guard let verdict else { return [] }
        let width = levels.map(\.rawValue.count).max() ?? 0
        return [verdict]
            + cells.map { cell in
                "  " + cell.level.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)
                    + " on \(cell.engine): \(cell.tally.text)"
            }
    }

    /// A table of levels by engines (results, as expected, not as expected) and the verdict; empty when no case has
    /// a level.
    public var html: String {
        guard let verdict else { return "" }
        var out =
            "<h2 id=\"levels\">By level</h2>\n<p class=\"note\">A case\u{2019}s level is the most specific of "
            + "its rules\u{2019}: api (Apple\u{2019}s documented contract), cf (CF\u{2019}s shared algorithm), "
            + "platform (the wait mechanism of the platform it ran on).</p>\n"
        out += "<table>\n<tr><th>level</th>" + engines.map { "<th>\(Markup.escape($0))</th>" }.joined() + "</tr>\n"
        for level in levels {
            out += "<tr><td><b>\(level.rawValue)</b></td>"
            for engine in engines {
                guard let cell = cell(level: level, engine: engine) else {
                    out += "<td></td>"
                    continue
                }
                let unmet = cell.notAsExpected
                out +=
                    "<td class=\"\(unmet == 0 ? "met" : "missed")\">\(cell.tally.asExpected) of "
                    + "\(cell.tally.results) as expected" + (unmet == 0 ? "" : ", \(unmet) not") + "</td>"
            }
            out += "</tr>\n"
        }
        return out + "</table>\n<p>" + Markup.escape(verdict) + "</p>\n"
    }
}
