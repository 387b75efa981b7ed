// A fuzzing campaign: generate scenarios seed by seed, run each on every engine, run a divergent one again to set
// nondeterminism aside, shrink a real divergence, classify it against the known divergences, and write it as a case.

import ConformanceKit
import Foundation
import Synchronization

/// What a campaign does.
public struct FuzzOptions: Sendable {
    public var engines: [EngineDescription]
    /// Scenario i of the campaign (counting from 0) is generated from seed `seed + i` (wrapping at 2^64).
    public var seed: UInt64
    /// Stop after this many scenarios of the unsharded campaign (a shard runs its own share of them)...
    public var count: Int?
    /// The shard of the campaign this run makes (`--shard K/N`): scenario i of the unsharded campaign is shard
    /// i mod N + 1's (FuzzShard); ``FuzzShard/whole`` makes every scenario.
    public var shard = FuzzShard.whole
    /// ...or once this many seconds have passed since `startedAt`. They bound the whole campaign: generation, runs,
    /// re-checks, classification, shrinking and writing. No run starts after them; the runs under way then (one
    /// scenario per engine) end within their watchdog (`timeout`), which is the campaign's tolerance. A divergence
    /// still shrinking keeps its smallest case so far; one found when the time is up is reported as found (not run
    /// again, not shrunk), and says so.
    public var seconds: Double?
    /// When the campaign's time started (WorkerProcess.monotonicNanoseconds); nil: when `run` is called. The command
    /// passes its own start, so that `seconds` bounds the whole command.
    public var startedAt: UInt64?
    public var shape: FuzzShape
    /// Where shrunk cases are written; nil: nowhere.
    public var outDirectory: String?
    /// The watchdog per scenario and engine, in seconds.
    public var timeout: Double
    public var known: [KnownDivergence]
    /// The most scenarios per batch (a batch file loaded once by one worker per engine). With `seconds`, a batch is
    /// smaller: the first has `firstBatchSize` scenarios, each later one as many as a quarter of the time left holds
    /// at the seconds per scenario the batches so far took.
    public var batchSize: Int = 25
    /// How long shrinking one divergence may take, in seconds, before the smallest case so far is kept; with
    /// `seconds`, also at most half the time left when it starts, so that the campaign goes on searching.
    public var shrinkSeconds: Double = 60
    /// End the campaign once an unexplained divergence has been found and shrunk (`--until-found`): how long a fuzzer
    /// takes to find a bug, as scripts/mutation.sh --fuzz measures it.
    public var stopAtFirstUnexplained = false
    /// Ends the campaign early when requested (the command's SIGINT and SIGTERM handler): no run starts after, and
    /// the summary holds what was found before.
    public var interrupt: FuzzInterrupt?

    public init(
        engines: [EngineDescription], seed: UInt64, count: Int?, seconds: Double?, shape: FuzzShape,
        outDirectory: String?, timeout: Double = 3, known: [KnownDivergence] = []
    ) {
        self.engines = engines
        self.seed = seed
        self.count = count
        self.seconds = seconds
        self.shape = shape
        self.outDirectory = outDirectory
        self.timeout = timeout
        self.known = known
    }

    /// The seed of this run's scenario `position` (counting from 0), in its shard.
    public func seed(position: Int) -> UInt64 { shard.seed(first: seed, position: position) }

    /// How many scenarios this run makes at most: its shard's share of `count`; nil: no count, only the time.
    public var shardCount: Int? { count.map(shard.scenarios(ofTotal:)) }

    /// The first batch's size when the campaign has a time limit (no rate is known yet).
    public static let firstBatchSize = 4
}

/// A request to end a campaign early, by a signal. Set from a signal handler, read by the campaign's threads: only
/// atomics, so that `request` is safe in a signal handler (no lock, no allocation).
public final class FuzzInterrupt: Sendable {
    private let requested = Atomic<Int32>(0)
    private let requestedAt = Atomic<UInt64>(0)

    public init() {}

