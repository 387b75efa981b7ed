// The JSON document of one campaign (`runloop fuzz --format json`, `--json-out FILE`): one Codable model that the
// writer (FuzzOutput.json) fills and the merge (FuzzMerge) reads back. Its `campaign` says what was searched (the
// settings that decide which scenarios a seed gives and how they are judged), `shard` which share of it this run
// made; the seeds it ran follow from them (FuzzShard): campaign.first_seed + (shard.index - 1) + j * shard.count for
// j < scenarios.

import Foundation

/// A campaign's report as JSON.
public struct FuzzReport: Codable, Sendable, Equatable {
    /// What every report says in `format`, so that a reader can tell it from another JSON document.
    public static let formatName = "runloop fuzz"
    /// 2 added `format`, `campaign`, `shard` and each finding's `shrunk_case`; version 1 documents had none of them.
    public static let formatVersion = 2

    public var format = formatName
    public var format_version = formatVersion
    public var campaign: Campaign
    public var shard: Shard
    public var engines: [String]
    public var first_seed: UInt64
    /// The scenarios this run made (of its shard).
    public var scenarios: Int
    public var batches: Int
    public var seconds: Double
    public var time_limit_seconds: Double?
    public var reached_time_limit: Bool
    /// The signal that ended the run early, or null.
    public var interrupted_by: String?
    public var timing_seconds: Timing
    public var unexplained: Int
    public var explained: Int
    public var may_be_explained: Int
    public var nondeterministic: Int
    public var nondeterministic_seeds: [UInt64]
    /// Each scenario set aside as nondeterministic: the engines whose runs changed and both runs (null in a report
    /// written before they were recorded).
    public var nondeterministic_scenarios: [SetAside]?
    public var skipped: Int
    /// The skipped scenarios' seeds that the moving wall clock left unjudged (null in a report written before they
    /// were recorded).
    public var skipped_for_the_clock_seeds: [UInt64]?
    public var hung: Int
    public var hung_seeds: [UInt64]
    public var failed_everywhere: Int
    public var failed_everywhere_seeds: [UInt64]
    public var shrink_seconds: Double
    public var shrink_budget_seconds: Double
    /// Per engine after the first, the callout kinds it never made in the whole run (dead).
    public var dead_kinds: [String: [String]]
    /// Each defect once, with how many scenarios hit it and the seeds.
    public var defects: [Defect]
    public var findings: [Finding]

    /// What decides the scenarios and their verdicts: two shards of one campaign have the same.
    public struct Campaign: Codable, Sendable, Hashable {
        /// The engines' selectors (`cf`, `ref`, `cf:PATH`), in order.
        public var engines: [String]
        public var first_seed: UInt64
        /// The unsharded campaign's scenario count; null when only a time limit bounds it.
        public var count: Int?
        public var max_steps: Int
        public var areas: [String]
        public var timeout_seconds: Double
        /// The ids of the known divergences the run classified against.
        public var known: [String]
    }

    public struct Shard: Codable, Sendable, Hashable {
        public var index: Int
        public var count: Int
    }

    public struct Timing: Codable, Sendable, Equatable {
        public var total: Double
        public var running: Double
        public var rechecking: Double
        public var shrinking: Double
        public var writing: Double
        public var other: Double
    }

    public struct Defect: Codable, Sendable, Equatable {
        public var defect: String
        public var scenarios: Int
        public var seeds: [UInt64]
    }

    public struct Finding: Codable, Sendable, Equatable {
        public var seed: UInt64
        public var explained_by: String?
        /// Known divergences that may explain it, their counterfactual not run (time limit, interrupt).
        public var may_be_explained_by: [String]
        /// Whether it was run again (false: found when the time was up).
        public var rechecked: Bool
        /// Whether the shrunk case gave the same runs again; null when not run again.
        public var stable: Bool?
        public var original_size: Int
        public var shrunk_size: Int
        /// The shrunk case as a spec file (the scenario itself when it was not shrunk).
        public var shrunk_case: String
        public var file: String?
        public var signature: String
        public var replay: String
        public var found_after_seconds: Double
        public var shrink_seconds: Double
        /// minimal, stopped-at-budget, stopped-at-time-limit, stopped-by-interrupt, not-shrunk, same-defect.
        public var shrink_state: String
        /// For same-defect: the seed of the finding it departs as.
        public var same_defect_as: UInt64?
        public var shrink_stopped_at_time_limit: Bool
        public var defect: String
        public var statuses: [String: String]
        public var traces: [String: [String]]
    }

    /// A scenario set aside as nondeterministic (FuzzNondeterminism).
    public struct SetAside: Codable, Sendable, Equatable {
        public var seed: UInt64
        /// The seeds of the batch its first run was made in.
        public var batch: [UInt64]
        public var changes: [Change]
        /// The known divergences whose conditions the first run's divergence fits (none run).
        public var known_candidates: [String]

        /// One engine's two runs of it.
        public struct Change: Codable, Sendable, Equatable {
            public var engine: String
            /// Where the runs part, as the text summary says it.
            public var difference: String
            /// The line (from 1) of the compared traces where they part; null when only the statuses differ.
            public var first_differing_line: Int?
            public var first_status: String
            public var second_status: String
            public var first_trace: [String]
            public var second_trace: [String]
        }

        public init(_ setAside: FuzzNondeterminism) {
            seed = setAside.seed
            batch = setAside.batch
            known_candidates = setAside.knownCandidates
            changes = setAside.changes.map {
                Change(
                    engine: $0.engine, difference: $0.text, first_differing_line: $0.firstDifference.map { $0 + 1 },
                    first_status: $0.first.status.description, second_status: $0.second.status.description,
                    first_trace: $0.first.rawTrace, second_trace: $0.second.rawTrace)
            }
        }
    }

    /// The seeds this run made, in order.
    public var seeds: [UInt64] {
        guard let shard = try? FuzzShard(index: shard.index, count: shard.count) else { return [] }
        return (0..<scenarios).map { shard.seed(first: campaign.first_seed, position: $0) }
    }
}
