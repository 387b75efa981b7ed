// `runloop faults`: scripts/mutation.sh's fault files read and checked (MutationFaults in ConformanceKit), handed to
// the script as NUL-separated fields so that no script parses the TSV or the catalogue itself.

import ArgumentParser
import ConformanceKit
import Foundation

struct FaultsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "faults",
        abstract: "Read a mutation fault file (scripts/mutation/*.tsv), checked against the rule catalogue.",
        discussion: """
            Prints each fault as six fields, each ended by a NUL byte: id, rule, file, text, replacement, description \
            (the text and the replacement with their escapes decoded). What scripts/mutation.sh reads.

            Exit status: 0, or 2 for a malformed file or a rule not in the catalogue (the message names the file and line).
            """)

    @Option(help: ArgumentHelp("The rule catalogue (default: the one shipped with the spec).", valueName: "path"))
    var catalogue: String?

    @Argument(help: "The fault file.")
    var file: String

    func run() throws {
        do {
            let rules = try catalogue.map { try RuleCatalogue.load(path: $0) } ?? RuleCatalogue.shipped()
            let faults = try MutationFaults.load(path: file, catalogue: rules)
            let fields = faults.flatMap { [$0.id, $0.rule, $0.file, $0.text, $0.replacement, $0.description] }
            FileHandle.standardOutput.write(Data(fields.map { $0 + "\0" }.joined().utf8))
        } catch let error as SpecError {
            FileHandle.standardError.write(Data("runloop faults: \(error.description)\n".utf8))
            throw ExitCode(2)
        }
    }
}
