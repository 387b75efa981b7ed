// A conformance worker for the suite's own tests: the built-in engines (and `cf:PATH`) plus `faulty`, an engine that crashes or hangs
// on chosen cases, to prove that the runner reports CRASH and TIMEOUT and goes on, and `planted`, the reference engine
// with one planted bug, for the fuzzer's tests, and `silent-observers`, whose observers are never called, for the
// triage's tests. Built with the package (SwiftPM builds every executable target) but
// never part of `runloop`.

import ConformanceKit
import EngineKit
import Engines
import Foundation

let catalogue = BuiltinEngines.catalogue.adding([FaultyEngine(), PlantedEngine(), SilentObserversEngine()])
exit(WorkerService.main(arguments: Array(CommandLine.arguments.dropFirst()), catalogue: catalogue))
