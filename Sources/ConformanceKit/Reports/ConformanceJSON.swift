// Reading back the JSON report that `runloop conform --json-out` writes (JSONReport), so that a run's page can be
// made later and elsewhere (`runloop site`). The outcomes come from the file; what the report knows of each case
// beyond its outcomes (its rules, its any-order groups, the callouts its items can make) comes from the spec the
// caller loads, as it does for a run. Traces in the file are capped (TraceCap), so a runaway trace's tail is gone.

import Foundation

/// A conformance JSON file that cannot be read: the file, and the field or place that is wrong.
public struct ConformanceJSONError: Error, CustomStringConvertible, Sendable, Equatable {
    public let file: String
    public let detail: String

    public init(file: String, detail: String) {
        self.file = file
        self.detail = detail
    }

    public var description: String { "\(file): \(detail)" }
}

/// The reader of `runloop conform --format json` documents (``ConformanceDocument``, format versions 2 to 4).
public enum ConformanceJSON {
    /// The versions this build reads: 4 records the runs' contexts; 3 names the engines in their order; 2 lists them
    /// only in its results.
    public static let readableVersions = 2...ConformanceDocument.formatVersion

    /// The report in the file at `path`. `cases` (the spec the run used, or any superset) give each case's facts;
    /// cases of the file that are not among them have none, which the triage and the page tolerate.
    /// - Throws: ``ConformanceJSONError`` naming the file and the field for an unreadable, truncated or foreign file.
    public static func read(path: String, cases: [SpecCase] = []) throws -> ConformanceReport {
        try parse(try JSONInput.contents(path), file: path, cases: cases)
    }

    /// The report in `data`, read from `file` (for messages).
    public static func parse(_ data: Data, file: String, cases: [SpecCase] = []) throws -> ConformanceReport {
        let kind = try JSONInput.object(data, file: file).kind
        guard kind == .conformance else {
            throw ConformanceJSONError(
                file: file,
                detail: kind == .other
                    ? "not a runloop conform JSON report (no results and format_version)"
                    : kind.name + ", not conformance results (runloop conform --json-out)")
        }
        let document: ConformanceDocument
        do {
            document = try JSONDecoder().decode(ConformanceDocument.self, from: data)
        } catch let error as DecodingError {
            throw ConformanceJSONError(file: file, detail: describe(error))
        }
        guard readableVersions.contains(document.format_version) else {
            throw ConformanceJSONError(
                file: file,
                detail: "field format_version: \(document.format_version) is not "
                    + "a version this runloop reads (\(readableVersions.lowerBound) to \(readableVersions.upperBound))")
        }
        var engines = document.engines ?? []
        if let twice = engines.indices.first(where: { engines[..<$0].contains(engines[$0]) }) {
            throw ConformanceJSONError(file: file, detail: "field engines[\(twice)]: '\(engines[twice])' twice")
        }
        let runs = document.runs ?? []
        for (index, run) in runs.enumerated() {
            if let earlier = runs[..<index].firstIndex(where: { ConformanceMerge.sameRun($0, run) }) {
                throw ConformanceJSONError(
                    file: file, detail: "field runs[\(index)]: the same run as runs[\(earlier)] (\(run.date))")
            }
        }
        var caseIDs: [String] = []
        var seenCases = Set<String>()
        var outcomes: [CaseOutcome] = []
        for (index, result) in document.results.enumerated() {
            func status(_ text: String, _ field: String) throws -> CaseStatus {
                guard let status = CaseStatus(rawValue: text) else {
                    throw ConformanceJSONError(
                        file: file,
                        detail: "field results[\(index)].\(field): '\(text)' is "
                            + "not a status (" + CaseStatus.allCases.map(\.rawValue).joined(separator: ", ") + ")")
                }
                return status
            }
            if !engines.contains(result.engine) {
                guard document.engines == nil else {
                    throw ConformanceJSONError(
                        file: file,
                        detail: "field results[\(index)].engine: '\(result.engine)' "
                            + "is not one of the document's engines (" + engines.joined(separator: ", ") + ")")
                }
                engines.append(result.engine)
            }
            if seenCases.insert(result.id).inserted { caseIDs.append(result.id) }
            outcomes.append(
                CaseOutcome(
                    caseID: result.id, area: result.area, engine: result.engine,
                    status: try status(result.status, "status"),
                    expected: try status(result.expected, "expected"),
                    expectationReason: result.reason, detail: result.detail,
                    expectedTrace: result.expected_trace, actualTrace: result.actual_trace,
                    seconds: result.seconds))
        }
        let used = cases.filter { seenCases.contains($0.id) }
        var report = ConformanceReport(engines: engines, outcomes: outcomes, caseIDs: caseIDs, cases: used)
        report.runs = runs
        for (index, run) in report.runs.enumerated() {
            for engine in run.engines where !engines.contains(engine.column) {
                throw ConformanceJSONError(
                    file: file,
                    detail: "field runs[\(index)].engines: '\(engine.column)' is not one of the document's engines")
            }
        }
        return report
    }

    /// Where a truncated document ends: its last line and how many objects and arrays are still open there (outside
    /// strings); `nil` when every bracket closes.
    package static func unclosed(_ data: Data) -> (line: Int, depth: Int)? {
        var depth = 0
        var line = 1
        var inString = false
        var escaped = false
        for byte in data {
            if byte == UInt8(ascii: "\n") { line += 1 }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return depth > 0 || inString ? (line, max(depth, 1)) : nil
    }

    /// "field results[3].status: missing", "not JSON: ...", for a decoding error.
    package static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            var text = ""
            for key in codingPath {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return text.isEmpty ? "the document" : "field " + text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return path(context.codingPath + [key]) + ": missing (not a runloop conform JSON report?)"
        case .typeMismatch(let type, let context):
            return path(context.codingPath) + ": not a \(type)"
        case .valueNotFound(let type, let context):
            return path(context.codingPath) + ": null where a \(type) belongs"
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as NSError?).map {
                ($0.userInfo[NSDebugDescriptionErrorKey] as? String) ?? $0.localizedDescription
            }
            return context.codingPath.isEmpty
                ? "not JSON, or cut short (" + (underlying ?? context.debugDescription) + ")"
                : path(context.codingPath) + ": " + context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }
}
