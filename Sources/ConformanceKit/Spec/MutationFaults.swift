// The semantic faults scripts/mutation.sh plants in the reference loop, read from their tab-separated files
// (scripts/mutation/faults.tsv, faults-blind.tsv), each checked against the rule catalogue.

import Foundation

/// One fault: a change to one file of Sources/RefRunLoop written from a rule of the catalogue.
public struct MutationFault: Sendable, Equatable {
    public var id: String
    /// The catalogue rule it breaks.
    public var rule: String
    /// The file under Sources/RefRunLoop.
    public var file: String
    /// The exact text it replaces (it must occur exactly once in that file), escapes decoded.
    public var text: String
    /// What replaces it, escapes decoded.
    public var replacement: String
    /// What the fault does.
    public var description: String
    public var location: SpecLocation
}

public enum MutationFaults {
    /// Reads a faults file: one fault a line, six tab-separated fields (id, rule, file, text, replacement,
    /// description); blank lines and lines starting with `#` are comments. In the text and the replacement `\n` is a
    /// newline, `\t` a tab and `\\` a backslash; any other backslash stays as it is. Throws ``SpecError`` naming the
    /// file and line: a line without six fields or with an empty one (only the replacement may be empty), a rule
    /// that is not in `catalogue`, an id used twice.
    public static func load(path: String, catalogue: RuleCatalogue) throws -> [MutationFault] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SpecError(SpecLocation(file: path, line: 0), "no fault file \(path)")
        }
        return try parse(String(decoding: data, as: UTF8.self), file: path, catalogue: catalogue)
    }

    public static func parse(_ text: String, file: String, catalogue: RuleCatalogue) throws -> [MutationFault] {
        var faults: [MutationFault] = []
        var seen: Set<String> = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let location = SpecLocation(file: file, line: index + 1)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 6, fields.indices.allSatisfy({ $0 == 4 || !fields[$0].isEmpty }) else {
                throw SpecError(
                    location,
                    "a fault needs six tab-separated fields (id, rule, file, text, replacement, "
                        + "description)")
            }
            let fault = MutationFault(
                id: fields[0], rule: fields[1], file: fields[2], text: unescape(fields[3]),
                replacement: unescape(fields[4]), description: fields[5], location: location)
            guard catalogue.rule(fault.rule) != nil else {
                throw SpecError(
                    location, caseID: nil, field: "rule",
                    "fault \(fault.id): rule '\(fault.rule)' is not in \(catalogue.path)")
            }
            guard seen.insert(fault.id).inserted else {
                throw SpecError(location, "fault id '\(fault.id)' is used twice")
            }
            faults.append(fault)
        }
        return faults
    }

    /// `\n`, `\t` and `\\` decoded; every other backslash pair stays as it is.
    static func unescape(_ text: String) -> String {
        var result = ""
        var characters = text.makeIterator()
        while let character = characters.next() {
            guard character == "\\", let next = characters.next() else {
                result.append(character)
                continue
            }
            switch next {
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "\\": result.append("\\")
            default:
                result.append(character)
                result.append(next)
            }
        }
        return result
    }
}
