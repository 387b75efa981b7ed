// Reading a JSON document that a runloop command wrote, defensively, before decoding it: a missing, empty, truncated
// or foreign file (a CSV, another command's JSON) is refused with a message naming the file and what it is instead.
// `runloop conform merge`, `runloop fuzz merge` and `runloop site` read their inputs through it.

import Foundation

/// The kinds of JSON documents runloop writes, by their top-level members.
package enum JSONDocumentKind: Equatable {
    /// `runloop conform --json-out`: `results` and `format_version`, no `format`.
    case conformance
    /// `runloop fuzz --json-out` (`format` "runloop fuzz"), or an older fuzz summary (`findings`, no `format`).
    case fuzz
    /// `runloop fuzz merge --json-out`.
    case fuzzMerge
    case other

    /// What a message calls it.
    package var name: String {
        switch self {
        case .conformance: return "a conformance results file (runloop conform --json-out)"
        case .fuzz: return "a fuzz report (runloop fuzz --json-out)"
        case .fuzzMerge: return "a merged fuzz report (runloop fuzz merge --json-out)"
        case .other: return "not a JSON document runloop writes"
        }
    }
}

package enum JSONInput {
    /// The bytes of `path`. Throws ``ConformanceJSONError`` for a missing or unreadable file.
    package static func contents(_ path: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw ConformanceJSONError(file: path, detail: exists ? "cannot read the file" : "no such file")
        }
        return data
    }

    /// The document's top-level object and its kind. Throws ``ConformanceJSONError`` for an empty file, one cut
    /// short, one that is not JSON (a CSV, say) or whose top level is not an object.
    package static func object(_ data: Data, file: String) throws -> (object: [String: Any], kind: JSONDocumentKind) {
        let text = String(decoding: data.prefix(4096), as: UTF8.self)
        guard let first = text.first(where: { !$0.isWhitespace }) else {
            throw ConformanceJSONError(file: file, detail: "empty file (a run that wrote nothing?)")
        }
        guard first == "{" || first == "[" else {
            let line = text.split(separator: "\n").first.map(String.init) ?? ""
            let csv = line.hasPrefix("#") || line.contains(",") ? " (a CSV file?)" : ""
            throw ConformanceJSONError(file: file, detail: "not JSON\(csv): it starts with '\(line.prefix(40))'")
        }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data)
        } catch {
            if let open = ConformanceJSON.unclosed(data) {
                throw ConformanceJSONError(
                    file: file,
                    detail: "cut short: the file ends at line \(open.line) with "
                        + "\(open.depth) bracket\(open.depth == 1 ? "" : "s") open (a run interrupted while writing?)")
            }
            let reason = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
            throw ConformanceJSONError(file: file, detail: "not JSON (\(reason))")
        }
        guard let object = parsed as? [String: Any] else {
            throw ConformanceJSONError(
                file: file, detail: "not a runloop JSON document: its top level is not an object")
        }
        return (object, kind(of: object))
    }

    static func kind(of object: [String: Any]) -> JSONDocumentKind {
        switch object["format"] as? String {
        case "runloop fuzz": return .fuzz
        case "runloop fuzz merge": return .fuzzMerge
        case nil:
            if object["results"] != nil, object["format_version"] != nil { return .conformance }
            if object["findings"] != nil, object["first_seed"] != nil { return .fuzz }
            return .other
        default: return .other
        }
    }
}
