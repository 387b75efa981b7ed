// A fuzzing campaign: generate scenarios seed by seed, run each on every engine, run a divergent one again to set
// nondeterminism aside, shrink a real divergence, classify it against the known divergences, and write it as a case.

import ConformanceKit
import Foundation

/// What a campaign does.
public struct FuzzOptions: Sendable {
    public var engines: [EngineDescription]
    /// Scenario i of the campaign (counting from 0) is generated from seed `seed + i` (wrapping at 2^64).
    public var seed: UInt64
    /// Stop after this many scenarios...
    public var count: Int?
    /// ...or once this many seconds have passed. The whole campaign keeps to it, shrinking included: no batch starts
    /// after it, and a divergence found or still shrinking then keeps the smallest case so far (unshrunk, if its
    /// shrinking had not started). Only the batch under way overruns it: its runs, and for each divergence found
    /// in it a classification and a check run.
    public var seconds: Double?
    public var shape: FuzzShape
    /// Where shrunk cases are written; nil: nowhere.
    public var outDirectory: String?
    /// The watchdog per scenario and engine, in seconds.
    public var timeout: Double
    public var known: [KnownDivergence]
    /// Scenarios per worker start (a batch file loaded once by one worker per engine).
    public var batchSize: Int = 25
    /// How long shrinking one divergence may take, in seconds, before the smallest case so far is kept (within
    /// `seconds`, which bounds the whole campaign).
    public var shrinkSeconds: Double = 60
    /// End the campaign once an unexplained divergence has been found and shrunk (`--until-found`): how long a fuzzer
    /// takes to find a bug, as scripts/mutation.sh --fuzz measures it.
    public var stopAtFirstUnexplained = false

    public init(engines: [EngineDescription], seed: UInt64, count: Int?, seconds: Double?, shape: FuzzShape,
                outDirectory: String?, timeout: Double = 3, known: [KnownDivergence] = []) {
        self.engines = engines
        self.seed = seed
        self.count = count
        self.seconds = seconds
        self.shape = shape
        self.outDirectory = outDirectory
        self.timeout = timeout
        self.known = known
    }
}

/// One divergence, shrunk.
public struct FuzzFinding: Sendable {
    /// The seed of the scenario that found it (replay: `--seed SEED --count 1` with the same options).
    public var seed: UInt64
    public var originalSize: Int
    /// The shrunk case; its `expect` is the first engine's trace.
    public var shrunk: SpecCase
    /// Each engine's run of the shrunk case, in engine order.
    public var runs: [FuzzRun]
    /// The known divergence that explains it, if one does.
    public var explanation: KnownDivergence?
    /// Whether the shrunk case gave the same runs when run again.
    public var stable: Bool
    /// The file it was written to.
    public var file: String?
    /// Seconds from the campaign's start to the end of the batch whose run found it (before shrinking).
    public var foundAfter: Double = 0
    /// Seconds spent shrinking it.
    public var shrinkSeconds: Double = 0
    /// Whether shrinking stopped at the campaign's time limit (`--time`) rather than when nothing smaller diverged or
    /// at its own budget.
    public var shrinkCut = false
    /// The defect it comes down to, by the triage of conformance results applied to the shrunk case (the first
    /// engine's trace as the expected one): "<engine>: <where its trace departs>", or "explained: <known id>".
    /// Findings with the same defect are reported once.
    public var defect: String = ""

    /// The shrunk scenario without its id, rule and expectation: findings with the same signature are the same
    /// minimal case, found from several seeds.
    public var signature: String {
        var bare = shrunk
        bare.id = "fuzz.same"
        bare.rule = ""
        bare.expectedTrace = []
        bare.unorderedRanges = []
        return CaseWriter.write(bare)
    }
}

/// Counts during a campaign, for a progress line.
public struct FuzzProgress: Sendable {
    public var scenarios: Int
    public var divergences: Int
    public var explained: Int
    public var nondeterministic: Int
    public var elapsed: Double
}

