// The one list of the conformance engines this package builds in, and the family it loads on request (`cf:PATH`).
// `runloop` (Sources/runloop/EngineRegistry.swift), the test worker (Tests/ConformanceTestWorker) and the shipped-spec
// tests all read it, so adding an engine is one line here plus its target. The benchmark engines are the harness's
// own list (Benchmarks/Harness/common.cpp, `all_engines()`), since each one is a C shim.

import CFEngine
import ConformanceKit
import EngineKit
import LoadedCFEngine
import RefEngine

public enum BuiltinEngines {
    /// Every built-in engine, in the order of the report's columns.
    public static let all: [any RunLoopEngine] = [CoreFoundationEngine(), ReferenceEngine()]

    /// Their names (`cf`, `ref`).
    public static var names: [String] { all.map(\.name) }

    /// Makes the engines that are not built in: `cf:PATH`, any CoreFoundation library loaded at run time.
    public static let loader: EngineLoader = LoadedCFEngine.loadEngine
}
