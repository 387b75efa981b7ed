// `runloop bench --syscalls`: the phases after the build — what counts (perf's syscall tracepoints, else strace),
// each engine's wake-up round trip in each variant counted twice (SyscallCount.swift says what and how a count is
// read), the table of every column, the results CSV (`# timing: none`, the counts per round trip as columns),
// `runloop report`'s tables of system calls (`run: syscalls`) and the run added to the history.
import Foundation

extension BenchRun {
    /// The longest one run under perf may take, seconds, unless `--watchdog` says otherwise.
    static let perfLimitSeconds = 300
    /// The longest one run under strace may take (ptrace slows it down), seconds, unless `--watchdog` says otherwise.
    static let straceLimitSeconds = 600

    func syscallPhases(_ harness: Harness) throws -> Int32 {
        let counting = options.syscallOptions
        let (counter, events, tool) = try syscallCounter()
        let start = try countingStart(harness, factsRoot: root, label: RunContext.syscallLabel)
        let (engines, out) = (start.engines, start.out)
        let context = RunContext.syscallLines(
            options: options, syscalls: counting, counter: counter, tool: tool, label: start.label, date: started,
            facts: start.facts, describe: start.describe)
        progress.expect(engines.count * SyscallVariant.all.count * 2)
        var figures: [SyscallFigure] = []
        var missing: [(name: String, why: String)] = []
        for engine in engines {
            for variant in SyscallVariant.all {
                if interruption.isSet { break }
                let name = variant.rowName(engine: engine)
                switch try countSyscalls(
                    engine: engine, variant: variant, counter: counter, events: events, harness: harness,
                    counting: counting)
                {
                case .success(let figure?): figures.append(figure)
                case .success(nil): progress.line("bench: \(engine) skips \(variant.text) (it lacks the feature)")
                case .failure(let why):
                    missing.append((name, "not counted: " + why.description))
                    progress.line("bench: \(name): not counted: \(why.description)")
                }
            }
        }
        // The report's tables of system calls (Benchmarks/targets.yaml, `run: syscalls`).
        return try finishCounting(
            out: out, context: context, rows: SyscallText.rows(figures, options: counting), missing: missing,
            table: SyscallText.table(figures, counter: counter, options: counting), metric: SyscallCounts.metric)
    }

    /// What counts: perf when its syscall tracepoints are usable (with the tracepoints this kernel has), else strace,
    /// with the tool's version for the context. Throws when neither is usable.
    func syscallCounter() throws -> (SyscallCounter, [String], String) {
        let probe = work + "/perf-probe.log"
        let end = try? ChildProcess.run(
            "perf", ["stat", "-x,", "-e", "syscalls:sys_enter_write", "--", "true"], output: probe, limit: 30)
        let said = (try? String(contentsOfFile: probe, encoding: .utf8)) ?? ""
        if SyscallCounts.perfUsable(probeSucceeded: end?.succeeded == true, output: said) {
            let list = ChildProcess.output("perf", ["list", "syscalls:sys_enter_*"], limit: 60) ?? ""
            let version = ChildProcess.output("perf", ["--version"], limit: 30) ?? "perf (version unknown)"
            return (.perf, SyscallCounts.perfEvents(available: list), version.trimmed)
        }
        var why = "perf is not on PATH"
        if let end {
            let first = said.split(separator: "\n").first.map(String.init)
            why =
                "perf's syscall tracepoints are not usable here (" + (first ?? end.describe("perf stat", limit: 30))
                + ")"
        }
        guard let version = ChildProcess.output("strace", ["-V"], limit: 30) else {
            throw BenchFailure(
                "bench: --syscalls needs perf with its syscall tracepoints (Debian: apt-get install linux-perf; "
                    + "tracefs mounted, perf_event_paranoid low enough) or strace (apt-get install strace): \(why), "
                    + "and strace is not on PATH")
        }
        progress.line("bench: \(why), falling back to strace -c -f: figures distorted by ptrace, indicative only")
        return (.strace, [], version.split(separator: "\n").first.map(String.init) ?? "strace")
    }

    /// One engine and variant's figures: nil when the engine skips the benchmark; a failure says why there is none.
    func countSyscalls(
        engine: String, variant: SyscallVariant, counter: SyscallCounter, events: [String], harness: Harness,
        counting: SyscallOptions
    ) throws -> Result<SyscallFigure?, BenchFailure> {
        var runs: [[String: Int]] = []
        for roundTrips in [counting.shortRoundTrips, counting.roundTrips] {
            progress.running("\(variant.rowName(engine: engine)): \(roundTrips) round trips under \(counter.rawValue)")
            switch try syscallRun(
                engine: engine, variant: variant, roundTrips: roundTrips, counter: counter, events: events,
                harness: harness)
            {
            case .success(let counts?): runs.append(counts)
            case .success(nil): return .success(nil)
            case .failure(let why): return .failure(why)
            }
            progress.advance()
        }
        return .success(
            SyscallFigure.of(engine: engine, variant: variant, short: runs[0], long: runs[1], options: counting))
    }

    /// Runs `roundTrips` of the variant under the counter, with a deadline, and reads its system calls by name: nil
    /// when the engine skips it.
    func syscallRun(
        engine: String, variant: SyscallVariant, roundTrips: Int, counter: SyscallCounter, events: [String],
        harness: Harness
    ) throws -> Result<[String: Int]?, BenchFailure> {
        let log = work + "/syscalls-run.log"
        let counts = work + "/syscalls-counts.txt"
        try? FileManager.default.removeItem(atPath: counts)
        let run = [
            harness.path, "--rl_profile=quick", "--rl_family=wake", "--rl_engines=" + engine,
            "--rl_iterations=\(roundTrips)", "--benchmark_filter=" + variant.filter(engine: engine),
            "--benchmark_repetitions=1",
        ]
        let limit: Int
        let end: ChildEnd
        switch counter {
        case .perf:
            limit = options.watchdog ?? BenchRun.perfLimitSeconds
            end = try ChildProcess.run(
                "perf", ["stat", "-x,", "-o", counts, "-e", events.joined(separator: ","), "--"] + run,
                output: log, limit: Double(limit), interruption: interruption, tick: progress.tick)
        case .strace:
            limit = options.watchdog ?? BenchRun.straceLimitSeconds
            end = try ChildProcess.run(
                "strace", ["-c", "-f", "-o", counts, "--"] + run, output: log, limit: Double(limit),
                interruption: interruption, tick: progress.tick)
        }
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        if output.contains("ERROR OCCURRED: 'skipped:") { return .success(nil) }
        let lines = output.split(separator: "\n")
        if let error = lines.first(where: { $0.contains("ERROR OCCURRED") }) {
            return .failure(
                BenchFailure("the benchmark reported an error: " + error.trimmingCharacters(in: .whitespaces)))
        }
        guard end.succeeded else {
            let last = lines.last.map { ": " + $0 } ?? ""
            return .failure(BenchFailure(end.describe("\(counter.rawValue) of the harness", limit: limit) + last))
        }
        guard lines.contains(where: { $0.hasPrefix("BM_WakeLatency") && $0.contains("/iterations:\(roundTrips)") })
        else {
            return .failure(BenchFailure("the benchmark did not finish (no result line for \(roundTrips) round trips)"))
        }
        let text = (try? String(contentsOfFile: counts, encoding: .utf8)) ?? ""
        let read = counter == .perf ? SyscallCounts.readPerf(text) : SyscallCounts.readStrace(text)
        guard (read["all"] ?? 0) > 0 else {
            return .failure(BenchFailure("\(counter.rawValue) wrote no count of system calls"))
        }
        return .success(read)
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
