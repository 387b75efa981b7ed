// The `ref` engine: the reference run loop behind the engine contract. (Placeholder until the engine lands.)
import EngineKit
import RefRunLoop

/// The reference engine, `ref`.
public struct ReferenceEngine: RunLoopEngine {
    public init() {}
    public var name: String { "ref" }
    public var features: Set<EngineFeature> { [] }
    public func currentLoop() -> any EngineLoop { fatalError("the ref engine is not written yet") }
}
