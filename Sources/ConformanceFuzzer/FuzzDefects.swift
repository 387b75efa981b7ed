// Which defect a divergence comes down to, across a whole campaign. The conformance triage
// (Sources/ConformanceKit/Reports/Triage.swift; INTERPRETING.md, "Reading a run: triage") applied to a finding's runs,
// with the first engine's trace as the expected one:
//
// - Dead callout kinds (the triage's rule 1) are judged on every run of the campaign, not on one finding: a callout
//   kind an engine never made in any run, while the first engine made it in two or more scenarios the engine ran to
//   their end, is dead on that engine (observers also as a whole). The evidence is kept in a FuzzCalloutCensus.
// - A finding whose traces differ only by a dead kind's lines (or one of whose triggers waits for a dead kind's
//   callout) is the dead kinds' defect, "<engine>: observer (entry, exit) callouts never made (dead)", one defect
//   however many activities the scenarios missed first; any other finding is named by where its traces first depart
//   once the dead kinds' lines are left out ("<engine>: missing return stopped", "<engine>: timer fire over and over"),
//   except an engine that hung (TIMEOUT) with a trace that is a prefix of the first engine's: "<engine>: hung
//   (TIMEOUT) where cf's run returns", by the first line after the hang that is not a callout (any return of a run
//   counts as one).

import ConformanceKit
import EngineKit
import Synchronization

/// The callout kinds each engine made over a campaign, against those the first engine made of the same scenarios:
/// the evidence of the triage's rule 1. `reduced` is protected by its Mutex (the campaign records from one thread,
/// reports may read from another).
public final class FuzzCalloutCensus: Sendable {
    public let engines: [String]

    /// One run of an engine reduced to what rule 1 reads: one line per callout kind of the first engine's trace and
    /// of its own, and whether it ran to its end.
    struct Reduced: Hashable {
        var expected: [String]
        var actual: [String]
        var completed: Bool
    }

    /// Per engine after the first, each distinct reduced run with how many times it was seen, counted up to
    /// `Triage.deadEvidence` (the rule counts no further), so the census stays small however long the campaign.
    private let reduced: Mutex<[[Reduced: Int]]>

    public init(engines: [String]) {
        self.engines = engines
        reduced = Mutex(Array(repeating: [:], count: max(engines.count - 1, 0)))
    }

    /// Records rows of runs, one per scenario, each with one run per engine in `engines` order. A row some engine
    /// SKIPped says nothing (that engine did not run it).
    public func record(_ rows: [[FuzzRun]]) {
        reduced.withLock { reduced in
            for row in rows where row.count == engines.count && !row.contains(where: \.isSkip) {
                let expected = Self.oneLinePerKind(row[0].rawTrace)
                for index in row.indices.dropFirst() {
                    let key = Reduced(
                        expected: expected, actual: Self.oneLinePerKind(row[index].rawTrace),
                        completed: row[index].status == .done)
                    let seen = reduced[index - 1][key, default: 0]
                    if seen < Triage.deadEvidence { reduced[index - 1][key] = seen + 1 }
                }
            }
        }
    }

    /// Per engine (after the first), its dead callout kinds so far; engines with none are absent.
    public var deadKinds: [String: [String]] {
        reduced.withLock { reduced in
            var result: [String: [String]] = [:]
            for (index, runs) in reduced.enumerated() {
                var expanded: [(expected: [String], actual: [String], completed: Bool)] = []
                for (run, times) in runs {
                    expanded += Array(
                        repeating: (expected: run.expected, actual: run.actual, completed: run.completed),
                        count: times)
                }
                let kinds = Triage.deadKinds(runs: expanded)
                if !kinds.isEmpty { result[engines[index + 1]] = kinds }
            }
            return result
        }
    }

    /// The first line of each callout kind in `trace`, in kind order.
    static func oneLinePerKind(_ trace: [String]) -> [String] {
        var first: [String: String] = [:]
        for line in trace {
            if let kind = TraceKind.callout(of: line), first[kind] == nil { first[kind] = line }
        }
        return first.keys.sorted().map { first[$0]! }
    }
}

