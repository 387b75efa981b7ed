// What `runloop bench` was asked to do, and the checks of it that need no harness (the families and engines are the
// harness's own lists: BenchRun checks those once it has the binary).
import Foundation

/// Bad input to `runloop bench`: the message names the option. Exit status 2.
public struct BenchInputError: Error, Equatable, CustomStringConvertible {
    /// The option at fault (`--repetitions`).
    public let field: String
    /// What is wrong with it.
    public let detail: String

    public init(field: String, _ detail: String) {
        self.field = field
        self.detail = detail
    }

    public var description: String { "bench: \(field): \(detail)" }

    /// The exit status of bad input.
    public static let exitStatus: Int32 = 2
}

/// The values of `runloop bench`.
public struct BenchOptions: Sendable, Equatable {
    public var profile: BenchProfile = .standard
    /// `--engines`: comma-separated, as the harness's `--rl_engines` takes them.
    public var engines: String?
    /// `--family`: the families to run (nil: every one), by the harness's names.
    public var families: [String]?
    /// `--filter`: Google Benchmark's `--benchmark_filter`.
    public var filter: String?
    /// `--out`: the CSV to write (default results/<label>-<date>.csv under the checkout).
    public var out: String?
    /// `--label`: the machine label (default <virtualisation>-<CPUs>cpu, with -<profile> unless full).
    public var label: String?
    /// `--repetitions` (nil: the profile's).
    public var repetitions: Int?
    /// `--watchdog`: the harness's limit per benchmark call, seconds (nil: the profile's, in the harness).
    public var watchdog: Int?
    /// `--build-only`: build the harness, print its path and run nothing.
    public var buildOnly = false
    /// `--harness`: a runloop-bench binary to use instead of building one.
    public var harness: String?
    /// Whether the run goes into results/history.sqlite (`--no-history` turns it off).
    public var history = true
    /// `--targets`: the targets file for the report (default Benchmarks/targets.yaml of the checkout).
    public var targets: String?
    /// `--instructions`: count instructions under callgrind (InstructionRun) instead of timing the benchmarks.
    public var countInstructions = false
    /// `--load`, `--iterations` and `--tree`: the count's options (only with `--instructions`; `--iterations` also
    /// with `--syscalls`).
    public var counting = InstructionOptions()
    /// `--syscalls`: count system calls per wake-up round trip (SyscallCount.swift) instead of timing.
    public var countSyscalls = false
    /// The command line as typed, for the `# command:` context line.
    public var arguments: [String] = []

    public init() {}

    /// The largest `--repetitions` and `--watchdog` accepted.
    static let maximumRepetitions = 1000
    static let maximumWatchdog = 999_999

    /// Checks what can be checked without the harness. Throws ``BenchInputError``.
    public func validate() throws {
        if let repetitions, profile.fixedRepetitions == nil {
            guard repetitions >= profile.repetitions else {
                throw BenchInputError(
                    field: "--repetitions",
                    "at least \(profile.repetitions) (every repetition "
                        + "is kept; the wake family takes at least \(profile.wakeRepetitions)), not \(repetitions)")
            }
            guard repetitions <= BenchOptions.maximumRepetitions else {
                throw BenchInputError(
                    field: "--repetitions",
                    "at most \(BenchOptions.maximumRepetitions), not \(repetitions)")
            }
        }
        if let watchdog, !(1...BenchOptions.maximumWatchdog).contains(watchdog) {
            throw BenchInputError(
                field: "--watchdog",
                "a number of seconds from 1 to \(BenchOptions.maximumWatchdog), not \(watchdog)")
        }
        if let engines {
            let names = engines.split(separator: ",", omittingEmptySubsequences: false)
            guard !names.isEmpty, !names.contains(where: { $0.isEmpty }) else {
                throw BenchInputError(field: "--engines", "a comma-separated list of engines, not '\(engines)'")
            }
        }
        if let families {
            guard !families.isEmpty, !families.contains(where: { $0.isEmpty }) else {
                throw BenchInputError(field: "--family", "a comma-separated list of families")
            }
        }
        if let filter, filter.isEmpty {
            throw BenchInputError(field: "--filter", "an empty regular expression")
        }
        if let label, label.isEmpty || label.contains("/") {
            throw BenchInputError(field: "--label", "a name for the file, without '/', not '\(label)'")
        }
        if countSyscalls {
            try validateSyscalls()
        } else if countInstructions {
            try validateCounting()
        } else if let option = counting.givenOption {
            let counts = option == "--iterations" ? "--instructions or --syscalls" : "--instructions"
            throw BenchInputError(field: option, "only with " + counts)
        }
    }

