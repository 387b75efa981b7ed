// Fixture data for the site's tests: results CSVs written here (the context lines `runloop bench` writes, then a
// few wake-latency and scale rows per engine) and a small conformance run of `ref`, made in the test.
import ConformanceKit
import ConformanceSpec
import Foundation
import RefEngine

/// A temporary directory with a results directory and a site directory in it, removed at the end.
final class SiteFixture {
    let directory: String
    var results: String { directory + "/results" }
    var site: String { directory + "/site" }

    init() throws {
        directory = NSTemporaryDirectory() + "site-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory + "/results", withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Writes `count` runs, one a day, the wake latency of `ref` stepping up by half from the fifth run on.
    func writeRuns(_ count: Int) throws {
        for index in 0..<count {
            let day = String(format: "%02d", index + 1)
            try SiteFixture.csv(
                date: "2026-11-\(day)T10:00:00Z", commit: String(repeating: "\(index % 10)", count: 40),
                wakeLevel: index >= 4 ? 30_000 : 20_000, seed: UInt64(index + 1)
            )
            .write(toFile: "\(results)/kvm-2cpu-202611\(day)-1000.csv", atomically: true, encoding: .utf8)
        }
    }

    /// Instruction runs as `runloop bench --instructions` writes them, one per commit, dated after the
    /// time runs: ref's timer steps from 2,537 to 2,007 instructions at the second, its source stays at 1,116.
    func writeInstructionRuns(_ timer: [Int]) throws {
        for (index, count) in timer.enumerated() {
            let lines = [
                "# label: kvm-2cpu-instructions", "# date: 2026-12-0\(index + 1)T10:00:00Z",
                "# profile: callgrind (family scale)", "# cpu_model: AMD EPYC",
                "# commit: \(String(repeating: "\(index + 1)", count: 40)) (0 uncommitted paths)",
                "# timing: none", "# exact_metrics: instructions_per_item", "# engine_ref: the ref loop",
                "name,iterations,real_time,cpu_time,time_unit,instructions_per_item",
                "\"BM_Scale/engine:ref/item:source/n:10000\",20000,,,,1116",
                "\"BM_Scale/engine:ref/item:timer/n:10000\",20000,,,,\(count)",
            ]
            try (lines.joined(separator: "\n") + "\n").write(
                toFile: "\(results)/kvm-2cpu-instructions-2026120\(index + 1)-1000.csv", atomically: true,
                encoding: .utf8)
        }
    }

    /// One run's CSV text: every engine's wake latency (same and different CPU) and timer churn at N = 10,000, five
    /// repetitions each with a deterministic spread of ±1 %.
    static func csv(date: String, commit: String, wakeLevel: Double, seed: UInt64) -> String {
        let engines = ["ref", "cf", "epoll", "libuv"]
        var lines = [
            "# label: kvm-2cpu", "# date: \(date)",
            "# profile: full (repetitions 5, min_time 0.3 s, random interleaving)",
            "# command: runloop bench", "# filter: (all)", "# cpu_model: AMD EPYC", "# cpus: 2 (kvm)",
            "# commit: \(commit) (0 uncommitted paths)",
        ]
        lines += engines.map { "# engine_\($0): the \($0) loop" }
        lines.append(
            "name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,"
                + "error_occurred,error_message,latency_mean_ns,latency_p50_ns,latency_p99_ns,ns_per_add,ns_per_remove")
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func noise() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return 1 + 0.01 * (Double(state % 2001) / 1000 - 1)
        }
        for engine in engines {
            for pin in ["same", "diff"] {
                let level = engine == "ref" ? wakeLevel : 25_000
                for _ in 0..<5 {
                    let value = level * noise()
                    lines.append(
                        "\"BM_WakeLatency/engine:\(engine)/pin:\(pin)/load:none/manual_time\",1000,\(value),"
                            + "\(value / 2),ns,,,,,,\(value),\(value),\(value * 2),,")
                }
            }
            for _ in 0..<5 {
                let add = 100 * noise()
                let remove = 80 * noise()
                lines.append(
                    "\"BM_Scale/engine:\(engine)/item:timer/n:10000/real_time\",10,\(add + remove),"
                        + "\(add + remove),ns,,,,,,,,,\(add),\(remove)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Runs the shipped spec's cases matching `filter` on `ref` in this process and writes the JSON report, as
    /// `runloop conform --json-out` does; returns the report.
    @discardableResult
    func writeConformance(filter: String, to path: String) throws -> ConformanceReport {
        let request = ConformanceRequest(
            specPath: SpecResources.casesDirectory!,
            expectationsPath: SpecResources.expectationsDirectory, filter: filter)
        let report = try Conformance.runInProcess(request, engines: [ReferenceEngine()])
        try ReportFormat.json.render(report).write(toFile: path, atomically: true, encoding: .utf8)
        return report
    }

    /// Benchmarks/targets.yaml of this checkout.
    static let targetsPath: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Benchmarks/targets.yaml").path
    }()
}
