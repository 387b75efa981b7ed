// Composing YAML text with Yams, and what a syntax error Yams throws says: its line and its problem.

import Yams

/// A YAML syntax error, located.
public struct YAMLSyntaxError: Error, Sendable {
    /// What Yams says, as Yams classifies it.
    public enum Problem: Sendable {
        /// The scanner's, parser's or composer's words (its context and problem, joined by ": ").
        case syntax(String)
        /// Keys that appear twice in one mapping, sorted.
        case duplicateKeys([String])
        /// libyaml's reader (bad encoding, control characters): its problem, and the offending character's code, or
        /// -1 when it has none.
        case reader(problem: String, character: Int32)
        /// Anything else, as Yams describes it.
        case other(String)
    }

    /// The line of the error: Yams's mark, or for a reader error the line its byte offset falls on; nil when Yams
    /// gives neither.
    public var line: Int?
    public var problem: Problem
    /// Yams's own description of the error.
    public var yamsDescription: String

    /// Locates what Yams threw.
    public init(_ error: YamlError) {
        yamsDescription = "\(error)"
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            line = mark.line
            self.problem = .syntax(
                [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }
                    .joined(separator: ": "))
        case .duplicatedKeysInMapping(let duplicates, let context):
            line = context.mark.line
            problem = .duplicateKeys(duplicates.sorted())
        case .reader(let problem, let offset, let value, let yaml):
            // libyaml's reader gives a byte offset, not a mark.
            line = 1 + yaml.utf8.prefix(max(offset ?? 0, 0)).reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            self.problem = .reader(problem: problem, character: value)
        default:
            line = nil
            problem = .other("\(error)")
        }
    }
}

public enum YAMLSyntax {
    /// The text's root node, nil for an empty document. Throws ``YAMLSyntaxError`` for what Yams rejects.
    public static func compose(_ text: String) throws -> Node? {
        do {
            return try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw YAMLSyntaxError(error)
        }
    }
}
