// `runloop conform merge`: parses arguments and calls ConformanceKit's ConformanceMerge and report writers.

import ArgumentParser
import ConformanceKit
import ConformanceSpec
import Foundation

struct ConformMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the JSON results of several conformance runs (runloop conform --json-out) into one matrix.",
        discussion: """
            One column per engine of each run (other engines, cf:PATH builds, machines, Swift versions), each with its \
            run's context (engine builds, machine, toolchain, date) as the run recorded it; a column keeps its engine's \
            name unless another run has an engine of that name, then it is qualified by its run's position: `cf #2`. \
            Prints the table; --json-out writes the merged JSON (which `runloop site --conformance` shows), --html \
            one page, --junit-out JUnit XML. A file that is empty, cut short, not conformance results (a fuzz report, a CSV), or a run given \
            twice is refused by name.

            Exit status: 0 when every result meets its expectation, 1 otherwise, 2 for bad input.
            """)

    @Argument(help: ArgumentHelp("The runs' JSON results.", valueName: "results"))
    var results: [String]

    @OptionGroup var outputs: ConformOutputs

    func validate() throws {
        try SubcommandArguments.refuseParentOptions(of: Self.self, parent: "conform")
        guard !results.isEmpty else { throw ValidationError("give the runs' JSON results to merge") }
    }

    func run() throws {
        let cases: [SpecCase]
        do {
            cases = try SpecResources.casesDirectory.map { try SpecLoader.load(path: $0).flatMap(\.cases) } ?? []
        } catch let error as SpecError {
            throw failure(error.description)
        }
        var report: ConformanceReport
        do {
            report = try ConformanceMerge.merge(paths: results, cases: cases)
        } catch let error as ConformanceJSONError {
            throw failure(error.description)
        }
        if let expectations = SpecResources.expectationsDirectory, let specPath = SpecResources.casesDirectory {
            report.referenceExpectations =
                (try? Conformance.loadReferenceExpectations(
                    ConformanceRequest(specPath: specPath, expectationsPath: expectations)))
                ?? report.referenceExpectations
        }
        print(TableReport.render(report, rows: .notPassing, catalogue: try? RuleCatalogue.shipped()))
        do {
            try ReportFiles(json: outputs.jsonOut, junit: outputs.junitOut, html: outputs.html).write(report) {
                ConformPage.html(
                    report, cases: cases, catalogue: try? RuleCatalogue.shipped(),
                    specName: "the runs of " + results.joined(separator: ", "),
                    footer: "Made by <code>runloop conform merge --html</code>.")
            }
        } catch let error as ReportFileError {
            throw failure(error.description)
        }
        if !report.allMeetExpectations { throw ExitCode(1) }
    }

    private func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("runloop conform merge: \(message)\n".utf8))
        return ExitCode(2)
    }
}
