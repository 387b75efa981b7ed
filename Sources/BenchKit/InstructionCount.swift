// What `runloop bench --instructions` counts and how a count is read: the benchmarks of one family run under
// valgrind's callgrind with N, 2N and again N iterations, and the difference of the first two totals divided by N and
// by the units in an iteration is the figure (process start, engine set-up and teardown cancel out); a figure whose
// repeat of N differs is not exact. Counting user-space
// instructions gives a figure that does not move with the machine's load, unlike nanoseconds. The runs themselves are
// InstructionRun's; everything here is pure, so tests check it without valgrind.
import Foundation

/// The family `--instructions` counts and what one unit of it is.
public enum InstructionFamily: String, Sendable, CaseIterable {
    /// One same-CPU wake-up round trip on one known path of the engine (BM_WakePath/load:L/path:P, registered by the
    /// harness under `--rl_iterations`): another thread signals a source and wakes the loop, the loop thread runs the
    /// callout, which writes a reply eventfd that thread reads. `path:awake`: every signal finds the loop awake, before
    /// its wait (the next poll takes the wake-up); `path:asleep`: every signal finds the loop thread blocked in its
    /// wait. BM_WakeLatency's round trip mixes the two, in a proportion that changes from run to run, so it is timed,
    /// not counted (Benchmarks/Harness/wake_path.cpp says how each path is made sure of).
    case wake
    /// One item added and removed at N = 10,000 (BM_Scale/n:10000), for each item kind: the shim's add and remove,
    /// the engine's, the item's allocation and freeing, and its share of the round's final pass.
    case scale

    /// The iterations of the shorter of the two runs when `--iterations` is not given.
    public var defaultIterations: Int { self == .wake ? 4000 : 2 }

    /// The environment of the runs under callgrind beyond the inherited one. The wake family's totals hold only the
    /// timed round trips (the harness stops counting its threads outside them), so the first call of a library
    /// function, whose symbol the dynamic linker looks up then (thousands of instructions), would be counted in one
    /// run and not in another, depending on which thread made it first and when: `LD_BIND_NOW` makes every lookup at
    /// start-up. Scale counts whole processes, where each lookup is made once in either run and cancels out.
    public var environment: [String: String]? { self == .wake ? ["LD_BIND_NOW": "1"] : nil }

    /// The results CSV's exact metric.
    public var metric: String { self == .wake ? "instructions_per_round_trip" : "instructions_per_item" }

    /// The iterations of each run under callgrind, in order: the shorter, the longer and the shorter again. Both
    /// families are meant to give the same count in two runs of one build (the results CSV's `# exact_metrics:`):
    /// a scale item's add and remove, and a round trip on one path, are the same code every time. The repeat checks
    /// it per benchmark: one whose repeat differs is listed `# inexact:` (an engine whose own threads do part of the
    /// work, timers whose order follows the clock).
    public func runIterations(short: Int) -> [Int] { [short, 2 * short, short] }

    /// Whether the figure is the nearest whole number of instructions per unit rather than the truncated one. A
    /// round trip on one path is a whole number of instructions, and the difference of two totals carries the runs'
    /// other differences (start-up, a few hundred instructions either way), which truncation would turn into one
    /// instruction less in some runs; scale's figures include an amortised share (the item arrays' growth) and keep
    /// the truncation their series began with.
    public var roundsToNearest: Bool { self == .wake }

    /// What a unit is, for the `# profile:` line.
    func unitText(load: String) -> String {
        self == .wake
            ? "same-CPU wake-up round trips, load \(load), each on one path (awake: the signal finds the loop before its "
                + "wait; asleep: blocked in it)"
            : "items added and removed at N = 10,000"
    }
}

/// The loads of the wake family's counted round trip (BM_WakeLatency's `load:` argument).
public let instructionLoads = ["none", "idle1000"]

/// What `--instructions` was asked for.
public struct InstructionOptions: Sendable, Equatable {
    /// The family counted: `--family`'s one name (BenchOptions.countedFamily).
    public var family: InstructionFamily = .wake
    /// `--load` as given: the wake family's load, none (the default) or idle1000.
    public var givenLoad: String?
    /// `--iterations`: the shorter run's iterations (nil: the family's default).
    public var iterations: Int?
    /// `--tree`: another checkout whose harness to count (nil: this one).
    public var tree: String?

    public init() {}

    /// The largest `--iterations` accepted.
    static let maximumIterations = 9_999_999

    /// The wake family's load.
    public var load: String { givenLoad ?? "none" }

    /// Whether any option of the count was given (they are bad input without `--instructions`): its name.
    public var givenOption: String? {
        givenLoad != nil ? "--load" : iterations != nil ? "--iterations" : tree != nil ? "--tree" : nil
    }

    /// The shorter run's iterations.
    public var shortIterations: Int { iterations ?? family.defaultIterations }

