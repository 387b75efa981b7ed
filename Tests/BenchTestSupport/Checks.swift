// What the benchmark-tool tests share besides fixtures: the repository's root, a well-formedness check of XML, and a
// comparison of floating-point figures.
import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The repository's root, from this file's path.
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Parses `text` as XML; returns the parser's error (with its line), or nil if it is well-formed.
public func xmlProblem(_ text: String) -> String? {
    let parser = XMLParser(data: Data(text.utf8))
    if parser.parse() { return nil }
    return
        "line \(parser.lineNumber), column \(parser.columnNumber): \(parser.parserError.map { "\($0)" } ?? "unknown")"
}

/// |a - b| <= tolerance * max(1, |b|).
public func close(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-9) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance * max(1, abs(b))
}
