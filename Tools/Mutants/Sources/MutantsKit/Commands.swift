// The commands of ref-mutants, called by its main.swift once it has parsed the arguments.

import Foundation

public enum Commands {
    /// generate: writes the instrumented copies of `sources`' Swift files and the switch file to `out`, the manifest
    /// and the spans; returns the number of mutants.
    public static func generate(
        sources: String, out: String, manifest: String, spans: String, excludeFile: String?
    ) throws(InputError) -> Int {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: sources).filter({ $0.hasSuffix(".swift") }),
            !names.isEmpty
        else { throw InputError(file: sources, message: "not a directory of Swift files") }
        var inputs: [(name: String, text: String)] = []
        for name in names {
            let path = "\(sources)/\(name)"
            guard let data = manager.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw InputError(file: path, message: "cannot read the file")
            }
            inputs.append((name, text))
        }
        var excluded: Set<String> = []
        if let excludeFile, manager.fileExists(atPath: excludeFile) {
            excluded = Set(try InputError.lines(of: excludeFile).filter { !$0.isEmpty && !$0.hasPrefix("#") })
        }
        let generation = Generator.generate(sources: inputs, excluded: excluded)
        try? manager.removeItem(atPath: out)
        do {
            try manager.createDirectory(atPath: out, withIntermediateDirectories: true)
            for file in generation.files {
                try file.text.write(toFile: "\(out)/\(file.name)", atomically: true, encoding: .utf8)
            }
            try Manifest.write(generation.mutants).write(toFile: manifest, atomically: true, encoding: .utf8)
            try Generator.spansText(generation).write(toFile: spans, atomically: true, encoding: .utf8)
        } catch {
            throw InputError(file: out, message: "cannot write: \(error)")
        }
        return generation.mutants.count
    }

    /// blame: the keys of the mutants the build log's errors are in. Throws when an error lies in no mutant's text
    /// (the schemata themselves, or the unmutated code, do not compile).
    public static func blame(out: String, manifest: String, spans: String, log: String) throws(InputError) -> [String] {
        let mutants = try Manifest.read(path: manifest)
        let spansByFile = try Blame.readSpans(path: spans)
        let logText = try InputError.lines(of: log).joined(separator: "\n")
        let names = Set((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [])
        var ids: Set<Int> = []
        var unplaced: Blame.CompileError? = nil
        for error in Blame.errors(inLog: logText, fileNames: names) {
            let path = "\(out)/\(error.file)"
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
                let blamed = Blame.mutants(for: error, text: text, spans: spansByFile[error.file] ?? [])
            {
                ids.formUnion(blamed)
            } else {
                unplaced = error
            }
        }
        // An error outside every mutant's text whose excerpt marks no place inside one: the schemata themselves
        // do not compile.
        if ids.isEmpty, let unplaced {
            throw InputError(
                file: "\(out)/\(unplaced.file)", line: unplaced.line,
                message: "a compile error in no mutant's text (see \(log))"
            )
        }
        return mutants.filter { ids.contains($0.id) }.map(\.key)
    }

    /// The ids in a coverage file (one a line, as the switch writes them).
    public static func readCoverage(path: String) throws(InputError) -> Set<Int> {
        var ids: Set<Int> = []
        for (index, line) in try InputError.lines(of: path).enumerated() where !line.isEmpty {
            guard let id = Int(line) else { throw InputError(file: path, line: index + 1, message: "not a site id") }
            ids.insert(id)
        }
        return ids
    }

    /// select: the selected mutants to run: covered, not equivalent.
    public static func select(
        manifest: String, equivalents: String, coverage: String?, selection: Selection
    ) throws(InputError) -> [Mutant] {
        let mutants = try Manifest.read(path: manifest)
        let equivalent = try Equivalents.read(path: equivalents, mutants: mutants)
        let covered = try coverage.map { path throws(InputError) in try readCoverage(path: path) }
        return try selection.apply(to: mutants).filter { mutant in
            equivalent[mutant.key] == nil && (covered?.contains(mutant.id) ?? true)
        }
    }

    /// report: the report of a run.
    public static func report(
        manifest: String, equivalents: String, semantic: String, results: String, coverage: String,
        selection: Selection, format: String, wallSeconds: Int?
    ) throws(InputError) -> String {
        let all = try Manifest.read(path: manifest)
        let equivalent = try Equivalents.read(path: equivalents, mutants: all)
        let semanticFiles = try SemanticFiles.read(path: semantic, sourceFiles: Set(all.map(\.file)))
        let report = Report(
            mutants: try selection.apply(to: all), results: try Report.readResults(path: results),
            covered: try readCoverage(path: coverage), equivalents: equivalent, semanticFiles: semanticFiles
        )
        return report.render(format: format, wallSeconds: wallSeconds)
    }
}
