// Bad input: a message naming the file and the line, for an exit status 2.

import Foundation

public struct InputError: Error, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String

    public init(file: String, line: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)" }

    /// A text file's lines (without their newlines).
    static func lines(of path: String) throws(InputError) -> [String] {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else { throw InputError(file: path, message: "cannot read the file") }
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}
