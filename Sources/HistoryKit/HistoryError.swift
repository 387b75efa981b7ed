// What goes wrong in the history, each with the exit status the command line gives it.

/// An error of the benchmark history. Every case names the file (and line or context key) it is about.
public struct HistoryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The message, starting with the file or database it is about.
    public let message: String

    /// Creates an error with its full message.
    public init(_ message: String) {
        self.message = message
    }

    /// `FILE: error: ...` for an input file that cannot be recorded.
    static func file(_ path: String, line: Int? = nil, _ detail: String) -> HistoryError {
        HistoryError("\(path)\(line.map { ":\($0)" } ?? ""): error: \(detail)")
    }

    /// `DB: error: ...` for the database itself.
    static func database(_ path: String, _ detail: String) -> HistoryError {
        HistoryError("\(path): error: \(detail)")
    }

    /// Bad command-line values.
    static func usage(_ detail: String) -> HistoryError {
        HistoryError("error: \(detail)")
    }

    public var description: String { message }
}
