// `runloop fuzz`: differential fuzzing of engines. Parses arguments and calls ConformanceFuzzer's FuzzCampaign; the
// generator, runner, shrinker and writers live there (Sources/ConformanceFuzzer/FUZZING.md).

import ArgumentParser
import ConformanceFuzzer
import ConformanceKit
import ConformanceSpec
import Engines
import Foundation

struct FuzzCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "Search for scenarios on which engines disagree, and shrink each to a spec case.",
        discussion: """
            Scenarios come from a SplitMix64 generator of the fuzzer's own (never the system RNG): scenario i of a run \
            (counting from 0) uses seed N+i, so the same seed and options give the same scenarios on every machine, and \
            a divergence found with seed N+i replays with --seed N+i --count 1 and the same --max-steps and --areas. \
            Each scenario runs on every engine in worker processes with a watchdog; one that diverges runs again, and if \
            an engine disagrees with itself it is set aside as nondeterministic (the report names that engine and the \
            first line at which its two runs part). Each divergence is printed as soon as it \
            is found, one line; the first of each new defect is then shrunk (at most 60 s, and at most half the time \
            left) and printed whole (its diff, case file with --out, replay command). Divergences that come down to the \
            same defect (the conformance triage's first departure, and its dead callout kinds judged over the whole run: \
            a callout kind an engine never made while the first engine did) are reported once, with how many scenarios \
            hit it. Divergences that Sources/ConformanceSpec/fuzz-known.yaml explains (CoreFoundation defects the spec \
            does not assert) are reported apart.

            --time bounds the whole run: no run starts after it, and the runs under way end within their watchdog \
            (--timeout), the stated tolerance; a divergence found when the time is up is reported, marked not run again \
            and not shrunk. The summary says how the time went (running, re-checking, shrinking, writing). SIGINT or \
            SIGTERM ends the run the same way, with the summary of what was found (a second one ends it at once).

            --shard K/N makes shard K of N of the campaign: the scenarios whose position in the unsharded campaign is \
            K-1 modulo N (seeds seed+K-1, seed+K-1+N, ...), so N runs with the same options and --shard 1/N to N/N \
            make exactly the scenarios of one run (--count counts the whole campaign; --time bounds each shard). \
            --json-out FILE writes the JSON report (its campaign, shard, and each finding's shrunk case); \
            `runloop fuzz merge` makes one report of the shards' files.

            Exit status: 0 when no unexplained divergence was found, 1 when one was, 2 for bad input, 128+N when signal \
            N ended the run.
            """,
        subcommands: [FuzzMergeCommand.self]
    )

    @Option(
        name: .long,
        help:
            "Engines to compare, comma-separated (the first is the reference for written cases): \(BuiltinEngines.catalogue.names.joined(separator: ", ")), or cf:PATH."
    )
    var engines: String = "cf,ref"

    @Option(name: .long, help: "The first scenario's seed (0 to 2^64-1); scenario i uses seed+i.")
    var seed: UInt64 = 1

    @Option(
        name: .long,
        help: "How many scenarios to run (default 200 unless --time is given); with --shard, of all shards.")
    var count: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Run shard K of N: every N-th scenario of the campaign, from its K-th (1 <= K <= N).", valueName: "K/N"))
    var shard: String?

    @OptionGroup var outputs: FuzzOutputs

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Bound the whole run to this many seconds, shrinking included: no run starts after them, the runs under way end within their watchdog (--timeout); a divergence still shrinking keeps its smallest case so far, one found then is reported unshrunk.",
            valueName: "seconds"))
    var time: Double?

    @Option(name: .long, help: "Write each divergence's shrunk case to this directory, as fuzz-seed-N.yaml.")
    var out: String?

    @Option(name: .long, help: "Most steps per scenario (2 to 50).")
    var maxSteps: Int = FuzzShape().maxSteps

    @Option(
        name: .long,
        help:
            "Parts of the format to use, comma-separated: \(FuzzArea.allCases.map(\.rawValue).joined(separator: ", ")) (default all)."
    )
    var areas: String?

    @Option(name: .long, help: "Output format.")
    var format: Format = .text

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(name: .long, help: "Watchdog per scenario and engine, in seconds.")
    var timeout: Double = 3

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A worker executable hosting other engines (the worker protocol of INTERPRETING.md).", valueName: "path"))
    var worker: String?

    @Option(
        name: .long, help: "The known, explained divergences (default: the shipped fuzz-known.yaml); 'none' for none.")
    var known: String?

    @Flag(name: .long, help: "Print the scenarios the options generate, as a spec file, and run nothing.")
    var list = false

    @Flag(
        name: .long,
        help:
            "End the campaign at the first unexplained divergence, once it is shrunk (the JSON gives found_after_seconds)."
    )
    var untilFound = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long shrinking one divergence may take (0: report it as found, unshrunk).", valueName: "seconds"))
    var shrinkSeconds: Double = 60

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if let time, !(time > 0 && time.isFinite) {
            throw ValidationError("--time must be a positive number of seconds")
        }
        guard (2...50).contains(maxSteps) else { throw ValidationError("--max-steps must be 2 to 50") }
        guard timeout > 0, timeout.isFinite else {
            throw ValidationError("--timeout must be a positive number of seconds")
        }
        guard shrinkSeconds >= 0, shrinkSeconds.isFinite else {
            throw ValidationError("--shrink-seconds must be 0 or a positive number of seconds")
        }
        _ = try parsedAreas()
        _ = try parsedShard()
    }

    private func parsedShard() throws -> FuzzShard {
        guard let shard else { return .whole }
        do {
            return try FuzzShard(parsing: shard)
        } catch {
            throw ValidationError(error.description)
        }
    }

    private func parsedAreas() throws -> Set<FuzzArea> {
        guard let areas else { return Set(FuzzArea.allCases) }
        var result = Set<FuzzArea>()
        for word in areas.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let area = FuzzArea(rawValue: word) else {
                throw ValidationError(
                    "unknown area '\(word)' (one of \(FuzzArea.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            result.insert(area)
        }
        guard !result.isEmpty else { throw ValidationError("--areas names no area") }
        return result
    }

    func run() throws {
        let started = WorkerProcess.monotonicNanoseconds()
        if list {
            let generator = FuzzGenerator(shape: FuzzShape(maxSteps: maxSteps, areas: try parsedAreas()))
            let shard = try parsedShard()
            let total = shard.scenarios(ofTotal: count ?? 200)
            let seeds = (0..<total).map { shard.seed(first: seed, position: $0) }
            print(CaseWriter.file(seeds.map { generator.scenario(seed: $0) }), terminator: "")
            return
        }
        Self.handleSignals()
        let launcher =
            worker.map { WorkerLauncher(executable: $0) }
            ?? .currentExecutable(leadingArguments: [WorkerCommand.configuration.commandName!])
        let selected: [EngineDescription]
        let knownDivergences: [KnownDivergence]
        do {
            let hosted =
                worker == nil
                ? BuiltinEngines.catalogue.engines.map { EngineDescription($0) }
                : try IsolatedRunner.listEngines(launcher)
            selected = try EngineSelection.resolve(engines, hosted: hosted, launcher: launcher)
            guard selected.count >= 2 else { throw failure("--engines needs two engines or more to compare") }
            if known == "none" {
                knownDivergences = []
            } else if let path = known ?? SpecResources.fuzzKnownFile {
                knownDivergences = try FuzzKnown.load(file: path)
            } else {
                throw failure("the shipped fuzz-known.yaml was not found next to the executable; pass --known")
            }
        } catch let error as WorkerError {
            throw failure(error.description)
        } catch let error as SpecError {
            throw failure(error.description)
        }
        var options = FuzzOptions(
            engines: selected, seed: seed, count: count ?? (time == nil ? 200 : nil),
            seconds: time, shape: FuzzShape(maxSteps: maxSteps, areas: try parsedAreas()),
            outDirectory: out, timeout: timeout, known: knownDivergences)
        options.shard = try parsedShard()
        options.stopAtFirstUnexplained = untilFound
        options.shrinkSeconds = shrinkSeconds
        options.startedAt = started
        options.interrupt = fuzzInterrupt
        let onTerminal = isatty(STDERR_FILENO) == 1
        let summary: FuzzSummary
        do {
            let json = format == .json
            let campaignOptions = options
            summary = try FuzzCampaign(options: options, launcher: launcher).run(
                progress: { progress in
                    guard onTerminal else { return }
                    let rate = Double(progress.scenarios) / max(progress.elapsed, 0.001)
                    let line =
                        "\r\u{1B}[K\(progress.scenarios) scenarios, \(progress.divergences - progress.explained) divergences "
                        + "(+\(progress.explained) explained), \(progress.nondeterministic) nondeterministic, "
                        + String(format: "%.1f/s", rate)
                    FileHandle.standardError.write(Data(line.utf8))
                },
                onEvent: { event in
                    // Each finding as it is made (one write, unbuffered), so that an interrupted run has shown what it
                    // found: on standard output in text, on standard error beside JSON (whose document comes at the end).
                    let text =
                        (onTerminal ? "\r\u{1B}[K" : "") + FuzzOutput.eventText(event, options: campaignOptions) + "\n"
                    (json ? FileHandle.standardError : FileHandle.standardOutput).write(Data(text.utf8))
                })
        } catch let error as WorkerError {
            throw failure(error.description)
        }
        if onTerminal { FileHandle.standardError.write(Data("\n".utf8)) }
        print(format == .json ? FuzzOutput.json(summary, options: options) : FuzzOutput.text(summary, options: options))
        if let jsonOut = outputs.jsonOut {
            do {
                try (FuzzOutput.json(summary, options: options) + "\n").write(
                    toFile: jsonOut, atomically: true, encoding: .utf8)
            } catch {
                throw failure("cannot write \(jsonOut): \(error.localizedDescription)")
            }
        }
        if let signal = summary.interrupted { throw ExitCode(128 + signal) }
        if summary.exitCode != 0 { throw ExitCode(summary.exitCode) }
    }

    /// SIGINT and SIGTERM ask the campaign to end (it prints what it found); a second one, a second or more after
    /// the first (`timeout` sends its signal twice at once: to the process, then to its group), ends the process at
    /// once. The worker processes keep the default action: a signal sent to the whole group ends their runs under way,
    /// and the campaign does not count those runs.
    private static func handleSignals() {
        _ = fuzzInterrupt  // initialized before any handler can run
        signal(SIGINT, onFuzzSignal)
        signal(SIGTERM, onFuzzSignal)
    }

    private func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("runloop fuzz: \(message)\n".utf8))
        return ExitCode(2)
    }
}

/// The file `runloop fuzz` and `runloop fuzz merge` write their JSON report to. One group that both commands declare:
/// ArgumentParser matches an option after a subcommand's name to its parent's option of the same name, and shares a
/// group's values between the two, so `fuzz merge ... --json-out FILE` reaches the merge this way only.
struct FuzzOutputs: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Also write the JSON report to this file.", valueName: "file"))
    var jsonOut: String?
}

/// The interrupt of `runloop fuzz`'s campaign: global, so that the signal handler (a C function, which captures
/// nothing) reaches it. Its state is atomics only (FuzzInterrupt).
private let fuzzInterrupt = FuzzInterrupt()

/// The signal handler: only async-signal-safe work (atomics, write(2) of a static string, _exit).
private func onFuzzSignal(_ number: Int32) {
    if let since = fuzzInterrupt.request(signal: number) {
        guard since >= 1_000_000_000 else { return }
        let message: StaticString = "runloop fuzz: signalled again: ending now\n"
        message.withUTF8Buffer { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
        _exit(128 + number)
    }
    let message: StaticString = """
        runloop fuzz: interrupted: no run starts now; the runs under way finish within their watchdog, then the \
        summary of what was found (signal again to end at once)

        """
    message.withUTF8Buffer { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
