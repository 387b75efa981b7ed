// Synthetic results CSVs for the history's tests: the context lines `runloop bench` writes, then Google Benchmark's
// rows (repetitions and their aggregates) of a few benchmarks per engine, with chosen levels.
import Foundation

/// Writes results CSVs into a temporary directory.
final class SyntheticRuns {
    let directory: String
    private var counter = 0

    init() throws {
        directory = NSTemporaryDirectory() + "history-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// A path in the directory.
    func path(_ name: String) -> String { directory + "/" + name }

    /// The CSV text of one run. `levels` gives each benchmark's median real time in ns (default 1,000); the
    /// repetitions spread by ±1 % around it, deterministic from `seed`.
    static func csv(
        date: String, commit: String, machine: String = "kvm-2cpu", cpu: String = "AMD EPYC",
        profile: String = "full", engines: [String] = ["ref", "cf"], benchmarks: [String] = ["a", "b", "c"],
        repetitions: Int = 9, levels: [String: Double] = [:], seed: UInt64 = 1,
        omit: Set<String> = []
    ) -> String {
        var lines: [String] = []
        let context: [(String, String)] =
            [
                ("label", machine), ("date", date),
                ("profile", "\(profile) (repetitions \(repetitions), min_time 0.3 s, random interleaving)"),
                ("command", "runloop bench"), ("filter", "(all)"), ("cpu_model", cpu), ("cpus", "2 (kvm)"),
                ("commit", "\(commit) (0 uncommitted paths)"),
            ] + engines.map { ("engine_\($0)", "\($0) 1.0") }
        for (key, value) in context where !omit.contains(key) { lines.append("# \(key): \(value)") }
        lines.append(
            "name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,"
                + "error_occurred,error_message,latency_p50_ns")
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        for engine in engines {
            for benchmark in benchmarks {
                let name = "BM_Synth/engine:\(engine)/case:\(benchmark)/manual_time"
                let level = levels["\(engine)/\(benchmark)"] ?? levels[benchmark] ?? 1000
                var values: [Double] = []
                for _ in 0..<repetitions {
                    state ^= state << 13
                    state ^= state >> 7
                    state ^= state << 17
                    let noise = Double(state % 2001) / 1000 - 1  // -1 ... 1
                    values.append(level * (1 + 0.01 * noise))
                }
                for value in values {
                    lines.append("\"\(name)\",1000,\(value),\(value / 2),ns,,,,,,\(value * 0.9)")
                }
                let mean = values.reduce(0, +) / Double(values.count)
                lines.append("\"\(name)_mean\",\(repetitions),\(mean),\(mean / 2),ns,,,,,,\(mean * 0.9)")
                lines.append("\"\(name)_median\",\(repetitions),\(mean),\(mean / 2),ns,,,,,,\(mean * 0.9)")
                lines.append("\"\(name)_stddev\",\(repetitions),1,1,ns,,,,,,1")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The CSV text of an instruction run as `runloop bench --instructions --family scale` writes it:
    /// the context, `# timing: none`, `# exact_metrics: instructions_per_item`, one row per engine and item with its
    /// count (`counts["ref/timer"]`, default 1,000) and empty time cells. `omit` leaves out context lines; `inexact`
    /// lists `engine/item` pairs as not exact after all (`# inexact:`).
    static func instructionCSV(
        date: String, commit: String, engines: [String] = ["ref"], items: [String] = ["source", "timer"],
        counts: [String: Double] = [:], omit: Set<String> = [], inexact: [String] = []
    ) -> String {
        var lines: [String] = []
        let context: [(String, String)] =
            [
                ("label", "kvm-2cpu-instructions"), ("date", date),
                ("profile", "callgrind (family scale: 2 and 4 iterations per benchmark under valgrind's callgrind)"),
                ("command", "runloop bench --instructions --family scale"), ("filter", "family scale"),
                ("cpu_model", "AMD EPYC"), ("cpus", "2 (kvm)"), ("commit", "\(commit) (0 uncommitted paths)"),
                ("timing", "none"), ("exact_metrics", "instructions_per_item"),
            ]
            + inexact.map { pair in
                ("inexact", "BM_Scale/engine:\(pair.replacingOccurrences(of: "/", with: "/item:"))/n:10000")
            }
            + engines.map { ("engine_\($0)", "\($0) 1.0") }
        for (key, value) in context where !omit.contains(key) { lines.append("# \(key): \(value)") }
        lines.append("name,iterations,real_time,cpu_time,time_unit,instructions_per_item")
        for engine in engines {
            for item in items {
                let count = counts["\(engine)/\(item)"] ?? counts[item] ?? 1000
                lines.append("\"BM_Scale/engine:\(engine)/item:\(item)/n:10000\",20000,,,,\(Int(count))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A commit id made of `index` (seven hex digits, then padding).
    static func commit(_ index: Int) -> String {
        String(format: "%07x", index + 1) + String(repeating: "f", count: 33)
    }

    /// Writes a run and returns its path.
    @discardableResult
    func write(_ text: String, name: String? = nil) throws -> String {
        counter += 1
        let file = path(name ?? String(format: "run-%04d.csv", counter))
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The date of the `index`th run of a series: one a day from 2026-01-01, then one an hour.
    static func date(_ index: Int) -> String {
        let base = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: base.addingTimeInterval(Double(index) * 3600))
    }
}

/// The `runloop` executable built beside the test bundle (`swift build --build-tests` builds it).
enum RunloopExecutable {
    static let path: String = {
        let me =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("runloop").path
    }()

    /// Starts `runloop ARGUMENTS` with its output discarded.
    static func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}
