// The equivalent mutants: a TSV file of `key<TAB>why` lines (# starts a comment line), each a mutant that no test
// can kill because it does not change what the loop does, with the reason read from the code.

public enum Equivalents {
    /// Key -> why. A line that is not `key<TAB>why`, a repeated key, or a key that matches no mutant of `mutants`
    /// is an error naming the file and the line.
    public static func read(path: String, mutants: [Mutant]) throws(InputError) -> [String: String] {
        let keys = Set(mutants.map(\.key))
        var result: [String: String] = [:]
        for (index, line) in try InputError.lines(of: path).enumerated() {
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 2, !fields[0].isEmpty, !fields[1].trimmingWhitespace.isEmpty else {
                throw InputError(file: path, line: index + 1, message: "not 'key<TAB>why'")
            }
            guard keys.contains(fields[0]) else {
                throw InputError(
                    file: path, line: index + 1,
                    message: "no mutant has the key '\(fields[0])' (the code changed: remove or update the line)"
                )
            }
            guard result[fields[0]] == nil else {
                throw InputError(file: path, line: index + 1, message: "the key '\(fields[0])' is listed twice")
            }
            result[fields[0]] = fields[1]
        }
        return result
    }
}

extension String {
    var trimmingWhitespace: String { normalisedWhitespace(self) }
}
