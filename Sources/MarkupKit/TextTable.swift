// Tables for a terminal: columns padded to their widest cell, and text wrapped at words.
import Foundation

/// Plain-text layout.
public enum TextTable {
    /// Lays out rows in columns padded to the widest cell, two spaces apart, each line after `indent` and without
    /// trailing spaces; `underlineHeader` puts dashes under the first row. Ends with a newline (empty for no rows).
    public static func aligned(_ rows: [[String]], indent: String, underlineHeader: Bool = false) -> String {
        guard let columns = rows.map(\.count).max(), columns > 0 else { return "" }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        var lines: [String] = []
        for (index, row) in rows.enumerated() {
            let line = row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
            var trimmed = line
            while trimmed.last == " " { trimmed.removeLast() }
            lines.append(indent + trimmed)
            if underlineHeader && index == 0 {
                lines.append(indent + widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` in lines of at most `width` characters, broken at spaces (a longer word stays whole).
    public static func wrap(_ text: String, width: Int) -> [String] {
        guard text.count > width else { return [text] }
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if !current.isEmpty, current.count + 1 + word.count > width {
                lines.append(current)
                current = String(word)
            } else {
                current += (current.isEmpty ? "" : " ") + word
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
