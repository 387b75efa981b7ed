// A results CSV's bytes and their content hash, read before the file is parsed: the history knows a run by its hash,
// so a file it already holds (the same bytes) is never parsed again.
import Foundation
import ResultsKit

/// A results file read but not yet parsed.
public struct RunFile: Sendable {
    /// The file's path as given.
    public let path: String
    /// SHA-256 of the file's bytes (``RunRecord/contentHash``).
    public let contentHash: String
    let data: Data

    /// Reads the bytes of `path` and hashes them.
    /// - Throws: `HistoryError` naming the file when it cannot be read.
    public static func read(path: String) throws -> RunFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HistoryError.file(path, "cannot read the file")
        }
        return RunFile(path: path, contentHash: SHA256.hex(data), data: data)
    }

    /// Parses the file's bytes as a results CSV.
    /// - Throws: `HistoryError` naming the file (and line) for text that is not UTF-8 or a malformed CSV.
    public func results() throws -> ResultsFile {
        guard let text = String(data: data, encoding: .utf8) else {
            throw HistoryError.file(path, "not UTF-8 text")
        }
        do {
            return try ResultsReader.parse(text: text, file: path)
        } catch let error as InputError {
            throw HistoryError(error.description)
        }
    }

    /// Parses and checks the file.
    /// - Throws: `HistoryError` naming the file (and line) for a malformed CSV, or a missing or malformed context line.
    public func record() throws -> RunRecord {
        try RunRecord(results: results(), hash: contentHash)
    }
}
