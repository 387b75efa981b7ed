// A case's `rules:` field: the catalogue rules it pins, each checked against the rule catalogue as it is read.

import Foundation
import YAMLKit

extension SpecLoader {
    /// Which catalogue a case's rule ids are checked against while loading.
    public enum RuleCheck: Sendable {
        /// The shipped catalogue (the default: a typo in a rule id is bad input, like any other field).
        case shipped
        /// This catalogue.
        case catalogue(RuleCatalogue)
        /// None: ids are read as written. For `runloop rules`, which reports ids missing from the catalogue
        /// itself rather than stopping at the first.
        case none
    }

    /// The catalogue the loader checks rule ids against. A task-local rather than a parameter so that the few
    /// callers who want another check say so around their call, and the loader's signatures stay as they are.
    @TaskLocal public static var ruleCheck: RuleCheck = .shipped

    /// The level of a case citing `ids` (already checked by ``parseRules(_:)``), from the catalogue of
    /// ``ruleCheck``; nil with no catalogue.
    static func levelOfRules(_ ids: [String]) throws -> RuleLevel? {
        if ids.isEmpty { return nil }
        switch ruleCheck {
        case .shipped: return try RuleCatalogue.shipped().level(ofRules: ids)
        case .catalogue(let given): return given.level(ofRules: ids)
        case .none: return nil
        }
    }

    /// Reads `rules: [ID, ...]`: at least one id, no repeats, each in the catalogue. Absent means none.
    static func parseRules(_ value: YAMLValue?) throws -> [String] {
        guard let value else { return [] }
        let entries = try value.sequence()
        guard !entries.isEmpty else { throw value.error("give at least one rule id, or leave the field out") }
        let catalogue: RuleCatalogue?
        switch ruleCheck {
        case .shipped: catalogue = try RuleCatalogue.shipped()
        case .catalogue(let given): catalogue = given
        case .none: catalogue = nil
        }
        var ids: [String] = []
        for entry in entries {
            let id = try entry.string()
            guard !ids.contains(id) else { throw entry.error("rule '\(id)' is listed twice") }
            if let catalogue, catalogue.rule(id) == nil {
                throw entry.error("unknown rule '\(id)' (not in the rule catalogue \(catalogue.path))")
            }
            ids.append(id)
        }
        return ids
    }
}