    /// Asks the campaign to end; the first signal is the one reported. Returns nil for the first request, else the
    /// nanoseconds since the first (a caller may tell a second request from the echo of the first: `timeout` sends
    /// its signal to the process and then to its whole group).
    @discardableResult
    public func request(signal: Int32) -> UInt64? {
        let now = WorkerProcess.monotonicNanoseconds()
        if requested.compareExchange(expected: 0, desired: signal, ordering: .sequentiallyConsistent).exchanged {
            requestedAt.store(now, ordering: .sequentiallyConsistent)
            return nil
        }
        return now &- requestedAt.load(ordering: .sequentiallyConsistent)
    }

    /// The signal that asked the campaign to end, if one did.
    public var signal: Int32? {
        let value = requested.load(ordering: .sequentiallyConsistent)
        return value == 0 ? nil : value
    }
}

/// How far a finding was shrunk, and why no further.
public enum FuzzShrinkState: Sendable, Equatable {
    /// Not shrunk yet (a finding as first reported, before its shrinking).
    case pending
    /// Shrunk until no one-step simplification still diverged the same way.
    case minimal
    /// Shrinking stopped at its own budget (`FuzzOptions.shrinkSeconds`, or half the time left); smallest case kept.
    case stoppedAtBudget
    /// Shrinking stopped at the campaign's time limit; smallest case so far kept.
    case stoppedAtTimeLimit
    /// Shrinking stopped at an interrupt; smallest case so far kept.
    case stoppedByInterrupt
    /// Found when the time was up (or after an interrupt): not shrunk.
    case notShrunk
    /// Not shrunk: its divergence departs as an earlier finding's did (the same defect), the finding of this seed.
    case sameDefect(as: UInt64)
}

/// One divergence: as found, and shrunk when there was time.
public struct FuzzFinding: Sendable {
    /// The seed of the scenario that found it (replay: `--seed SEED --count 1` with the same options).
    public var seed: UInt64
    public var originalSize: Int
    /// The scenario as generated, and each engine's run of it (in engine order).
    public var scenario: SpecCase
    public var scenarioRuns: [FuzzRun]
    /// The shrunk case (the scenario itself when it was not shrunk); its `expect` is the first engine's trace.
    public var shrunk: SpecCase
    /// Each engine's run of the shrunk case, in engine order.
    public var runs: [FuzzRun]
    /// The known divergence that explains it, if one does.
    public var explanation: KnownDivergence?
    /// Known divergences whose conditions hold but whose counterfactual run could not be made (time limit,
    /// interrupt): the finding may be one of them. It counts as explained only by `explanation`.
    public var possibleExplanations: [String] = []
    /// The known divergences whose static conditions hold for it as found (FuzzKnown.candidates), until its
    /// classification runs rule them out: a finding with none is unexplained, and only such a finding stands for its
    /// departure (FuzzCampaign.run). A later divergence that departs as such a finding did is counted for its defect
    /// without a classification of its own (as an unexplained one): its candidates stay listed here.
    public var knownCandidates: [String] = []
    /// Whether the scenario was run again and gave the same runs (false: found when the time was up, not run again).
    public var rechecked: Bool = true
    /// Whether the shrunk case gave the same runs when run again; nil when it was not run again.
    public var stable: Bool?
    /// The file it was written to.
    public var file: String?
    /// Seconds from the campaign's start to when it was found (its batch and re-check run).
    public var foundAfter: Double = 0
    /// Seconds from the campaign's start to the end of its shrinking.
    public var shrunkAfter: Double = 0
    /// Seconds spent shrinking it (with the classification and check runs of its candidates).
    public var shrinkSeconds: Double = 0
    public var shrinkState: FuzzShrinkState = .pending
    /// The defect it comes down to (FuzzDefects), with the dead callout kinds of the whole campaign: findings with
    /// the same defect are reported once.
    public var defect: String = ""

    public init(seed: UInt64, scenario: SpecCase, runs: [FuzzRun], explanation: KnownDivergence?) {
        self.seed = seed
        self.originalSize = FuzzShrinker.size(scenario)
        self.scenario = scenario
        self.scenarioRuns = runs
        self.shrunk = scenario
        self.runs = runs
        self.explanation = explanation
    }

