// CSV reading: the typed input error, and a tokenizer for the header-and-rows part of a
// Google Benchmark CSV file (RFC 4180 quoting, line numbers kept for every record).
import Foundation

/// A problem with an input file (a results CSV, the targets file) or a command-line value, with enough location to
/// fix it.
///
/// Every failure to read or interpret a results CSV is reported as this error, never as a crash.
/// `description` renders it compiler-style: `path:line: field 'name': detail`.
public struct InputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The exit status of a command that stops on bad input.
    public static let exitStatus: Int32 = 2

    /// What kind of bad input was found.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// The file does not exist.
        case fileNotFound = "file not found"
        /// The file exists but could not be read.
        case unreadable = "unreadable file"
        /// The file is empty or contains only blank lines.
        case emptyFile = "empty file"
        /// No line starting with `name,` was found.
        case noHeader = "no header"
        /// A column the comparison needs is absent from the header.
        case missingColumn = "missing column"
        /// The header names the same column twice.
        case duplicateColumn = "duplicate column"
        /// A row has fewer or more fields than the header (a truncated or garbled file).
        case wrongFieldCount = "wrong field count"
        /// A quoted field is never closed (a truncated file).
        case unterminatedQuote = "unterminated quote"
        /// A cell that must not be empty (the name, or a time in a data row) is empty.
        case missingValue = "missing value"
        /// A field that must hold a number holds something else.
        case nonNumeric = "non-numeric value"
        /// A `time_unit` cell holds something other than ns, us, ms or s.
        case unknownUnit = "unknown time unit"
        /// One benchmark's rows use different time units.
        case mixedUnits = "mixed units"
        /// The file has a header but no benchmark rows.
        case noBenchmarks = "no benchmarks"
        /// A command-line value is not acceptable (wrong file count, bad format name, ...).
        case invalidArgument = "invalid argument"
        /// An output file (a chart, a page) could not be written.
        case unwritableOutput = "unwritable output"
    }

    /// What kind of bad input was found.
    public let kind: Kind
    /// The path of the offending file as given by the user (or `"<arguments>"`).
    public let file: String
    /// The 1-based line number, when the problem is located on a line.
    public let line: Int?
    /// The column (or option) name involved, when there is one.
    public let field: String?
    /// A human-readable explanation, including the offending value where useful.
    public let detail: String

    /// Creates an error.
    /// - Parameters:
    ///   - kind: what kind of bad input this is.
    ///   - file: the path of the file (or `"<arguments>"` for command-line values).
    ///   - line: the 1-based line number, if known.
    ///   - field: the column or option name, if any.
    ///   - detail: a human-readable explanation.
    public init(_ kind: Kind, file: String, line: Int? = nil, field: String? = nil, detail: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.field = field
        self.detail = detail
    }

    /// `path:line: kind: field 'name': detail`, suitable for stderr.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": error: \(kind.rawValue)"
        if let field { text += ": field '\(field)'" }
        return text + ": " + detail
    }
}

/// One CSV record with the line on which it starts.
struct CSVRecord: Sendable, Equatable {
    /// The 1-based line number of the record's first character in the file.
    let line: Int
    /// The unquoted field values.
    let fields: [String]
}

/// The raw structure of a benchmark CSV: free-form context lines, then a CSV table.
struct CSVDocument: Sendable {
    /// Every line before the header, without line terminators.
    let contextLines: [String]
    /// The 1-based line number of the header.
    let headerLine: Int
    /// The header's column names, trimmed of surrounding whitespace.
    let header: [String]
    /// The records after the header; blank lines are dropped.
    let records: [CSVRecord]
}

