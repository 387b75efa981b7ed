// `runloop bench`: the phases in order — build the harness, check the families and engines against it, write the
// context, run the families, merge their rows, write the CSV, print the report, add the run to the history. Every
// phase is a function here; the family strategies are FamilyRunner's.
import Foundation
import HistoryKit
import ReportKit
import ResultsKit

/// One benchmark run. Confined to the thread that calls ``run(_:)``; a signal only sets ``Interruption``'s flag.
public final class BenchRun {
    let options: BenchOptions
    /// The checkout: where Benchmarks/, results/ and .build-bench are.
    let root: String
    let interruption: Interruption
    let progress: Progress
    /// Where the processes' CSVs and logs go (removed at the end of the run).
    let work: String
    let started = Date()
    /// 0, or 1 once anything failed.
    var status: Int32 = 0

    init(options: BenchOptions, root: String, interruption: Interruption, progress: Progress, work: String) {
        self.options = options
        self.root = root
        self.interruption = interruption
        self.progress = progress
        self.work = work
    }

    /// Runs `runloop bench` with `options`; returns its exit status (0 ok, 1 a failure or interrupted, 2 bad input).
    public static func run(_ options: BenchOptions) -> Int32 {
        do {
            try options.validate()
            guard let root = checkoutRoot() else {
                throw BenchInputError(
                    field: "<checkout>",
                    "Benchmarks/Package.swift not found in the current "
                        + "directory or above it, nor above the runloop executable: run it inside a RunLoopSuite checkout"
                )
            }
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("runloop-bench-\(UUID())").path
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            // The processes' CSVs and logs: what a failure says is printed, the files go with the run.
            defer { try? FileManager.default.removeItem(atPath: work) }
            let interruption = Interruption()
            interruption.install()
            let run = BenchRun(
                options: options, root: root, interruption: interruption, progress: Progress(),
                work: work)
            return try run.phases()
        } catch let error as BenchInputError {
            BenchRun.printError(error.description)
            return BenchInputError.exitStatus
        } catch {
            BenchRun.printError("\(error)")
            return 1
        }
    }

    // MARK: - The phases

    func phases() throws -> Int32 {
        let harness = Harness(path: try buildPhase(), work: work)
        if options.buildOnly {
            print(harness.path)
            return 0
        }
        if options.countSyscalls { return try syscallPhases(harness) }
        if options.countInstructions { return try countingPhases(harness) }
        let families = try options.selectedFamilies(try harness.families())
        let describe = try harness.describe(engines: options.engines)
        let facts = MachineFacts.gather(root: root)
        let label = options.label ?? RunContext.defaultLabel(facts, profile: options.profile)
        let out = outputPath(label: label)
        let context = RunContext.lines(
            options: options, label: label, date: started, facts: facts,
            describe: describe)
        let plans = try planPhase(harness, families)
        let parts = familiesPhase(harness, plans)
        guard !parts.isEmpty else {
            progress.finish()
            BenchRun.printError(
                interruption.isSet
                    ? "bench: interrupted before any benchmark ran"
                    : "bench: nothing ran")
            return 1
        }
        try writePhase(out, context: context, parts: parts)
        reportPhase(out)
        historyPhase(out)
        progress.line("bench: total \(progress.elapsed) s; CSV: \(out)")
        progress.finish()
        return interruption.isSet ? 1 : status
    }

    /// The harness binary: `--harness`, else built.
    func buildPhase() throws -> String {
        if let harness = options.harness {
            guard FileManager.default.isExecutableFile(atPath: harness) else {
                throw BenchInputError(field: "--harness", "'\(harness)' is not an executable file")
            }
            return harness
        }
        // --tree: that checkout's harness, in its own scratch path (two commits never share a build directory).
        let tree = options.counting.tree.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? root
        progress.line(
            "bench: building runloop-bench (release, \(tree == root ? "" : tree + "/")\(HarnessBuild.scratch))")
        return try HarnessBuild.build(root: tree, log: work + "/build.log", interruption: interruption)
    }