    /// Whether shrinking stopped at the campaign's end (time limit or interrupt) or never started for it.
    public var shrinkCut: Bool {
        [.stoppedAtTimeLimit, .stoppedByInterrupt, .notShrunk].contains(shrinkState)
    }

    /// Neither explained nor possibly explained by a known divergence.
    public var isUnexplained: Bool { explanation == nil && possibleExplanations.isEmpty }

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

/// What a finding's report is at: found (before shrinking), or shrunk.
public enum FuzzEvent: Sendable {
    /// A divergence found (run again unless the time was up), with whether its departure is a new one: printed at
    /// once, before shrinking.
    case found(FuzzFinding, newDefect: Bool)
    /// A new defect's finding after shrinking (or after its shrinking was cut short).
    case shrunk(FuzzFinding)
    /// A divergence set aside as nondeterministic: an engine gave a different result when it ran again.
    case setAside(FuzzNondeterminism, after: Double)
}

/// Where a campaign's time went, in seconds.
public struct FuzzTiming: Sendable {
    /// The scenarios' own runs.
    public var running = 0.0
    /// The second runs of divergent scenarios (nondeterminism check).
    public var rechecking = 0.0
    /// Shrinking, with the classification and check runs it makes.
    public var shrinking = 0.0
    /// Writing case files.
    public var writing = 0.0
    /// From `FuzzOptions.startedAt` to the end of the campaign.
    public var total = 0.0
    /// Everything else: starting up, generating scenarios, comparing traces.
    public var other: Double { max(total - running - rechecking - shrinking - writing, 0) }
}

/// The result of a campaign.
public struct FuzzSummary: Sendable {
    public var engines: [String]
    public var firstSeed: UInt64
    public var scenarios: Int
    /// Batches run, and scenarios of a batch that were not run (the time limit or an interrupt came first).
    public var batches: Int = 0
    /// Scenarios some engine SKIPped: it lacks a feature the scenario uses, or the wall clock moved during each of its
    /// runs of a scenario that traces dates (those are also in ``skippedForTheClock``).
    public var skipped: Int
    /// Seeds of the skipped scenarios that the moving wall clock left unjudged on some engine (``WallClock``).
    public var skippedForTheClock: [UInt64] = []
    /// Seeds of the scenarios every engine timed out on (nothing to compare; the generator should not make them).
    public var hung: [UInt64]
    /// Seeds of the scenarios every engine ended the same way other than completing or timing out (all CRASH, all
    /// ERROR), with the first engine's status and the first line of its detail: nothing to compare, and a sign of a
    /// broken setup when there are many.
    public var failedEverywhere: [(seed: UInt64, status: String)]
    /// The divergent scenarios that gave an engine different results on two runs, set aside: each with the engines
    /// whose runs changed and where.
    public var nondeterministic: [FuzzNondeterminism]
    public var findings: [FuzzFinding]
    /// The campaign's wall time (from `FuzzOptions.startedAt`), as `timing.total`.
    public var seconds: Double
    public var timing = FuzzTiming()
    /// The seconds shrinking took, over every finding.
    public var shrinkSeconds: Double { timing.shrinking }
    /// Per engine after the first, the callout kinds it never made in the whole campaign (FuzzDefects).
    public var deadKinds: [String: [String]] = [:]
    /// The signal that ended the campaign early, if one did.
    public var interrupted: Int32?
    /// Whether the time limit ended it.
    public var reachedTimeLimit = false

    public var unexplained: [FuzzFinding] { findings.filter(\.isUnexplained) }
    public var explained: [FuzzFinding] { findings.filter { $0.explanation != nil } }
    /// Findings a known divergence may explain but whose counterfactual could not be run.
    public var unclassified: [FuzzFinding] {
        findings.filter { $0.explanation == nil && !$0.possibleExplanations.isEmpty }
    }
    /// The findings grouped by ``FuzzFinding/defect``, in the order each defect was first found; the first of each
    /// group is the one to read (its seed found the defect first, and it is the one shrunk).
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

