// The engines `runloop` hosts, by name, and the family it loads on request (`cf:PATH`).

import CFEngine
import ConformanceKit
import EngineKit
import LoadedCFEngine
import RefEngine

enum EngineRegistry {
    /// Every built-in engine, in the order of the report's columns.
    static let all: [any RunLoopEngine] = [CoreFoundationEngine(), ReferenceEngine()]

    static var names: [String] { all.map(\.name) }

    /// Makes the engines that are not built in: `cf:PATH`.
    static let loader: EngineLoader = LoadedCFEngine.loadEngine

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
