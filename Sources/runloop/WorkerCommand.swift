// `runloop worker`: the worker process `runloop conform` runs each engine's cases in (ConformanceKit's
// WorkerService). Not for people: the runner starts it and talks to it over pipes.

import ArgumentParser
import ConformanceKit
import EngineKit
import Engines
import Foundation

struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Serve conformance cases to a runner over pipes (started by `runloop conform`).",
        shouldDisplay: false
    )

    /// What the runner puts before the worker protocol's own arguments to turn features off (`conform --without`).
    static let withoutArgument = "--without"

    @Argument(parsing: .captureForPassthrough)
    var arguments: [String] = []

    func run() throws {
        var arguments = arguments
        var withheld = Set<EngineFeature>()
        if arguments.first == Self.withoutArgument, arguments.count >= 2 {
            switch EngineFeature.parseList(arguments[1]) {
            case .success(let features): withheld = features
            case .failure(let error):
                FileHandle.standardError.write(Data("worker: \(error)\n".utf8))
                throw ExitCode(2)
            }
            arguments.removeFirst(2)
        }
        let status = WorkerService.main(arguments: arguments, catalogue: BuiltinEngines.catalogue.without(withheld))
        if status != 0 { throw ExitCode(status) }
    }
}
