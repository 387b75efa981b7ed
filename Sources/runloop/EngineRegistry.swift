// The engines `runloop` hosts (the package's one list, Sources/Engines/BuiltinEngines.swift), and how it makes one for
// `--isolation none`.

import ConformanceKit
import EngineKit
import Engines

enum EngineRegistry {
    /// Every built-in engine, in the order of the report's columns.
    static var all: [any RunLoopEngine] { BuiltinEngines.all }

    static var names: [String] { BuiltinEngines.names }

    /// Makes the engines that are not built in: `cf:PATH`.
    static var loader: EngineLoader { BuiltinEngines.loader }

    /// The engine object a description selects, in this process (for `--isolation none`).
    static func make(_ description: EngineDescription) throws -> any RunLoopEngine {
        if let engine = all.first(where: { $0.name == description.selector }) { return engine }
        switch loader(description.selector) {
        case .success(let engine)?: return engine
        case .failure(let error)?: throw WorkerError(description: "\(error)")
        case nil: throw WorkerError(description: "unknown engine '\(description.selector)'")
        }
    }
}
