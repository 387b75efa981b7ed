// One benchmark family's run: the harness processes, the hang bookkeeping, and the rows for what left none.
//
// Two strategies. Isolated families (BenchProfile.isolatedFamilies) run one process per benchmark and repetition, in
// rounds that each run every benchmark once in a new random order. The others run as one process with Google
// Benchmark's random interleaving of the repetitions; when the harness's watchdog ends a hung benchmark (exit 3: it
// wrote the finished rows and an error row for the hung one), the next process runs exactly the benchmarks with no
// row yet. After `HangBook.hangsPerEngine` hangs of one engine its other benchmarks become skipped rows. A process
// that leaves no row behind for what it was to run (a crash, the outer watchdog) gets an error row.
import Foundation
import ResultsKit

/// What one harness process was asked to do.
public struct HarnessInvocation: Sendable, Equatable {
    /// Its arguments (the family, the common ones, the filter, repetitions, the CSV to write).
    public let arguments: [String]
    /// The CSV it writes.
    public let csv: String
    /// Its stdout and stderr.
    public let log: String
    /// Its outer limit, seconds.
    public let limit: Int
}

/// One family to run.
public struct FamilyPlan: Sendable, Equatable {
    /// Its place among the families run (0-based) and how many there are, for the lines' `[i/n]`.
    public let index: Int
    public let count: Int
    public let family: HarnessFamily
    /// Its benchmarks as the harness lists them (with Google Benchmark's suffixes).
    public let benchmarks: [String]
    public let repetitions: Int
    public let isolated: Bool

    public init(
        index: Int, count: Int, family: HarnessFamily, benchmarks: [String], repetitions: Int,
        isolated: Bool
    ) {
        self.index = index
        self.count = count
        self.family = family
        self.benchmarks = benchmarks
        self.repetitions = repetitions
        self.isolated = isolated
    }

    /// Benchmark runs (repetitions) in it: the progress's units.
    public var units: Int { benchmarks.count * repetitions }

    /// `bench: [2/6] observer dispatch: `.
    public var prefix: String { "bench: [\(index + 1)/\(count)] \(family.title): " }

    /// The isolated strategy's order: `repetitions` rounds, each every benchmark once in a new random order.
    public func rounds<R: RandomNumberGenerator>(using generator: inout R) -> [[String]] {
        (0..<repetitions).map { _ in benchmarks.shuffled(using: &generator) }
    }
}

/// What a family's run produced.
public struct FamilyOutcome: Sendable {
    /// The rows, as files in the order they came: the processes' CSVs, and the error and skip rows written here.
    public var parts: [RawResultsFile] = []
    /// A process failed (any exit but 0), or an error row was written: the run's exit status is 1.
    public var failed = false
    /// The run was interrupted during the family.
    public var interrupted = false

    /// The rows of `parts` of `status`, Google Benchmark's aggregate rows (`_mean`, `_median`, ...) not counted.
    public func count(_ status: RawResultRow.Status) -> Int {
        parts.reduce(0) { sum, part in
            sum + part.rows.filter { $0.status == status && !FamilyOutcome.isAggregate($0.name) }.count
        }
    }

    /// Whether `name` is an aggregate row's (`..._mean`, `_median`, `_stddev`, `_cv`).
    static func isAggregate(_ name: String) -> Bool {
        ["_mean", "_median", "_stddev", "_cv"].contains { name.hasSuffix($0) }
    }
}

/// Runs one family.
public struct FamilyRunner {
    public let plan: FamilyPlan
    /// The arguments every process of the run gets (profile, min time, interleaving, engines, watchdog).
    public let common: [String]
    /// `--benchmark_filter=...` of `--filter`, or nothing.
    public let selection: [String]
    /// The outer limit of one process, seconds.
    public let limit: Int
    /// Where the processes' CSVs and logs go.
    public let work: String
    /// Runs one harness process.
    public let invoke: (HarnessInvocation) -> ChildEnd
    /// Lines and progress.
    public let progress: Progress
    /// Whether the run was asked to stop.
    public let interruption: Interruption?

    public init(
        plan: FamilyPlan, common: [String], selection: [String], limit: Int, work: String,
        invoke: @escaping (HarnessInvocation) -> ChildEnd, progress: Progress, interruption: Interruption?
    ) {
        self.plan = plan
        self.common = common
        self.selection = selection
        self.limit = limit
        self.work = work
        self.invoke = invoke
        self.progress = progress
        self.interruption = interruption
    }

    /// Runs the family with `generator` ordering the isolated strategy's rounds.
    public func run<R: RandomNumberGenerator>(using generator: inout R) -> FamilyOutcome {
        var outcome = FamilyOutcome()
        var hangs = HangBook()
        if plan.isolated {
            runIsolated(&outcome, &hangs, &generator)
        } else {
            runGrouped(&outcome, &hangs)
        }
        if outcome.count(.error) > 0 { outcome.failed = true }
        return outcome
    }

    // MARK: - Isolated: one process per benchmark and repetition

