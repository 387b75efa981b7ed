// `runloop conform`: runs the conformance spec on engines and prints the pass matrix.

import ArgumentParser
import ConformanceKit
import ConformanceSpec
import Foundation

struct ConformCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conform",
        abstract: "Run the CFRunLoop conformance spec on one engine or all of them.",
        discussion: "Exits 0 iff every selected case meets its expectation on every selected engine, 1 otherwise, 2 for a malformed spec or bad arguments."
    )

    @Option(name: .long, help: "Engine to run: \(EngineRegistry.names.joined(separator: ", ")), or all.")
    var engine: String = "all"

    @Option(name: .long, help: "Run only cases whose id matches this glob, e.g. 'stop.*'.")
    var filter: String?

    @Option(name: .long, help: "Output format: table, json or junit.")
    var format: String = "table"

    @Option(name: .long, help: "A spec file or directory of them (default: the spec shipped with the package).")
    var spec: String?

    @Option(name: .long, help: "Directory of per-engine expectation files (default: the shipped one; 'none' for none).")
    var expectations: String?

    @Option(name: .long, help: "Watchdog per case in seconds, unless the case sets its own.")
    var timeout: Double = 5

    @Option(name: .long, help: "Run each case this many times; a case passes only if every repetition does.")
    var `repeat`: Int = 1

    @Option(name: .long, help: "Also write the report as JSON to this file.")
    var jsonOut: String?

    @Option(name: .long, help: "Also write the report as JUnit XML to this file.")
    var junitOut: String?

    @Flag(name: .long, help: "Print a line per case as it finishes (to standard error).")
    var progress = false

    func validate() throws {
        guard EngineRegistry.select(engine) != nil else {
            throw ValidationError("unknown engine '\(engine)' (known: \(EngineRegistry.names.joined(separator: ", ")), all)")
        }
        guard ReportFormat(rawValue: format) != nil else {
            throw ValidationError("unknown format '\(format)' (table, json or junit)")
        }
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
        guard `repeat` >= 1 else { throw ValidationError("--repeat must be at least 1") }
    }

    func run() throws {
        guard let specPath = spec ?? SpecResources.casesDirectory else {
            throw failure("the shipped spec was not found next to the executable; pass --spec")
        }
        let expectationsPath = expectations == "none" ? nil : (expectations ?? SpecResources.expectationsDirectory)
        let request = ConformanceRequest(specPath: specPath, expectationsPath: expectationsPath, filter: filter,
                                         timeout: timeout, repetitions: `repeat`)
        let showProgress = progress
        let report: ConformanceReport
        do {
            report = try Conformance.run(request, engines: EngineRegistry.select(engine) ?? []) { outcome in
                if showProgress {
                    FileHandle.standardError.write(Data("\(outcome.engine) \(outcome.status.rawValue) \(outcome.caseID)\n".utf8))
                }
            }
        } catch let error as SpecError {
            throw failure(error.description)
        }
        if report.caseIDs.isEmpty { throw failure("no case matches --filter '\(filter ?? "")'") }
        print(ReportFormat(rawValue: format)!.render(report))
        for (path, extra) in [(jsonOut, ReportFormat.json), (junitOut, ReportFormat.junit)] {
            guard let path else { continue }
            do {
                try extra.render(report).write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                throw failure("cannot write \(path): \(error.localizedDescription)")
            }
        }
        if !report.allMeetExpectations { throw ExitCode(1) }
    }

    private func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("runloop conform: \(message)\n".utf8))
        return ExitCode(2)
    }
}