    /// Names every finding's defect with the dead kinds `deadKinds` (FuzzDefects): a finding that was not shrunk
    /// because it departed as an earlier one did takes that one's defect.
    public mutating func nameDefects(deadKinds: [String: [String]]) {
        self.deadKinds = deadKinds
        var bySeed: [UInt64: String] = [:]
        for index in findings.indices {
            let finding = findings[index]
            let defect: String
            if case .sameDefect(let seed) = finding.shrinkState, let same = bySeed[seed] {
                defect = same
            } else {
                defect = FuzzDefects.defect(
                    runs: finding.runs, engines: engines, specCase: finding.shrunk,
                    explanation: finding.explanation, deadKinds: deadKinds)
            }
            findings[index].defect = defect
            if bySeed[finding.seed] == nil { bySeed[finding.seed] = defect }
        }
    }
}

/// Runs a campaign.
public struct FuzzCampaign: Sendable {
    public var options: FuzzOptions
    public var executor: FuzzExecutor
    /// Every run the campaign makes, for the dead callout kinds.
    public let census: FuzzCalloutCensus

    public init(options: FuzzOptions, launcher: WorkerLauncher) {
        self.options = options
        self.executor = FuzzExecutor(
            launcher: launcher, engines: options.engines, timeout: options.timeout,
            directory: NSTemporaryDirectory())
        self.census = FuzzCalloutCensus(engines: options.engines.map(\.name))
    }

    /// Runs the scenarios on every engine while `keepGoing` holds, and records the runs in the census.
    func execute(_ scenarios: [SpecCase], while keepGoing: (@Sendable () -> Bool)? = nil) throws -> [[FuzzRun]] {
        let rows = try executor.run(scenarios, while: keepGoing)
        census.record(rows)
        return rows
    }

    /// Runs until `count` scenarios, the time limit or an interrupt. `onEvent` sees each divergence as soon as it is
    /// found (before shrinking) and each new defect's finding once shrunk. Throws ``WorkerError`` when a batch file
    /// cannot be written or an output file cannot be.
    public func run(
        progress: (@Sendable (FuzzProgress) -> Void)? = nil,
        onEvent: ((FuzzEvent) -> Void)? = nil
    ) throws -> FuzzSummary {
        let campaign = FuzzCampaignRun(self, onEvent: onEvent)
        while campaign.wantsMore {
            guard var batch = try campaign.runBatch() else { break }
            let divergent = campaign.tally(batch)
            let fresh = campaign.setAsideKnownDefects(divergent, in: &batch)
            for position in try campaign.recheck(fresh, in: batch) {
                try campaign.classifyAndShrink(position)
            }
            progress?(campaign.progress)
            if options.stopAtFirstUnexplained, campaign.shrunkUnexplained { break }
        }
        try campaign.writeUnwritten()
        return campaign.finish()
    }

    /// A finding left as found (time limit, interrupt, or a campaign ending at its first unexplained divergence): not
    /// shrunk; an entry of the known divergences that needs no run explains it, one that needs a counterfactual run
    /// only may.
    static func leaveUnshrunk(_ finding: inout FuzzFinding, candidates: [KnownDivergence]) {
        finding.shrinkState = .notShrunk
        finding.explanation = candidates.first { $0.counterfactual == nil }
        finding.possibleExplanations = finding.explanation == nil ? candidates.map(\.id) : []
        if let explanation = finding.explanation { finding.defect = "explained: \(explanation.id)" }
    }

    /// Whether engines disagree: a different status, or the same completed run with a different trace. Engines that
    /// all crash or all time out do not diverge (their traces so far depend on when the end came).
    static func diverges(_ runs: [FuzzRun]) -> Bool {
        guard let first = runs.first else { return false }
        if runs.contains(where: { $0.status != first.status }) { return true }
        return first.status == .done && runs.contains { $0.trace != first.trace }
    }

