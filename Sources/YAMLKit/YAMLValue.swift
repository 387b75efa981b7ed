// Typed reading of a composed YAML tree, with errors that name the file, the line, the case and the field. The spec
// loader (ConformanceKit) and the benchmark targets file (ReportKit) read through it; each words its messages with a
// ``YAMLWording``.

import Yams

/// How a reader words its problems: the spec's files say what they found instead, the targets file is terser.
public struct YAMLWording: Sendable {
    /// "expected a string, found a mapping" rather than "expected a text value".
    public var namesWhatItFound: Bool
    /// An empty string is an error ("expected a text value").
    public var refusesEmptyStrings: Bool
    /// The message for a required field that is missing, given the field and the keys that are there.
    public var missing: @Sendable (_ key: String, _ present: [String]) -> String
    /// A missing field's error names the field itself rather than the mapping it is missing from.
    public var missingNamesTheField: Bool
    /// The message for a key nobody read, given the key and the allowed ones (empty when the caller names none).
    public var unknown: @Sendable (_ key: String, _ allowed: [String]) -> String
    /// A duplicate key is reported at its value rather than at the key.
    public var duplicateAtValue: Bool

    public init(
        namesWhatItFound: Bool, refusesEmptyStrings: Bool,
        missing: @escaping @Sendable (_ key: String, _ present: [String]) -> String, missingNamesTheField: Bool,
        unknown: @escaping @Sendable (_ key: String, _ allowed: [String]) -> String, duplicateAtValue: Bool
    ) {
        self.namesWhatItFound = namesWhatItFound
        self.refusesEmptyStrings = refusesEmptyStrings
        self.missing = missing
        self.missingNamesTheField = missingNamesTheField
        self.unknown = unknown
        self.duplicateAtValue = duplicateAtValue
    }

    /// The spec files' wording (cases, expectations, the rule catalogue, known divergences).
    public static let spec = YAMLWording(
        namesWhatItFound: true, refusesEmptyStrings: false,
        missing: { key, present in
            "missing field '\(key)'" + (present.isEmpty ? "" : " (found instead: \(present.joined(separator: ", ")))")
        },
        missingNamesTheField: true,
        unknown: { key, allowed in "unknown field '\(key)' (allowed: \(allowed.joined(separator: ", ")))" },
        duplicateAtValue: false)
}

/// A YAML node with the context needed to report a problem with it.
public struct YAMLValue {
    public let node: Node
    public let file: String
    /// The case being read, once its id is known.
    public var caseID: String?
    /// The dotted path of the field, e.g. `steps[2].run.seconds`.
    public var field: String
    public var wording: YAMLWording

    public init(node: Node, file: String, caseID: String?, field: String, wording: YAMLWording = .spec) {
        self.node = node
        self.file = file
        self.caseID = caseID
        self.field = field
        self.wording = wording
    }

    public var location: YAMLLocation { YAMLLocation(file: file, line: node.mark?.line ?? 0) }

    public func error(_ message: String) -> YAMLError {
        YAMLError(location, caseID: caseID, field: field.isEmpty ? nil : field, message)
    }

    /// The same node under another field name (`targets[2]` for an entry of `targets`).
    public func renamed(_ name: String) -> YAMLValue {
        YAMLValue(node: node, file: file, caseID: caseID, field: name, wording: wording)
    }

    private func child(_ node: Node, _ suffix: String) -> YAMLValue {
        YAMLValue(
            node: node, file: file, caseID: caseID, field: field.isEmpty ? suffix : field + suffix,
            wording: wording)
    }

    private func mismatch(_ expected: String, found: String) -> YAMLError {
        error(wording.namesWhatItFound ? "expected \(expected), found \(found)" : "expected \(expected)")
    }

    // MARK: Scalars

    public var isScalar: Bool { if case .scalar = node { return true } else { return false } }
    public var isSequence: Bool { if case .sequence = node { return true } else { return false } }

