// The spec a worker serves, parsed a file at a time as its cases are asked for.
//
// Parsing YAML is most of a worker's CPU time when it parses the whole spec to serve a few cases: a shard, a test's
// handful, or the first cases after a main-thread case ended the previous worker. A worker therefore parses a file
// only when a case it is asked for is in it. The file is found by the id's text: the files that contain it are parsed
// first, then, if the case is still not found, the others in order, so a file written in any YAML style is still
// served. The runner has loaded and checked the whole spec before it starts a worker (ids unique across files among
// it), so a file parsed here holds the same cases it saw.

import Foundation

/// The cases of a spec path (a file, or the YAML files of a directory), parsed file by file on demand.
/// A value owned by the worker's serving loop (`WorkerService.serve`), which alone looks cases up.
struct ServedSpec {
    /// The spec's files, in `SpecLoader`'s order.
    let files: [String]
    private var cases: [String: SpecCase] = [:]
    private var parsed: Set<String> = []
    private var texts: [String: String] = [:]

    /// The files at `path`, none parsed yet.
    /// - Throws: `SpecError` when the path is neither a file nor a directory.
    init(path: String) throws {
        files = try SpecLoader.yamlFiles(at: path)
    }

    /// The case `id`, parsing the files it may be in; nil when no file of the spec has it.
    /// - Throws: `SpecError` from a file that does not parse (the runner's own load would have refused it first).
    mutating func specCase(_ id: String) throws -> SpecCase? {
        if let found = cases[id] { return found }
        let unparsed = files.filter { !parsed.contains($0) }
        let likely = try unparsed.filter { try text(of: $0).contains(id) }
        for file in likely + unparsed.filter({ !likely.contains($0) }) {
            try parse(file)
            if let found = cases[id] { return found }
        }
        return nil
    }

    private mutating func text(of file: String) throws -> String {
        if let known = texts[file] { return known }
        let read = try SpecLoader.readText(file)
        texts[file] = read
        return read
    }

    private mutating func parse(_ file: String) throws {
        let loaded = try SpecLoader.parse(text(of: file), file: file)
        parsed.insert(file)
        texts[file] = nil
        for specCase in loaded.cases where cases[specCase.id] == nil {
            cases[specCase.id] = specCase
        }
    }
}
