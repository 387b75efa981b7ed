// The raw rows of Google Benchmark CSVs, each cell's text as written, and their merge into one table under one header:
// what `runloop bench` (BenchKit) does with the CSVs of its harness processes. Unlike ResultsReader, nothing here
// interprets a number: a row is passed on as the harness wrote it, counters included.
import Foundation

/// One row of a Google Benchmark CSV: its ten standard cells and its counters by name, as text.
public struct RawResultRow: Sendable, Equatable {
    /// The cells of ``ResultsReader/standardColumns``, in that order (empty where the row has none).
    public var standard: [String]
    /// The row's counter cells by column name (empty cells left out).
    public var counters: [String: String]

    /// The benchmark name as written (`BM_X/engine:ref/...`, with Google Benchmark's suffixes).
    public var name: String { standard[0] }
    /// Whether the row reports an error or a skip (`error_occurred` true).
    public var isError: Bool { standard[8].trimmingCharacters(in: .whitespaces).lowercased() == "true" }
    /// The `error_message` cell.
    public var message: String { standard[9] }

    /// What the row is: figures, or an error row the harness or `runloop bench` wrote ("error: ..." or "skipped: ...").
    public var status: RawResultRow.Status {
        guard isError else { return .measured }
        if message.hasPrefix("error:") { return .error }
        if message.hasPrefix("skipped:") { return .skipped }
        return .otherError
    }

    /// The kinds of rows.
    public enum Status: String, Sendable, CaseIterable {
        /// A row with figures (`error_occurred` not true).
        case measured
        /// An error row whose message starts with "error:" (a failure: a hang, a crash, a benchmark's own error).
        case error
        /// An error row whose message starts with "skipped:" (an engine without the feature; not a failure).
        case skipped
        /// Any other error row.
        case otherError = "other-error"
    }

    /// An error row: `name`, empty figures, `error_occurred` true and `message`.
    public init(errorNamed name: String, message: String) {
        standard = [name, "", "", "", "", "", "", "", "true", message]
        counters = [:]
    }

    init(standard: [String], counters: [String: String]) {
        self.standard = standard
        self.counters = counters
    }

    /// The row as a CSV line with `counters` columns after the standard ones, spelt as Google Benchmark spells it:
    /// the name, a label and a message quoted, every other cell bare (quoted only if it holds a comma, quote or line
    /// break).
    public func csvLine(counters columns: [String]) -> String {
        let quoted: Set<Int> = [0, 7, 9]  // name, label, error_message
        let cells =
            standard.enumerated().map { position, cell in
                quoted.contains(position) && !cell.isEmpty ? ResultsMerge.quote(cell) : ResultsMerge.bare(cell)
            } + columns.map { ResultsMerge.bare(counters[$0] ?? "") }
        return cells.joined(separator: ",")
    }
}

/// A Google Benchmark CSV read as text: the lines before its header, its counter columns and its rows.
public struct RawResultsFile: Sendable {
    public var contextLines: [String]
    /// The header's columns after the standard ones, in order.
    public var counters: [String]
    public var rows: [RawResultRow]

    public init(contextLines: [String], counters: [String], rows: [RawResultRow]) {
        self.contextLines = contextLines
        self.counters = counters
        self.rows = rows
    }

    /// Reads the CSV at `path`. Throws ``InputError`` (file, line) for a file that is not one: no header, a
    /// header that does not start with Google Benchmark's ten columns, an unterminated quote, a row with more cells
    /// than the header, or fewer when it is not an error row (a truncated file).
    public static func read(path: String) throws -> RawResultsFile {
        let document = try CSVReader.read(path: path)
        let standard = ResultsReader.standardColumns
        guard Array(document.header.prefix(standard.count)) == standard else {
            throw InputError(
                .missingColumn, file: path, line: document.headerLine,
                detail: "the header does not start with Google Benchmark's columns "
                    + "(\(ResultsMerge.header(counters: [])))")
        }
        let counters = Array(document.header.dropFirst(standard.count))
        let rows = try document.records.map { record -> RawResultRow in
            var cells = Array(record.fields.prefix(standard.count))
            cells += Array(repeating: "", count: standard.count - cells.count)
            let row = RawResultRow(standard: cells, counters: [:])
            // Google Benchmark writes an error row without counter cells, every other row with all of them.
            let complete = record.fields.count == document.header.count
            guard record.fields.count <= document.header.count, complete || row.isError else {
                throw InputError(
                    .wrongFieldCount, file: path, line: record.line,
                    detail: "the row has \(record.fields.count) fields but the header has "
                        + "\(document.header.count) (truncated or garbled row)")
            }
            var values: [String: String] = [:]
            for (column, value) in zip(counters, record.fields.dropFirst(standard.count)) where !value.isEmpty {
                values[column] = value
            }
            return RawResultRow(standard: cells, counters: values)
        }
        return RawResultsFile(contextLines: document.contextLines, counters: counters, rows: rows)
    }
}

/// One table from several Google Benchmark CSVs.
public enum ResultsMerge {
    /// Google Benchmark's header: its ten columns, then each counter quoted.
    public static func header(counters: [String]) -> String {
        (ResultsReader.standardColumns + counters.map(quote)).joined(separator: ",")
    }

    /// The files' rows under one header, the union of their counters in the order first seen (a counter a row does not
    /// have is an empty cell), preceded by the first file's context lines (Google Benchmark's) as "# gb: ..." lines.
    /// Google Benchmark 1.7.1's `_cv` aggregate rows are wrong (their times are not ratios, their counters can be
    /// nan), so they are left out; CV = stddev / mean from the other rows.
    public static func merge(_ files: [RawResultsFile]) -> String {
        var counters: [String] = []
        for file in files {
            for counter in file.counters where !counters.contains(counter) { counters.append(counter) }
        }
        var lines = (files.first?.contextLines ?? []).filter { !$0.isEmpty }.map { "# gb: " + $0 }
        lines.append(header(counters: counters))
        for file in files {
            for row in file.rows where !row.name.hasSuffix("_cv") {
                lines.append(row.csvLine(counters: counters))
            }
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// `rows` (a header of columns up to the counters, then data rows) with Google Benchmark's two error columns and
    /// an error row for each of `errors`: its name, `error_occurred` true and the message. Unchanged when there is no
    /// error. A counting run's CSV says so what did not finish, rather than leaving it out.
    public static func withErrorRows(_ rows: [String], errors: [(name: String, why: String)]) -> [String] {
        guard let header = rows.first, !errors.isEmpty else { return rows }
        // A counting run's header has no quoted comma: its columns are its commas plus one.
        let columns = header.split(separator: ",", omittingEmptySubsequences: false).count
        let errorRows = errors.map { error in
            quote(error.name) + String(repeating: ",", count: columns) + "true," + quote(error.why)
        }
        return [header + ",error_occurred,error_message"] + rows.dropFirst().map { $0 + ",," } + errorRows
    }

    static func quote(_ cell: String) -> String {
        "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func bare(_ cell: String) -> String {
        cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) ? quote(cell) : cell
    }
}