    /// The profile name: `callgrind`, or `callgrind-N` for another `--iterations`. A count per unit depends a little
    /// on the iterations (the amortised share of the loop's growth), so another N is a series of its own.
    public var profileName: String {
        shortIterations == family.defaultIterations ? "callgrind" : "callgrind-\(shortIterations)"
    }
}

/// One benchmark counted: its row's name in the results CSV and the filter that selects it.
public struct CountedBenchmark: Sendable, Equatable {
    public let engine: String
    /// The item kind (scale) or the path (wake).
    public let item: String?
    /// The row's name: the benchmark's name without the iterations.
    public let name: String
    /// Google Benchmark's `--benchmark_filter` for N iterations of it.
    public let filter: String
    /// Units in one iteration.
    public let unitsPerIteration: Int

    /// The benchmarks of `options` for `engine`. Scale: source, timer, timer-random (timers added and removed in
    /// random order, BM_Scale's `/order:random`), observer; wake: the awake and the asleep path, at the load.
    public static func all(engine: String, options: InstructionOptions) -> [CountedBenchmark] {
        let prefix = "^" + regexEscaped("BM_" + (options.family == .wake ? "WakePath" : "Scale") + "/engine:" + engine)
        switch options.family {
        case .wake:
            return wakePaths.map { path in
                let tail = "/load:\(options.load)/path:\(path)"
                return CountedBenchmark(
                    engine: engine, item: path, name: "BM_WakePath/engine:\(engine)\(tail)",
                    filter: prefix + regexEscaped(tail + "/iterations:"), unitsPerIteration: 1)
            }
        case .scale:
            return scaleItems.map { item in
                let tail = item == "timer-random" ? "/item:timer/n:10000/order:random" : "/item:\(item)/n:10000"
                return CountedBenchmark(
                    engine: engine, item: item, name: "BM_Scale/engine:\(engine)\(tail)",
                    filter: prefix + regexEscaped(tail + "/iterations:"), unitsPerIteration: 10_000)
            }
        }
    }

    /// The item kinds of the scale family, in the table's order.
    public static let scaleItems = ["source", "timer", "timer-random", "observer"]

    /// The paths of the wake family (BM_WakePath's `path:`), in the table's order.
    public static let wakePaths = ["awake", "asleep"]

    /// `text` with the characters a regular expression gives a meaning escaped (an engine `cf:/a/lib.so`).
    static func regexEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "[]\\.*^$+?(){}|/".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}

/// How one run under callgrind ended, read from its output.
public enum CallgrindCount: Sendable, Equatable {
    /// The total instructions callgrind collected.
    case collected(Int)
    /// The engine skips the benchmark, for the reason given: it lacks the feature (libevent has no observers; nio's
    /// loop threads cannot be watched for the asleep path).
    case skipped(String)
    /// No count: the benchmark did not finish, reported an error, or callgrind printed no total; why.
    case missing(String)

    /// Reads the output of `valgrind --tool=callgrind <harness> ... --rl_iterations=N` (stdout and stderr together).
    public static func read(_ output: String, iterations: Int) -> CallgrindCount {
        let lines = output.split(separator: "\n")
        // `BM_...  ERROR OCCURRED: 'skipped: REASON'`
        if let skip = lines.first(where: { $0.contains("ERROR OCCURRED: 'skipped:") }),
            let start = skip.range(of: "ERROR OCCURRED: 'skipped:")?.upperBound
        {
            var reason = skip[start...].trimmingCharacters(in: .whitespaces)
            if reason.hasSuffix("'") { reason.removeLast() }
            return .skipped(reason)
        }
        if let error = lines.first(where: { $0.contains("ERROR OCCURRED") }) {
            return .missing("the benchmark reported an error: " + error.trimmingCharacters(in: .whitespaces))
        }
        guard lines.contains(where: { $0.hasPrefix("BM_") && $0.contains("/iterations:\(iterations)") }) else {
            return .missing("the benchmark did not finish (no result line for \(iterations) iterations)")
        }
        // `==1234== Collected : 123456789`, the last one (a child process would print its own first).
        for line in lines.reversed() where line.hasPrefix("==") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count == 4, parts[1] == "Collected", parts[2] == ":", let total = Int(parts[3]) {
                return .collected(total)
            }
        }
        return .missing("callgrind printed no 'Collected' total")
    }
}

/// The figure of one benchmark from its two counts: (long − short) / (iterations × units), truncated or, with
/// `nearest`, rounded to the nearest whole number (``InstructionFamily/roundsToNearest``); nil when the longer run
/// counted fewer instructions than the shorter (no figure can come of that).
public func instructionsPerUnit(short: Int, long: Int, iterations: Int, unitsPerIteration: Int, nearest: Bool = false)
    -> Int?
{
    guard long >= short, iterations > 0, unitsPerIteration > 0 else { return nil }
    let units = iterations * unitsPerIteration
    return ((long - short) + (nearest ? units / 2 : 0)) / units
}

