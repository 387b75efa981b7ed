// The "# key: value" lines a results CSV starts with: what was run, on what machine, with which versions (the keys
// results/README.md lists). Gathering the facts (files, short commands with deadlines) is apart from writing the
// lines, which tests check.
import Foundation
import ResultsKit

#if canImport(Glibc)
import Glibc
#endif

/// The machine and the software measured.
public struct MachineFacts: Sendable, Equatable {
    /// The hypervisor (`kvm`), else `vm` or `metal` from the CPU flags.
    public var virtualisation = "unknown"
    public var cpus = 0
    public var cpuModel = "unknown"
    public var kernel = "unknown"
    public var os = "unknown"
    public var clocksource = "unknown"
    public var loadAverage = "unknown"
    public var commit = "unknown"
    /// Paths that differ from the commit.
    public var uncommittedPaths = 0
    public var swift = "unknown"
    /// Debian package versions by package (or "not installed").
    public var packages: [String: String] = [:]
    /// SwiftNIO's version as SwiftPM resolved it for the harness.
    public var swiftNIO = "unknown"

    public init() {}

    /// The Debian packages the context names, in its order, with the key of their line.
    public static let packageLines: [(key: String, package: String)] = [
        ("libbenchmark", "libbenchmark-dev"), ("libglib2.0", "libglib2.0-dev"), ("libuv1", "libuv1-dev"),
        ("libevent", "libevent-dev"),
    ]

