// Blame: the compile errors of a schemata build traced back to the mutants whose text they are in, so that those
// mutants are excluded and the schemata generated again (a mutant that does not compile is never counted).

import Foundation

public enum Blame {
    /// One compile error: the instrumented file's name, its line and column (1-based).
    public struct CompileError: Equatable {
        public var file: String
        public var line: Int
        public var column: Int
    }

    /// The errors of a build log in the files named `fileNames`: each `PATH:LINE:COLUMN: error: …` line, and the
    /// places its excerpt marks (`` `- note: consumed here``, as swiftc's default diagnostic style prints them), which
    /// for an error such as "used after consume" are where the mutant's text is.
    public static func errors(inLog log: String, fileNames: Set<String>) -> [CompileError] {
        var errors: [CompileError] = []
        var current: String? = nil  // the file of the error whose excerpt is being read
        var excerptLine: Int? = nil
        var gutter = 0  // the excerpt's column where source text starts
        for line in log.split(separator: "\n", omittingEmptySubsequences: false) {
            if let marker = line.range(of: ": error: ") {
                current = nil
                let fields = line[..<marker.lowerBound].split(separator: ":", omittingEmptySubsequences: false)
                guard fields.count >= 3, let row = Int(fields[fields.count - 2]),
                    let column = Int(fields[fields.count - 1])
                else { continue }
                let name = (fields.dropLast(2).joined(separator: ":") as NSString).lastPathComponent
                guard fileNames.contains(name) else { continue }
                errors.append(CompileError(file: name, line: row, column: column))
                current = name
                continue
            }
            guard let file = current else { continue }
            let text = Array(line)
            if let bar = text.firstIndex(of: "|") {
                let number = String(text[..<bar]).trimmingCharacters(in: .whitespaces)
                if let row = Int(number) {
                    excerptLine = row
                    gutter = bar + 2
                } else if number.isEmpty, let tick = text.firstIndex(of: "`"), let row = excerptLine,
                    tick >= gutter,
                    String(text[tick...]).hasPrefix("`- note:") || String(text[tick...]).hasPrefix("`- error:")
                {
                    errors.append(CompileError(file: file, line: row, column: tick - gutter + 1))
                }
            } else if line.trimmingCharacters(in: .whitespaces).isEmpty == false, !line.hasPrefix(" ") {
                current = nil
            }
        }
        return errors
    }

    /// The mutants an error is blamed on: those of the smallest span holding its position; nil when none holds it.
    public static func mutants(
        for error: CompileError, text: String, spans: [(range: Range<Int>, ids: [Int])]
    ) -> [Int]? {
        let bytes = Array(text.utf8)
        var offset = 0
        var line = 1
        while line < error.line, offset < bytes.count {
            if bytes[offset] == UInt8(ascii: "\n") { line += 1 }
            offset += 1
        }
        offset += error.column - 1
        let holding = spans.filter { $0.range.contains(offset) || $0.range.upperBound == offset }
        return holding.min(by: { $0.range.count < $1.range.count })?.ids
    }

    /// Reads a spans file written by `generate` (file, start, end, ids).
    public static func readSpans(path: String) throws(InputError) -> [String: [(range: Range<Int>, ids: [Int])]] {
        var result: [String: [(range: Range<Int>, ids: [Int])]] = [:]
        for (index, line) in try InputError.lines(of: path).enumerated() where !line.isEmpty {
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 4, let start = Int(fields[1]), let end = Int(fields[2]), start <= end else {
                throw InputError(file: path, line: index + 1, message: "not a spans line (file, start, end, ids)")
            }
            let ids = fields[3].split(separator: ",").compactMap { Int($0) }
            result[fields[0], default: []].append((start..<end, ids))
        }
        return result
    }
}
