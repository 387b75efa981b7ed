// The one limit on how much of a trace (or a diff of traces) a report shows, in every format: the table, JSON, JUnit
// and the HTML page. Recording has its own, larger limit (CaseExecution.maxTraceLines), which stops a runaway engine.

/// Cuts a trace for a report: the first ``lines`` lines, then a note saying how many more there were.
public enum TraceCap {
    /// How many lines of a trace, or of a diff, a report shows. No case of the shipped spec expects more than a few
    /// dozen lines, so this shows every line of a case that went wrong and the start of one that ran away.
    public static let lines = 200

    /// `trace` itself when it has at most `limit` lines; else its first `limit` lines and "... N more lines".
    public static func apply(_ trace: [String], limit: Int = lines) -> [String] {
        guard trace.count > limit else { return trace }
        return Array(trace.prefix(limit)) + [note(more: trace.count - limit)]
    }

    /// Caps a multi-line text (a diff) the same way.
    public static func apply(text: String, limit: Int = lines) -> String {
        let split = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard split.count > limit else { return text }
        return (split.prefix(limit).map(String.init) + [note(more: split.count - limit)]).joined(separator: "\n")
    }

    /// "... 9800 more lines".
    public static func note(more: Int) -> String { "... \(more) more line\(more == 1 ? "" : "s")" }
}
