// Where a YAML input was written, and a problem in it: what every reader of the project's YAML files (spec cases,
// expectations, the rule catalogue, known divergences, benchmark targets) reports.

/// A file and a line in it.
public struct YAMLLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }
    public var description: String { "\(file):\(line)" }
}

/// A problem in a YAML file. Its description names file, line, case and field.
public struct YAMLError: Error, Sendable, CustomStringConvertible {
    public var location: YAMLLocation
    public var caseID: String?
    public var field: String?
    public var message: String

    public init(_ location: YAMLLocation, caseID: String? = nil, field: String? = nil, _ message: String) {
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
