// Small fixture CSVs for the CompareKit tests, written as Google Benchmark 1.7.1 writes them.
import Foundation
@testable import ResultsKit

/// One benchmark of a fixture: its name, unit, per-repetition real times and optional counters.
struct FixtureBenchmark {
    var name: String
    var unit: String = "ns"
    var times: [Double]
    var counters: [String: [Double?]] = [:]
    var error: String? = nil
}

enum Fixtures {
    /// The context a `runloop bench` results file starts with, plus Google Benchmark's own lines.
    static func context(commit: String = "abc1234", cpu: String = "Intel(R) Xeon(R) CPU @ 2.20GHz") -> [String] {
        [
            "# commit: \(commit)",
            "# cpu: \(cpu)",
            "# kernel: 6.1.0-18-amd64",
            "# libbenchmark: 1.7.1",
            "2024-05-01T10:00:00+00:00",
            "Running ./.build/release/runloop-bench",
            "Run on (2 X 2200 MHz CPU s)",
            "CPU Caches:",
            "  L1 Data 32 KiB (x2)",
            "Load Average: 0.10, 0.20, 0.30",
        ]
    }

    /// Nine repetitions around `center`, all distinct (spread ±1 %).
    static func noisy(_ center: Double, count: Int = 9) -> [Double] {
        (0..<count).map { (index: Int) -> Double in
            let step = Double((index * 7) % 11 - 5)
            return center * (1 + 0.01 * step / 5)
        }
    }

    /// A Google Benchmark CSV: context, header (user counters quoted), repetition rows with quoted
    /// names, then `_mean`, `_median`, `_stddev`, `_cv` aggregate rows when there are repetitions.
    static func csv(_ benchmarks: [FixtureBenchmark], context: [String] = context(), aggregates: Bool = true,
                    scale: Double = 1) -> String {
        let standard = ["bytes_per_second", "items_per_second"]
        let counterNames = Array(Set(benchmarks.flatMap { $0.counters.keys })).filter { !standard.contains($0) }.sorted()
        var lines = context
        lines.append("name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,"
            + "error_occurred,error_message" + counterNames.map { ",\"\($0)\"" }.joined())
        func row(_ name: String, _ time: Double, _ unit: String, _ counters: [String: Double?]) -> String {
            let t = time * scale
            let rates = standard.map { (counters[$0] ?? nil).map { "\($0)" } ?? "" }
            var line = "\"\(name)\",1000,\(t),\(t * 0.98),\(unit),\(rates[0]),\(rates[1]),,,"
            for counter in counterNames {
                line += "," + ((counters[counter] ?? nil).map { "\($0)" } ?? "")
            }
            return line
        }
        for benchmark in benchmarks {
            if let error = benchmark.error {
                // 1.7.1 writes error rows without counter cells.
                lines.append("\"\(benchmark.name)\"" + String(repeating: ",", count: 8) + "true,\"\(error)\"")
                continue
            }
            for (index, time) in benchmark.times.enumerated() {
                var counters: [String: Double?] = [:]
                for (name, values) in benchmark.counters where index < values.count { counters[name] = values[index] }
                lines.append(row(benchmark.name, time, benchmark.unit, counters))
            }
            if aggregates && benchmark.times.count > 1 {
                let median = Statistics.median(benchmark.times) ?? 0
                let mean = benchmark.times.reduce(0, +) / Double(benchmark.times.count)
                lines.append(row(benchmark.name + "_mean", mean, benchmark.unit, [:]))
                lines.append(row(benchmark.name + "_median", median, benchmark.unit, [:]))
                lines.append(row(benchmark.name + "_stddev", mean * 0.01, benchmark.unit, [:]))
                lines.append(row(benchmark.name + "_cv", 0.01, benchmark.unit, [:]))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The standard suite of the verdict tests: three families, nine repetitions each.
    static func suite(scale: Double = 1) -> String {
        csv([
            FixtureBenchmark(name: "BM_TimerFire/1", times: noisy(1200)),
            FixtureBenchmark(name: "BM_TimerFire/64", unit: "us", times: noisy(35.5)),
            FixtureBenchmark(name: "BM_SourceSignal/real_time", times: noisy(480)),
            FixtureBenchmark(name: "BM_WakeLatency/engine:cf/pin:same", unit: "us", times: noisy(12.5),
                             counters: ["wakeups_per_fire": noisy(1.0)]),
            FixtureBenchmark(name: "BM_WakeLatency/engine:ref/pin:same", unit: "us", times: noisy(15.0),
                             counters: ["wakeups_per_fire": noisy(1.0)]),
        ], scale: scale)
    }

    /// The directory every file the tests write goes in: one per test process, removed when the process exits, so
    /// test runs leave nothing behind in the temporary directory.
    static let scratch: URL = {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("CompareTests-\(UUID().uuidString)", isDirectory: true)
        atexit { try? FileManager.default.removeItem(at: Fixtures.scratch) }
        return directory
    }()

    /// A path for a file named `name` in a fresh subdirectory of ``scratch`` (created; the file is not).
    static func scratchPath(_ name: String) throws -> String {
        let directory = scratch.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name).path
    }

    /// Writes `text` to a fresh file in ``scratch`` and returns its path.
    static func write(_ text: String, name: String = "results.csv") throws -> String {
        let path = try scratchPath(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The fixture suite written twice: as it is (`base.csv`) and with every time x1.5 (`new.csv`).
    static func baseAndSlower() throws -> (base: String, slower: String) {
        let suite = suite()
        return (try write(suite, name: "base.csv"), try write(scaleTimes(suite, by: 1.5), name: "new.csv"))
    }

    /// Multiplies the `real_time` and `cpu_time` cells of every data row of a CSV by `factor`
    /// (a textual transformation, as a user would do to a real file).
    static func scaleTimes(_ csv: String, by factor: Double) -> String {
        var afterHeader = false
        return csv.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if line.hasPrefix("name,") { afterHeader = true; return String(line) }
            guard afterHeader, !line.isEmpty else { return String(line) }
            var fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            for index in [2, 3] where index < fields.count {
                if let value = Double(fields[index]) { fields[index] = "\(value * factor)" }
            }
            return fields.joined(separator: ",")
        }.joined(separator: "\n")
    }
}
