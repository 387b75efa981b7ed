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

    @Option(name: .long, help: "Engines to run, comma-separated: \(EngineRegistry.names.joined(separator: ", ")), all (the built-in ones), or cf:PATH for any CoreFoundation library loaded at run time.")
    var engine: String = "all"

    @Option(name: .long, help: "process: each engine's cases run in a worker process, so a crash or a hang costs one case (CRASH, TIMEOUT); none: in this process (for a debugger; a crash ends the run).")
    var isolation: Isolation = .process

    @Option(name: .long, help: ArgumentHelp("A worker executable hosting other engines (it speaks the worker protocol of INTERPRETING.md); --engine then names its engines.", valueName: "path"))
    var worker: String?

    @Option(name: .long, help: "Run only cases whose id matches this glob, e.g. 'stop.*'.")
    var filter: String?

    @Option(name: .long, help: "Output format: table, json or junit.")
    var format: String = "table"

    @Option(name: .long, help: "A spec file or directory of them (default: the spec shipped with the package).")
    var spec: String?

    @Option(name: .long, help: "Directory of per-engine expectation files, <engine>.yaml, whose ids must all be cases of the spec; 'none' for none. Default: the shipped ones (with --spec, only their entries for cases your spec has).")
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

    enum Isolation: String, ExpressibleByArgument, CaseIterable {
        case process, none
    }

    func validate() throws {
        if worker != nil, isolation == .none {
            throw ValidationError("--worker needs --isolation process (its engines live in the worker)")
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
        var request = ConformanceRequest(specPath: specPath, expectationsPath: expectationsPath, filter: filter,
                                         timeout: timeout, repetitions: `repeat`)
        // Your own spec with the shipped expectations: cf's known failures still apply to cases you copied.
        if spec != nil, expectations == nil { request.unknownExpectationIDs = .ignore }
        let showProgress = progress
        let report: ConformanceReport
        let launcher = worker.map { WorkerLauncher(executable: $0) }
            ?? .currentExecutable(leadingArguments: [WorkerCommand.configuration.commandName!])
        do {
            let hosted = worker == nil ? EngineRegistry.all.map { EngineDescription($0) }
                : try IsolatedRunner.listEngines(launcher)
            let engines = try EngineSelection.resolve(engine, hosted: hosted, launcher: launcher)
            let progress: @Sendable (CaseOutcome) -> Void = { outcome in
                if showProgress {
                    FileHandle.standardError.write(Data("\(outcome.engine) \(outcome.status.rawValue) \(outcome.caseID)\n".utf8))
                }
            }
            switch isolation {
            case .none:
                report = try Conformance.runInProcess(request, engines: try engines.map(EngineRegistry.make),
                                                      progress: progress)
            case .process:
                report = try Conformance.run(request, launcher: launcher, engines: engines, progress: progress)
            }
        } catch let error as SpecError {
            throw failure(error.description)
        } catch let error as WorkerError {
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
