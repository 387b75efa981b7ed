// `runloop fuzz merge`: parses arguments and calls ConformanceFuzzer's FuzzMerge.

import ArgumentParser
import ConformanceFuzzer
import Foundation

struct FuzzMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the JSON reports of a campaign's shards (runloop fuzz --shard K/N --json-out FILE) into one.",
        discussion: """
            Each defect is reported once, with the seeds and shards that hit it and the smallest case any shard shrank \
            it to; the report says which of the campaign's scenarios the shards covered. A file that is empty, cut \
            short, not a fuzz report (a conformance results file, a CSV), a second file of one shard, or a shard of \
            another campaign (other engines, seeds, count, shape, timeout or known divergences) is refused by name \
            with exit status 2; --allow-mixed merges other campaigns anyway.

            Exit status: 0 when no defect is unexplained, 1 when one is, 2 for bad input.
            """)

    @Argument(help: ArgumentHelp("The shards' JSON reports.", valueName: "report"))
    var reports: [String]

    @OptionGroup var outputs: FuzzOutputs

    @Flag(name: .long, help: "Merge reports of different campaigns (each keeps its own coverage).")
    var allowMixed = false

    func validate() throws {
        try SubcommandArguments.refuseParentOptions(of: Self.self, parent: "fuzz")
        guard !reports.isEmpty else { throw ValidationError("give the shards' JSON reports to merge") }
    }

    func run() throws {
        let merged: FuzzMerged
        do {
            let read = try reports.map(FuzzMerge.read)
            merged = try FuzzMerge.merge(read, files: reports, allowMixed: allowMixed)
        } catch let error as FuzzMergeError {
            FileHandle.standardError.write(Data("runloop fuzz merge: \(error)\n".utf8))
            throw ExitCode(2)
        }
        print(FuzzMerge.text(merged))
        if let jsonOut = outputs.jsonOut {
            do {
                try (FuzzMerge.json(merged) + "\n").write(toFile: jsonOut, atomically: true, encoding: .utf8)
            } catch {
                FileHandle.standardError.write(
                    Data("runloop fuzz merge: cannot write \(jsonOut): \(error.localizedDescription)\n".utf8))
                throw ExitCode(2)
            }
        }
        if merged.exitCode != 0 { throw ExitCode(merged.exitCode) }
    }
}
