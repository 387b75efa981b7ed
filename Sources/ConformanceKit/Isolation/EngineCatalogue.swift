// The one place an engine is looked up by its selector: the engines an executable hosts by name, and a loader for the
// ones made on request (`cf:PATH`). `runloop` (its worker, `--isolation none` and the option help), the tests' worker
// and the tests all use a catalogue; the package's own is `BuiltinEngines.catalogue` (Sources/Engines).

import EngineKit

/// Makes an engine a worker does not host by name (`cf:PATH`): nil when `selector` is not of its family.
public typealias EngineLoader = @Sendable (_ selector: String) -> Result<any RunLoopEngine, any Error>?

/// Engines by selector.
public struct EngineCatalogue: Sendable {
    /// The hosted engines, in the order of the report's columns.
    public let engines: [any RunLoopEngine]
    /// Makes the engines that are not hosted by name.
    public let loader: EngineLoader?

    public init(engines: [any RunLoopEngine], loader: EngineLoader? = nil) {
        self.engines = engines
        self.loader = loader
    }

    /// The hosted engines' names.
    public var names: [String] { engines.map(\.name) }

    /// The same catalogue with `more` engines hosted after these.
    public func adding(_ more: [any RunLoopEngine]) -> EngineCatalogue {
        EngineCatalogue(engines: engines + more, loader: loader)
    }

    /// The hosted engine named `selector`, or the one the loader makes of it (which may fail, with the loader's
    /// reason); nil when neither knows the selector, so that the caller words what "unknown" means to its user.
    public func engine(_ selector: String) -> Result<any RunLoopEngine, WorkerError>? {
        if let engine = engines.first(where: { $0.name == selector }) { return .success(engine) }
        return loader?(selector).map { $0.mapError { WorkerError(description: "\($0)") } }
    }

    /// The engine object a description selects, in this process (for `--isolation none`). Throws ``WorkerError``.
    public func make(_ description: EngineDescription) throws -> any RunLoopEngine {
        guard let found = engine(description.selector) else {
            throw WorkerError(description: "unknown engine '\(description.selector)'")
        }
        return try found.get()
    }
}
