// `--without FEATURE[,FEATURE]` of `conform` and `engines`: features to turn off on every selected engine, so the
// cases that need them SKIP with the reason (Sources/Engines/WithheldFeatures.swift).

import ArgumentParser
import ConformanceKit
import EngineKit

struct WithoutOption: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Features to turn off on every engine, comma-separated: "
                + EngineFeature.allCases.map(\.optionName).joined(separator: ", ")
                + ". Cases that need one SKIP, saying so (e.g. main-queue for a CoreFoundation built without libdispatch).",
            valueName: "features"))
    var without: String?

    /// The features named; an unknown one is a usage error (exit 2) naming it and listing the known ones.
    func features() throws -> Set<EngineFeature> {
        guard let without else { return [] }
        switch EngineFeature.parseList(without) {
        case .success(let features): return features
        case .failure(let error): throw ValidationError("--without: \(error)")
        }
    }

    /// The worker this executable starts, told to turn the features off.
    func launcher() throws -> WorkerLauncher {
        let features = try features()
        let list = EngineFeature.allCases.filter(features.contains).map(\.optionName).joined(separator: ",")
        return .currentExecutable(
            leadingArguments: [WorkerCommand.configuration.commandName!]
                + (features.isEmpty ? [] : [WorkerCommand.withoutArgument, list]))
    }
}