/// The result of a campaign.
public struct FuzzSummary: Sendable {
    public var engines: [String]
    public var firstSeed: UInt64
    public var scenarios: Int
    /// Scenarios some engine SKIPped (it lacks a feature the scenario uses).
    public var skipped: Int
    /// Seeds of the scenarios every engine timed out on (nothing to compare; the generator should not make them).
    public var hung: [UInt64]
    /// Seeds of the scenarios every engine ended the same way other than completing or timing out (all CRASH, all
    /// ERROR), with the first engine's status and the first line of its detail: nothing to compare, and a sign of a
    /// broken setup when there are many.
    public var failedEverywhere: [(seed: UInt64, status: String)]
    /// Seeds whose scenario gave an engine different results on two runs.
    public var nondeterministic: [UInt64]
    public var findings: [FuzzFinding]
    public var seconds: Double
    /// The seconds shrinking took, over every finding.
    public var shrinkSeconds: Double = 0

    public var unexplained: [FuzzFinding] { findings.filter { $0.explanation == nil } }
    public var explained: [FuzzFinding] { findings.filter { $0.explanation != nil } }
    /// The findings grouped by ``FuzzFinding/defect``, in the order each defect was first found; the first of each
    /// group is the one to read (its seed found the defect first).
    public var defects: [(defect: String, findings: [FuzzFinding])] {
        var order: [String] = []
        var groups: [String: [FuzzFinding]] = [:]
        for finding in findings {
            if groups[finding.defect] == nil { order.append(finding.defect) }
            groups[finding.defect, default: []].append(finding)
        }
        return order.map { ($0, groups[$0]!) }
    }
    /// 0 when no unexplained divergence was found, 1 otherwise.
    public var exitCode: Int32 { unexplained.isEmpty ? 0 : 1 }
}

/// Runs a campaign.
public struct FuzzCampaign: Sendable {
    public var options: FuzzOptions
    public var executor: FuzzExecutor

    public init(options: FuzzOptions, launcher: WorkerLauncher) {
        self.options = options
        self.executor = FuzzExecutor(launcher: launcher, engines: options.engines, timeout: options.timeout,
                                     directory: NSTemporaryDirectory())
    }