/// Whether the repeat of the shorter run agrees with it: their totals differ by less than one instruction per unit,
/// so the figure would be the same from either. A benchmark whose engine's work varies from run to run (other
/// threads it starts, timers ordered by the clock) fails this, and its figure is then not exact.
public func repeatAgrees(first: Int, repeated: Int, iterations: Int, unitsPerIteration: Int) -> Bool {
    abs(repeated - first) < iterations * unitsPerIteration
}

/// By how much, in instructions per unit, the repeat of the shorter run differed from it (rounded up).
public func repeatDifferencePerUnit(first: Int, repeated: Int, iterations: Int, unitsPerIteration: Int) -> Int {
    let units = max(iterations * unitsPerIteration, 1)
    return (abs(repeated - first) + units - 1) / units
}

/// One counted figure.
public struct InstructionFigure: Sendable, Equatable {
    public let benchmark: CountedBenchmark
    public let perUnit: Int
    /// By how much the repeat of the shorter run differed, per unit, when it differed by one instruction per unit or
    /// more (the figure is then not exact); nil when it agreed.
    public let repeatDifference: Int?
    /// A figure of the same engine in the run (this one or another) was not exact
    /// (``InstructionFigure/withEnginesJudged(_:)``).
    public private(set) var engineVaried = false

    public init(benchmark: CountedBenchmark, perUnit: Int, repeatDifference: Int? = nil) {
        self.benchmark = benchmark
        self.perUnit = perUnit
        self.repeatDifference = repeatDifference
    }

    /// Whether the figure is listed as not exact (`# inexact:`).
    public var isInexact: Bool { repeatDifference != nil || engineVaried }

    /// `figures` with every figure of an engine marked not exact when any of that engine's was. One repeat catches a
    /// count that varies often, not one that varies now and then (a peer whose source count is the same in two runs
    /// of three); what makes counts vary (the engine's own threads doing part of the work, timers ordered by the
    /// clock) belongs to the engine, so its other counts are not trusted as exact either.
    public static func withEnginesJudged(_ figures: [InstructionFigure]) -> [InstructionFigure] {
        let varied = Set(figures.filter { $0.repeatDifference != nil }.map(\.benchmark.engine))
        return figures.map { figure in
            var judged = figure
            judged.engineVaried = varied.contains(figure.benchmark.engine)
            return judged
        }
    }
}

/// The text `--instructions` prints and writes.
public enum InstructionText {
    /// The table on stdout: each figure and its ratio to the epoll floor's figure of the same item.
    public static func table(_ figures: [InstructionFigure], family: InstructionFamily) -> String {
        let unit = family == .wake ? "instr/round trip" : "instr/item"
        var lines = [pad("engine", 24) + " " + pad("item", 12) + " " + pad(unit, 16, right: true) + "  vs epoll floor"]
        for figure in figures {
            let floor = figures.first { $0.benchmark.engine == "epoll" && $0.benchmark.item == figure.benchmark.item }
            let ratio = floor.map { String(format: "%.2fx", Double(figure.perUnit) / Double(max($0.perUnit, 1))) }
            let inexact =
                figure.repeatDifference.map { "  not exact: the repeated run differed by \(grouped($0)) per unit" }
                ?? (figure.engineVaried ? "  not exact: another count of this engine was not" : nil)
            lines.append(
                pad(figure.benchmark.engine, 24) + " " + pad(figure.benchmark.item ?? "round trip", 12) + " "
                    + pad(grouped(figure.perUnit), 16, right: true) + "  " + (ratio ?? "-") + (inexact ?? ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The results CSV's rows after its context: the header, then one row per figure with its count in the exact
    /// metric's column and empty time cells (results/README.md: `# timing: none`).
    public static func rows(_ figures: [InstructionFigure], options: InstructionOptions) -> [String] {
        ["name,iterations,real_time,cpu_time,time_unit,\(options.family.metric)"]
            + figures.map { figure in
                "\"\(figure.benchmark.name)\",\(options.shortIterations * figure.benchmark.unitsPerIteration),,,,"
                    + "\(figure.perUnit)"
            }
    }

    /// The `# profile:` line's value.
    public static func profileValue(_ options: InstructionOptions) -> String {
        let short = options.shortIterations
        return "\(options.profileName) (family \(options.family.rawValue): \(short) and \(2 * short) iterations per "
            + "benchmark under valgrind's callgrind, their difference in user-space instructions per unit, "
            + options.family.unitText(load: options.load) + "; the shorter run repeated to check each count is exact)"
    }

    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return right ? fill + text : text + fill
    }

    /// 1234567 as `1,234,567`.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }
}