    /// The checks of `--syscalls`: not with `--instructions`, none of the options that belong to timing or to the
    /// instruction count, round trips in range.
    func validateSyscalls() throws {
        if countInstructions {
            throw BenchInputError(field: "--syscalls", "not with --instructions (one count per run)")
        }
        let excluded: [(String, Bool)] = [
            ("--quick, --full or --smoke", profile != .standard), ("--filter", filter != nil),
            ("--repetitions", repetitions != nil), ("--family", families != nil), ("--load", counting.givenLoad != nil),
            ("--tree", counting.tree != nil),
        ]
        if let (option, _) = excluded.first(where: { $0.1 }) {
            throw BenchInputError(
                field: option,
                "not with --syscalls (it counts the wake family's round trips in fixed variants, twice each)")
        }
        if let iterations = counting.iterations,
            !(SyscallOptions.minimumRoundTrips...SyscallOptions.maximumRoundTrips).contains(iterations)
        {
            throw BenchInputError(
                field: "--iterations",
                "with --syscalls, the longer run's round trips, from \(SyscallOptions.minimumRoundTrips) to "
                    + "\(SyscallOptions.maximumRoundTrips), not \(iterations)")
        }
    }

    /// What `--syscalls` counts: `--iterations` round trips in the longer run (default 20,000).
    public var syscallOptions: SyscallOptions {
        var options = SyscallOptions()
        if let iterations = counting.iterations { options.roundTrips = iterations }
        return options
    }

    /// The checks of `--instructions`: one family it counts, a load of the wake family, iterations in range, and none
    /// of the options that belong to timing.
    func validateCounting() throws {
        let timingOnly: [(String, Bool)] = [
            ("--quick, --full or --smoke", profile != .standard), ("--filter", filter != nil),
            ("--repetitions", repetitions != nil),
        ]
        if let (option, _) = timingOnly.first(where: { $0.1 }) {
            throw BenchInputError(
                field: option,
                "not with --instructions (it counts fixed benchmarks of one family, twice each, under callgrind)")
        }
        let names = InstructionFamily.allCases.map(\.rawValue).joined(separator: " or ")
        if let families, families.count != 1 || InstructionFamily(rawValue: families[0]) == nil {
            throw BenchInputError(
                field: "--family",
                "--instructions counts one family, \(names), not '\(families.joined(separator: ","))'")
        }
        if let load = counting.givenLoad {
            guard countedFamily == .wake else {
                throw BenchInputError(field: "--load", "only for the wake family")
            }
            guard instructionLoads.contains(load) else {
                throw BenchInputError(
                    field: "--load", "\(instructionLoads.joined(separator: " or ")), not '\(load)'")
            }
        }
        if let iterations = counting.iterations, !(1...InstructionOptions.maximumIterations).contains(iterations) {
            throw BenchInputError(
                field: "--iterations",
                "a number from 1 to \(InstructionOptions.maximumIterations), not \(iterations)")
        }
        if counting.tree != nil, harness != nil {
            throw BenchInputError(field: "--tree", "not with --harness (--tree builds that checkout's harness)")
        }
        if let tree = counting.tree, !FileManager.default.fileExists(atPath: tree + "/Benchmarks/Package.swift") {
            throw BenchInputError(field: "--tree", "'\(tree)' has no Benchmarks/Package.swift (not a checkout)")
        }
    }

    /// The family `--instructions` counts: `--family`'s one name, wake when not given.
    public var countedFamily: InstructionFamily {
        families?.first.flatMap(InstructionFamily.init(rawValue:)) ?? .wake
    }

    /// Checks `--family` against the harness's families (in its order), and returns the ones to run.
    public func selectedFamilies(_ known: [HarnessFamily]) throws -> [HarnessFamily] {
        guard let families else { return known }
        for name in families where !known.contains(where: { $0.name == name }) {
            throw BenchInputError(
                field: "--family",
                "unknown family '\(name)' (families: "
                    + known.map(\.name).joined(separator: ", ") + ")")
        }
        return known.filter { families.contains($0.name) }
    }
}
