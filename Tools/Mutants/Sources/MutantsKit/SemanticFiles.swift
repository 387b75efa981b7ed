// The semantic files: the reference loop's files that carry CFRunLoop's semantics (the run pass, modes, items,
// timers, the wait set, the main queue), over which the report gives a second score. One file name a line
// (# starts a comment); every name must be a file of the sources.

public enum SemanticFiles {
    public static func read(path: String, sourceFiles: Set<String>) throws(InputError) -> Set<String> {
        var result: Set<String> = []
        for (index, line) in try InputError.lines(of: path).enumerated() {
            let name = line.trimmingWhitespace
            if name.isEmpty || name.hasPrefix("#") { continue }
            guard sourceFiles.contains(name) else {
                throw InputError(file: path, line: index + 1, message: "no source file '\(name)'")
            }
            result.insert(name)
        }
        return result
    }
}