    /// Runs until `count` scenarios or `seconds` have passed. `onFinding` sees each finding as soon as it is shrunk
    /// and written, with whether it is the first of its defect. Throws ``WorkerError`` when a batch file cannot be
    /// written or an output file cannot be.
    public func run(progress: (@Sendable (FuzzProgress) -> Void)? = nil,
                    onFinding: ((FuzzFinding, _ firstOfDefect: Bool) -> Void)? = nil) throws -> FuzzSummary {
        let started = WorkerProcess.monotonicNanoseconds()
        func elapsed() -> Double { Double(WorkerProcess.monotonicNanoseconds() - started) / 1e9 }
        let deadline = options.seconds.map { started + UInt64($0 * 1e9) }
        let generator = FuzzGenerator(shape: options.shape)
        var summary = FuzzSummary(engines: options.engines.map(\.name), firstSeed: options.seed, scenarios: 0,
                                  skipped: 0, hung: [], failedEverywhere: [], nondeterministic: [], findings: [], seconds: 0)
        while true {
            if let count = options.count, summary.scenarios >= count { break }
            if let seconds = options.seconds, elapsed() >= seconds { break }
            let size = min(options.batchSize, options.count.map { $0 - summary.scenarios } ?? options.batchSize)
            let seeds = (0..<size).map { options.seed &+ UInt64(summary.scenarios + $0) }
            let scenarios = seeds.map(generator.scenario)
            let results = try executor.run(scenarios)
            summary.scenarios += size
            var divergent: [Int] = []
            for (index, runs) in results.enumerated() {
                if runs.contains(where: \.isSkip) {
                    summary.skipped += 1
                } else if runs.allSatisfy({ $0.status == CaseStatus.timeout.rawValue }) {
                    summary.hung.append(seeds[index])
                } else if Self.diverges(runs) {
                    divergent.append(index)
                } else if runs[0].status != "done" {
                    let detail = runs[0].detail?.split(separator: "\n").first.map { ": \($0)" } ?? ""
                    summary.failedEverywhere.append((seeds[index], runs[0].status + detail))
                }
            }
            // Run each divergent scenario again: an engine that disagrees with itself makes the divergence noise.
            let again = try executor.run(divergent.map { scenarios[$0] })
            let foundAfter = elapsed()
            for (position, index) in divergent.enumerated() {
                guard again[position] == results[index] else {
                    summary.nondeterministic.append(seeds[index])
                    continue
                }
                var finding = try shrink(scenarios[index], runs: results[index], seed: seeds[index], deadline: deadline)
                finding.foundAfter = foundAfter
                summary.shrinkSeconds += finding.shrinkSeconds
                // One file per distinct minimal case: later seeds that shrink to it point to the first one's file.
                if let same = summary.findings.first(where: { $0.signature == finding.signature }) {
                    finding.file = same.file
                } else if let directory = options.outDirectory {
                    finding.file = try write(finding, to: directory)
                }
                let firstOfDefect = !summary.findings.contains { $0.defect == finding.defect }
                summary.findings.append(finding)
                onFinding?(finding, firstOfDefect)
            }
            progress?(FuzzProgress(scenarios: summary.scenarios, divergences: summary.findings.count,
                                   explained: summary.explained.count,
                                   nondeterministic: summary.nondeterministic.count, elapsed: elapsed()))
            if options.stopAtFirstUnexplained, !summary.unexplained.isEmpty { break }
        }
        summary.seconds = elapsed()
        return summary
    }

    /// Whether engines disagree: a different status, or the same completed run with a different trace. Engines that
    /// all crash or all time out do not diverge (their traces so far depend on when the end came).
    static func diverges(_ runs: [FuzzRun]) -> Bool {
        guard let first = runs.first else { return false }
        if runs.contains(where: { $0.status != first.status }) { return true }
        return first.status == "done" && runs.contains { $0.trace != first.trace }
    }

    /// The known divergence that explains the divergence of `specCase`, if one does: the first entry whose static
    /// conditions hold and, if it has a counterfactual, on whose changed case every engine completes with the same
    /// trace (one more run of the engines), or with a divergence that the other entries explain (two known defects in
    /// one case: the stale timer wake and the tolerance CF does not store, say).
    func classify(_ specCase: SpecCase, _ runs: [FuzzRun], excluding used: Set<String> = []) throws -> KnownDivergence? {
        guard runs.count >= 2 else { return nil }
        for entry in FuzzKnown.candidates(in: options.known, for: specCase, first: runs[0].trace,
                                          second: runs[1].trace) where !used.contains(entry.id) {
            guard let counterfactual = entry.counterfactual else { return entry }
            let changedCase = FuzzKnown.apply(counterfactual, to: specCase)
            let changed = try executor.run([changedCase])[0]
            guard changed.allSatisfy({ $0.status == "done" }) else { continue }
            if !Self.diverges(changed) { return entry }
            if try classify(changedCase, changed, excluding: used.union([entry.id])) != nil { return entry }
        }
        return nil
    }

    // MARK: Shrinking

