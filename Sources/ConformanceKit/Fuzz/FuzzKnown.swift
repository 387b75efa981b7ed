// Known, explained divergences between engines: CF defects the spec deliberately does not assert. The fuzzer reports a
// divergence that one of them explains apart from the unexplained ones, which are failures. The reviewed list ships
// as Sources/ConformanceSpec/fuzz-known.yaml:
//
//   spec_version: 1
//   known:
//     - id: cf.timer-tolerance-not-stored
//       engine: cf                      # the engine whose behaviour is the defect
//       reason: "..."                   # why, with the CF source lines
//       lines: ['^tolerance \w+ ']      # every line that differs between the traces matches one of these
//       actions: [setTolerance]         # these verbs, in this order, in one trigger's `do` (inside one callout)
//
// An entry explains a divergence only when all its conditions hold; it must have `lines`, `actions` or both, so that
// it cannot explain everything. Matching is done on the shrunk case, whose every part is needed for the divergence.

import Foundation

/// One known divergence.
public struct KnownDivergence: Sendable {
    public var id: String
    public var engine: String
    public var reason: String
    /// Regular expressions; every differing line (of either trace) must match one. Nil: any lines.
    public var lines: [String]?
    /// Action verbs (ActionParser's) that must appear in this order in one trigger's `do` list (or a helper thread's
    /// started from a trigger): what one callout does. Nil: any case.
    public var actions: [String]?
    public var location: SpecLocation

    /// Whether this entry explains the divergence of `specCase` between the traces `first` and `second`.
    public func explains(_ specCase: SpecCase, first: [String], second: [String]) -> Bool {
        if let actions, !FuzzKnown.actionLists(of: specCase).contains(where: { FuzzKnown.contains($0, inOrder: actions) }) {
            return false
        }
        if let lines {
            let patterns = lines.compactMap { try? NSRegularExpression(pattern: $0) }
            let differing = TraceDiff.edits(expected: first, actual: second).compactMap { edit -> String? in
                switch edit {
                case .same: return nil
                case .removed(let line), .added(let line): return line
                }
            }
            for line in differing {
                let range = NSRange(line.startIndex..., in: line)
                guard patterns.contains(where: { $0.firstMatch(in: line, range: range) != nil }) else { return false }
            }
        }
        return true
    }
}

/// Loading the known-divergences file and matching against it.
public enum FuzzKnown {
    /// Loads a known-divergences file. Throws ``SpecError`` naming the file, line and field.
    public static func load(file path: String) throws -> [KnownDivergence] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw SpecError(SpecLocation(file: path, line: 0), "cannot read the file: \(error.localizedDescription)")
        }
        return try parse(text, file: path)
    }

    public static func parse(_ text: String, file: String) throws -> [KnownDivergence] {
        let root = try SpecLoader.composeYAML(text, file: file)
        var top = try root.fields()
        let version = try top.required("spec_version").int()
        guard version == specFormatVersion else {
            throw root.error("spec_version \(version) is not supported (this runner reads version \(specFormatVersion))")
        }
        var seen = Set<String>()
        let entries = try (top.optional("known")?.sequence() ?? []).map { value -> KnownDivergence in
            var fields = try value.fields()
            let idValue = try fields.required("id")
            let id = try idValue.string()
            guard seen.insert(id).inserted else { throw idValue.error("duplicate id '\(id)'") }
            let engine = try fields.required("engine").string()
            let reason = try fields.required("reason").string()
            let lines = try fields.optional("lines")?.sequence().map { line -> String in
                let pattern = try line.string()
                do { _ = try NSRegularExpression(pattern: pattern) } catch {
                    throw line.error("not a regular expression: \(pattern)")
                }
                return pattern
            }
            let actions = try fields.optional("actions")?.sequence().map { verb -> String in
                let word = try verb.string()
                guard ActionParser.verbs.contains(word) else {
                    throw verb.error("unknown action '\(word)' (one of \(ActionParser.verbs.joined(separator: ", ")))")
                }
                return word
            }
            guard lines != nil || actions != nil else {
                throw value.error("a known divergence needs 'lines', 'actions' or both, or it would explain everything")
            }
            try fields.finish(allowed: ["id", "engine", "reason", "lines", "actions"])
            return KnownDivergence(id: id, engine: engine, reason: reason, lines: lines, actions: actions,
                                   location: value.location)
        }
        try top.finish(allowed: ["spec_version", "known"])
        return entries
    }

    /// The first entry that explains the divergence, if any.
    public static func explanation(in known: [KnownDivergence], for specCase: SpecCase, first: [String],
                                   second: [String]) -> KnownDivergence? {
        known.first { $0.explains(specCase, first: first, second: second) }
    }

    /// The action lists a case runs inside callouts, as lists of verbs: each trigger's, and the helper threads'
    /// those start.
    static func actionLists(of specCase: SpecCase) -> [[String]] {
        var lists: [[String]] = []
        func visit(_ actions: [Action]) {
            lists.append(actions.map(verb))
            for case .thread(_, let inner) in actions { visit(inner) }
        }
        for trigger in specCase.triggers { visit(trigger.actions) }
        return lists
    }

    static func contains(_ list: [String], inOrder wanted: [String]) -> Bool {
        var next = wanted.startIndex
        for word in list where next < wanted.endIndex && word == wanted[next] { next += 1 }
        return next == wanted.endIndex
    }

    /// The spec's verb for an action.
    static func verb(_ action: Action) -> String {
        switch action {
        case .add: return "add"
        case .remove: return "remove"
        case .contains: return "contains"
        case .addCommonMode: return "addCommonMode"
        case .signal: return "signal"
        case .write: return "write"
        case .wakeUp: return "wakeup"
        case .stop: return "stop"
        case .stopMode: return "stopMode"
        case .invalidate: return "invalidate"
        case .setNextFireDate: return "setNextFireDate"
        case .setTolerance: return "setTolerance"
        case .run: return "run"
        case .perform: return "perform"
        case .mark: return "mark"
        case .stall: return "stall"
        case .query: return "query"
        case .thread: return "thread"
        }
    }
}
