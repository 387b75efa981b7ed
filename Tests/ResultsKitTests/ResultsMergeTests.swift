// ResultsMerge: the merge of a benchmark run's family CSVs must give what the first benchmark script's awk gave (the
// expected text below is that awk's output on these files, recorded before it was replaced), error rows as that
// script wrote them, and the rows of each kind.
import BenchTestSupport
import Foundation
import Testing

@testable import ResultsKit

@Suite struct ResultsMergeTests {
    /// A wake-latency family CSV as Google Benchmark writes it: its context, two counters, a `_cv` row, an error row.
    static let wake = #"""
        2026-11-27T08:00:00+00:00
        Running .build-bench/release/runloop-bench
        Run on (2 X 2445.41 MHz CPU s)
        CPU Caches:
          L1 Data 32 KiB (x2)

        Load Average: 1.20, 0.90, 0.50
        ***WARNING*** Library was built as DEBUG. Timings may be affected.
        name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message,"latency_p50_ns","latency_p99_ns"
        "BM_WakeLatency/engine:ref/pin:same/manual_time",1000,5123.5,2100.25,ns,,,,,,5000,9100
        "BM_WakeLatency/engine:ref/pin:same/manual_time",1000,5200,2150,ns,,,"a label, with comma",,,5010,9200
        "BM_WakeLatency/engine:ref/pin:same/manual_time_mean",2,5161.75,2125.125,ns,,,,,,5005,9150
        "BM_WakeLatency/engine:ref/pin:same/manual_time_cv",2,0.01,0.01,ns,,,,,,nan,nan
        "BM_WakeLatency/engine:epoll/pin:same/manual_time",,,,,,,,true,"error: no result after 2 s"
        """# + "\n"

    /// An observer-dispatch family CSV: one counter new, one shared, a skipped row.
    static let observers = #"""
        2026-11-27T08:01:00+00:00
        Running .build-bench/release/runloop-bench
        name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message,"observers","latency_p99_ns"
        "BM_ObserverDispatch/engine:ref/observers:8",200,1.5e+06,1.4e+06,ns,,123.5,,,,8,77
        "BM_ObserverDispatch/engine:libevent/observers:8",,,,,,,,true,"skipped: libevent 2.1 has no observers"
        """# + "\n"

    /// The error rows `runloop bench` writes for what left no row.
    static let failures = #"""
        name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message
        "harness/family:observers",,,,,,,,true,"error: the harness exited with status 134"
        "BM_ObserverDispatch/engine:epoll/observers:64",,,,,,,,true,"skipped: engine hung twice in this family (watchdog); its other benchmarks here were not run"
        """# + "\n"

    /// What the awk merge printed for the three files, in this order.
    static let merged = #"""
        # gb: 2026-11-27T08:00:00+00:00
        # gb: Running .build-bench/release/runloop-bench
        # gb: Run on (2 X 2445.41 MHz CPU s)
        # gb: CPU Caches:
        # gb:   L1 Data 32 KiB (x2)
        # gb: Load Average: 1.20, 0.90, 0.50
        # gb: ***WARNING*** Library was built as DEBUG. Timings may be affected.
        name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message,"latency_p50_ns","latency_p99_ns","observers"
        "BM_WakeLatency/engine:ref/pin:same/manual_time",1000,5123.5,2100.25,ns,,,,,,5000,9100,
        "BM_WakeLatency/engine:ref/pin:same/manual_time",1000,5200,2150,ns,,,"a label, with comma",,,5010,9200,
        "BM_WakeLatency/engine:ref/pin:same/manual_time_mean",2,5161.75,2125.125,ns,,,,,,5005,9150,
        "BM_WakeLatency/engine:epoll/pin:same/manual_time",,,,,,,,true,"error: no result after 2 s",,,
        "BM_ObserverDispatch/engine:ref/observers:8",200,1.5e+06,1.4e+06,ns,,123.5,,,,,77,8
        "BM_ObserverDispatch/engine:libevent/observers:8",,,,,,,,true,"skipped: libevent 2.1 has no observers",,,
        "harness/family:observers",,,,,,,,true,"error: the harness exited with status 134",,,
        "BM_ObserverDispatch/engine:epoll/observers:64",,,,,,,,true,"skipped: engine hung twice in this family (watchdog); its other benchmarks here were not run",,,
        """# + "\n"

    static func files() throws -> [RawResultsFile] {
        try [("wake.1.csv", wake), ("observers.1.csv", observers), ("observers.failure1.csv", failures)].map {
            try RawResultsFile.read(path: try Fixtures.write($0.1, name: $0.0))
        }
    }

    @Test func mergeGivesWhatTheAwkMergeGave() throws {
        #expect(ResultsMerge.merge(try Self.files()) == Self.merged)
    }

    @Test func theMergedFileReadsAsResults() throws {
        let path = try Fixtures.write(ResultsMerge.merge(try Self.files()), name: "merged.csv")
        let file = try ResultsReader.read(path: path)
        #expect(file.erroredRows.count == 4)
    }

    @Test func errorRowsAreWrittenAsGoogleBenchmarkWritesThem() {
        let row = RawResultRow(
            errorNamed: "harness/family:observers",
            message: "error: the harness exited with status 134")
        #expect(row.csvLine(counters: []) == Self.failures.split(separator: "\n")[1])
        #expect(row.status == .error)
    }

    @Test func rowsOfEachKind() throws {
        let rows = try Self.files().flatMap(\.rows)
        // Every row the files have, `_cv` rows included (only the merge leaves them out).
        #expect(rows.filter { $0.status == .measured }.count == 5)
        #expect(
            rows.filter { $0.status == .error }.map(\.name)
                == ["BM_WakeLatency/engine:epoll/pin:same/manual_time", "harness/family:observers"])
        #expect(
            rows.filter { $0.status == .skipped }.map(\.name)
                == ["BM_ObserverDispatch/engine:libevent/observers:8", "BM_ObserverDispatch/engine:epoll/observers:64"])
    }

    @Test func aFileThatIsNotAGoogleBenchmarkCSVIsAnInputError() throws {
        let path = try Fixtures.write("name,real_time,cpu_time,time_unit\n\"BM_A\",1,2,ns\n", name: "other.csv")
        #expect(throws: InputError.self) { try RawResultsFile.read(path: path) }
        let long = try Fixtures.write(
            ResultsMerge.header(counters: []) + "\n\"BM_A\",1,2,3,ns,,,,,,9\n", name: "long.csv")
        #expect(throws: InputError.self) { try RawResultsFile.read(path: long) }
        let short = try Fixtures.write(
            ResultsMerge.header(counters: ["c"]) + "\n\"BM_A\",1,2,3,ns,,,,,\n", name: "short.csv")
        #expect(throws: InputError.self) { try RawResultsFile.read(path: short) }
    }
}