    /// The arguments every harness process gets.
    var commonArguments: [String] {
        [
            "--rl_profile=" + options.profile.name, "--benchmark_min_time=" + options.profile.minTime,
            "--benchmark_enable_random_interleaving=true",
        ]
            + (options.engines.map { ["--rl_engines=" + $0] } ?? [])
            + (options.watchdog.map { ["--rl_watchdog_s=\($0)"] } ?? [])
    }

    /// `--benchmark_filter=...` of `--filter`.
    var selection: [String] { options.filter.map { ["--benchmark_filter=" + $0] } ?? [] }

    /// Each family's benchmarks (the harness lists them), so that the progress knows the whole run's size.
    func planPhase(_ harness: Harness, _ families: [HarnessFamily]) throws -> [FamilyPlan] {
        var plans: [FamilyPlan] = []
        for (index, family) in families.enumerated() {
            let benchmarks = try harness.benchmarks(family: family.name, arguments: commonArguments + selection)
            let repetitions = options.profile.repetitions(of: family.name, asked: options.repetitions)
            plans.append(
                FamilyPlan(
                    index: index, count: families.count, family: family, benchmarks: benchmarks,
                    repetitions: repetitions, isolated: options.profile.isIsolated(family.name)))
        }
        progress.expect(plans.reduce(0) { $0 + $1.units })
        return plans
    }

    /// Runs the families in order; returns every part of every family's rows.
    func familiesPhase(_ harness: Harness, _ plans: [FamilyPlan]) -> [RawResultsFile] {
        var parts: [RawResultsFile] = []
        var generator = SystemRandomNumberGenerator()
        for plan in plans {
            if interruption.isSet { break }
            guard !plan.benchmarks.isEmpty else {
                progress.line(plan.prefix + "no benchmark matches, skipped")
                continue
            }
            progress.line(plan.prefix + "\(plan.benchmarks.count) benchmarks x \(plan.repetitions) repetitions ...")
            let familyStart = Date()
            let runner = FamilyRunner(
                plan: plan, common: commonArguments, selection: selection,
                limit: options.profile.processLimitSeconds, work: work,
                invoke: { [progress, interruption] invocation in
                    let end = try? ChildProcess.run(
                        harness.path, invocation.arguments, output: invocation.log,
                        limit: Double(invocation.limit), interruption: interruption,
                        tick: progress.tick)
                    return end ?? .exited(127)
                },
                progress: progress, interruption: interruption)
            let outcome = runner.run(using: &generator)
            parts += outcome.parts
            if outcome.failed { status = 1 }
            let seconds = Int(Date().timeIntervalSince(familyStart))
            let ended = outcome.interrupted ? "interrupted after \(seconds) s" : "done in \(seconds) s"
            progress.line(
                plan.prefix + ended
                    + " (\(outcome.count(.measured)) measured rows, \(outcome.count(.skipped)) skipped rows, "
                    + "\(outcome.count(.error)) error rows)")
        }
        return parts
    }

    /// Merges the rows under one header after the context and writes the CSV.
    func writePhase(_ out: String, context: [String], parts: [RawResultsFile]) throws {
        let interruptedAfter = interruption.isSet ? progress.elapsed : nil
        if let signal = interruption.signal {
            progress.line("bench: interrupted (signal \(signal)): writing the rows measured so far")
        }
        let closing = RunContext.closingLines(
            seconds: progress.elapsed, loadAverage: MachineFacts.loadAverageNow(),
            interruptedAfter: interruptedAfter)
        try write((context + closing).map { $0 + "\n" }.joined() + ResultsMerge.merge(parts), to: out)
    }

