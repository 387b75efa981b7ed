// Rules x cases: which cases pin each catalogue rule, in which contexts (CaseContext.swift), which rules are pinned by
// fewer than two cases or only in polls, and which rule ids cases cite that the catalogue lacks. What `runloop rules`
// prints.

import Foundation

/// The coverage of a rule catalogue by a spec's cases.
public struct RuleCoverage: Sendable {
    /// A rule and the ids of the cases that cite it, in spec order.
    public struct Row: Sendable, Codable {
        public var rule: String
        public var cases: [String]
        /// The contexts the citing cases pin the rule in.
        public var contexts: RuleContexts
        /// Each citing case's own contexts, in words (``CaseContext/summary``), in spec order.
        public var caseContexts: [CaseContextEntry]
        /// The catalogue's `exposes`: what a violation would change.
        public var exposes: String?
        /// The rule's level.
        public var level: RuleLevel

        enum CodingKeys: String, CodingKey {
            case rule, level, cases, contexts
            case caseContexts = "case_contexts"
            case exposes
        }
    }

    /// One citing case and its contexts, for the JSON report.
    public struct CaseContextEntry: Sendable, Codable {
        public var caseID: String
        public var contexts: String

        enum CodingKeys: String, CodingKey {
            case caseID = "case"
            case contexts
        }
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

    /// Rules whose every citing case runs only polls: where a leaked stop, a lost wake-up or an ignored timeout
    /// cannot change the trace. Some rules are about polls and belong here (timeout.poll); `exposes` says which.
    public var pollOnlyRules: [Row] { rows.filter(\.contexts.onlyPolls) }

    /// Rules whose catalogue entry does not say what a violation would change.
    public var rulesWithoutExposes: [String] { rows.filter { $0.exposes == nil }.map(\.rule) }

    /// Whether every rule has enough cases and every cited id is in the catalogue.
    public var isComplete: Bool { thinRules.isEmpty && unknownCitations.isEmpty }

    public init(catalogue: RuleCatalogue, cases: [SpecCase]) {
        var citing: [String: [String]] = [:]
        var contexts: [String: [CaseContext]] = [:]
        var entries: [String: [CaseContextEntry]] = [:]
        var unknown: [UnknownCitation] = []
        for specCase in cases {
            let context = CaseContext(specCase)
            for id in specCase.rules {
                contexts[id, default: []].append(context)
                entries[id, default: []].append(CaseContextEntry(caseID: specCase.id, contexts: context.summary))
                if catalogue.rule(id) == nil {
                    unknown.append(UnknownCitation(rule: id, caseID: specCase.id, location: "\(specCase.location)"))
                }
                citing[id, default: []].append(specCase.id)
            }
        }
        self.catalogue = catalogue
        rows = catalogue.rules.map {
            Row(
                rule: $0.id, cases: citing[$0.id] ?? [], contexts: RuleContexts(contexts[$0.id] ?? []),
                caseContexts: entries[$0.id] ?? [], exposes: $0.exposes, level: $0.level)
        }
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

    /// Rules x cases as a table: one line per rule with its case count and ids, a line with the contexts its cases
    /// pin it in and one with what a violation would expose; then the rules with too few cases, those pinned only in
    /// polls, and any unknown citations.
    public func renderTable() -> String {
        let width = max(4, rows.map(\.rule.count).max() ?? 0)
        let levelWidth = RuleLevel.allCases.map(\.rawValue.count).max() ?? 0
        var lines = [
            "rule".padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                + "level".padding(toLength: levelWidth, withPad: " ", startingAt: 0) + "  cases"
        ]
        let indent = String(repeating: " ", count: width + levelWidth + 9)
        for row in rows {
            let name = row.rule.padding(toLength: width, withPad: " ", startingAt: 0)
            let level = row.level.rawValue.padding(toLength: levelWidth, withPad: " ", startingAt: 0)
            let count = String(row.cases.count).leftPadded(to: 3)
            lines.append("\(name)  \(level)  \(count)  \(row.cases.joined(separator: ", "))")
            lines.append("\(indent)contexts: \(row.contexts.summary)")
            if let exposes = row.exposes { lines.append("\(indent)exposes: \(exposes)") }
        }
        lines.append("")
        lines.append("\(rows.count) rules in \(catalogue.path) (CF source: \(catalogue.cfSource))")
        lines.append(levelCountsText)
        let thin = thinRules
        lines.append(
            thin.isEmpty
                ? "rules with fewer than \(Self.minimumCases) cases: none"
                : "rules with fewer than \(Self.minimumCases) cases (\(thin.count)): "
                    + thin.map { "\($0.rule) (\($0.cases.count))" }.joined(separator: ", "))
        let polls = pollOnlyRules
        lines.append(
            polls.isEmpty
                ? "rules pinned only in polls: none"
                : "rules pinned only in polls (\(polls.count)): " + polls.map(\.rule).joined(separator: ", "))
        let silent = rulesWithoutExposes
        if !silent.isEmpty {
            lines.append("rules without exposes (\(silent.count)): \(silent.joined(separator: ", "))")
        }
        for citation in unknownCitations {
            lines.append(
                "\(citation.location): case '\(citation.caseID)': field 'rules': unknown rule '\(citation.rule)'")
        }
        if !casesWithoutRules.isEmpty {
            lines.append(
                "cases citing no rule (\(casesWithoutRules.count)): \(casesWithoutRules.joined(separator: ", "))")
        }
        return lines.joined(separator: "\n")
    }

    /// "rules per level: api 19, cf 66, platform 6", counted from the catalogue.
    public var levelCountsText: String {
        "rules per level: " + catalogue.levelCounts.map { "\($0.level.rawValue) \($0.rules)" }.joined(separator: ", ")
    }

    private struct JSONReport: Codable {
        var catalogue: String
        var cfSource: String
        /// How many rules each level has.
        var levels: [String: Int]
        var minimumCases: Int
        var rules: [Row]
        var thinRules: [String]
        var pollOnlyRules: [String]
        var rulesWithoutExposes: [String]
        var unknownCitations: [UnknownCitation]
        var casesWithoutRules: [String]

        enum CodingKeys: String, CodingKey {
            case catalogue
            case cfSource = "cf_source"
            case levels
            case minimumCases = "minimum_cases"
            case rules
            case thinRules = "thin_rules"
            case pollOnlyRules = "poll_only_rules"
            case rulesWithoutExposes = "rules_without_exposes"
            case unknownCitations = "unknown_citations"
            case casesWithoutRules = "cases_without_rules"
        }
    }

    /// The same as JSON: `levels` (rules per level), `rules` (id, level, cases, contexts, each case's contexts and
    /// exposes per rule), `thin_rules`, `poll_only_rules`, `rules_without_exposes`, `unknown_citations`,
    /// `cases_without_rules`.
    public func renderJSON() -> String {
        let levels = Dictionary(uniqueKeysWithValues: catalogue.levelCounts.map { ($0.level.rawValue, $0.rules) })
        let report = JSONReport(
            catalogue: catalogue.path, cfSource: catalogue.cfSource, levels: levels,
            minimumCases: Self.minimumCases,
            rules: rows, thinRules: thinRules.map(\.rule), pollOnlyRules: pollOnlyRules.map(\.rule),
            rulesWithoutExposes: rulesWithoutExposes, unknownCitations: unknownCitations,
            casesWithoutRules: casesWithoutRules)
        return JSONText.render(report)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
