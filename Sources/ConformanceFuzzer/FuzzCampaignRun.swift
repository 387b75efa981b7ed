// One campaign under way (FuzzCampaign.run): its summary so far, its clock, the case files it wrote, and the phases
// of each batch: run it, tally it, set aside the divergences of defects already found, run the others again and
// report them, then classify and shrink each new one.

import ConformanceKit
import Foundation

/// The state of one campaign under way. Confined to the thread that called FuzzCampaign.run: only `keepGoing`, which
/// reads nothing of it, goes to other threads.
final class FuzzCampaignRun {
    let campaign: FuzzCampaign
    let onEvent: ((FuzzEvent) -> Void)?
    /// When the campaign's time started and when it ends (monotonic nanoseconds).
    let started: UInt64
    let deadline: UInt64?
    /// Whether runs may start: no interrupt, and time left.
    let keepGoing: @Sendable () -> Bool
    let generator: FuzzGenerator
    let engines: [String]
    var summary: FuzzSummary
    /// One case file per distinct case, by signature: findings that shrank to the same one point to the first one's
    /// file.
    var written: [String: String] = [:]
    /// Whether an unexplained finding has been shrunk (`stopAtFirstUnexplained`).
    var shrunkUnexplained = false

    /// One batch: the seeds, their scenarios, and each scenario's runs (in engine order).
    struct Batch {
        let seeds: [UInt64]
        let scenarios: [SpecCase]
        let results: [[FuzzRun]]
        /// The dead callout kinds the batch's divergences are named with (none asked when none diverged).
        var dead: [String: [String]] = [:]
    }

    /// A divergent scenario of a batch, with the known divergences that may explain it and its departure.
    struct Divergence {
        let index: Int
        let candidates: [KnownDivergence]
        let defect: String
    }

    var options: FuzzOptions { campaign.options }

    init(_ campaign: FuzzCampaign, onEvent: ((FuzzEvent) -> Void)?) {
        self.campaign = campaign
        self.onEvent = onEvent
        let options = campaign.options
        let started = options.startedAt ?? WorkerProcess.monotonicNanoseconds()
        let deadline = options.seconds.map { started + UInt64($0 * 1e9) }
        self.started = started
        self.deadline = deadline
        let interrupt = options.interrupt
        keepGoing = {
            if interrupt?.signal != nil { return false }
            if let deadline, WorkerProcess.monotonicNanoseconds() >= deadline { return false }
            return true
        }
        generator = FuzzGenerator(shape: options.shape)
        engines = options.engines.map(\.name)
        summary = FuzzSummary(
            engines: engines, firstSeed: options.seed, scenarios: 0, skipped: 0, hung: [],
            failedEverywhere: [], nondeterministic: [], findings: [], seconds: 0)
    }

    func now() -> UInt64 { WorkerProcess.monotonicNanoseconds() }
    func elapsed() -> Double { Double(now() &- started) / 1e9 }

    /// Runs `body`, adding the time it took to the summary's `slot`.
    func timed<T>(_ slot: WritableKeyPath<FuzzTiming, Double>, _ body: () throws -> T) rethrows -> T {
        let start = now()
        defer { summary.timing[keyPath: slot] += Double(now() - start) / 1e9 }
        return try body()
    }

    // MARK: - A batch's phases

    /// Whether another batch is wanted: scenarios left to run, time left and no interrupt.
    var wantsMore: Bool {
        if let count = options.shardCount, summary.scenarios >= count { return false }
        return keepGoing()
    }

    /// How many scenarios the next batch runs: at most `batchSize` and the scenarios left; with a time limit, the
    /// first batch `firstBatchSize`, each later one as many as a quarter of the time left holds at the rate so far.
    func nextBatchSize() -> Int {
        var size = min(options.batchSize, options.shardCount.map { $0 - summary.scenarios } ?? options.batchSize)
        if let deadline {
            let left = Double(deadline &- now()) / 1e9
            if summary.scenarios == 0 {
                size = min(size, FuzzOptions.firstBatchSize)
            } else {
                let perScenario = summary.timing.running / Double(summary.scenarios)
                size = min(size, max(1, Int(left / 4 / max(perScenario, 0.001))))
            }
        }
        return size
    }