    /// Shrinks greedily while the engines still diverge in the same way: each engine ends the same way (completes,
    /// crashes, times out) as on the original, and the divergence stays in its class (unexplained stays unexplained,
    /// an explained one keeps its explanation), so that shrinking cannot slide from a new divergence to a known one,
    /// or to a case that merely hangs.
    /// Shrinking stops at `deadline` (the campaign's end, monotonic nanoseconds) too, keeping the smallest case so far.
    func shrink(_ scenario: SpecCase, runs: [FuzzRun], seed: UInt64, deadline: UInt64? = nil) throws -> FuzzFinding {
        let started = WorkerProcess.monotonicNanoseconds()
        var cut = false
        func mayGoOn() -> Bool {
            let now = WorkerProcess.monotonicNanoseconds()
            if let deadline, now >= deadline {
                cut = true
                return false
            }
            return Double(now - started) / 1e9 < options.shrinkSeconds
        }
        let target = try classify(scenario, runs)?.id
        var current = scenario
        var currentRuns = runs
        rounds: while mayGoOn() {
            let candidates = FuzzShrinker.candidates(current)
            var start = 0
            while start < candidates.count {
                guard mayGoOn() else { break rounds }
                let chunk = Array(candidates[start..<min(start + 16, candidates.count)])
                let results = try executor.run(chunk)
                for index in results.indices where results[index].map(\.status) == runs.map(\.status)
                    && Self.diverges(results[index]) {
                    guard try classify(chunk[index], results[index])?.id == target else { continue }
                    current = chunk[index]
                    currentRuns = results[index]
                    continue rounds
                }
                start += chunk.count
            }
            break
        }
        let check = try executor.run([current])
        let explanation = try classify(current, currentRuns)
        var shrunk = current
        shrunk.id = FuzzGenerator.caseID(seed: seed)
        shrunk.expectedTrace = currentRuns[0].rawTrace
        shrunk.unorderedRanges = FuzzScenario.unorderedRanges(in: shrunk.expectedTrace)
        let engines = options.engines.map(\.name)
        shrunk.rule = "Engines \(engines.joined(separator: " and ")) diverge on this scenario (runloop fuzz, seed \(seed)): "
            + "review it, say the rule it checks, and rename it before moving it into cases/."
        var finding = FuzzFinding(seed: seed, originalSize: FuzzShrinker.size(scenario), shrunk: shrunk,
                                  runs: currentRuns, explanation: explanation, stable: check.first == currentRuns,
                                  file: nil)
        finding.shrinkSeconds = Double(WorkerProcess.monotonicNanoseconds() - started) / 1e9
        finding.shrinkCut = cut
        finding.defect = Self.defect(runs: currentRuns, engines: options.engines.map(\.name), explanation: explanation,
                                     specCase: shrunk)
        return finding
    }

    /// The defect a divergence comes down to: the triage's departure (Triage.swift) of the first engine that
    /// disagrees with the first one, with the first engine's run as the expected trace; or the known divergence that
    /// explains it.
    static func defect(runs: [FuzzRun], engines: [String], explanation: KnownDivergence?, specCase: SpecCase) -> String {
        if let explanation { return "explained: \(explanation.id)" }
        guard let reference = runs.first,
              let index = runs.indices.dropFirst().first(where: { runs[$0] != reference }) else { return "none" }
        let other = runs[index]
        func status(_ run: FuzzRun) -> CaseStatus { CaseStatus(rawValue: run.status) ?? .fail }
        guard reference.status == "done" else {
            // The reference did not complete: name how it ended, and how the other did.
            return "\(engines[0]): \(reference.status), \(engines[index]): \(other.status)"
        }
        let title = Triage.departureTitle(expected: reference.trace, actual: other.trace,
                                          status: other.status == "done" ? .fail : status(other), detail: other.detail)
        return "\(engines[index]): " + (title ?? "differs from \(engines[0])")
    }

    // MARK: Output

    /// Writes the finding as a one-case spec file, `fuzz-seed-N.yaml` (`explained-fuzz-seed-N.yaml` for a known
    /// divergence), and returns its path.
    func write(_ finding: FuzzFinding, to directory: String) throws -> String {
        let name = (finding.explanation == nil ? "" : "explained-") + "fuzz-seed-\(finding.seed).yaml"
        let path = (directory as NSString).appendingPathComponent(name)
        let text = FuzzOutput.caseFile(finding, options: options)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw WorkerError(description: "cannot write \(path): \(error.localizedDescription)")
        }
        return path
    }
}
