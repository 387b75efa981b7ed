// What `runloop bench --syscalls` counts and how a count is read: the wake-up round trip (BM_WakeLatency) of each
// engine in three variants runs twice with a fixed number of round trips, N / 10 and N, and the difference of the
// two runs' system calls over the difference of the round trips is the cost of one round trip (process start,
// engine set-up, warm-up and teardown cancel out). The kernel counts them: perf's syscall tracepoints count every
// thread of the process without slowing it down; where they are not usable (no tracefs, perf_event_paranoid too high
// in a container) `strace -c -f` counts instead, which stops every system call (ptrace) and so changes how often a
// loop is found awake: its figures are only indicative. A round trip includes the harness's own reply: the loop's
// callout writes an eventfd (1 write) and the benchmark thread blocks in read() on it (1 read). Counts are means: a
// same-CPU round trip that finds the loop awake skips the wake-up, so an engine that defers wake-ups shows fractions,
// and two runs of one build do not give the same figures. The runs are in BenchRun+Syscalls.swift;
// everything here is pure, so tests check it without perf or strace.
import Foundation

/// What counts the system calls.
public enum SyscallCounter: String, Sendable, Equatable {
    /// perf's syscall tracepoints (`perf stat -e syscalls:sys_enter_...`): exact counts of every thread.
    case perf
    /// `strace -c -f`: ptrace-distorted, indicative only.
    case strace

    /// The `# profile:` name (and series of the history).
    public var profileName: String { rawValue }

    /// How the table's heading and the profile line describe it.
    public var description: String {
        self == .perf
            ? "perf (syscall tracepoints, every thread)" : "strace -c -f (ptrace-distorted, indicative only)"
    }
}

/// One column of the counts: a group of system calls (epoll_wait with epoll_pwait and epoll_pwait2), what the named
/// groups leave out (`other`), or every system call (`all`, raw_syscalls:sys_enter).
public struct SyscallColumn: Sendable, Equatable {
    /// The column's name in the table.
    public let name: String
    /// The system calls it adds up (empty for `other` and `all`).
    public let calls: [String]

    /// The columns, in the table's order.
    public static let all: [SyscallColumn] = [
        SyscallColumn(name: "write", calls: ["write"]), SyscallColumn(name: "read", calls: ["read"]),
        SyscallColumn(name: "epoll_wait", calls: ["epoll_wait", "epoll_pwait", "epoll_pwait2"]),
        SyscallColumn(name: "poll", calls: ["poll", "ppoll"]), SyscallColumn(name: "futex", calls: ["futex"]),
        SyscallColumn(name: "timerfd_settime", calls: ["timerfd_settime"]),
        SyscallColumn(name: "other", calls: []), SyscallColumn(name: "all", calls: []),
    ]

    /// The system calls the named columns add up.
    public static var namedCalls: [String] { all.flatMap(\.calls) }

    /// The results CSV's column: `syscalls_per_round_trip` for all, `<name>_per_round_trip` for the others.
    public var metric: String { name == "all" ? SyscallCounts.metric : name + "_per_round_trip" }

    /// The column's total in one run's counts (by system call, `all` the total).
    func total(_ counts: [String: Int]) -> Int {
        switch name {
        case "all": return counts["all"] ?? 0
        case "other": return (counts["all"] ?? 0) - SyscallColumn.namedCalls.reduce(0) { $0 + (counts[$1] ?? 0) }
        default: return calls.reduce(0) { $0 + (counts[$1] ?? 0) }
        }
    }
}

/// One variant counted: BM_WakeLatency's pinning and load.
public struct SyscallVariant: Sendable, Equatable {
    public let pin: String
    public let load: String

    /// The variants, in the table's order.
    public static let all = [
        SyscallVariant(pin: "same", load: "none"), SyscallVariant(pin: "same", load: "idle1000"),
        SyscallVariant(pin: "diff", load: "none"),
    ]

    /// `pin:same/load:none`.
    public var text: String { "pin:\(pin)/load:\(load)" }

    /// The results CSV's row name of `engine`.
    public func rowName(engine: String) -> String { "BM_WakeLatency/engine:\(engine)/\(text)" }

    /// Google Benchmark's `--benchmark_filter` for the engine's default wait only: not a variant named after the
    /// load (ref's `/spin:on`), which would run in the same process and add its counts.
    public func filter(engine: String) -> String {
        "^" + CountedBenchmark.regexEscaped(rowName(engine: engine)) + "(/iterations:|/manual_time|$)"
    }
}

/// What `--syscalls` was asked for (`--iterations`, shared with `--instructions`, is the longer run's round trips).
public struct SyscallOptions: Sendable, Equatable {
    /// The round trips of the longer run (the shorter makes a tenth).
    public var roundTrips = SyscallOptions.defaultRoundTrips

    public init() {}

    /// The round trips of the longer run when `--iterations` is not given.
    public static let defaultRoundTrips = 20_000
    /// The fewest round trips accepted (the shorter run makes at least 10).
    static let minimumRoundTrips = 100
    /// The most round trips accepted.
    static let maximumRoundTrips = 999_999_999

    /// The round trips of the shorter run.
    public var shortRoundTrips: Int { roundTrips / 10 }
}

/// One run's system calls by name, read from perf's or strace's output.
public enum SyscallCounts {
    /// The results CSV's main column: every system call per round trip.
    public static let metric = "syscalls_per_round_trip"