    /// The known divergence that explains the divergence of `specCase`, if one does: the first entry whose static
    /// conditions hold and, if it has a counterfactual, on whose changed case every engine completes with the same
    /// trace (one more run of the engines), or with a divergence that the other entries explain (two known defects in
    /// one case: the stale timer wake and the tolerance CF does not store, say).
    func classify(_ specCase: SpecCase, _ runs: [FuzzRun], excluding used: Set<String> = []) throws -> KnownDivergence?
    {
        var unrun = Set<String>()
        return try classify(specCase, runs, excluding: used, while: nil, unrun: &unrun)
    }

    /// ``classify(_:_:excluding:)`` making its counterfactual runs only while `keepGoing` holds; the entries whose
    /// counterfactual could not be run are added to `unrun`.
    func classify(
        _ specCase: SpecCase, _ runs: [FuzzRun], excluding used: Set<String> = [],
        while keepGoing: (@Sendable () -> Bool)?, unrun: inout Set<String>
    ) throws -> KnownDivergence? {
        guard runs.count >= 2 else { return nil }
        for entry in FuzzKnown.candidates(
            in: options.known, for: specCase, first: runs[0].trace,
            second: runs[1].trace) where !used.contains(entry.id)
        {
            guard let counterfactual = entry.counterfactual else { return entry }
            let changedCase = FuzzKnown.apply(counterfactual, to: specCase)
            guard let changed = try execute([changedCase], while: keepGoing).first,
                options.interrupt?.signal == nil
            else {
                unrun.insert(entry.id)
                continue
            }
            guard changed.allSatisfy({ $0.status == .done }) else { continue }
            if !Self.diverges(changed) { return entry }
            if try classify(
                changedCase, changed, excluding: used.union([entry.id]), while: keepGoing,
                unrun: &unrun) != nil
            {
                return entry
            }
        }
        return nil
    }

    // MARK: Shrinking

    /// Shrinks greedily while the engines still diverge in the same way: each engine ends the same way (completes,
    /// crashes, times out) as on the original, and the divergence stays in its class (unexplained stays unexplained,
    /// an explained one keeps its explanation), so that shrinking cannot slide from a new divergence to a known one,
    /// or to a case that merely hangs.
    /// Shrinking stops at `deadline` (the campaign's end, monotonic nanoseconds), at an interrupt, and at
    /// `budgetEnd` (default: `options.shrinkSeconds` from now), keeping the smallest case so far; no run starts after
    /// them (the shrunk case's check run may go past `budgetEnd`, not past `deadline`).
    /// With `classified`, `explanation` is the divergence's class already (the campaign classified it), and the
    /// scenario is not classified again.
    func shrink(
        _ scenario: SpecCase, runs: [FuzzRun], seed: UInt64, deadline: UInt64? = nil,
        budgetEnd: UInt64? = nil, classified: Bool = false,
        explanation: KnownDivergence? = nil
    ) throws -> FuzzFinding {
        let started = WorkerProcess.monotonicNanoseconds()
        let budgetEnd = budgetEnd ?? started + UInt64(options.shrinkSeconds * 1e9)
        let interrupt = options.interrupt
        let campaignGoesOn: @Sendable () -> Bool = {
            interrupt?.signal == nil && deadline.map { WorkerProcess.monotonicNanoseconds() < $0 } ?? true
        }
        let keepGoing: @Sendable () -> Bool = { campaignGoesOn() && WorkerProcess.monotonicNanoseconds() < budgetEnd }
        func stopReason() -> FuzzShrinkState? {
            if interrupt?.signal != nil { return .stoppedByInterrupt }
            if let deadline, WorkerProcess.monotonicNanoseconds() >= deadline { return .stoppedAtTimeLimit }
            if WorkerProcess.monotonicNanoseconds() >= budgetEnd { return .stoppedAtBudget }
            return nil
        }
        var unrun = Set<String>()
        let target = classified ? explanation : try classify(scenario, runs, while: keepGoing, unrun: &unrun)
        var current = scenario
        var currentRuns = runs
        var state = FuzzShrinkState.minimal
        // A divergence whose class is not known (a counterfactual left unrun) is not shrunk: a candidate could slide
        // into a known divergence unseen.
        if target == nil, !unrun.isEmpty { state = stopReason() ?? .stoppedAtBudget }
        rounds: while state == .minimal {
            if let reason = stopReason() {
                state = reason
                break
            }
            switch try shrinkRound(current, runs: runs, target: target, while: keepGoing, stopReason: stopReason) {
            case .smaller(let smaller, let smallerRuns):
                current = smaller
                currentRuns = smallerRuns
            case .stopped(let reason):
                state = reason
            case .minimal:
                break rounds
            }
        }
        var finding = FuzzFinding(seed: seed, scenario: scenario, runs: runs, explanation: target)
        if target == nil { finding.possibleExplanations = unrun.sorted() }
        // The check run: whether the shrunk case gives the same runs again (within the campaign's time).
        if let check = try execute([current], while: campaignGoesOn).first, interrupt?.signal == nil {
            finding.stable = check == currentRuns
        }
        finding.shrunk = Self.specCase(current, runs: currentRuns, seed: seed, engines: options.engines.map(\.name))
        finding.runs = currentRuns
        finding.shrinkSeconds = Double(WorkerProcess.monotonicNanoseconds() - started) / 1e9
        finding.shrinkState = state
        finding.defect = FuzzDefects.defect(
            runs: currentRuns, engines: options.engines.map(\.name),
            specCase: finding.shrunk, explanation: target,
            deadKinds: census.deadKinds)
        return finding
    }