    /// Generates and runs the next batch; nil when an interrupt cut it short. Such a batch is not counted: a signal
    /// sent to the whole process group may have reached its workers too (the command's workers ignore SIGINT and
    /// SIGTERM, other callers' may not).
    func runBatch() throws -> Batch? {
        let seeds = (0..<nextBatchSize()).map { options.seed(position: summary.scenarios + $0) }
        let scenarios = seeds.map(generator.scenario)
        let results = try timed(\.running) { try campaign.execute(scenarios, while: keepGoing) }
        summary.batches += 1
        if options.interrupt?.signal != nil { return nil }
        summary.scenarios += results.count
        return Batch(seeds: seeds, scenarios: scenarios, results: results)
    }

    /// Counts the batch's skipped, hung and everywhere-failed scenarios; returns the indices of the divergent ones.
    func tally(_ batch: Batch) -> [Int] {
        var divergent: [Int] = []
        for (index, runs) in batch.results.enumerated() {
            if runs.contains(where: \.isSkip) {
                summary.skipped += 1
                if runs.contains(where: { $0.isSkip && WallClock.saysUnjudged($0.detail) }) {
                    summary.skippedForTheClock.append(batch.seeds[index])
                }
            } else if runs.allSatisfy({ $0.status == .ended(.timeout) }) {
                summary.hung.append(batch.seeds[index])
            } else if FuzzCampaign.diverges(runs) {
                divergent.append(index)
            } else if runs[0].status != .done {
                let detail = runs[0].detail?.split(separator: "\n").first.map { ": \($0)" } ?? ""
                summary.failedEverywhere.append((batch.seeds[index], "\(runs[0].status)" + detail))
            }
        }
        return divergent
    }

    /// Each divergence is reported at once. One that departs as a defect already found (and no known divergence could
    /// explain) is that defect: counted for it, not run again, not shrunk. Returns the others.
    func setAsideKnownDefects(_ divergent: [Int], in batch: inout Batch) -> [Divergence] {
        // The census's verdict costs a pass over every distinct run so far, a cost that grows with the campaign:
        // asked only when there is something to name. Asked after every batch, it was 61 % of a 30-minute
        // campaign's time (the summary's "other"); 180 s campaigns, cf,ref, seed 777, 2026-11-27, loaded machine:
        // "other" 42.9 s and 11,307 scenarios before, 7.6 s and 14,028 after.
        batch.dead = divergent.isEmpty ? [:] : campaign.census.deadKinds
        var fresh: [Divergence] = []
        for index in divergent {
            let results = batch.results[index]
            let candidates = FuzzKnown.candidates(
                in: options.known, for: batch.scenarios[index],
                first: results[0].trace,
                second: results.count > 1 ? results[1].trace : [])
            let defect = FuzzDefects.defect(
                runs: results, engines: engines, specCase: batch.scenarios[index],
                explanation: nil, deadKinds: batch.dead)
            if let first = knownDeparture(defect, dead: batch.dead) {
                var finding = asFound(index, in: batch)
                finding.rechecked = false
                finding.foundAfter = elapsed()
                finding.defect = defect
                finding.knownCandidates = candidates.map(\.id)
                finding.shrinkState = .sameDefect(as: first)
                summary.findings.append(finding)
                onEvent?(.found(finding, newDefect: false))
            } else {
                fresh.append(Divergence(index: index, candidates: candidates, defect: defect))
            }
        }
        return fresh
    }

