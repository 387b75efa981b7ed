// The context lines of a run, the partial mark, and the version SwiftPM resolved.
import Foundation
import Testing

@testable import BenchKit

@Suite struct ContextTests {
    static let facts: MachineFacts = {
        var facts = MachineFacts()
        facts.virtualisation = "kvm"
        facts.cpus = 2
        facts.cpuModel = "AMD EPYC"
        facts.kernel = "Linux 6.1 x86_64"
        facts.os = "Debian GNU/Linux 12 (bookworm)"
        facts.clocksource = "tsc"
        facts.loadAverage = "0.5 0.4 0.3"
        facts.commit = "abc123"
        facts.uncommittedPaths = 2
        facts.swift = "Swift version 6.3.1 (swift-6.3.1-RELEASE)"
        facts.packages = ["libbenchmark-dev": "1.7.1-1", "libuv1-dev": "1.44.2-1"]
        facts.swiftNIO = "2.101.3"
        return facts
    }()

    @Test func theLinesInOrder() {
        var options = BenchOptions()
        options.arguments = ["--engines", "ref,libuv"]
        options.engines = "ref,libuv"
        let date = Date(timeIntervalSince1970: 1_764_260_562)  // 2025-11-27T16:22:42Z
        let lines = RunContext.lines(
            options: options, label: "kvm-2cpu-standard", date: date, facts: Self.facts,
            describe: ["# engine_ref: RefRunLoop"])
        let keys = lines.map { String($0.dropFirst(2).prefix { $0 != ":" }) }
        #expect(
            keys == [
                "label", "date", "profile", "command", "filter", "cpu_model", "cpus", "kernel", "os",
                "clocksource", "load_average_before", "commit", "swift", "libbenchmark", "libglib2.0",
                "libuv1", "libevent", "swiftnio", "libdispatch", "engine_ref",
            ])
        #expect(lines[1] == "# date: 2025-11-27T16:22:42Z")
        #expect(lines[2].hasPrefix("# profile: standard (repetitions 5, wake latency 9, min_time 0.05 s"))
        #expect(lines[3] == "# command: runloop bench --engines ref,libuv")
        #expect(lines[4] == "# filter: (all)")
        #expect(lines[6] == "# cpus: 2 (kvm)")
        #expect(lines[11] == "# commit: abc123 (2 uncommitted paths)")
        #expect(lines[13].hasPrefix("# libbenchmark: 1.7.1-1 (Debian's build is a DEBUG build"))
        #expect(lines[14] == "# libglib2.0: not installed")
        #expect(lines[17] == "# swiftnio: 2.101.3 (SwiftPM's resolution for Benchmarks/Package.swift)")
    }

    @Test func familiesAndFilterAreSaid() {
        var options = BenchOptions()
        options.filter = "BM_WakeLatency"
        options.families = ["wake"]
        let lines = RunContext.lines(options: options, label: "x", date: Date(), facts: Self.facts, describe: [])
        #expect(lines.contains("# filter: BM_WakeLatency"))
        #expect(lines.contains("# families: wake"))
    }

    @Test func labels() {
        #expect(RunContext.defaultLabel(Self.facts, profile: .full) == "kvm-2cpu")
        #expect(RunContext.defaultLabel(Self.facts, profile: .standard) == "kvm-2cpu-standard")
        #expect(RunContext.defaultLabel(Self.facts, profile: .quick) == "kvm-2cpu-quick")
        #expect(RunContext.fileStamp(Date(timeIntervalSince1970: 1_764_260_562)) == "20251127-1622")
    }

    @Test func aRunNeverTakesTheNameOfAnotherRunsResults() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = directory.path + "/kvm-2cpu-20251127-1622"
        #expect(BenchRun.unusedPath(base, suffix: ".csv") == base + ".csv")
        try "first".write(toFile: base + ".csv", atomically: true, encoding: .utf8)
        #expect(BenchRun.unusedPath(base, suffix: ".csv") == base + "-2.csv")
        try "second".write(toFile: base + "-2.csv", atomically: true, encoding: .utf8)
        #expect(BenchRun.unusedPath(base, suffix: ".csv") == base + "-3.csv")
    }

    @Test func partialRunsAreMarked() {
        #expect(
            RunContext.closingLines(seconds: 42, loadAverage: "1 2 3", interruptedAfter: nil)
                == ["# duration_s: 42", "# load_average_after: 1 2 3"])
        #expect(
            RunContext.closingLines(seconds: 42, loadAverage: "1 2 3", interruptedAfter: 41).last
                == "# partial: interrupted after 41 s")
    }

    @Test func theResolvedVersionOfADependency() {
        let state = Data(
            """
            {"object": {"dependencies": [
              {"packageRef": {"identity": "swift-atomics"}, "state": {"checkoutState": {"version": "1.2.0"}}},
              {"packageRef": {"identity": "swift-nio"}, "state": {"checkoutState": {"version": "2.101.3",
                "revision": "abc"}}},
              {"packageRef": {"identity": "pinned"}, "state": {"checkoutState": {"revision": "def"}}},
              {"packageRef": {"identity": "local"}, "state": {"name": "fileSystem"}}
            ]}, "version": 6}
            """.utf8)
        #expect(MachineFacts.resolvedVersion(workspaceState: state, identity: "swift-nio") == "2.101.3")
        #expect(MachineFacts.resolvedVersion(workspaceState: state, identity: "pinned") == "revision def")
        #expect(MachineFacts.resolvedVersion(workspaceState: state, identity: "local") == nil)
        #expect(MachineFacts.resolvedVersion(workspaceState: state, identity: "absent") == nil)
        #expect(MachineFacts.resolvedVersion(workspaceState: Data("not json".utf8), identity: "swift-nio") == nil)
    }

    @Test func osRelease() {
        #expect(
            MachineFacts.osRelease("NAME=\"Debian\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n")
                == "Debian GNU/Linux 12 (bookworm)")
        #expect(MachineFacts.osRelease("NAME=x\n") == nil)
    }
}
