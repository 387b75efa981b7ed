// What `--engine` selects: names of the engines a worker hosts, `all` of them, and engines a worker makes on request
// (`cf:PATH`, a CoreFoundation library loaded at run time), each checked by a worker before any case runs.

import Foundation

/// Resolving an `--engine` value.
public enum EngineSelection {
    /// Parses a comma-separated list of hosted engine names, `all` (every hosted engine: the built-in ones), and
    /// selectors a worker loads (`cf:PATH`). A loaded engine is described by a worker process first, so a path that is
    /// no library, or a library without the run-loop API, is an error here (with the worker's reason) rather than a
    /// column of ERROR cases. Throws ``WorkerError``.
    public static func resolve(
        _ value: String, hosted: [EngineDescription],
        launcher: WorkerLauncher
    ) throws -> [EngineDescription] {
        var chosen: [EngineDescription] = []
        for item in value.split(separator: ",").map({ String($0).trimmingCharacters(in: .whitespaces) }) {
            if item == "all" {
                chosen += hosted
            } else if let engine = hosted.first(where: { $0.name == item }) {
                chosen.append(engine)
            } else if item.contains(":") {
                chosen.append(try IsolatedRunner.describeEngine(launcher, selector: item))
            } else {
                throw WorkerError(
                    description: "unknown engine '\(item)' (known: "
                        + (hosted.map(\.name) + ["all", "cf:PATH"]).joined(separator: ", ") + ")")
            }
        }
        // The same engine twice is run once; two engines with one name (two libraries with the same file name in
        // different directories) cannot be told apart in a report.
        var unique: [EngineDescription] = []
        for engine in chosen {
            guard let same = unique.first(where: { $0.name == engine.name }) else {
                unique.append(engine)
                continue
            }
            if sameTarget(same.selector, engine.selector) { continue }
            throw WorkerError(
                description: "'\(same.selector)' and '\(engine.selector)' would both be named "
                    + "\(engine.name) (a library's engine is named after its file name): give one of them "
                    + "another file name, e.g. a symbolic link: ln -s \(path(of: engine.selector)) "
                    + "libother.so, then --engine cf:libother.so")
        }
        guard !unique.isEmpty else { throw WorkerError(description: "--engine names no engine") }
        return unique
    }

    /// Whether two selectors name the same file (`cf:libx.so` and `cf:./libx.so`) or are the same.
    private static func sameTarget(_ first: String, _ second: String) -> Bool {
        if first == second { return true }
        guard let a = realpath(path(of: first), nil), let b = realpath(path(of: second), nil) else { return false }
        defer {
            free(a)
            free(b)
        }
        return strcmp(a, b) == 0
    }

    /// The path of a `cf:PATH` selector (anything after the first colon).
    private static func path(of selector: String) -> String {
        guard let colon = selector.firstIndex(of: ":") else { return selector }
        return String(selector[selector.index(after: colon)...])
    }
}