/// Splits benchmark CSV text into context lines, header and records.
enum CSVReader {
    /// Reads and tokenizes the file at `path`.
    /// - Throws: `InputError` for a missing, unreadable, empty or header-less file,
    ///   or an unterminated quote.
    static func read(path: String) throws -> CSVDocument {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw InputError(.fileNotFound, file: path, detail: "no such file")
        }
        guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: path) else {
            throw InputError(.unreadable, file: path, detail: "cannot read the file")
        }
        return try parse(text: String(decoding: data, as: UTF8.self), file: path)
    }

    /// Tokenizes CSV `text`; `file` is used only in error messages.
    ///
    /// Every line before the first line whose first field is `name` is context. The header and
    /// everything after it is parsed as RFC 4180 CSV: fields may be double-quoted, quotes inside
    /// quoted fields are doubled, quoted fields may contain commas and line breaks.
    /// - Throws: `InputError` (`.emptyFile`, `.noHeader`, `.unterminatedQuote`).
    static func parse(text: String, file: String) throws -> CSVDocument {
        var body = Substring(text)
        if body.hasPrefix("\u{FEFF}") { body = body.dropFirst() }
        if body.allSatisfy({ $0.isWhitespace }) {
            throw InputError(.emptyFile, file: file, line: 1, detail: "the file is empty")
        }
        // Find the header line without interpreting context lines as CSV (they may hold quotes).
        // Work on UTF-8 bytes: as Characters, "\r\n" is one grapheme and would hide the "\n".
        var context: [String] = []
        var lineNumber = 1
        var headerStart: Substring.Index?
        let bytes = body.utf8
        var cursor = bytes.startIndex
        while cursor < bytes.endIndex {
            let lineEnd = bytes[cursor...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            var line = Substring(body.utf8[cursor..<lineEnd])
            if line.utf8.last == UInt8(ascii: "\r") { line = Substring(line.utf8.dropLast()) }
            if isHeader(line) {
                headerStart = cursor
                break
            }
            context.append(String(line))
            if lineEnd == bytes.endIndex { break }
            cursor = bytes.index(after: lineEnd)
            lineNumber += 1
        }
        guard let headerStart else {
            let lines = max(context.count, 1)
            throw InputError(
                .noHeader, file: file, line: lines,
                detail: "no header line starting with 'name,' in \(lines) line(s); "
                    + "is this a Google Benchmark CSV (--benchmark_out_format=csv)?")
        }
        var records = try tokenize(body[headerStart...], firstLine: lineNumber, file: file)
        let headerRecord = records.removeFirst()
        let header = headerRecord.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        return CSVDocument(contextLines: context, headerLine: lineNumber, header: header, records: records)
    }

    /// Whether a raw line is the table header: its first field is `name` (bare or quoted).
    static func isHeader(_ line: Substring) -> Bool {
        let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
        return trimmed.hasPrefix("name,") || trimmed.hasPrefix("\"name\",")
            || trimmed == "name" || trimmed == "\"name\""
    }

    /// Tokenizes RFC 4180 CSV, numbering records by the line they start on.
    static func tokenize(_ text: Substring, firstLine: Int, file: String) throws -> [CSVRecord] {
        let quote = UInt8(ascii: "\"")
        let comma = UInt8(ascii: ",")
        let newline = UInt8(ascii: "\n")
        let carriageReturn = UInt8(ascii: "\r")
        var records: [CSVRecord] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var inQuotes = false
        var fieldWasQuoted = false
        var line = firstLine
        var recordLine = firstLine
        var quoteLine = firstLine
        var sawAnything = false

        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            fieldWasQuoted = false
        }
        func endRecord() {
            endField()
            // A blank line is a single empty, unquoted field: drop it.
            let blank =
                fields.count == 1 && !sawAnything
                && fields[0].trimmingCharacters(in: .whitespaces).isEmpty
            if !blank { records.append(CSVRecord(line: recordLine, fields: fields)) }
            fields.removeAll(keepingCapacity: true)
            sawAnything = false
        }

        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if inQuotes {
                if byte == quote {
                    if index + 1 < bytes.count, bytes[index + 1] == quote {
                        field.append(quote)
                        index += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    if byte == newline { line += 1 }
                    field.append(byte)
                }
            } else if byte == quote && field.allSatisfy({ $0 == UInt8(ascii: " ") }) && !fieldWasQuoted {
                field.removeAll(keepingCapacity: true)
                inQuotes = true
                fieldWasQuoted = true
                sawAnything = true
                quoteLine = line
            } else if byte == comma {
                sawAnything = true
                endField()
            } else if byte == newline {
                endRecord()
                line += 1
                recordLine = line
            } else if byte == carriageReturn && index + 1 < bytes.count && bytes[index + 1] == newline {
                // CRLF: the LF ends the record.
            } else {
                field.append(byte)
            }
            index += 1
        }
        if inQuotes {
            throw InputError(
                .unterminatedQuote, file: file, line: quoteLine,
                detail: "a quoted field opened on this line is never closed (truncated file?)")
        }
        if !field.isEmpty || !fields.isEmpty || sawAnything { endRecord() }
        return records
    }
}
