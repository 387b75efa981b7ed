// Rules x cases: which cases pin each catalogue rule, which rules are pinned by fewer than two cases, and which rule
// ids cases cite that the catalogue lacks. What `runloop rules` prints.

import Foundation

/// The coverage of a rule catalogue by a spec's cases.
public struct RuleCoverage: Sendable {
    /// A rule and the ids of the cases that cite it, in spec order.
    public struct Row: Sendable, Codable {
        public var rule: String
        public var cases: [String]
    }

    /// A rule id a case cites that the catalogue does not define.
    public struct UnknownCitation: Sendable, Codable {
        public var rule: String
        public var caseID: String
        public var location: String

        enum CodingKeys: String, CodingKey {
            case rule
            case caseID = "case"
            case location
        }
    }

    /// Every catalogue rule, in catalogue order.
    public var rows: [Row]
    public var unknownCitations: [UnknownCitation]
    /// Cases that cite no rule (allowed in a spec of your own; the shipped spec has none).
    public var casesWithoutRules: [String]
    public var catalogue: RuleCatalogue

    /// A rule needs two cases so that no single case's quirk is all that pins it.
    public static let minimumCases = 2

    /// Rules cited by fewer than ``minimumCases`` cases.
    public var thinRules: [Row] { rows.filter { $0.cases.count < Self.minimumCases } }

    /// Whether every rule has enough cases and every cited id is in the catalogue.
    public var isComplete: Bool { thinRules.isEmpty && unknownCitations.isEmpty }

    public init(catalogue: RuleCatalogue, cases: [SpecCase]) {
        var citing: [String: [String]] = [:]
        var unknown: [UnknownCitation] = []
        for specCase in cases {
            for id in specCase.rules {
                if catalogue.rule(id) == nil {
                    unknown.append(UnknownCitation(rule: id, caseID: specCase.id, location: "\(specCase.location)"))
                }
                citing[id, default: []].append(specCase.id)
            }
        }
        self.catalogue = catalogue
        rows = catalogue.rules.map { Row(rule: $0.id, cases: citing[$0.id] ?? []) }
        unknownCitations = unknown
        casesWithoutRules = cases.filter(\.rules.isEmpty).map(\.id)
    }

    /// Loads the spec at `specPath` without checking its rule ids (they are reported here instead) and measures
    /// the catalogue's coverage by it.
    public static func load(specPath: String, catalogue: RuleCatalogue) throws -> RuleCoverage {
        let cases = try SpecLoader.$ruleCheck.withValue(.none) { try SpecLoader.load(path: specPath) }.flatMap(\.cases)
        return RuleCoverage(catalogue: catalogue, cases: cases)
    }

    // MARK: Rendering

    /// Rules x cases as a table: one line per rule with its case count and ids, then the rules with too few cases
    /// and any unknown citations.
    public func renderTable() -> String {
        let width = max(4, rows.map(\.rule.count).max() ?? 0)
        var lines = ["rule".padding(toLength: width, withPad: " ", startingAt: 0) + "  cases"]
        for row in rows {
            let name = row.rule.padding(toLength: width, withPad: " ", startingAt: 0)
            let count = String(row.cases.count).leftPadded(to: 3)
            lines.append("\(name)  \(count)  \(row.cases.joined(separator: ", "))")
        }
        lines.append("")
        lines.append("\(rows.count) rules in \(catalogue.path) (CF source: \(catalogue.cfSource))")
        let thin = thinRules
        lines.append(thin.isEmpty ? "rules with fewer than \(Self.minimumCases) cases: none"
                     : "rules with fewer than \(Self.minimumCases) cases (\(thin.count)): "
                       + thin.map { "\($0.rule) (\($0.cases.count))" }.joined(separator: ", "))
        for citation in unknownCitations {
            lines.append("\(citation.location): case '\(citation.caseID)': field 'rules': unknown rule '\(citation.rule)'")
        }
        if !casesWithoutRules.isEmpty {
            lines.append("cases citing no rule (\(casesWithoutRules.count)): \(casesWithoutRules.joined(separator: ", "))")
        }
        return lines.joined(separator: "\n")
    }

    private struct JSONReport: Codable {
        var catalogue: String
        var cfSource: String
        var minimumCases: Int
        var rules: [Row]
        var thinRules: [String]
        var unknownCitations: [UnknownCitation]
        var casesWithoutRules: [String]

        enum CodingKeys: String, CodingKey {
            case catalogue
            case cfSource = "cf_source"
            case minimumCases = "minimum_cases"
            case rules
            case thinRules = "thin_rules"
            case unknownCitations = "unknown_citations"
            case casesWithoutRules = "cases_without_rules"
        }
    }

    /// The same as JSON: `rules` (id and cases per rule), `thin_rules`, `unknown_citations`, `cases_without_rules`.
    public func renderJSON() -> String {
        let report = JSONReport(catalogue: catalogue.path, cfSource: catalogue.cfSource, minimumCases: Self.minimumCases,
                                rules: rows, thinRules: thinRules.map(\.rule), unknownCitations: unknownCitations,
                                casesWithoutRules: casesWithoutRules)
        return JSONText.render(report)
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
