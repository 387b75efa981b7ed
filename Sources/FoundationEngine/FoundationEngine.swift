// The engine `foundation`: the toolchain's run loop driven through swift-corelibs-foundation's Swift API (RunLoop,
// Timer, RunLoop.Mode), as most Swift code drives it. Each engine call goes through Foundation where Foundation has an
// API for it, and through the CF C API of the same loop (the `cf` engine's function table of the toolchain's
// CoreFoundation) only where it has none: sources, observers, CFRunLoopRunInMode's result, stop, wake-up, the modes'
// contents. So every trace still shows the observers' activities. Which call goes where: FoundationLoop.swift.

import CFEngine
import EngineKit

public struct FoundationRunLoopEngine: RunLoopEngine {
    public static let engineName = "foundation"

    /// The toolchain's CoreFoundation, for the calls Foundation has no API for.
    let cf: CoreFoundationEngine

    public init() { cf = CoreFoundationEngine.toolchain }

    public var name: String { Self.engineName }

    public var summary: String {
        "swift-corelibs-foundation's RunLoop and Timer over the toolchain's CoreFoundation (\(cf.library.path)); "
            + "the CF C API only where Foundation has none"
    }

    /// Every feature of the toolchain's CoreFoundation, and Foundation's layer.
    public var features: Set<EngineFeature> { cf.features.union([.foundation]) }

    public func whyLacking(_ feature: EngineFeature) -> String? {
        feature == .foundation ? nil : cf.whyLacking(feature)
    }

    /// Foundation's `RunLoop.current` and CF's `CFRunLoopGetCurrent()`, both asked on the calling thread: the same
    /// loop (Foundation's RunLoop wraps the thread's CFRunLoop; its `getCFRunLoop()` is internal in swift-corelibs).
    public func currentLoop() -> any EngineLoop {
        FoundationLoop(engine: self, cfLoop: cf.currentLoop())
    }
}
