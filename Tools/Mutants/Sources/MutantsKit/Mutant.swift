// A mutant: one mechanical change to one site of a source file, with its stable key.

/// The operators, each generating mutants at its own kind of site (Operators/*.swift).
public enum MutationOperator: String, CaseIterable, Sendable, Comparable {
    case negateCondition = "negate-condition"
    case replaceComparison = "replace-comparison"
    case dropCall = "drop-call"
    case dropAssignment = "drop-assignment"
    case swapStatements = "swap-statements"
    case returnEarly = "return-early"
    case offByOne = "off-by-one"

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One mutant of a source file.
public struct Mutant: Sendable, Equatable {
    /// The run-time id (`REF_MUTANT`): its position in the manifest, from 1. Not stable across source changes.
    public var id: Int
    /// The file's name (no directory).
    public var file: String
    /// The enclosing declaration, e.g. `RefRunLoop.exitCheck(_:handled:stopAfterHandle:)`.
    public var declaration: String
    public var mutationOperator: MutationOperator
    /// The original text, whitespace normalised (for swap-statements both statements, for return-early the body's
    /// first statement).
    public var original: String
    /// The mutated text, whitespace normalised.
    public var mutated: String
    /// Among mutants with the same file, declaration, operator and original text (and mutated text), its ordinal.
    public var ordinal: Int
    /// Where the site starts in the original file, 1-based.
    public var line: Int
    public var column: Int

    /// The key as read from a manifest (Manifest.read), which keeps no declaration or ordinal of its own.
    var storedKey: String? = nil

    /// The stable key: independent of line numbers, so an equivalents list survives edits elsewhere in the file.
    public var key: String {
        storedKey ?? "\(file) \(declaration) \(mutationOperator.rawValue) #\(ordinal): \(original) => \(mutated)"
    }
}

/// Collapses every run of whitespace (newlines included) to one space, and trims the ends.
func normalisedWhitespace(_ text: String) -> String {
    text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
}