    /// Writes a results CSV (through a temporary file, renamed), making its directory.
    func write(_ text: String, to out: String) throws {
        let directory = (out as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        do {
            try text.write(toFile: out, atomically: true, encoding: .utf8)
        } catch {
            throw BenchFailure("bench: cannot write \(out): \(error.localizedDescription)")
        }
    }

    /// `runloop report`'s summary and targets, on stdout.
    func reportPhase(_ out: String) {
        progress.finish()
        let targets = options.targets ?? root + "/Benchmarks/targets.yaml"
        let outcome = ReportTool.run(ReportOptions(file: out, targetsPath: targets))
        FileHandle.standardOutput.write(Data(outcome.output.utf8))
        for line in outcome.diagnostics { BenchRun.printError(line) }
        if outcome.exitCode != 0 {
            BenchRun.printError("bench: runloop report could not summarise \(out) (message above)")
            status = 1
        }
    }

    /// Adds the run to results/history.sqlite (made from results/ first if it is not there) and prints the check
    /// against the previous run of the same machine and profile: informational, a regression does not change the
    /// exit status. Not for smoke runs (meaningless figures), interrupted runs (partial) or `--no-history`.
    func historyPhase(_ out: String, metric: String = "real_time") {
        guard options.history else { return }
        guard options.profile != .smoke, !interruption.isSet else {
            progress.line(
                "bench: not added to the history (" + (interruption.isSet ? "a partial run" : "a smoke run")
                    + ")")
            return
        }
        let database = root + "/" + HistoryTool.defaultDatabase
        var outcomes: [HistoryOutcome] = []
        let results = root + "/results"
        if !FileManager.default.fileExists(atPath: database) {
            outcomes.append(HistoryTool.rebuild(database: database, directories: [results]))
        }
        // A rebuild from results/ has recorded a CSV written there already.
        let inResults =
            URL(fileURLWithPath: out).deletingLastPathComponent().standardizedFileURL.path
            == URL(fileURLWithPath: results).standardizedFileURL.path
        if outcomes.isEmpty || !inResults {
            outcomes.append(HistoryTool.add(database: database, files: [out]))
        }
        if outcomes.allSatisfy({ $0.exitCode == 0 }) {
            outcomes.append(
                HistoryTool.check(
                    database: database, runFile: out, metric: metric,
                    thresholdPercent: 10, alpha: 0.05))
        }
        FileHandle.standardOutput.write(Data("\n".utf8))
        for outcome in outcomes {
            FileHandle.standardOutput.write(Data(outcome.output.utf8))
            for line in outcome.diagnostics { BenchRun.printError(line) }
            if outcome.exitCode > 1 { status = 1 }
        }
    }

    // MARK: - Pieces

    /// `--out`, else results/<label>-<date>.csv in the checkout, or, when a run that started in the same minute has
    /// that name, the first of <label>-<date>-2.csv, -3, ... that no file has: a run never replaces another's results.
    /// Called once per run.
    func outputPath(label: String) -> String {
        if let out = options.out { return out }
        return Self.unusedPath(root + "/results/\(label)-\(RunContext.fileStamp(started))", suffix: ".csv")
    }

    /// `base + suffix`, or the first `base-N + suffix` (N from 2) that names no file.
    static func unusedPath(_ base: String, suffix: String) -> String {
        var path = base + suffix
        var number = 2
        while FileManager.default.fileExists(atPath: path) {
            path = "\(base)-\(number)\(suffix)"
            number += 1
        }
        return path
    }

    /// The checkout: the current directory or one above it with Benchmarks/Package.swift, else one above the
    /// executable (a build in .build/release of a checkout finds its checkout).
    static func checkoutRoot() -> String? {
        let marker = "Benchmarks/Package.swift"
        var candidates: [URL] = []
        var directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        for _ in 0..<6 {
            candidates.append(directory)
            directory.deleteLastPathComponent()
        }
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
            for _ in 0..<6 {
                candidates.append(directory)
                directory.deleteLastPathComponent()
            }
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent(marker).path) }?
            .standardizedFileURL.path
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
