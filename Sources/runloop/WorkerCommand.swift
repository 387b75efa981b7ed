// `runloop worker`: the worker process `runloop conform` runs each engine's cases in (ConformanceKit's
// WorkerService). Not for people: the runner starts it and talks to it over pipes.

import ArgumentParser
import ConformanceKit
import Engines
import Foundation

struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Serve conformance cases to a runner over pipes (started by `runloop conform`).",
        shouldDisplay: false
    )

    @Argument(parsing: .captureForPassthrough)
    var arguments: [String] = []

    func run() throws {
        let status = WorkerService.main(arguments: arguments, catalogue: BuiltinEngines.catalogue)
        if status != 0 { throw ExitCode(status) }
    }
}