    /// What a round of shrinking found.
    enum ShrinkRound {
        /// A case one step simpler that still diverges the same way, and its runs.
        case smaller(SpecCase, [FuzzRun])
        /// No such case: `current` is minimal.
        case minimal
        /// The round stopped before it knew (time, budget, interrupt).
        case stopped(FuzzShrinkState)
    }

    /// One round of shrinking: the one-step simplifications of `current`, run 16 at a time, up to the first that still
    /// diverges as `runs` did (each engine ending the same way) in the class `target`.
    func shrinkRound(
        _ current: SpecCase, runs: [FuzzRun], target: KnownDivergence?,
        while keepGoing: @escaping @Sendable () -> Bool,
        stopReason: () -> FuzzShrinkState?
    ) throws -> ShrinkRound {
        let candidates = FuzzShrinker.candidates(current)
        var start = 0
        while start < candidates.count {
            if let reason = stopReason() { return .stopped(reason) }
            let chunk = Array(candidates[start..<min(start + 16, candidates.count)])
            let results = try execute(chunk, while: keepGoing)
            // Runs an interrupt overlapped are not trusted: a signal to the process group may have ended workers.
            if options.interrupt?.signal != nil { return .stopped(.stoppedByInterrupt) }
            for index in results.indices
            where results[index].map(\.status) == runs.map(\.status)
                && Self.diverges(results[index])
            {
                var cut = Set<String>()
                guard try classify(chunk[index], results[index], while: keepGoing, unrun: &cut)?.id == target?.id,
                    cut.isEmpty
                else { continue }
                return .smaller(chunk[index], results[index])
            }
            if results.count < chunk.count { return .stopped(stopReason() ?? .stoppedAtBudget) }
            start += chunk.count
        }
        return .minimal
    }

    /// `scenario` as the case written for the divergence of `seed`: its id, a rule asking for review, and the first
    /// engine's trace as its expectation.
    static func specCase(_ scenario: SpecCase, runs: [FuzzRun], seed: UInt64, engines: [String]) -> SpecCase {
        var written = scenario
        written.id = FuzzGenerator.caseID(seed: seed)
        written.expectedTrace = runs[0].rawTrace
        written.unorderedRanges = FuzzScenario.unorderedRanges(in: written.expectedTrace)
        written.rule =
            "Engines \(engines.joined(separator: " and ")) diverge on this scenario (runloop fuzz, seed \(seed)): "
            + "review it, say the rule it checks, and rename it before moving it into cases/."
        return written
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
