// A divergent scenario set aside as nondeterministic: which engine gave a different result when the scenario ran
// again, and where its two runs part, so that the report says what to look at (the engine's own nondeterminism, or a
// scenario whose outcome depends on timing) rather than only the seed.

import ConformanceKit

/// A scenario whose second run differed from its first on at least one engine.
public struct FuzzNondeterminism: Sendable, Equatable {
    /// The scenario's seed.
    public var seed: UInt64
    /// The seeds of the batch its first run was made in, in run order (the scenarios before it in that batch ran in
    /// the same worker process, each engine's one after the other); the second run was made in a batch of the divergent
    /// scenarios only.
    public var batch: [UInt64]
    /// Each engine whose two runs differ, in engine order (at least one).
    public var changes: [Change]
    /// The known divergences (fuzz-known.yaml) whose static conditions hold for the first run's divergence
    /// (FuzzKnown.candidates; no counterfactual run): where to read first.
    public var knownCandidates: [String] = []

    /// One engine's two runs of the scenario, and where they part.
    public struct Change: Sendable, Equatable {
        public var engine: String
        public var first: FuzzRun
        public var second: FuzzRun

        /// The position (from 0) of the first line at which the two compared traces differ, or at which one of them
        /// ends; nil when the traces are the same (only the statuses differ).
        public var firstDifference: Int? {
            let common = zip(first.trace, second.trace).prefix { $0 == $1 }.count
            return common == first.trace.count && common == second.trace.count ? nil : common
        }

        /// "line 7: `a` the first time, `b` when run again" (a trace that ends there says so), then how each run
        /// ended when the statuses differ.
        public var text: String {
            var parts: [String] = []
            if let line = firstDifference {
                func at(_ trace: [String]) -> String { line < trace.count ? "`\(trace[line])`" : "(its trace ended)" }
                parts.append(
                    "line \(line + 1) of \(first.trace.count) and \(second.trace.count): \(at(first.trace)) the first "
                        + "time, \(at(second.trace)) when run again")
            }
            if first.status != second.status {
                parts.append("ended \(Self.ending(first)) the first time, \(Self.ending(second)) when run again")
            }
            return "\(engine): " + parts.joined(separator: "; ")
        }

        static func ending(_ run: FuzzRun) -> String {
            guard run.status != .done, let detail = run.detail?.split(separator: "\n").first else {
                return "\(run.status)"
            }
            return "\(run.status) (\(detail))"
        }
    }

    /// The engines whose runs changed.
    public var engines: [String] { changes.map(\.engine) }

    /// The scenario's runs compared engine by engine (`engines`, `first` and `second` in the same order, as the
    /// executor returns them): nil when every engine gave the same run twice (the scenario is not nondeterministic).
    public static func compare(
        seed: UInt64, batch: [UInt64], engines: [String], first: [FuzzRun], second: [FuzzRun],
        knownCandidates: [String] = []
    ) -> FuzzNondeterminism? {
        precondition(engines.count == first.count && first.count == second.count, "one run per engine, twice")
        let changes = engines.indices.compactMap { index in
            first[index] == second[index]
                ? nil : Change(engine: engines[index], first: first[index], second: second[index])
        }
        return changes.isEmpty
            ? nil : FuzzNondeterminism(seed: seed, batch: batch, changes: changes, knownCandidates: knownCandidates)
    }

    /// The report's lines: the seed with the engines that changed, where each one's runs part, and the batch of the
    /// first run.
    public var lines: [String] {
        var lines = ["seed \(seed): " + engines.joined(separator: " and ") + " gave a different result when run again"]
        lines += changes.map { "  " + $0.text }
        if !knownCandidates.isEmpty {
            lines.append(
                "  the first run's divergence fits fuzz-known.yaml's " + knownCandidates.joined(separator: ", ")
                    + " (its conditions only; nothing run)")
        }
        if let position = batch.firstIndex(of: seed), batch.count > 1 {
            lines.append(
                "  first run: scenario \(position + 1) of the batch of seeds \(batch.first!) to \(batch.last!) "
                    + "(run again in a batch of its own or with the batch's other divergent scenarios)")
        }
        return lines
    }
}
