// The JSON document of a conformance run (`runloop conform --json-out`) and of a merged matrix (`runloop conform
// merge --json-out`): one Codable model that the writer (JSONReport) fills and the reader (ConformanceJSON) decodes.
// Members added by later format versions are optional, so that the reader takes every version it lists.

import Foundation

/// A conformance report as JSON.
public struct ConformanceDocument: Codable, Sendable, Equatable {
    /// 3 named the engines in their order; 4 added `runs` (each run's engines, machine, toolchain and date), and a
    /// matrix merged from several runs is a version 4 document whose columns come from different runs.
    public static let formatVersion = 4

    public var format_version = formatVersion
    /// The columns in order: an engine of one run (its name; qualified when two merged runs have an engine of the
    /// same name). Absent in version 2, which lists them only in its results.
    public var engines: [String]?
    /// Version 4: the runs the columns come from (one, unless merged).
    public var runs: [ConformanceRunContext]?
    public var summary: [String: [String: Int]]?
    public var all_as_expected: Bool?
    /// The closing line's counts, over every engine.
    public var tally: Tally?
    /// Per case level, per engine, the counts of its results (``LevelSummary``); `{}` when no case has a level.
    public var levels: [String: [String: Tally]]?
    public var triage: TriageDocument?
    public var results: [Result]

    public struct Tally: Codable, Sendable, Equatable {
        public var results, as_expected, pass, pass_only_vacuously, expected_failures, fail, skip, timeout, crash,
            error, unexpected_passes: Int

        init(_ tally: ResultTally) {
            (results, as_expected, pass, pass_only_vacuously) = (
                tally.results, tally.asExpected, tally.pass, tally.vacuous
            )
            (expected_failures, fail, skip) = (tally.expectedFailures, tally.fail, tally.skip)
            (timeout, crash, error, unexpected_passes) = (
                tally.timeout, tally.crash, tally.error, tally.unexpectedPasses
            )
        }
    }

    public struct TriageDocument: Codable, Sendable, Equatable {
        /// Per engine, the callout kinds it never made though its cases expect them.
        public var dead_callouts: [String: [String]]
        public var clusters: [Cluster]
    }

    public struct Cluster: Codable, Sendable, Equatable {
        public var engine: String
        public var title: String
        public var results: Int
        public var also_elsewhere: Int
        public var statuses: [String: Int]
        public var rules: [String: Int]
        public var instead: [String: Int]
        public var start_with: [String]
        public var cases: [String]
        /// When the cluster is also a known defect of the toolchain's CoreFoundation: the expectations file and the
        /// claim of its reasons.
        public var known_defect: KnownDefect?
    }

    public struct KnownDefect: Codable, Sendable, Equatable {
        public var file: String
        public var reason: String
    }

    public struct Result: Codable, Sendable, Equatable {
        public var id: String
        public var area: String
        /// The case's level (api, cf or platform); absent for a case that cites no rule.
        public var level: String?
        /// The column (``ConformanceDocument/engines``).
        public var engine: String
        public var status: String
        public var expected: String
        public var as_expected: Bool?
        /// For a PASS that ``Triage`` flags: the dead callout kinds its items could make.
        public var only_vacuously: [String]?
        public var reason: String?
        public var detail: String?
        public var seconds: Double
        /// Capped at ``TraceCap/lines`` lines and a note; the `_lines` fields count them all.
        public var expected_trace: [String]
        public var expected_trace_lines: Int?
        public var actual_trace: [String]
        public var actual_trace_lines: Int?
    }
}