    /// YAML's null: a scalar tagged `!!null`, empty, `~` or `null`.
    public var isNull: Bool {
        guard case .scalar(let scalar) = node else { return false }
        return scalar.tag == Tag(.null) || scalar.string.isEmpty || scalar.string == "~" || scalar.string == "null"
    }

    public func string() throws -> String {
        if wording.refusesEmptyStrings {
            guard case .scalar(let scalar) = node, !scalar.string.isEmpty else { throw error("expected a text value") }
            return scalar.string
        }
        guard case .scalar(let scalar) = node else { throw mismatch("a string", found: kindName) }
        return scalar.string
    }

    public func int() throws -> Int {
        guard isScalar, let value = node.int else { throw mismatch("an integer", found: describe) }
        return value
    }

    /// A number; accepts YAML's `.inf`, `-.inf` and `.nan`.
    public func double() throws -> Double {
        guard isScalar, let value = node.float ?? node.int.map(Double.init) else {
            throw mismatch("a number", found: describe)
        }
        return value
    }

    public func bool() throws -> Bool {
        guard isScalar, let value = node.bool else { throw mismatch("true or false", found: describe) }
        return value
    }

    // MARK: Collections

    public func sequence() throws -> [YAMLValue] {
        guard case .sequence(let sequence) = node else { throw mismatch("a list", found: kindName) }
        return sequence.enumerated().map { child($0.element, "[\($0.offset)]") }
    }

    /// The pairs of a mapping in order; duplicate keys are an error.
    public func mapping() throws -> [(key: String, value: YAMLValue)] {
        guard case .mapping(let mapping) = node else { throw mismatch("a mapping", found: kindName) }
        var seen = Set<String>()
        var pairs: [(key: String, value: YAMLValue)] = []
        for (keyNode, valueNode) in mapping {
            let key = try YAMLValue(node: keyNode, file: file, caseID: caseID, field: field, wording: wording).string()
            let value = child(valueNode, field.isEmpty ? key : ".\(key)")
            guard seen.insert(key).inserted else {
                let at = wording.duplicateAtValue ? value : child(keyNode, field.isEmpty ? key : ".\(key)")
                throw at.error("duplicate key '\(key)'")
            }
            pairs.append((key, value))
        }
        return pairs
    }

    /// A mapping read field by field; `finish()` rejects keys nobody asked for.
    public func fields() throws -> Fields { Fields(owner: self, pairs: try mapping()) }

    /// A mapping with exactly one key (the action and item spelling `{verb: argument}`), or a plain string
    /// standing for `{string: null}`.
    public func singleKey() throws -> (key: String, value: YAMLValue?) {
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
public struct Fields {
    public let owner: YAMLValue
    private var remaining: [(key: String, value: YAMLValue)]

    public init(owner: YAMLValue, pairs: [(key: String, value: YAMLValue)]) {
        self.owner = owner
        self.remaining = pairs
    }

    public mutating func optional(_ key: String) -> YAMLValue? {
        guard let index = remaining.firstIndex(where: { $0.key == key }) else { return nil }
        return remaining.remove(at: index).value
    }

    public mutating func required(_ key: String) throws -> YAMLValue {
        guard let value = optional(key) else {
            var message = owner.error(owner.wording.missing(key, remaining.map(\.key)))
            if owner.wording.missingNamesTheField {
                message.field = owner.field.isEmpty ? key : owner.field + "." + key
            }
            throw message
        }
        return value
    }

    /// Fails on the first key not in `allowed`, before any is read, so a misspelt field is named as such rather
    /// than surfacing as a consequence (an item "not declared" because `items` was misspelt).
    public func rejectUnknown(allowed: [String]) throws {
        if let extra = remaining.first(where: { !allowed.contains($0.key) }) {
            throw extra.value.error(owner.wording.unknown(extra.key, allowed))
        }
    }

    /// Fails on the first key that was not read: a misspelt field is an error, not silently ignored.
    public func finish(allowed: [String] = []) throws {
        if let extra = remaining.first {
            throw extra.value.error(owner.wording.unknown(extra.key, allowed))
        }
    }
}
