import BenchTestSupport
// Reading results CSVs: context, quoting, aggregates, error rows, units, and every kind of bad input.
import Foundation
import Testing

@testable import ResultsKit

@Suite struct ReaderTests {
    @Test func readsContextHeaderAndRows() throws {
        let file = try ResultsReader.parse(text: Fixtures.suite(), file: "suite.csv")
        #expect(file.headerLine == 11)
        #expect(file.contextValue("commit") == "abc1234")
        #expect(file.contextValue("cpu") == "Intel(R) Xeon(R) CPU @ 2.20GHz")
        #expect(file.context.count == 4)
        #expect(file.contextLines.count == 10)
        #expect(file.columns.last == "wakeups_per_fire")
        let samples = file.samples(of: .realTime)
        #expect(
            samples.map(\.name.full) == [
                "BM_TimerFire/1", "BM_TimerFire/64", "BM_SourceSignal/real_time",
                "BM_WakeLatency/engine:cf/pin:same", "BM_WakeLatency/engine:ref/pin:same",
            ])
        #expect(samples.allSatisfy { $0.values.count == 9 && $0.source == .repetitions })
        #expect(samples[0].firstLine == 12)
    }

    @Test func aFileOfCountsWithoutTimesHasCountersAndNoTime() throws {
        let text = """
            # commit: abc1234
            # timing: none
            # exact_metrics: instructions_per_item
            name,iterations,real_time,cpu_time,time_unit,instructions_per_item
            "BM_Scale/engine:ref/item:timer/n:10000",20000,,,,2537
            "BM_Scale/engine:ref/item:timer/n:10000/order:random",20000,,,,2661

            """
        let file = try ResultsReader.parse(text: text, file: "instructions.csv")
        #expect(file.isUntimed)
        #expect(file.exactMetrics == ["instructions_per_item"])
        #expect(file.samples(of: .realTime).isEmpty)
        #expect(file.samples(of: .counter("instructions_per_item")).map(\.values) == [[2537], [2661]])
        // Without `# timing: none` the same rows lack their times.
        let timed = text.replacingOccurrences(of: "# timing: none\n", with: "")
        #expect(throws: InputError.self) { try ResultsReader.parse(text: timed, file: "timed.csv") }
        #expect(try !ResultsReader.parse(text: Fixtures.suite(), file: "suite.csv").isUntimed)
    }

    @Test func contextKeysMayHoldAColon() {
        let entries = ResultsFile.contextEntries([
            "# engine_cf: CoreFoundation C API from libFoundation.so",
            "# engine_cf:Foundation: CoreFoundation C API from /opt/lib/libFoundation.so",
            "# date:2026-11-23",
        ])
        #expect(entries.map(\.key) == ["engine_cf", "engine_cf:Foundation", "date"])
        #expect(entries[1].value == "CoreFoundation C API from /opt/lib/libFoundation.so")
        #expect(entries[2].value == "2026-11-23")
    }

    @Test func readsRealGoogleBenchmarkOutput() throws {
        let file = try ResultsReader.parse(text: Fixtures.googleBenchmark171, file: "gb.csv")
        #expect(file.headerLine == 11)
        #expect(file.context.isEmpty)
        #expect(file.contextLines[2] == "Run on (2 X 2100 MHz CPU s)")
        let samples = file.samples(of: .realTime)
        #expect(
            samples.map(\.name.full) == [
                "BM_WakeLatency/engine:cf/pin:same", "BM_WakeLatency/engine:ref/pin:same",
                "BM_Vec/8/real_time", "BM_Vec/512/real_time",
            ])
        #expect(samples.allSatisfy { $0.values.count == 3 && $0.source == .repetitions })
        #expect(samples[0].values == [218.304, 345.86, 235.842])
        #expect(close(samples[2].values[0], 21.1865, 1e-12))  // 0.0211865 us
        #expect(file.rows.filter { $0.kind == .aggregate("cv") }.count == 4)
        #expect(file.erroredRows.map(\.message) == Array(repeating: "engine, unavailable", count: 3))
        #expect(file.samples(of: .counter("items_per_second")).map(\.values.count) == [3, 3])
        #expect(file.samples(of: .counter("latency_p50_ns"))[1].values == [246, 246, 246])
    }

    @Test func aggregatesAreToldApartFromRepetitions() throws {
        let file = try ResultsReader.parse(text: Fixtures.suite(), file: "suite.csv")
        let rows = file.rows.filter { $0.benchmark == "BM_TimerFire/1" }
        #expect(rows.filter { $0.kind == .repetition }.count == 9)
        #expect(rows.filter { $0.kind == .aggregate("median") }.count == 1)
        #expect(rows.filter { $0.kind == .aggregate("cv") }.count == 1)
        #expect(rows.count == 13)
    }

    @Test func aggregatesOnlyFileFallsBackToMedian() throws {
        let text = """
            name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message
            "BM_A/8_mean",3,110,109,ns,,,,,
            "BM_A/8_median",3,100,99,ns,,,,,
            "BM_A/8_stddev",3,5,5,ns,,,,,
            "BM_A/8_cv",3,0.05,0.05,ns,,,,,
            "BM_Plain_mean",1000,42,41,ns,,,,,
            """
        let file = try ResultsReader.parse(text: text, file: "agg.csv")
        let samples = file.samples(of: .realTime)
        #expect(samples.count == 2)
        #expect(samples[0].name.full == "BM_A/8")
        #expect(samples[0].values == [100])
        #expect(samples[0].source == .medianAggregate)
        // A lone `_mean` name without siblings or a base row is an ordinary benchmark.
        #expect(samples[1].name.full == "BM_Plain_mean")
        #expect(samples[1].source == .repetitions)
    }

    @Test func quotedNamesWithCommasAndQuotes() throws {
        let text = """
            name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message
            "BM_Args/""x,y""/2",10,5,5,ns,,,"a, label",,
            """
        let file = try ResultsReader.parse(text: text, file: "q.csv")
        #expect(file.rows.count == 1)
        #expect(file.rows[0].rawName == "BM_Args/\"x,y\"/2")
        #expect(file.rows[0].label == "a, label")
    }

    @Test func crlfLineEndings() throws {
        let text = Fixtures.suite().replacingOccurrences(of: "\n", with: "\r\n")
        let file = try ResultsReader.parse(text: text, file: "crlf.csv")
        #expect(file.samples(of: .realTime).count == 5)
        #expect(file.columns.last == "wakeups_per_fire")
    }

    @Test func unitsAreNormalisedToNanoseconds() throws {
        let text = """
            name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message
            "BM_ns",1,1500,1400,ns,,,,,
            "BM_us",1,1.5,1.4,us,,,,,
            "BM_ms",1,1.5,1.4,ms,,,,,
            "BM_s",1,1.5,1.4,s,,,,,
            """
        let samples = try ResultsReader.parse(text: text, file: "units.csv").samples(of: .realTime)
        #expect(samples.map { $0.values[0] } == [1500, 1500, 1.5e6, 1.5e9])
        let cpu = try ResultsReader.parse(text: text, file: "units.csv").samples(of: .cpuTime)
        #expect(close(cpu[1].values[0], 1400))
    }

    @Test func errorRowsAreReportedNotUsed() throws {
        let text = Fixtures.csv([
            FixtureBenchmark(name: "BM_Good", times: [10, 11], counters: ["c": [1, 2]]),
            FixtureBenchmark(name: "BM_Bad", times: [], error: "engine unavailable"),
        ])
        let file = try ResultsReader.parse(text: text, file: "err.csv")
        #expect(file.erroredRows.count == 1)
        #expect(file.erroredRows[0].benchmark == "BM_Bad")
        #expect(file.erroredRows[0].message == "engine unavailable")
        #expect(file.samples(of: .realTime).map(\.name.full) == ["BM_Good"])
    }

    @Test func emptyCounterCellsAreMissingValues() throws {
        let text = Fixtures.csv([
            FixtureBenchmark(name: "BM_A", times: [10, 11], counters: ["latency_p50_ns": [5, 6]]),
            FixtureBenchmark(name: "BM_B", times: [10, 11], counters: ["latency_p50_ns": [nil, nil]]),
        ])
        let file = try ResultsReader.parse(text: text, file: "c.csv")
        let metric = Metric("latency_p50_ns")
        #expect(file.samples(of: metric).map(\.name.full) == ["BM_A"])
        #expect(file.benchmarksWithoutValues(of: metric) == ["BM_B"])
    }

    @Test func complexityRowsAreIgnored() throws {
        let text = """
            name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message
            "BM_Sort/8",100,10,10,ns,,,,,
            "BM_Sort/64",100,80,80,ns,,,,,
            "BM_Sort_BigO",,1.25,1.24,N,,,,,
            "BM_Sort_RMS",,0.02,0.02,,,,,,
            """
        let file = try ResultsReader.parse(text: text, file: "bigo.csv")
        #expect(file.samples(of: .realTime).map(\.name.full) == ["BM_Sort/8", "BM_Sort/64"])
        #expect(file.rows.filter { if case .complexity = $0.kind { return true } else { return false } }.count == 2)
    }

    @Test func benchmarkNameParts() {
        let name = BenchmarkName("BM_WakeLatency/engine:ref/pin:same/real_time")
        #expect(name.family == "BM_WakeLatency")
        #expect(name.engine == "ref")
        #expect(name.parameters == "pin:same/real_time")
        #expect(name.withoutEngine == "BM_WakeLatency/pin:same/real_time")
        #expect(BenchmarkName("BM_Plain").parameters == "")
        #expect(BenchmarkName("BM_Plain").engine == nil)
    }

    // MARK: - Bad input: every kind names the file, and the line and field where there is one.

    static let header =
        "name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message"

    struct BadInput: Sendable, CustomStringConvertible {
        let description: String
        let text: String
        let kind: InputError.Kind
        let line: Int?
        let field: String?
    }

    static let badInputs: [BadInput] = [
        BadInput(description: "empty file", text: "", kind: .emptyFile, line: 1, field: nil),
        BadInput(description: "blank lines only", text: "\n  \n\n", kind: .emptyFile, line: 1, field: nil),
        BadInput(
            description: "no header", text: "# commit: abc\nhello,world\n1,2\n", kind: .noHeader, line: 3, field: nil),
        BadInput(
            description: "garbage", text: "\u{7}\u{1}PK\u{3}\u{4} binary garbage ,,,\"\n\u{0}",
            kind: .noHeader, line: 2, field: nil),
        BadInput(
            description: "missing column", text: "name,iterations,real_time,time_unit\n\"BM_A\",1,2,ns\n",
            kind: .missingColumn, line: 1, field: "cpu_time"),
        BadInput(
            description: "duplicate column", text: "name,real_time,cpu_time,time_unit,real_time\n",
            kind: .duplicateColumn, line: 1, field: "real_time"),
        BadInput(
            description: "header only", text: "# commit: x\n" + header + "\n", kind: .noBenchmarks, line: 2, field: nil),
        BadInput(
            description: "truncated row", text: header + "\n\"BM_A\",10,5,5,ns,,,,,\n\"BM_B\",10,5.",
            kind: .wrongFieldCount, line: 3, field: nil),
        BadInput(
            description: "extra fields", text: header + "\n\"BM_A\",10,5,5,ns,,,,,,,\n",
            kind: .wrongFieldCount, line: 2, field: nil),
        BadInput(
            description: "unterminated quote", text: header + "\n\"BM_A\",10,5,5,ns,,,,,\n\"BM_B,10,5",
            kind: .unterminatedQuote, line: 3, field: nil),
        BadInput(
            description: "non-numeric time", text: header + "\n\"BM_A\",10,5,5,ns,,,,,\n\"BM_A\",10,fast,5,ns,,,,,\n",
            kind: .nonNumeric, line: 3, field: "real_time"),
        BadInput(
            description: "non-numeric counter", text: header + ",\"c\"\n\"BM_A\",10,5,5,ns,,,,,,x1\n",
            kind: .nonNumeric, line: 2, field: "c"),
        BadInput(
            description: "infinite time", text: header + "\n\"BM_A\",10,inf,5,ns,,,,,\n",
            kind: .nonNumeric, line: 2, field: "real_time"),
        BadInput(
            description: "empty time", text: header + "\n\"BM_A\",10,,5,ns,,,,,\n",
            kind: .missingValue, line: 2, field: "real_time"),
        BadInput(
            description: "empty name", text: header + "\n,10,5,5,ns,,,,,\n",
            kind: .missingValue, line: 2, field: "name"),
        BadInput(
            description: "unknown unit", text: header + "\n\"BM_A\",10,5,5,ps,,,,,\n",
            kind: .unknownUnit, line: 2, field: "time_unit"),
        BadInput(
            description: "mixed units",
            text: header + "\n\"BM_A\",10,5,5,ns,,,,,\n\"BM_B\",10,5,5,us,,,,,\n\"BM_A\",10,5,5,us,,,,,\n",
            kind: .mixedUnits, line: 4, field: "time_unit"),
        BadInput(
            description: "mixed units in an aggregate",
            text: header + "\n\"BM_A\",10,5,5,ns,,,,,\n\"BM_A\",10,6,6,ns,,,,,\n\"BM_A_median\",2,5.5,5.5,us,,,,,\n",
            kind: .mixedUnits, line: 4, field: "time_unit"),
    ]

    @Test(arguments: badInputs)
    func badInputIsATypedErrorWithLocation(_ bad: BadInput) throws {
        let path = try Fixtures.write(bad.text, name: "bad.csv")
        do {
            _ = try ResultsReader.read(path: path)
            Issue.record("expected \(bad.kind) for \(bad.description)")
        } catch let error as InputError {
            #expect(error.kind == bad.kind)
            #expect(error.file == path)
            #expect(error.line == bad.line)
            #expect(error.field == bad.field)
            #expect(error.description.hasPrefix(path))
        }
    }

    @Test func missingFile() {
        #expect(throws: InputError(.fileNotFound, file: "/nonexistent/base.csv", detail: "no such file")) {
            try ResultsReader.read(path: "/nonexistent/base.csv")
        }
    }

    @Test func directoryIsUnreadable() {
        let directory = FileManager.default.temporaryDirectory.path
        #expect(throws: InputError.self) { try ResultsReader.read(path: directory) }
    }

    @Test func missingMetricColumnIsReportedAtTheHeader() throws {
        let file = try ResultsReader.parse(text: Fixtures.suite(), file: "suite.csv")
        do {
            try file.requireColumn(for: .counter("latency_p99_ns"))
            Issue.record("expected missingColumn")
        } catch let error as InputError {
            #expect(error.kind == .missingColumn)
            #expect(error.line == 11)
            #expect(error.field == "latency_p99_ns")
            #expect(error.detail.contains("wakeups_per_fire"))
        }
    }

    @Test func errorDescriptionIsCompilerStyle() {
        let error = InputError(
            .nonNumeric, file: "new.csv", line: 14, field: "real_time", detail: "'x' is not a finite number")
        #expect(
            error.description == "new.csv:14: error: non-numeric value: field 'real_time': 'x' is not a finite number")
    }
}