    func runIsolated<R: RandomNumberGenerator>(
        _ outcome: inout FamilyOutcome, _ hangs: inout HangBook,
        _ generator: inout R
    ) {
        var run = 0
        for (round, names) in plan.rounds(using: &generator).enumerated() {
            for name in names {
                if interruption?.isSet == true {
                    outcome.interrupted = true
                    return
                }
                if hangs.hasHung(name) {
                    if round == 0 { outcome.parts.append(rows([BenchmarkName.base(name)], HangBook.skipMessage)) }
                    progress.advance()
                    continue
                }
                run += 1
                progress.running("\(plan.family.title): round \(round + 1)/\(plan.repetitions)")
                let invocation = self.invocation(run, ["--benchmark_filter=^\(name)$", "--benchmark_repetitions=1"])
                let end = invoke(invocation)
                progress.advance()
                // A process ended by the interruption may have left half a file: its rows are not kept.
                let file = end == .interrupted ? nil : read(invocation.csv, &outcome)
                if let file { outcome.parts.append(file) }
                if end.succeeded { continue }
                outcome.failed = true
                if end == .interrupted {
                    outcome.interrupted = true
                    return
                }
                report(failureOf: invocation, name: name, watchdogLinesOnly: false)
                if end == .exited(3), let engine = hangs.note(name) {
                    progress.line(
                        plan.prefix + "engine \(engine) hung twice: its other benchmarks in this family "
                            + "are skipped")
                }
                let base = BenchmarkName.base(name)
                if !(file?.rows.contains { BenchmarkName.base($0.name) == base } ?? false) {
                    outcome.parts.append(rows([name], "error: " + end.describe("the harness", limit: limit)))
                }
            }
        }
    }

    // MARK: - Grouped: one process for the family, again for what a hang left

    func runGrouped(_ outcome: inout FamilyOutcome, _ hangs: inout HangBook) {
        var filter = selection
        var attempt = 0
        let all = Set(plan.benchmarks.map(BenchmarkName.base))
        // Each attempt finishes at least one benchmark or ends the loop, so there are at most as many as benchmarks.
        while true {
            attempt += 1
            progress.running(plan.family.title + (attempt > 1 ? " (attempt \(attempt))" : ""))
            let invocation = self.invocation(attempt, filter + ["--benchmark_repetitions=\(plan.repetitions)"])
            let end = invoke(invocation)
            let file = end == .interrupted ? nil : read(invocation.csv, &outcome)
            if let file { outcome.parts.append(file) }
            if end.succeeded { break }
            outcome.failed = true
            if end == .interrupted {
                outcome.interrupted = true
                break
            }
            guard end == .exited(3), let file, !file.rows.isEmpty else {
                report(failureOf: invocation, name: nil, watchdogLinesOnly: false)
                progress.line(plan.prefix + end.describe("the harness", limit: limit) + " (its last lines above)")
                outcome.parts.append(
                    rows(
                        ["harness/family:\(plan.family.name)"],
                        "error: " + end.describe("the harness", limit: limit)))
                break
            }
            report(failureOf: invocation, name: nil, watchdogLinesOnly: true)
            let done = Set(outcome.parts.flatMap { $0.rows.map { BenchmarkName.base($0.name) } })
            var rest = all.subtracting(done).sorted()
            // The benchmark that hung is the last row of this attempt's CSV ("error: no result after N s").
            let hung = file.rows.last { $0.status == .error && $0.message.hasPrefix("error: no result after") }
            if let hung, let engine = hangs.note(hung.name) {
                progress.line(
                    plan.prefix + "engine \(engine) hung twice: its other benchmarks in this family are "
                        + "skipped")
                let skipped = rest.filter { BenchmarkName.engine($0) == engine }
                if !skipped.isEmpty { outcome.parts.append(rows(skipped, HangBook.skipMessage)) }
                rest.removeAll { BenchmarkName.engine($0) == engine }
            }
            guard !rest.isEmpty, attempt < plan.benchmarks.count else { break }
            progress.line(plan.prefix + "running the \(rest.count) benchmarks not yet done")
            filter = ["--benchmark_filter=" + BenchmarkName.filter(selecting: rest)]
        }
        progress.advance(plan.units)
    }

    // MARK: - Pieces

    /// The `number`th process of the family, with `arguments` after the common ones.
    func invocation(_ number: Int, _ arguments: [String]) -> HarnessInvocation {
        let stem = "\(work)/\(plan.family.name).\(number)"
        return HarnessInvocation(
            arguments: ["--rl_family=" + plan.family.name] + common + arguments
                + ["--benchmark_out=\(stem).csv", "--benchmark_out_format=csv"],
            csv: stem + ".csv", log: stem + ".log", limit: limit)
    }

    /// The CSV a process wrote, if it wrote one; a CSV that cannot be read is reported and counts as none.
    func read(_ path: String, _ outcome: inout FamilyOutcome) -> RawResultsFile? {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size > 0 else { return nil }
        do {
            return try RawResultsFile.read(path: path)
        } catch {
            progress.line(plan.prefix + "the harness wrote a CSV that cannot be read: \(error)")
            outcome.failed = true
            return nil
        }
    }

    /// Prints what a failed process said: its watchdog lines, else its last lines (5 for one benchmark, 20 for a
    /// family), each prefixed with the family (and the benchmark).
    func report(failureOf invocation: HarnessInvocation, name: String?, watchdogLinesOnly: Bool) {
        let text = (try? String(contentsOfFile: invocation.log, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").map(String.init)
        let watchdog = lines.filter { $0.contains("watchdog") }
        let shown = !watchdog.isEmpty || watchdogLinesOnly ? watchdog : Array(lines.suffix(name == nil ? 20 : 5))
        let prefix = plan.prefix + (name.map { $0 + ": " } ?? "")
        for line in shown { progress.line(prefix + line) }
    }

    /// One error row per name with `message` ("error: ..." or "skipped: ...").
    func rows(_ names: [String], _ message: String) -> RawResultsFile {
        RawResultsFile(
            contextLines: [], counters: [],
            rows: names.map { RawResultRow(errorNamed: $0, message: message) })
    }
}