/// Naming the defect of a divergence.
public enum FuzzDefects {
    /// The defect that `runs` (one per engine, in `engines` order) of `specCase` come down to: the known divergence
    /// that explains it ("explained: <id>"); else for the first engine that disagrees with the first one, its dead
    /// kinds' defect or where its trace first departs (module comment); "none" when no engine disagrees.
    public static func defect(
        runs: [FuzzRun], engines: [String], specCase: SpecCase, explanation: KnownDivergence?,
        deadKinds: [String: [String]]
    ) -> String {
        if let explanation { return "explained: \(explanation.id)" }
        guard let reference = runs.first,
            let index = runs.indices.dropFirst().first(where: { runs[$0] != reference })
        else { return "none" }
        let other = runs[index]
        let engine = engines[index]
        guard reference.status == .done else {
            // The reference did not complete: name how it ended, and how the other did.
            return "\(engines[0]): \(reference.status), \(engine): \(other.status)"
        }
        let status = other.status.againstCompletedRun
        let dead = deadKinds[engine] ?? []
        // An engine that hung where the first one went on: its trace is a prefix of the first one's, and every line
        // after is missing as a consequence. Which callout the first engine made next depends only on the items the
        // scenario declares (an observer of afterWaiting or of exit, or none), so the defect is named by the first
        // line after the hang that is not a callout (what the run should have returned): one defect for a wait that
        // never ends, whichever observers the scenarios had.
        let triggerKinds = Set(specCase.triggers.compactMap { TraceKind.callout(of: $0.event) })
        // A trigger waiting for a dead kind's callout never ran its actions (a sleeping run's guard observer that
        // never stops it, say): the rest of the trace says nothing more (the triage's rule).
        if status != .crash, !triggerKinds.isDisjoint(with: dead) {
            return "\(engine): " + deadTitle(dead: dead, involved: triggerKinds.intersection(dead))
        }
        if status == .timeout {
            let expected = reference.trace.filter { TraceKind.callout(of: $0).map { !dead.contains($0) } ?? true }
            if other.trace.count < expected.count, Array(expected.prefix(other.trace.count)) == other.trace {
                let rest = expected.dropFirst(other.trace.count)
                let next = TraceKind.of(rest.first { TraceKind.callout(of: $0) == nil } ?? rest.first!)
                // The run's return, whichever (a CFRunLoopRun returns through its own line): one way to hang.
                if next.hasPrefix("return ") || next == "runForever returned" {
                    return "\(engine): hung (TIMEOUT) where \(engines[0])'s run returns"
                }
                return "\(engine): hung (TIMEOUT) where \(engines[0]) goes on to \(next)"
            }
        }
        let title = Triage.departureTitle(
            expected: reference.trace, actual: other.trace, status: status,
            detail: other.detail, deadKinds: Set(dead), triggerKinds: triggerKinds)
        if let title { return "\(engine): \(title)" }
        guard !dead.isEmpty else { return "\(engine): differs from \(engines[0])" }
        // Only dead kinds' lines differ, or a trigger waits for a dead kind: the dead kinds the case involves.
        let involved = Set(reference.trace.compactMap(TraceKind.callout(of:))).union(triggerKinds)
            .intersection(dead)
        return "\(engine): " + deadTitle(dead: dead, involved: involved.isEmpty ? Set(dead) : involved)
    }

    /// "observer (entry, beforeTimers) callouts never made (dead)", "timer fire callouts never made (dead)": the
    /// families of the `involved` kinds, each with every dead kind of the engine in it, so that every finding of one
    /// dead family has one name whichever of its kinds it missed.
    static func deadTitle(dead: [String], involved: Set<String>) -> String {
        func family(_ kind: String) -> String { kind.hasPrefix("observer ") ? "observer" : kind }
        let families = Set(involved.map(family))
        var parts: [String] = []
        var named = Set<String>()
        for kind in dead where families.contains(family(kind)) && !named.contains(family(kind)) {
            named.insert(family(kind))
            if family(kind) == "observer" {
                let activities = dead.filter { $0.hasPrefix("observer ") }.map { $0.dropFirst("observer ".count) }
                parts.append("observer (" + activities.joined(separator: ", ") + ")")
            } else {
                parts.append(kind)
            }
        }
        return parts.joined(separator: " and ") + " callouts never made (dead)"
    }
}