    /// Reads the facts of this machine and the checkout at `root`.
    public static func gather(root: String) -> MachineFacts {
        var facts = MachineFacts()
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let detected = ChildProcess.output("systemd-detect-virt", ["--vm"], limit: 10)?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if let detected, !detected.isEmpty, detected != "none" {
            facts.virtualisation = detected
        } else {
            let flags = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") } ?? ""
            facts.virtualisation = flags.split(separator: " ").contains("hypervisor") ? "vm" : "metal"
        }
        facts.cpus = ProcessInfo.processInfo.activeProcessorCount
        if let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let colon = line.firstIndex(of: ":")
        {
            facts.cpuModel = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        facts.kernel = kernelName()
        facts.os = osRelease((try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? "") ?? "unknown"
        facts.clocksource = firstLine("/sys/devices/system/clocksource/clocksource0/current_clocksource") ?? "unknown"
        facts.loadAverage = loadAverageNow()
        if let head = ChildProcess.output("git", ["-C", root, "rev-parse", "HEAD"]) {
            facts.commit = head.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // GIT_OPTIONAL_LOCKS=0: reading the status must not rewrite the index of a repository others work in.
        if let status = ChildProcess.output(
            "git", ["-C", root, "status", "--porcelain"],
            environment: ["GIT_OPTIONAL_LOCKS": "0"])
        {
            facts.uncommittedPaths = status.split(separator: "\n").count
        }
        if let version = ChildProcess.output("swift", ["--version"]) {
            facts.swift = version.split(separator: "\n").first.map(String.init) ?? "unknown"
        }
        for (_, package) in packageLines {
            let version = ChildProcess.output("dpkg-query", ["-W", "-f=${Version}", package], limit: 30)
            facts.packages[package] = version.flatMap { $0.isEmpty ? nil : $0 } ?? "not installed"
        }
        let state = root + "/" + HarnessBuild.scratch + "/workspace-state.json"
        facts.swiftNIO =
            FileManager.default.contents(atPath: state)
            .flatMap { resolvedVersion(workspaceState: $0, identity: "swift-nio") } ?? "unknown"
        return facts
    }

    /// The version SwiftPM resolved for the dependency `identity` in a workspace-state.json: its checkout's version,
    /// else `revision <hash>`; nil when the file does not say.
    public static func resolvedVersion(workspaceState: Data, identity: String) -> String? {
        struct State: Decodable {
            struct Object: Decodable { let dependencies: [Dependency] }
            struct Dependency: Decodable {
                struct Reference: Decodable { let identity: String }
                struct DependencyState: Decodable {
                    struct Checkout: Decodable {
                        let version: String?
                        let revision: String?
                    }
                    let checkoutState: Checkout?
                }
                let packageRef: Reference
                let state: DependencyState
            }
            let object: Object
        }
        guard let state = try? JSONDecoder().decode(State.self, from: workspaceState),
            let dependency = state.object.dependencies.first(where: { $0.packageRef.identity == identity }),
            let checkout = dependency.state.checkoutState
        else { return nil }
        return checkout.version ?? checkout.revision.map { "revision " + $0 }
    }

    /// `PRETTY_NAME` of an os-release file.
    public static func osRelease(_ text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
            var value = line.dropFirst("PRETTY_NAME=".count)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            return String(value)
        }
        return nil
    }

    /// The first three fields of /proc/loadavg.
    public static func loadAverageNow() -> String {
        guard let line = firstLine("/proc/loadavg") else { return "unknown" }
        return line.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// `uname -srm`.
    static func kernelName() -> String {
        var name = utsname()
        guard uname(&name) == 0 else { return "unknown" }
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return "\(text(name.sysname)) \(text(name.release)) \(text(name.machine))"
    }

    static func firstLine(_ path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first.map(String.init)
    }
}

/// The context lines of a run.
public enum RunContext {
    /// The default label: `<virtualisation>-<CPUs>cpu`, with `-<profile>` unless the profile is full.
    public static func defaultLabel(_ facts: MachineFacts, profile: BenchProfile) -> String {
        "\(facts.virtualisation)-\(facts.cpus)cpu" + (profile == .full ? "" : "-\(profile.name)")
    }

    /// The lines before the families run, the harness's own description (`--rl_describe`) last.
    public static func lines(
        options: BenchOptions, label: String, date: Date, facts: MachineFacts,
        describe: [String]
    ) -> [String] {
        var lines = [
            ("label", label),
            ("date", timestamp(date)),
            ("profile", options.profile.contextValue(asked: options.repetitions)),
            ("command", (["runloop", "bench"] + options.arguments).joined(separator: " ")),
            ("filter", options.filter ?? "(all)"),
        ]
        if let families = options.families { lines.append(("families", families.joined(separator: ","))) }
        return lines.map { "# \($0.0): \($0.1)" } + machineLines(facts) + describe
    }

    /// The lines before the counts of `--instructions`: what was counted, the machine, valgrind's version, that the
    /// file holds no times, whether its counter is exact and which benchmarks' counts are not after all (`inexact`:
    /// their repeated run differed; results/README.md), the harness's description last.
    public static func instructionLines(
        options: BenchOptions, instructions: InstructionOptions, label: String, date: Date, facts: MachineFacts,
        valgrind: String, describe: [String], inexact: [String] = []
    ) -> [String] {
        let lines = [
            ("label", label),
            ("date", timestamp(date)),
            ("profile", InstructionText.profileValue(instructions)),
            ("command", (["runloop", "bench"] + options.arguments).joined(separator: " ")),
            ("filter", "family \(instructions.family.rawValue)"),
        ]
        let counting =
            [("valgrind", valgrind), ("timing", "none"), (ResultsReader.exactMetricsKey, instructions.family.metric)]
            + inexact.map { (ResultsReader.inexactKey, $0) }
        return lines.map { "# \($0.0): \($0.1)" } + machineLines(facts) + counting.map { "# \($0.0): \($0.1)" }
            + describe
    }

    /// The default label of `--instructions`: `<virtualisation>-<CPUs>cpu-instructions`.
    public static func instructionLabel(_ facts: MachineFacts) -> String {
        "\(facts.virtualisation)-\(facts.cpus)cpu-instructions"
    }

    /// The lines before the counts of `--syscalls`: what was counted and by what, the machine, the counter's version,
    /// that the file holds no times (results/README.md; no `exact_metrics`: a round trip that finds the loop awake
    /// skips the wake-up, so two runs differ), the harness's description last.
    public static func syscallLines(
        options: BenchOptions, syscalls: SyscallOptions, counter: SyscallCounter, tool: String, label: String,
        date: Date, facts: MachineFacts, describe: [String]
    ) -> [String] {
        let lines = [
            ("label", label),
            ("date", timestamp(date)),
            ("profile", SyscallText.profileValue(counter, options: syscalls)),
            ("command", (["runloop", "bench"] + options.arguments).joined(separator: " ")),
            ("filter", "family wake: " + SyscallVariant.all.map(\.text).joined(separator: ", ")),
        ]
        return lines.map { "# \($0.0): \($0.1)" } + machineLines(facts)
            + ["# \(counter.rawValue): \(tool)", "# timing: none"] + describe
    }

    /// The default label of `--syscalls`: `<virtualisation>-<CPUs>cpu-syscalls`.
    public static func syscallLabel(_ facts: MachineFacts) -> String {
        "\(facts.virtualisation)-\(facts.cpus)cpu-syscalls"
    }

    /// The lines on the machine and the software measured, from the CPU model to the engines' libraries: every
    /// results CSV has them, whatever it measured.
    public static func machineLines(_ facts: MachineFacts) -> [String] {
        var lines = [
            ("cpu_model", facts.cpuModel),
            ("cpus", "\(facts.cpus) (\(facts.virtualisation))"),
            ("kernel", facts.kernel),
            ("os", facts.os),
            ("clocksource", facts.clocksource),
            ("load_average_before", facts.loadAverage),
            ("commit", "\(facts.commit) (\(facts.uncommittedPaths) uncommitted paths)"),
            ("swift", facts.swift),
        ]
        for (key, package) in MachineFacts.packageLines {
            var value = facts.packages[package] ?? "not installed"
            if key == "libbenchmark" {
                value +=
                    " (Debian's build is a DEBUG build: Google Benchmark prints \"Library was built as DEBUG\"; "
                    + "the timed loops are this harness's own, compiled -O, only GB's bookkeeping between iterations "
                    + "is unoptimised)"
            }
            lines.append((key, value))
        }
        lines.append(("swiftnio", "\(facts.swiftNIO) (SwiftPM's resolution for Benchmarks/Package.swift)"))
        lines.append(
            (
                "libdispatch",
                "the Swift toolchain's (the swift line; its path and build id in engine_dispatch)"
            ))
        return lines.map { "# \($0.0): \($0.1)" }
    }

    /// The lines after the families ran: the run's length, the load after it and, for an interrupted run, that
    /// its rows are partial.
    public static func closingLines(seconds: Int, loadAverage: String, interruptedAfter: Int?) -> [String] {
        var lines = ["# duration_s: \(seconds)", "# load_average_after: \(loadAverage)"]
        if let interruptedAfter { lines.append("# partial: interrupted after \(interruptedAfter) s") }
        return lines
    }

    /// `2026-11-27T16:22:42Z`.
    public static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    /// `20261127-1622`, for the default file name.
    public static func fileStamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmm"
        return formatter.string(from: date)
    }
}
