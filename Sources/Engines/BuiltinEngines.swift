// The one list of the conformance engines this package builds in, and the family it loads on request (`cf:PATH`).
// `runloop`, the test worker (Tests/ConformanceTestWorker) and the shipped-spec tests all look engines up in its
// `catalogue` (Sources/ConformanceKit/Isolation/EngineCatalogue.swift), so adding an engine is one line here plus its
// target. The benchmark engines are the harness's own list (Benchmarks/Harness/common.cpp, `all_engines()`), since
// each one is a C shim.

import CFEngine
import ConformanceKit
import EngineKit
import FoundationEngine
import RefEngine

public enum BuiltinEngines {
    /// Every built-in engine, in the order of the report's columns.
    public static let all: [any RunLoopEngine] = [
        CoreFoundationEngine.toolchain, ReferenceEngine(), FoundationRunLoopEngine(),
    ]

    /// Makes the engines that are not built in: `cf:PATH`, any CoreFoundation library loaded at run time.
    public static let loader: EngineLoader = CoreFoundationEngine.loadEngine

    /// The catalogue `runloop`, its worker and the tests look engines up in: these engines and this loader.
    public static let catalogue = EngineCatalogue(engines: all, loader: loader)

    /// What is wrong with the environment variables the built-in engines read (`ref`'s REF_RUNLOOP_SPIN), one
    /// message per variable; empty when nothing is. The workers inherit the environment, so a command refuses a bad
    /// value before it starts them.
    public static var environmentProblems: [String] { [ReferenceEngine.environmentProblem].compactMap { $0 } }
}
