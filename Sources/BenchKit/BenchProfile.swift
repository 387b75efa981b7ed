// The benchmark profiles of `runloop bench`: how long each benchmark measures, how often, and how long a process may
// take. The one place these facts live; the harness's side of a profile (coalescing window, largest N of the scale
// family, lag stalls, its watchdog) is `Profile` in Benchmarks/Harness/common.h, set by name in main.cpp.

/// One profile of `runloop bench`.
public struct BenchProfile: Sendable, Equatable {
    /// The profile's name: the harness's `--rl_profile`, and the first word of the CSV's `# profile:` line, which
    /// ReportKit (quick: judged only against quick bounds; smoke: not judged) and HistoryKit (runs compare only
    /// within a profile) read.
    public let name: String
    /// Google Benchmark's `--benchmark_min_time` per repetition, in seconds, as passed.
    public let minTime: String
    /// Repetitions per benchmark when `--repetitions` is not given, and the fewest it may ask for.
    public let repetitions: Int
    /// Repetitions whatever `--repetitions` says (the smoke profile: every benchmark once).
    public let fixedRepetitions: Int?
    /// The fewest repetitions of the wake family: its medians are the ones the targets for ref read, and on a small
    /// shared VM a slow spell can land on 2 of 5 repetitions of one engine; each costs only 0.03-0.3 s.
    public let wakeRepetitions: Int
    /// The outer limit on one harness process, in seconds: a last resort behind the harness's own per-benchmark
    /// watchdog, several times the longest family process of the profile.
    public let processLimitSeconds: Int
    /// What the profile is for, for `--help`.
    public let purpose: String

    /// The families whose benchmarks each run in a process of their own, one repetition per process, in rounds of
    /// random order. Scale: an iteration's cost depends on the allocator's state, which every earlier benchmark in
    /// the process left behind, so one engine's figures moved with which others ran before it. Wake latency: what one
    /// engine keeps for all its repetitions in a process (where its threads' stacks landed, which CPU the hypervisor's
    /// wake-up interrupt goes to) belongs to the process, so with every repetition in one process five runs gave
    /// cross-CPU figures 6-24 % apart; with one process per repetition the median is taken over processes.
    public static let isolatedFamilies: Set<String> = ["scale", "wake"]
    /// The family whose repetitions are at least ``wakeRepetitions``.
    public static let wakeFamily = "wake"

    /// Every benchmark once, meaningless figures: what scripts/bench-smoke.sh runs.
    public static let smoke = BenchProfile(
        name: "smoke", minTime: "0.000001", repetitions: 1, fixedRepetitions: 1, wakeRepetitions: 1,
        processLimitSeconds: 300, purpose: "every benchmark once (tests), figures meaningless")
    /// A few minutes, scale up to N = 10,000; judged only against the targets' quick bounds.
    public static let quick = BenchProfile(
        name: "quick", minTime: "0.03", repetitions: 5, fixedRepetitions: nil, wakeRepetitions: 9,
        processLimitSeconds: 900, purpose: "shorter measurements, not baseline quality")
    /// The default: every target of Benchmarks/targets.yaml judged with its full bound, at most about 10 minutes on
    /// a 2-CPU VM. The targets read the scale family at N = 10,000 only, so it stops there (the harness's side);
    /// coalescing windows of 0.2 s (2,000 fires a repetition) or one timer interval where that is longer (K = 10,000:
    /// 1 s, so wake-up counts resolve the 10 % bounds), and one lag stall a repetition; min_time 0.05 s is
    /// thousands of round trips per wake-latency process.
    public static let standard = BenchProfile(
        name: "standard", minTime: "0.05", repetitions: 5, fixedRepetitions: nil, wakeRepetitions: 9,
        processLimitSeconds: 1200, purpose: "the default: every target judged with its full bound")
    /// The baseline: scale up to N = 100,000, 1 s coalescing windows, three lag stalls, about 25-30 minutes.
    public static let full = BenchProfile(
        name: "full", minTime: "0.3", repetitions: 5, fixedRepetitions: nil, wakeRepetitions: 9,
        processLimitSeconds: 3600, purpose: "the baseline: scale up to N = 100,000, the longest")

    /// Every profile, shortest first.
    public static let all: [BenchProfile] = [smoke, quick, standard, full]

    /// The repetitions of `family` when `asked` were asked for (nil: the profile's default).
    public func repetitions(of family: String, asked: Int?) -> Int {
        if let fixedRepetitions { return fixedRepetitions }
        let base = asked ?? repetitions
        return family == BenchProfile.wakeFamily ? max(base, wakeRepetitions) : base
    }

    /// Whether `family` runs one process per benchmark and repetition.
    public func isIsolated(_ family: String) -> Bool { BenchProfile.isolatedFamilies.contains(family) }

    /// The `# profile:` context line's value: `standard (repetitions 5, wake latency 9, min_time 0.05 s, random
    /// interleaving, every repetition kept)`.
    public func contextValue(asked: Int?) -> String {
        "\(name) (repetitions \(repetitions(of: "", asked: asked)), wake latency "
            + "\(repetitions(of: BenchProfile.wakeFamily, asked: asked)), min_time \(minTime) s, random interleaving, "
            + "every repetition kept)"
    }
}
