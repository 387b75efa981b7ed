// What `--engine` selects: names of the engines a worker hosts, `all` of them, and engines a worker makes on request
// (`cf:PATH`, a CoreFoundation library loaded at run time), each checked by a worker before any case runs.

import Foundation

/// Resolving an `--engine` value.
public enum EngineSelection {
    /// Parses a comma-separated list of hosted engine names, `all` (every hosted engine: the built-in ones), and
    /// selectors a worker loads (`cf:PATH`). A loaded engine is described by a worker process first, so a path that is
    /// no library, or a library without the run-loop API, is an error here (with the worker's reason) rather than a
    /// column of ERROR cases. Throws ``WorkerError``.
    public static func resolve(_ value: String, hosted: [EngineDescription],
                               launcher: WorkerLauncher) throws -> [EngineDescription] {
        var chosen: [EngineDescription] = []
        for item in value.split(separator: ",").map({ String($0).trimmingCharacters(in: .whitespaces) }) {
            if item == "all" {
                chosen += hosted
            } else if let engine = hosted.first(where: { $0.name == item }) {
                chosen.append(engine)
            } else if item.contains(":") {
                chosen.append(try IsolatedRunner.describeEngine(launcher, selector: item))
            } else {
                throw WorkerError(description: "unknown engine '\(item)' (known: "
                                  + (hosted.map(\.name) + ["all", "cf:PATH"]).joined(separator: ", ") + ")")
            }
        }
        var seen = Set<String>()
        let unique = chosen.filter { seen.insert($0.name).inserted }
        guard !unique.isEmpty else { throw WorkerError(description: "--engine names no engine") }
        return unique
    }
}
