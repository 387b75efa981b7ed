// Typed reading of a composed YAML tree, with errors that name the file, the line, the case and the field.

import Yams

/// A problem in a spec or expectations file. Its description names file, line, case and field.
public struct SpecError: Error, Sendable, CustomStringConvertible {
    public var location: SpecLocation
    public var caseID: String?
    public var field: String?
    public var message: String

    public init(_ location: SpecLocation, caseID: String? = nil, field: String? = nil, _ message: String) {
        self.location = location
        self.caseID = caseID
        self.field = field
        self.message = message
    }

    public var description: String {
        var text = "\(location): "
        if let caseID { text += "case '\(caseID)': " }
        if let field { text += "field '\(field)': " }
        return text + message
    }
}

/// A YAML node with the context needed to report a problem with it.
package struct YAMLValue {
    package let node: Node
    package let file: String
    /// The case being read, once its id is known.
    package var caseID: String?
    /// The dotted path of the field, e.g. `steps[2].run.seconds`.
    package var field: String

    package var location: SpecLocation { SpecLocation(file: file, line: node.mark?.line ?? 0) }

    package func error(_ message: String) -> SpecError {
        SpecError(location, caseID: caseID, field: field.isEmpty ? nil : field, message)
    }

    private func child(_ node: Node, _ suffix: String) -> YAMLValue {
        YAMLValue(node: node, file: file, caseID: caseID, field: field.isEmpty ? suffix : field + suffix)
    }

    // MARK: Scalars

    package var isScalar: Bool { if case .scalar = node { return true } else { return false } }

    package func string() throws -> String {
        guard case .scalar(let scalar) = node else { throw error("expected a string, found \(kindName)") }
        return scalar.string
    }

    package func int() throws -> Int {
        guard isScalar, let value = node.int else { throw error("expected an integer, found \(describe)") }
        return value
    }

    /// A number; accepts YAML's `.inf`, `-.inf` and `.nan`.
    package func double() throws -> Double {
        guard isScalar, let value = node.float ?? node.int.map(Double.init) else {
            throw error("expected a number, found \(describe)")
        }
        return value
    }

    package func bool() throws -> Bool {
        guard isScalar, let value = node.bool else { throw error("expected true or false, found \(describe)") }
        return value
    }

    // MARK: Collections

    package func sequence() throws -> [YAMLValue] {
        guard case .sequence(let sequence) = node else { throw error("expected a list, found \(kindName)") }
        return sequence.enumerated().map { child($0.element, "[\($0.offset)]") }
    }

    /// A list, or a single value read as a one-element list.
    package func listOrOne() -> [YAMLValue] {
        (try? sequence()) ?? [self]
    }

    /// The pairs of a mapping in order; duplicate keys are an error.
    package func mapping() throws -> [(key: String, value: YAMLValue)] {
        guard case .mapping(let mapping) = node else { throw error("expected a mapping, found \(kindName)") }
        var seen = Set<String>()
        var pairs: [(key: String, value: YAMLValue)] = []
        for (keyNode, valueNode) in mapping {
            let key = try YAMLValue(node: keyNode, file: file, caseID: caseID, field: field).string()
            guard seen.insert(key).inserted else {
                throw child(keyNode, field.isEmpty ? key : ".\(key)").error("duplicate key '\(key)'")
            }
            pairs.append((key, child(valueNode, field.isEmpty ? key : ".\(key)")))
        }
        return pairs
    }

    /// A mapping read field by field; `finish()` rejects keys nobody asked for.
    package func fields() throws -> Fields { Fields(owner: self, pairs: try mapping()) }

    /// A mapping with exactly one key (the action and item spelling `{verb: argument}`), or a plain string
    /// standing for `{string: null}`.
    package func singleKey() throws -> (key: String, value: YAMLValue?) {
        if case .scalar(let scalar) = node { return (scalar.string, nil) }
        let pairs = try mapping()
        guard pairs.count == 1 else {
            throw error("expected one key, found \(pairs.count): \(pairs.map(\.key).joined(separator: ", "))")
        }
        return (pairs[0].key, pairs[0].value)
    }

    private var kindName: String {
        switch node {
        case .scalar: return "a scalar"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    private var describe: String {
        if case .scalar(let scalar) = node { return "'\(scalar.string)'" }
        return kindName
    }
}

/// The fields of one mapping, consumed by name.
package struct Fields {
    package let owner: YAMLValue
    private var remaining: [(key: String, value: YAMLValue)]

    package init(owner: YAMLValue, pairs: [(key: String, value: YAMLValue)]) {
        self.owner = owner
        self.remaining = pairs
    }

    package mutating func optional(_ key: String) -> YAMLValue? {
        guard let index = remaining.firstIndex(where: { $0.key == key }) else { return nil }
        return remaining.remove(at: index).value
    }

    package mutating func required(_ key: String) throws -> YAMLValue {
        guard let value = optional(key) else {
            let unknown = remaining.map(\.key)
            let hint = unknown.isEmpty ? "" : " (found instead: \(unknown.joined(separator: ", ")))"
            var message = owner.error("missing field '\(key)'" + hint)
            message.field = owner.field.isEmpty ? key : owner.field + "." + key
            throw message
        }
        return value
    }

    /// Fails on the first key not in `allowed`, before any is read, so a misspelt field is named as such rather
    /// than surfacing as a consequence (an item "not declared" because `items` was misspelt).
    package func rejectUnknown(allowed: [String]) throws {
        if let extra = remaining.first(where: { !allowed.contains($0.key) }) {
            throw extra.value.error("unknown field '\(extra.key)' (allowed: \(allowed.joined(separator: ", ")))")
        }
    }

    /// Fails on the first key that was not read: a misspelt field is an error, not silently ignored.
    package func finish(allowed: [String]) throws {
        if let extra = remaining.first {
            throw extra.value.error("unknown field '\(extra.key)' (allowed: \(allowed.joined(separator: ", ")))")
        }
    }
}