    /// Runs each divergent scenario again: an engine that disagrees with itself makes the divergence noise. Those the
    /// time limit leaves no run for are reported as found, not run again. Reports each at once; returns the positions
    /// in the findings of those to classify and shrink (the first of each new departure).
    func recheck(_ fresh: [Divergence], in batch: Batch) throws -> [Int] {
        let again = try timed(\.rechecking) {
            try campaign.execute(fresh.map { batch.scenarios[$0.index] }, while: keepGoing)
        }
        let interruptedInRecheck = options.interrupt?.signal != nil
        let foundAfter = elapsed()
        var toShrink: [Int] = []
        for (position, divergence) in fresh.enumerated() {
            let index = divergence.index
            let rechecked = position < again.count && !interruptedInRecheck
            if rechecked,
                let changed = FuzzNondeterminism.compare(
                    seed: batch.seeds[index], batch: batch.seeds, engines: engines, first: batch.results[index],
                    second: again[position], knownCandidates: divergence.candidates.map(\.id))
            {
                summary.nondeterministic.append(changed)
                onEvent?(.setAside(changed, after: foundAfter))
                continue
            }
            var finding = asFound(index, in: batch)
            finding.rechecked = rechecked
            finding.foundAfter = foundAfter
            finding.knownCandidates = divergence.candidates.map(\.id)
            finding.defect = divergence.defect
            var newDefect = true
            if let first = knownDeparture(finding.defect, dead: batch.dead) {
                // An earlier divergence of this batch departs the same way.
                finding.shrinkState = .sameDefect(as: first)
                newDefect = false
            } else if !keepGoing() {
                FuzzCampaign.leaveUnshrunk(&finding, candidates: divergence.candidates)
            } else {
                toShrink.append(summary.findings.count)
            }
            summary.findings.append(finding)
            onEvent?(.found(finding, newDefect: newDefect))
        }
        return toShrink
    }

    /// Classifies the finding at `position` and shrinks it, unless it turns out to be a defect already found (its
    /// departure, or its explanation, is an earlier finding's), the time is up, or the campaign stops at its first
    /// unexplained divergence and has shrunk one.
    func classifyAndShrink(_ position: Int) throws {
        var finding = summary.findings[position]
        let candidates = options.known.filter { finding.knownCandidates.contains($0.id) }
        if shrunkUnexplained, options.stopAtFirstUnexplained {
            FuzzCampaign.leaveUnshrunk(&finding, candidates: candidates)
            summary.findings[position] = finding
            return
        }
        // It may depart as a finding shrunk just before it: the same defect, not classified nor shrunk.
        if let first = knownDeparture(finding.defect, dead: campaign.census.deadKinds), first != finding.seed {
            finding.shrinkState = .sameDefect(as: first)
            summary.findings[position] = finding
            return
        }
        let explanation = try classifyFirst(&finding, candidates: candidates)
        var shrunk = false
        if !keepGoing() {
            FuzzCampaign.leaveUnshrunk(&finding, candidates: candidates)
            if let explanation {
                finding.explanation = explanation
                finding.possibleExplanations = []
                finding.defect = "explained: \(explanation.id)"
            }
        } else if let explanation,
            let first = summary.findings.first(where: {
                if case .sameDefect = $0.shrinkState { return false }
                return $0.seed != finding.seed && $0.explanation?.id == explanation.id
            })
        {
            finding.explanation = explanation
            finding.defect = "explained: \(explanation.id)"
            finding.shrinkState = .sameDefect(as: first.seed)
        } else if explanation == nil, finding.knownCandidates.isEmpty,
            let first = knownDeparture(finding.defect, dead: campaign.census.deadKinds), first != finding.seed
        {
            // It departs as a finding shrunk before it (or classified unexplained): the same defect.
            finding.shrinkState = .sameDefect(as: first)
        } else {
            try shrinkAndWrite(&finding, candidates: candidates, explanation: explanation)
            shrunk = true
        }
        summary.findings[position] = finding
        if shrunk { onEvent?(.shrunk(finding)) }
    }

    /// Classifies the finding first (one run per counterfactual): an explained divergence whose explanation an earlier
    /// finding has, or an unexplained one that departs as an earlier one, is not shrunk again. A finding that no
    /// candidate explains, every counterfactual run, keeps no candidates.
    func classifyFirst(_ finding: inout FuzzFinding, candidates: [KnownDivergence]) throws -> KnownDivergence? {
        guard !candidates.isEmpty, keepGoing() else { return nil }
        var unrun = Set<String>()
        let explanation = try timed(\.shrinking) {
            try campaign.classify(finding.scenario, finding.scenarioRuns, while: keepGoing, unrun: &unrun)
        }
        if explanation == nil, unrun.isEmpty { finding.knownCandidates = [] }
        return explanation
    }