    /// The tracepoints `perf stat -e` counts: each named column's system call this kernel has a tracepoint for (from
    /// `perf list 'syscalls:sys_enter_*'`; epoll_pwait2 is missing before Linux 5.11), then raw_syscalls:sys_enter.
    public static func perfEvents(available perfList: String) -> [String] {
        let present = Set(
            perfList.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
                .filter { $0.hasPrefix("syscalls:sys_enter_") }.map(String.init))
        return SyscallColumn.namedCalls.map { "syscalls:sys_enter_" + $0 }.filter(present.contains)
            + ["raw_syscalls:sys_enter"]
    }

    /// Whether perf's probe (`perf stat -x, -e syscalls:sys_enter_write -- true`, its output) says the tracepoints
    /// are usable: it exited 0 and did not say they are not supported or not permitted.
    public static func perfUsable(probeSucceeded: Bool, output: String) -> Bool {
        let lower = output.lowercased()
        return probeSucceeded && !lower.contains("not supported") && !lower.contains("permission")
            && !lower.contains("<not")
    }

    /// Reads `perf stat -x, -o FILE` output: `value,unit,event,...` lines; `raw_syscalls:sys_enter` is `all`. A
    /// value perf could not count (`<not counted>`) reads as 0.
    public static func readPerf(_ text: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 3 else { continue }
            let event = fields[2]
            let name: String
            if event == "raw_syscalls:sys_enter" {
                name = "all"
            } else if event.hasPrefix("syscalls:sys_enter_") {
                name = String(event.dropFirst("syscalls:sys_enter_".count))
            } else {
                continue
            }
            counts[name, default: 0] += Int(fields[0]) ?? 0
        }
        return counts
    }

    /// Reads `strace -c -f -o FILE` output: rows `% time, seconds, usecs/call, calls, [errors], syscall`; `all` is
    /// the sum of the rows (not the `total` row, whose errors column would be taken for calls when it is not empty).
    public static func readStrace(_ text: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 5 || fields.count == 6, let name = fields.last, name != "total",
                name.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "_" }),
                fields.dropLast().allSatisfy({ Double($0) != nil }), let calls = Int(fields[3])
            else { continue }
            counts[String(name), default: 0] += calls
            counts["all", default: 0] += calls
        }
        return counts
    }

    /// A column's figure per round trip from the two runs: (long − short) / (round trips of the long run − of the
    /// short run), with a magnitude under 0.005 shown as 0 (the table's two decimals).
    public static func perRoundTrip(
        _ column: SyscallColumn, short: [String: Int], long: [String: Int], options: SyscallOptions
    ) -> Double {
        let trips = options.roundTrips - options.shortRoundTrips
        guard trips > 0 else { return 0 }
        let value = Double(column.total(long) - column.total(short)) / Double(trips)
        return abs(value) < 0.005 ? 0 : value
    }
}

/// The figures of one engine and variant: each column's system calls per round trip, in SyscallColumn.all's order.
public struct SyscallFigure: Sendable, Equatable {
    public let engine: String
    public let variant: SyscallVariant
    public let perRoundTrip: [Double]

    public init(engine: String, variant: SyscallVariant, perRoundTrip: [Double]) {
        self.engine = engine
        self.variant = variant
        self.perRoundTrip = perRoundTrip
    }

    /// The figures of `short` and `long` runs' counts.
    public static func of(
        engine: String, variant: SyscallVariant, short: [String: Int], long: [String: Int], options: SyscallOptions
    ) -> SyscallFigure {
        SyscallFigure(
            engine: engine, variant: variant,
            perRoundTrip: SyscallColumn.all.map {
                SyscallCounts.perRoundTrip($0, short: short, long: long, options: options)
            })
    }
}

/// The text `--syscalls` prints and writes.
public enum SyscallText {
    /// The table on stdout: a heading saying how it was counted, then one line per engine and variant.
    public static func table(_ figures: [SyscallFigure], counter: SyscallCounter, options: SyscallOptions) -> String {
        func width(_ name: String) -> Int { max(name.count, 6) }
        var lines = [
            "system calls per round trip, \(counter.description); \(options.shortRoundTrips) and "
                + "\(options.roundTrips) round trips, differenced;",
            "each round trip includes the harness's reply: 1 write by the loop's callout, 1 read by the benchmark "
                + "thread",
            InstructionText.pad("engine", 10) + " " + InstructionText.pad("benchmark", 24)
                + SyscallColumn.all.map { " " + InstructionText.pad($0.name, width($0.name), right: true) }.joined(),
        ]
        for figure in figures {
            lines.append(
                InstructionText.pad(figure.engine, 10) + " " + InstructionText.pad(figure.variant.text, 24)
                    + zip(SyscallColumn.all, figure.perRoundTrip).map { column, value in
                        " " + InstructionText.pad(String(format: "%.2f", value), width(column.name), right: true)
                    }.joined())
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The results CSV's rows after its context: the header, then one row per figure with its counts in the
    /// per-round-trip columns and empty time cells (results/README.md: `# timing: none`).
    public static func rows(_ figures: [SyscallFigure], options: SyscallOptions) -> [String] {
        ["name,iterations,real_time,cpu_time,time_unit," + SyscallColumn.all.map(\.metric).joined(separator: ",")]
            + figures.map { figure in
                "\"\(figure.variant.rowName(engine: figure.engine))\",\(options.roundTrips),,,,"
                    + figure.perRoundTrip.map { String(format: "%.3f", $0) }.joined(separator: ",")
            }
    }

    /// The `# profile:` line's value.
    public static func profileValue(_ counter: SyscallCounter, options: SyscallOptions) -> String {
        "\(counter.profileName) (system calls per wake-up round trip counted by \(counter.description): "
            + "\(options.shortRoundTrips) and \(options.roundTrips) round trips per benchmark, differenced)"
    }
}
