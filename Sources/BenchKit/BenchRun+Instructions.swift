// `runloop bench --instructions`: the phases after the build — each engine's benchmarks of the family counted three
// times under valgrind's callgrind (InstructionCount.swift says what and how a count is read), the results CSV (`# timing:
// none`, the exact metric), `runloop report`'s tables and instruction targets, and the run added to the history. valgrind 3.19 (Debian bookworm) cannot read
// the DWARF 5 debug information the toolchain's clang writes, so a copy of the harness stripped of it (`strip -g`)
// is counted; function names stay in the symbol table.
import Foundation
import ResultsKit

extension BenchRun {
    /// The longest one run under callgrind may take, seconds, unless `--watchdog` says otherwise.
    static let callgrindLimitSeconds = 900

    func countingPhases(_ built: Harness) throws -> Int32 {
        var counting = options.counting
        counting.family = options.countedFamily
        let valgrind = try countingTools()
        let harness = Harness(path: try strippedCopy(of: built.path), work: work)
        let start = try countingStart(
            harness, factsRoot: options.counting.tree ?? root, label: RunContext.instructionLabel)
        let out = start.out
        let benchmarks = start.engines.flatMap { CountedBenchmark.all(engine: $0, options: counting) }
        progress.expect(benchmarks.count * counting.family.runIterations(short: counting.shortIterations).count)
        var figures: [InstructionFigure] = []
        var missing: [(name: String, why: String)] = []
        for benchmark in benchmarks {
            if interruption.isSet { break }
            switch try count(benchmark, harness: harness, counting: counting) {
            case .success(.counted(let figure)): figures.append(figure)
            case .success(.skipped(let why)):
                progress.line("bench: \(benchmark.engine) skips \(benchmark.item ?? "it"): \(why)")
            case .failure(let why):
                missing.append((benchmark.name, "not counted under callgrind: " + why.description))
                progress.line("bench: \(benchmark.name): not counted: \(why.description)")
            }
        }
        figures = InstructionFigure.withEnginesJudged(figures)
        let context = RunContext.instructionLines(
            options: options, instructions: counting, label: start.label, date: started, facts: start.facts,
            valgrind: valgrind, describe: start.describe,
            inexact: figures.filter(\.isInexact).map(\.benchmark.name))
        // The report's tables and the instruction targets (Benchmarks/targets.yaml, `run: instructions`).
        return try finishCounting(
            out: out, context: context, rows: InstructionText.rows(figures, options: counting), missing: missing,
            table: InstructionText.table(figures, family: counting.family), metric: counting.family.metric)
    }

    /// One benchmark counted, or skipped by its engine with the harness's reason.
    enum CountOutcome {
        case counted(InstructionFigure)
        case skipped(String)
    }

    /// One benchmark's figure, or the engine's skip; a failure says why there is no count.
    func count(_ benchmark: CountedBenchmark, harness: Harness, counting: InstructionOptions) throws -> Result<
        CountOutcome, BenchFailure
    > {
        let short = counting.shortIterations
        var totals: [Int] = []
        for iterations in counting.family.runIterations(short: short) {
            progress.running("\(benchmark.name): \(iterations) iterations under callgrind")
            switch try callgrind(benchmark, iterations: iterations, harness: harness, family: counting.family) {
            case .collected(let total): totals.append(total)
            case .skipped(let why): return .success(.skipped(why))
            case .missing(let why): return .failure(BenchFailure(why))
            }
            progress.advance()
        }
        guard
            let perUnit = instructionsPerUnit(
                short: totals[0], long: totals[1], iterations: short, unitsPerIteration: benchmark.unitsPerIteration,
                nearest: counting.family.roundsToNearest)
        else {
            return .failure(
                BenchFailure("the run of \(2 * short) iterations counted fewer instructions than the run of \(short)"))
        }
        // The repeat of the shorter run: a total that differs by one instruction per unit or more means the engine's
        // work varies from run to run, and the figure is listed as not exact.
        var repeatDifference: Int?
        if !repeatAgrees(
            first: totals[0], repeated: totals[2], iterations: short,
            unitsPerIteration: benchmark.unitsPerIteration)
        {
            repeatDifference = repeatDifferencePerUnit(
                first: totals[0], repeated: totals[2], iterations: short, unitsPerIteration: benchmark.unitsPerIteration
            )
        }
        return .success(
            .counted(InstructionFigure(benchmark: benchmark, perUnit: perUnit, repeatDifference: repeatDifference)))
    }

    /// Runs `iterations` of `benchmark` under callgrind, with a deadline, and reads its total.
    func callgrind(_ benchmark: CountedBenchmark, iterations: Int, harness: Harness, family: InstructionFamily) throws
        -> CallgrindCount
    {
        let log = work + "/callgrind-\(iterations).log"
        let limit = options.watchdog ?? BenchRun.callgrindLimitSeconds
        let end = try ChildProcess.run(
            "valgrind",
            [
                "--tool=callgrind", "--callgrind-out-file=/dev/null", harness.path, "--rl_engines=" + benchmark.engine,
                "--rl_family=" + family.rawValue, "--rl_iterations=\(iterations)",
                // The harness's own watchdog per benchmark call as long as this run's deadline: callgrind slows a
                // benchmark tens of times, past the timed profiles' limits (cf's observers at N = 10,000).
                "--rl_watchdog_s=\(limit)",
                "--benchmark_filter=" + benchmark.filter,
            ], output: log, limit: Double(limit), environment: family.environment, interruption: interruption,
            tick: progress.tick)
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let counted = CallgrindCount.read(output, iterations: iterations)
        if case .collected = counted, !end.succeeded {
            return .missing(end.describe("valgrind", limit: limit))
        }
        if case .missing(let why) = counted, !end.succeeded {
            return .missing(why + " (" + end.describe("valgrind", limit: limit) + ")")
        }
        return counted
    }

    /// valgrind's version, after checking that valgrind and strip are there.
    func countingTools() throws -> String {
        guard let version = ChildProcess.output("valgrind", ["--version"], limit: 30) else {
            throw BenchFailure(
                "bench: --instructions needs valgrind on PATH (Debian: apt-get install valgrind)")
        }
        return version.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A copy of the harness without its debug information, in the run's work directory.
    func strippedCopy(of path: String) throws -> String {
        let copy = work + "/runloop-bench"
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let end = try? ChildProcess.run("strip", ["-g", copy], output: work + "/strip.log", limit: 120)
        guard end?.succeeded == true else {
            throw BenchFailure(
                "bench: --instructions needs strip (Debian: apt-get install binutils): "
                    + (end?.describe("strip -g", limit: 120) ?? "it did not start"))
        }
        return copy
    }
}