    /// Shrinks the finding within its budget (`shrinkSeconds`, and at most half the time left) and writes its case.
    func shrinkAndWrite(
        _ finding: inout FuzzFinding, candidates: [KnownDivergence],
        explanation: KnownDivergence?
    ) throws {
        var shrinkEnd = now() + UInt64(options.shrinkSeconds * 1e9)
        if let deadline { shrinkEnd = min(shrinkEnd, now() + (deadline &- now()) / 2) }
        let found = finding
        var shrunk = try timed(\.shrinking) {
            try campaign.shrink(
                found.scenario, runs: found.scenarioRuns, seed: found.seed, deadline: deadline,
                budgetEnd: shrinkEnd,
                classified: candidates.isEmpty || found.knownCandidates.isEmpty || explanation != nil,
                explanation: explanation)
        }
        shrunk.rechecked = found.rechecked
        shrunk.knownCandidates = found.knownCandidates
        shrunk.foundAfter = found.foundAfter
        shrunk.shrunkAfter = elapsed()
        finding = shrunk
        shrunkUnexplained = shrunkUnexplained || finding.isUnexplained
        try timed(\.writing) { try writeOnce(&finding) }
    }

    /// The counts for a progress line.
    var progress: FuzzProgress {
        FuzzProgress(
            scenarios: summary.scenarios, divergences: summary.findings.count,
            explained: summary.explained.count, nondeterministic: summary.nondeterministic.count,
            elapsed: elapsed())
    }

    // MARK: - The end

    /// Writes the case files of the findings left unshrunk (but those of a defect already found).
    func writeUnwritten() throws {
        for index in summary.findings.indices where summary.findings[index].file == nil {
            if case .sameDefect = summary.findings[index].shrinkState { continue }
            var finding = summary.findings[index]
            try timed(\.writing) { try writeOnce(&finding) }
            summary.findings[index] = finding
        }
    }

    /// The summary, its defects named with the whole campaign's dead kinds, and how it ended.
    func finish() -> FuzzSummary {
        summary.nameDefects(deadKinds: campaign.census.deadKinds)
        summary.interrupted = options.interrupt?.signal
        summary.reachedTimeLimit = deadline.map { now() >= $0 } ?? false
        summary.seconds = elapsed()
        summary.timing.total = summary.seconds
        return summary
    }

    // MARK: - Helpers

    /// The finding of the batch's scenario `index` as found: not explained, its case the scenario itself.
    func asFound(_ index: Int, in batch: Batch) -> FuzzFinding {
        var finding = FuzzFinding(
            seed: batch.seeds[index], scenario: batch.scenarios[index],
            runs: batch.results[index], explanation: nil)
        finding.shrunk = FuzzCampaign.specCase(
            batch.scenarios[index], runs: batch.results[index],
            seed: batch.seeds[index], engines: engines)
        return finding
    }

    /// The defects found so far, by the departures their findings' runs (as found, and shrunk) give with the dead
    /// kinds so far, each with the seed of its first finding: a later divergence that departs the same way is that
    /// defect and is not shrunk again. Only unexplained findings (no known divergence may explain them).
    func knownDeparture(_ defect: String, dead: [String: [String]]) -> UInt64? {
        for finding in summary.findings where finding.isUnexplained && finding.knownCandidates.isEmpty {
            if case .sameDefect = finding.shrinkState { continue }
            let asFound = FuzzDefects.defect(
                runs: finding.scenarioRuns, engines: engines,
                specCase: finding.scenario, explanation: nil, deadKinds: dead)
            let shrunk = FuzzDefects.defect(
                runs: finding.runs, engines: engines, specCase: finding.shrunk,
                explanation: nil, deadKinds: dead)
            if defect == asFound || defect == shrunk { return finding.seed }
        }
        return nil
    }

    /// Writes the finding's case file, or points it to the file of an earlier finding with the same shrunk case.
    func writeOnce(_ finding: inout FuzzFinding) throws {
        guard let directory = options.outDirectory else { return }
        if let file = written[finding.signature] {
            finding.file = file
        } else {
            let file = try campaign.write(finding, to: directory)
            written[finding.signature] = file
            finding.file = file
        }
    }
}
