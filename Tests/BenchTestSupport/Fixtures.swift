// Small fixture CSVs for the ResultsKit, CompareKit and ReportKit tests, written as Google Benchmark 1.7.1 writes them.
import Foundation
import ResultsKit

/// One benchmark of a fixture: its name, unit, per-repetition real times and optional counters.
public struct FixtureBenchmark {
    public var name: String
    public var unit: String
    public var times: [Double]
    public var counters: [String: [Double?]]
    public var error: String?

    public init(
        name: String, unit: String = "ns", times: [Double], counters: [String: [Double?]] = [:],
        error: String? = nil
    ) {
        self.name = name
        self.unit = unit
        self.times = times
        self.counters = counters
        self.error = error
    }
}

public enum Fixtures {
    /// The context a `runloop bench` results file starts with, plus Google Benchmark's own lines.
    public static func context(commit: String = "abc1234", cpu: String = "Intel(R) Xeon(R) CPU @ 2.20GHz") -> [String] {
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
    public static func noisy(_ center: Double, count: Int = 9) -> [Double] {
        (0..<count).map { (index: Int) -> Double in
            let step = Double((index * 7) % 11 - 5)
            return center * (1 + 0.01 * step / 5)
        }
    }

    /// A Google Benchmark CSV: context, header (user counters quoted), repetition rows with quoted
    /// names, then `_mean`, `_median`, `_stddev`, `_cv` aggregate rows when there are repetitions.
    public static func csv(
        _ benchmarks: [FixtureBenchmark], context: [String] = context(), aggregates: Bool = true,
        scale: Double = 1
    ) -> String {
        let standard = ["bytes_per_second", "items_per_second"]
        let counterNames = Array(Set(benchmarks.flatMap { $0.counters.keys })).filter { !standard.contains($0) }
            .sorted()
        var lines = context
        lines.append(
            "name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,"
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
    public static func suite(scale: Double = 1) -> String {
        csv(
            [
                FixtureBenchmark(name: "BM_TimerFire/1", times: noisy(1200)),
                FixtureBenchmark(name: "BM_TimerFire/64", unit: "us", times: noisy(35.5)),
                FixtureBenchmark(name: "BM_SourceSignal/real_time", times: noisy(480)),
                FixtureBenchmark(
                    name: "BM_WakeLatency/engine:cf/pin:same", unit: "us", times: noisy(12.5),
                    counters: ["wakeups_per_fire": noisy(1.0)]),
                FixtureBenchmark(
                    name: "BM_WakeLatency/engine:ref/pin:same", unit: "us", times: noisy(15.0),
                    counters: ["wakeups_per_fire": noisy(1.0)]),
            ], scale: scale)
    }

    /// The directory every file the tests write goes in: one per test process, removed when the process exits, so
    /// test runs leave nothing behind in the temporary directory.
    public static let scratch: URL = {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("BenchTestSupport-\(UUID().uuidString)", isDirectory: true)
        atexit { try? FileManager.default.removeItem(at: Fixtures.scratch) }
        return directory
    }()

    /// A path for a file named `name` in a fresh subdirectory of ``scratch`` (created; the file is not).
    public static func scratchPath(_ name: String) throws -> String {
        let directory = scratch.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name).path
    }

    /// Writes `text` to a fresh file in ``scratch`` and returns its path.
    public static func write(_ text: String, name: String = "results.csv") throws -> String {
        let path = try scratchPath(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The fixture suite written twice: as it is (`base.csv`) and with every time x1.5 (`new.csv`).
    public static func baseAndSlower() throws -> (base: String, slower: String) {
        let suite = suite()
        return (try write(suite, name: "base.csv"), try write(scaleTimes(suite, by: 1.5), name: "new.csv"))
    }

    /// Multiplies the `real_time` and `cpu_time` cells of every data row of a CSV by `factor`
    /// (a textual transformation, as a user would do to a real file).
    public static func scaleTimes(_ csv: String, by factor: Double) -> String {
        var afterHeader = false
        return csv.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if line.hasPrefix("name,") {
                afterHeader = true
                return String(line)
            }
            guard afterHeader, !line.isEmpty else { return String(line) }
            var fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            for index in [2, 3] where index < fields.count {
                if let value = Double(fields[index]) { fields[index] = "\(value * factor)" }
            }
            return fields.joined(separator: ",")
        }.joined(separator: "\n")
    }

    /// Real output of a small benchmark built against Debian's libbenchmark-dev 1.7.1 with
    /// `--benchmark_repetitions=3 --benchmark_out_format=csv` (named args, `/real_time`, counters,
    /// `items_per_second`, the broken `_cv` rows, error rows without counter cells).
    public static let googleBenchmark171 = #"""
        2026-11-21T16:01:16+00:00
        Running ./b
        Run on (2 X 2100 MHz CPU s)
        CPU Caches:
          L1 Data 48 KiB (x2)
          L1 Instruction 32 KiB (x2)
          L2 Unified 2048 KiB (x2)
          L3 Unified 307200 KiB (x1)
        Load Average: 6.97, 5.65, 2.89
        ***WARNING*** Library was built as DEBUG. Timings may be affected.
        name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message,"latency_p50_ns","wakeups_per_fire"
        "BM_WakeLatency/engine:cf/pin:same",106853,218.304,142.699,ns,,,,,,123,1
        "BM_WakeLatency/engine:cf/pin:same",106853,345.86,162.584,ns,,,,,,123,1
        "BM_WakeLatency/engine:cf/pin:same",106853,235.842,160.906,ns,,,,,,123,1
        "BM_WakeLatency/engine:cf/pin:same_mean",3,266.669,155.396,ns,,,,,,123,1
        "BM_WakeLatency/engine:cf/pin:same_median",3,235.842,160.906,ns,,,,,,123,1
        "BM_WakeLatency/engine:cf/pin:same_stddev",3,69.14,11.0284,ns,,,,,,0,0
        "BM_WakeLatency/engine:cf/pin:same_cv",3,8.64244e+07,2.36565e+07,ns,,,,,,0,0
        "BM_WakeLatency/engine:ref/pin:same",78264,177.451,177.053,ns,,,,,,246,1
        "BM_WakeLatency/engine:ref/pin:same",78264,195.799,182.295,ns,,,,,,246,1
        "BM_WakeLatency/engine:ref/pin:same",78264,343.815,178.998,ns,,,,,,246,1
        "BM_WakeLatency/engine:ref/pin:same_mean",3,239.022,179.448,ns,,,,,,246,1
        "BM_WakeLatency/engine:ref/pin:same_median",3,195.799,178.998,ns,,,,,,246,1
        "BM_WakeLatency/engine:ref/pin:same_stddev",3,91.2162,2.64981,ns,,,,,,0,0
        "BM_WakeLatency/engine:ref/pin:same_cv",3,1.27208e+08,4.92213e+06,ns,,,,,,0,0
        "BM_Vec/8/real_time",822984,0.0211865,0.0162987,us,,3.776e+08,,,,,
        "BM_Vec/8/real_time",822984,0.0163261,0.0163272,us,,4.90013e+08,,,,,
        "BM_Vec/8/real_time",822984,0.02149,0.0163535,us,,3.72266e+08,,,,,
        "BM_Vec/8/real_time_mean",3,0.0196675,0.0163264,us,,4.13293e+08,,,,,
        "BM_Vec/8/real_time_median",3,0.0211865,0.0163272,us,,3.776e+08,,,,,
        "BM_Vec/8/real_time_stddev",3,0.00289774,2.74094e-05,us,,6.64951e+07,,,,,
        "BM_Vec/8/real_time_cv",3,49112.1,559.612,us,,0.160891,,,,,
        "BM_Vec/512/real_time",330815,0.0630657,0.0439519,us,,8.11852e+09,,,,,
        "BM_Vec/512/real_time",330815,0.0439391,0.0428628,us,,1.16525e+10,,,,,
        "BM_Vec/512/real_time",330815,0.0408995,0.0408,us,,1.25185e+10,,,,,
        "BM_Vec/512/real_time_mean",3,0.0493015,0.0425383,us,,1.07632e+10,,,,,
        "BM_Vec/512/real_time_median",3,0.0439391,0.0428628,us,,1.16525e+10,,,,,
        "BM_Vec/512/real_time_stddev",3,0.0120167,0.00160079,us,,2.3309e+09,,,,,
        "BM_Vec/512/real_time_cv",3,81246.3,12543.9,us,,0.216563,,,,,
        "BM_Err",,,,,,,,true,"engine, unavailable"
        "BM_Err",,,,,,,,true,"engine, unavailable"
        "BM_Err",,,,,,,,true,"engine, unavailable"
        """#
}
