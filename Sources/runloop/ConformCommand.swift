// `runloop conform`: runs the conformance spec on engines and prints the pass matrix.

import ArgumentParser
import ConformanceKit
import ConformanceSpec
import Engines
import Foundation
import Synchronization

struct ConformCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conform",
        abstract: "Run the CFRunLoop conformance spec on one engine or all of them.",
        discussion: """
            The table output starts with a summary line per engine and the triage (the results not as expected grouped by \
            where their trace first departs from the expected one, the largest group first, the known defects of the \
            toolchain's CoreFoundation last, and the passes that are \
            only vacuous), then lists the cases that did not pass on every engine (failures, expected failures, skips, \
            vacuous passes), the rule, traces and diff of every case not as expected, and a closing tally, on a \
            terminal or not; --verbose lists every case, --only-failures only those not as expected. On a terminal a \
            progress line counts the cases as they run (standard error; --progress prints a line per case instead). --html writes a page with the matrix of areas by engines and every case that did not \
            pass, expandable to its rules, trace diff and expectation.

            The JSON (--json-out, --format json) records the run's context: each engine's build, the machine, the \
            toolchain and the date; `runloop conform merge` makes one matrix of several runs' JSON files.

            Exits 0 iff every selected case meets its expectation on every selected engine, 1 otherwise, 2 for a \
            malformed spec or bad arguments.
            """,
        subcommands: [ConformMergeCommand.self]
    )

    @Option(
        name: .long,
        help:
            "Engines to run, comma-separated: \(BuiltinEngines.catalogue.names.joined(separator: ", ")), all (the built-in ones), or cf:PATH for any CoreFoundation library loaded at run time."
    )
    var engine: String = "all"

    @Option(
        name: .long,
        help:
            "process: each engine's cases run in a worker process, so a crash or a hang costs one case (CRASH, TIMEOUT); none: in this process (for a debugger; a crash ends the run; main-thread cases are SKIP)."
    )
    var isolation: Isolation = .process

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A worker executable hosting other engines (it speaks the worker protocol of INTERPRETING.md); --engine then names its engines.",
            valueName: "path"))
    var worker: String?

    @Option(name: .long, help: "Run only cases whose id matches this glob, e.g. 'stop.*'.")
    var filter: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            Run only cases of these levels, comma-separated: api, cf, platform (a case's level is the most specific of \
            its rules'; `runloop rules` lists them).
            """, valueName: "levels"))
    var level: String?

    @Option(name: .long, help: "Output format.")
    var format: ReportFormat = .table

    @Option(name: .long, help: "A spec file or directory of them (default: the spec shipped with the package).")
    var spec: String?

    @Option(
        name: .long,
        help:
            "Your own expectations, added to the shipped ones (yours win for a case both name): a directory of per-engine files, <engine>.yaml, or one such file; their ids must all be cases of the spec. 'none' for no expectations at all, not even the shipped ones. The shipped ones apply with --spec too, for the cases your spec has."
    )
    var expectations: String?

    @Option(name: .long, help: "Watchdog per case in seconds, unless the case sets its own.")
    var timeout: Double = 5

    @Option(name: .long, help: "Run each case this many times; a case passes only if every repetition does.")
    var `repeat`: Int = 1

    @Option(
        name: .long,
        help:
            "Worker processes per engine running cases at the same time (1 to 16); the report keeps spec order. Most of the spec's time is cases waiting on their own timers, which then overlap (INTERPRETING.md)."
    )
    var jobs: Int = 1

    @OptionGroup var outputs: ConformOutputs

    @OptionGroup var without: WithoutOption

    @Flag(name: .long, help: "Print a line per case as it finishes (to standard error), instead of the progress line.")
    var progress = false

    @Flag(name: .long, help: "List every case in the table, not only those that did not pass on every engine.")
    var verbose = false

    @Flag(
        name: .long,
        help:
            "Stop at the first case not as expected: print it (standard error) and exit 1 with no report; its workers end as they see the runner gone. For runs that only ask whether every case is as expected (scripts/mutants.sh)."
    )
    var failFast = false

    @Flag(name: .long, help: "List only the cases not as expected on some engine (no expected failures, no skips).")
    var onlyFailures = false

    enum Isolation: String, ExpressibleByArgument, CaseIterable {
        case process, none
    }

    func validate() throws {
        if worker != nil, isolation == .none {
            throw ValidationError("--worker needs --isolation process (its engines live in the worker)")
        }
        if verbose, onlyFailures { throw ValidationError("--verbose and --only-failures exclude each other") }
        guard timeout > 0, timeout.isFinite else {
            throw ValidationError("--timeout must be a positive number of seconds")
        }
        guard `repeat` >= 1 else { throw ValidationError("--repeat must be at least 1") }
        guard (1...16).contains(jobs) else { throw ValidationError("--jobs must be 1 to 16") }
        _ = try levels()
        if worker != nil, try !without.features().isEmpty {
            throw ValidationError("--without works with runloop's own worker only, not with --worker")
        }
    }

    func run() throws {
        if let problem = BuiltinEngines.environmentProblems.first { throw failure(problem) }
        guard let specPath = spec ?? SpecResources.casesDirectory else {
            throw failure("the shipped spec was not found next to the executable; pass --spec")
        }
        let none = expectations == "none"
        var request = ConformanceRequest(
            specPath: specPath,
            expectationsPath: none ? nil : SpecResources.expectationsDirectory,
            filter: filter, timeout: timeout, repetitions: `repeat`)
        // Yours add to the shipped ones, which name cases of the shipped spec: with your own spec, cf's known
        // failures still apply to the cases you copied, and the others are left out.
        request.userExpectationsPath = none ? nil : expectations
        if spec != nil { request.unknownExpectationIDs = .ignore }
        request.jobs = jobs
        request.levels = try levels()
        let showProgress = progress
        let stopAtFirstFailure = failFast
        var report: ConformanceReport
        let cases: [SpecCase]
        let catalogue = BuiltinEngines.catalogue.without(try without.features())
        let launcher = try worker.map { WorkerLauncher(executable: $0) } ?? without.launcher()
        do {
            let hosted =
                worker == nil
                ? catalogue.engines.map { EngineDescription($0) }
                : try IsolatedRunner.listEngines(launcher)
            let engines = try EngineSelection.resolve(engine, hosted: hosted, launcher: launcher)
            let spec = try Conformance.loadSpec(request)
            cases = spec.selected
            let line =
                !showProgress && isatty(STDERR_FILENO) == 1
                ? ProgressLine(total: cases.count * engines.count) : nil
            let progress: @Sendable (CaseOutcome) -> Void = { outcome in
                if showProgress {
                    FileHandle.standardError.write(
                        Data("\(outcome.engine) \(outcome.status.rawValue) \(outcome.caseID)\n".utf8))
                }
                line?.advance(outcome)
                if stopAtFirstFailure && !outcome.meetsExpectation {
                    FileHandle.standardError.write(
                        Data("fail-fast: \(outcome.engine) \(outcome.status.rawValue) \(outcome.caseID)\n".utf8))
                    // _exit, not exit: outcomes arrive on several threads at once, and nothing is buffered to flush.
                    _exit(1)
                }
            }
            defer { line?.finish() }
            switch isolation {
            case .none:
                report = try Conformance.runInProcess(
                    request, spec: spec, engines: try engines.map(catalogue.make),
                    progress: progress)
            case .process:
                report = try Conformance.run(
                    request, spec: spec, launcher: launcher, engines: engines, progress: progress)
            }
            // The run's context (it asks `swift --version`) is shown only in the JSON and the page.
            if format == .json || outputs.jsonOut != nil || outputs.html != nil {
                report.runs = [ConformanceRunContext.gather(engines: engines, host: launcher.executable)]
            }
        } catch let error as SpecError {
            throw failure(error.description)
        } catch let error as WorkerError {
            throw failure(error.description)
        }
        if report.caseIDs.isEmpty {
            let asked = [filter.map { "--filter '\($0)'" }, level.map { "--level '\($0)'" }].compactMap { $0 }
            throw failure("no case matches " + (asked.isEmpty ? "the spec" : asked.joined(separator: " and ")))
        }
        let rows: TableRows = verbose ? .all : onlyFailures ? .notAsExpected : .notPassing
        print(
            format == .table
                ? TableReport.render(report, rows: rows, catalogue: try? RuleCatalogue.shipped())
                : format.render(report))
        do {
            try ReportFiles(json: outputs.jsonOut, junit: outputs.junitOut, html: outputs.html).write(report) {
                ConformPage.html(
                    report, cases: cases, catalogue: try? RuleCatalogue.shipped(),
                    specName: spec ?? "the shipped spec")
            }
        } catch let error as ReportFileError {
            throw failure(error.description)
        }
        if !report.allMeetExpectations { throw ExitCode(1) }
    }

    /// The levels `--level` names, or nil for every case.
    private func levels() throws -> Set<RuleLevel>? {
        guard let level else { return nil }
        switch RuleLevel.parseList(level) {
        case .success(let levels): return levels
        case .failure(let unknown): throw ValidationError("--level: \(unknown)")
        }
    }

    /// The progress line on a terminal: cases done of all, and the last one, rewritten in place.
    final class ProgressLine: Sendable {
        let total: Int
        /// Cases finished so far; the runner reports from its engines' threads.
        let done = Atomic<Int>(0)

        init(total: Int) { self.total = total }

        func advance(_ outcome: CaseOutcome) {
            let count = done.add(1, ordering: .relaxed).newValue
            let text = "\r\u{1B}[K[\(count)/\(total)] \(outcome.engine) \(outcome.caseID)"
            FileHandle.standardError.write(Data(text.utf8))
        }

        func finish() { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }

    private func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("runloop conform: \(message)\n".utf8))
        return ExitCode(2)
    }
}

extension ReportFormat: ExpressibleByArgument {}

/// The files `runloop conform` and `runloop conform merge` write the report to. One group that both commands declare:
/// ArgumentParser matches an option after a subcommand's name to its parent's option of the same name, and shares a
/// group's values between the two, so `conform merge ... --json-out FILE` reaches the merge this way only.
struct ConformOutputs: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Also write the report as JSON to this file.", valueName: "file"))
    var jsonOut: String?

    @Option(name: .long, help: ArgumentHelp("Also write the report as JUnit XML to this file.", valueName: "file"))
    var junitOut: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Also write the report as one self-contained HTML page to this file.", valueName: "file"))
    var html: String?
}
