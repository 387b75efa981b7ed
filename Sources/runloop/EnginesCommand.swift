// `runloop engines`: what each engine is and which features it has; for a library (`cf:PATH`), every optional
// function it lacks. A library is described by a worker process, as `conform` does, so a library that crashes when
// loaded ends that worker, not this command.

import ArgumentParser
import ConformanceKit
import EngineKit
import Engines
import Foundation

struct EnginesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engines",
        abstract: "List engines: what each is, the features it has, and why it lacks the others.",
        discussion: """
            With no ENGINE, the built-in engines. A library (cf:PATH) is described by loading it in a worker process: a \
            path that is not a CoreFoundation run-loop library exits 2 naming every missing core function. Exits 0, or 2 \
            for an unknown engine, an unknown --without feature, or two libraries the reports could not tell apart.
            """
    )

    @Argument(
        help:
            "Engines: \(BuiltinEngines.catalogue.names.joined(separator: ", ")), all, or cf:PATH (a bare file name is in the current directory)."
    )
    var engines: [String] = []

    @OptionGroup var without: WithoutOption

    func run() throws {
        let withheld = try without.features()
        let launcher = try without.launcher()
        let hosted = BuiltinEngines.catalogue.without(withheld).engines.map { EngineDescription($0) }
        let chosen: [EngineDescription]
        do {
            chosen = try EngineSelection.resolve(
                engines.isEmpty ? "all" : engines.joined(separator: ","),
                hosted: hosted, launcher: launcher)
        } catch let error as WorkerError {
            FileHandle.standardError.write(Data("runloop engines: \(error.description)\n".utf8))
            throw ExitCode(2)
        }
        print(EngineListing.render(chosen))
    }
}

/// The text of `runloop engines`: per engine its name and summary, then its features and each missing one's reason.
enum EngineListing {
    static func render(_ engines: [EngineDescription]) -> String {
        engines.map { engine in
            let has = EngineFeature.allCases.filter { engine.features.contains($0) }
            let lacks = EngineFeature.allCases.filter { !engine.features.contains($0) }
            var lines = ["\(engine.name): \(engine.summary ?? "(no description)")"]
            if engine.selector != engine.name { lines.append("  selector: \(engine.selector)") }
            lines.append("  features: " + (has.isEmpty ? "none" : has.map(\.optionName).joined(separator: ", ")))
            for feature in lacks {
                lines.append("  lacks \(feature.optionName): " + (engine.lacking?[feature] ?? "not said"))
            }
            return lines.joined(separator: "\n")
        }.joined(separator: "\n\n")
    }
}
