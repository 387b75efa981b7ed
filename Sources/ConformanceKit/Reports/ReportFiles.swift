// The files a conformance report is also written to (`--json-out`, `--junit-out`, `--html`), for `runloop conform`
// and `runloop conform merge` alike.
import Foundation

/// A report file that could not be written. Its description names the file.
public struct ReportFileError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "cannot write \(path): \(reason)" }
}

/// Where each rendering of a report goes; nil: not asked for.
public struct ReportFiles: Sendable {
    public var json: String?
    public var junit: String?
    public var html: String?

    public init(json: String?, junit: String?, html: String?) {
        self.json = json
        self.junit = junit
        self.html = html
    }

    /// Writes each file asked for: the JSON and JUnit renderings of `report`, and `page()` as the HTML (made only when
    /// asked for). Throws ``ReportFileError`` for the first file that cannot be written.
    public func write(_ report: ConformanceReport, page: () -> String) throws {
        try write(json) { ReportFormat.json.render(report) }
        try write(junit) { ReportFormat.junit.render(report) }
        try write(html, page)
    }

    private func write(_ path: String?, _ render: () -> String) throws {
        guard let path else { return }
        do {
            try render().write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw ReportFileError(path: path, reason: error.localizedDescription)
        }
    }
}
