// The history: import (idempotent, all or nothing, clear errors), the schema's migration and refusal, queries,
// change points, the regression check and the trend page.
import Foundation
import FoundationXML
import GRDB
import ResultsKit
import Testing

@testable import HistoryKit

/// The repository's results directory (the shipped CSVs).
let resultsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("results").path

@Suite struct ImportTests {
    @Test func sha256MatchesTheStandardVectors() {
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let long = Array(String(repeating: "a", count: 1000).utf8)
        #expect(SHA256.hex(long) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test func theShippedResultsImportOnceEach() throws {
        let runs = try SyntheticRuns()
        let db = try HistoryDatabase(path: runs.path("h.sqlite"))
        let first = try db.rebuild(directories: [resultsDirectory])
        let csvs = try FileManager.default.contentsOfDirectory(atPath: resultsDirectory).filter { $0.hasSuffix(".csv") }
        #expect(first.added.count == csvs.count)
        let again = try db.add(files: csvs.map { resultsDirectory + "/" + $0 })
        #expect(again.added.isEmpty)
        #expect(again.alreadyPresent.count == csvs.count)
        let listed = try db.runs()
        #expect(listed.count == csvs.count)
        // Every run has the context the history needs, and the engines of its engine_ lines.
        for run in listed {
            #expect(run.commit.count == 40, "\(run.file)")
            #expect(run.engines["ref"] != nil, "\(run.file)")
        }
        #expect(try db.runs(RunFilter(profile: "quick")).count == 1)
        let scaleLabelled = try csvs.filter {
            try String(contentsOfFile: resultsDirectory + "/" + $0, encoding: .utf8).hasPrefix(
                "# label: kvm-2cpu-scale\n")
        }
        #expect(try db.runs(RunFilter(machine: "kvm-2cpu-scale")).count == scaleLabelled.count)
        #expect(try db.runs(RunFilter(since: "2026-11-27")).allSatisfy { $0.date >= "2026-11-27" })
        #expect(try db.runs(RunFilter(engine: "nosuchengine")).isEmpty)
    }

    @Test func theSameContentUnderAnotherNameIsOneRun() throws {
        let runs = try SyntheticRuns()
        let text = SyntheticRuns.csv(date: SyntheticRuns.date(0), commit: String(repeating: "a", count: 40))
        let first = try runs.write(text)
        let second = try runs.write(text)
        let db = try HistoryDatabase(path: runs.path("h.sqlite"))
        let summary = try db.add(files: [first, second])
        #expect(summary.added == [first])
        #expect(summary.alreadyPresent.map(\.recordedAs) == [first])
        #expect(try db.runs().count == 1)
    }

    @Test func aFileTheHistoryHoldsIsNotParsedAgain() throws {
        let runs = try SyntheticRuns()
        let path = try runs.write(SyntheticRuns.csv(date: SyntheticRuns.date(0), commit: "abc"))
        let broken = try runs.write("no CSV at all\n")
        let db = try HistoryDatabase(path: runs.path("h.sqlite"))
        #expect(try db.add(files: [path]).added == [path])
        // The history now claims the broken file's bytes as the held run's: parsing them would throw.
        let brokenHash = try RunFile.read(path: broken).contentHash
        try db.write { try $0.execute(sql: "UPDATE run SET content_hash = ?", arguments: [brokenHash]) }
        let summary = try db.add(files: [broken])
        #expect(summary.added.isEmpty)
        #expect(summary.alreadyPresent.map(\.recordedAs) == [path])
        // A file read while the history held its run, whose run has gone since (a rebuild in between), is parsed then.
        let held = try RunFile.read(path: path)
        let emptied = try HistoryDatabase(path: runs.path("emptied.sqlite"))
        let again = try emptied.write { try HistoryDatabase.insert([PendingRun(file: held, record: nil)], $0) }
        #expect(again.added == [path])
        #expect(try emptied.runs().map(\.file) == [path])
    }

    @Test func parsedRunsImportAsTheirFilesDo() throws {
        let runs = try SyntheticRuns()
        let files = try (0..<3).map {
            try runs.write(SyntheticRuns.csv(date: SyntheticRuns.date($0), commit: "c\($0)", seed: UInt64($0 + 1)))
        }
        let byFile = try HistoryDatabase(path: runs.path("files.sqlite"))
        let byParse = try HistoryDatabase(path: runs.path("parsed.sqlite"))
        #expect(try byFile.add(files: files).added == files)
        let parsed = try files.map { path in
            let file = try RunFile.read(path: path)
            return (file: file, results: try file.results())
        }
        #expect(try byParse.add(parsed: parsed).added == files)
        #expect(try byFile.runs() == byParse.runs())
        func points(_ db: HistoryDatabase) throws -> [String] {
            try db.trend(pattern: "BM_", metric: "real_time").flatMap { series in
                series.points.map { "\(series.benchmark) \($0.run.id) \($0.count) \($0.median) \($0.q1) \($0.q3)" }
            }
        }
        #expect(try !points(byFile).isEmpty)
        #expect(try points(byFile) == points(byParse))
    }

    @Test(arguments: ["date", "label", "cpu_model", "commit", "profile"])
    func aMissingContextLineIsExit2NamingFileAndLine(key: String) throws {
        let runs = try SyntheticRuns()
        let file = try runs.write(SyntheticRuns.csv(date: SyntheticRuns.date(0), commit: "abc", omit: [key]))
        let outcome = HistoryTool.add(database: runs.path("h.sqlite"), files: [file])
        #expect(outcome.exitCode == 2)
        let message = outcome.diagnostics.joined()
        #expect(message.hasPrefix(file + ": error: missing context line '# \(key): ...'"), "\(message)")
    }

    @Test func aBadDateNamesItsLine() throws {
        let runs = try SyntheticRuns()
        let file = try runs.write(SyntheticRuns.csv(date: "yesterday", commit: "abc"))
        let outcome = HistoryTool.add(database: runs.path("h.sqlite"), files: [file])
        #expect(outcome.exitCode == 2)
        #expect(outcome.diagnostics.joined().hasPrefix(file + ":2: error: context line 'date'"))
    }

    @Test func aMalformedFileImportsNothingOfTheBatch() throws {
        let runs = try SyntheticRuns()
        let good = try runs.write(SyntheticRuns.csv(date: SyntheticRuns.date(0), commit: "abc"))
        var broken = SyntheticRuns.csv(date: SyntheticRuns.date(1), commit: "def")
        broken += "\"BM_Synth/engine:ref/case:z/manual_time\",1000,12\n"  // a row with too few fields
        let bad = try runs.write(broken)
        let database = runs.path("h.sqlite")
        let outcome = HistoryTool.add(database: database, files: [good, bad])
        #expect(outcome.exitCode == 2)
        #expect(outcome.diagnostics.joined().hasPrefix(bad + ":"))
        #expect(try HistoryDatabase(path: database).runs().isEmpty)
    }

    @Test func readingCommandsNeedAnExistingDatabase() throws {
        let runs = try SyntheticRuns()
        let outcome = HistoryTool.list(database: runs.path("none.sqlite"), filter: RunFilter())
        #expect(outcome.exitCode == 2)
        #expect(outcome.diagnostics.joined().contains("no history database here"))
        #expect(!FileManager.default.fileExists(atPath: runs.path("none.sqlite")))
    }
}

@Suite struct SchemaTests {
    @Test func aVersion1DatabaseIsMigratedKeepingItsRuns() throws {
        let runs = try SyntheticRuns()
        let path = runs.path("old.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            try HistorySchema.migrator.migrate(queue, upTo: "v1-runs-and-measurements")
            try queue.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO run (id, file, content_hash, date, machine, cpu, commit_id, profile, profile_detail,
                                         row_count, error_rows)
                        VALUES (1, 'old.csv', 'x', '2026-01-01T00:00:00Z', 'kvm-2cpu', 'AMD EPYC', 'abc', 'full', 'full', 0, 0);
                        INSERT INTO run_context (run_id, position, key, value) VALUES (1, 0, 'engine_ref', 'RefRunLoop');
                        INSERT INTO run_context (run_id, position, key, value) VALUES (1, 1, 'engines', 'not an engine line');
                        """)
            }
        }
        let db = try HistoryDatabase(path: path)
        #expect(try db.schemaVersions() == HistorySchema.migrator.migrations)
        let listed = try db.runs()
        #expect(listed.count == 1)
        #expect(listed.first?.engines == ["ref": "RefRunLoop"])
        #expect(try db.runs(RunFilter(engine: "ref")).count == 1)
    }

    @Test func aNewerSchemaIsRefusedWithAdvice() throws {
        let runs = try SyntheticRuns()
        let path = runs.path("new.sqlite")
        _ = try HistoryDatabase(path: path)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-future')") }
        #expect {
            _ = try HistoryDatabase(path: path)
        } throws: { error in
            let message = (error as? HistoryError)?.message ?? ""
            return message.hasPrefix(path + ": error:") && message.contains("v9-future")
                && message.contains("newer runloop") && message.contains("runloop history rebuild")
        }
    }

    @Test func aForeignDatabaseOrFileIsRefused() throws {
        let runs = try SyntheticRuns()
        let foreign = runs.path("foreign.sqlite")
        let queue = try DatabaseQueue(path: foreign)
        try queue.write { db in try db.execute(sql: "CREATE TABLE notes (text TEXT)") }
        #expect {
            _ = try HistoryDatabase(path: foreign)
        } throws: { error in
            ((error as? HistoryError)?.message ?? "").contains("not a benchmark history database (it has tables notes")
        }
        let text = runs.path("text.sqlite")
        try String(repeating: "not a database\n", count: 100).write(toFile: text, atomically: true, encoding: .utf8)
        #expect {
            _ = try HistoryDatabase(path: text)
        } throws: { error in
            ((error as? HistoryError)?.message ?? "").hasPrefix(text + ": error:")
        }
    }
}

@Suite struct ChangePointTests {
    /// Values around `level` with a deterministic ±2 % wobble.
    static func noisy(_ level: Double, count: Int, seed: UInt64) -> [Double] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in level * (1 + 0.04 * (Double(random.next() % 1001) / 1000 - 0.5)) }
    }

    @Test func aStepIsFoundWhereItIsWithItsSize() {
        let values = Self.noisy(100, count: 12, seed: 1) + Self.noisy(130, count: 10, seed: 2)
        let points = EDivisive().changePoints(values)
        #expect(points.map(\.index) == [12])
        #expect(points[0].pValue <= 0.05)
        #expect(abs((points[0].change ?? 0) - 0.30) < 0.03)
    }

    @Test func twoStepsAreTwoChangePoints() {
        let values =
            Self.noisy(100, count: 10, seed: 3) + Self.noisy(60, count: 10, seed: 4)
            + Self.noisy(90, count: 10, seed: 5)
        #expect(EDivisive().changePoints(values).map(\.index) == [10, 20])
    }

    @Test func noiseAloneHasNoChangePoint() {
        for seed in UInt64(10)..<UInt64(20) {
            #expect(EDivisive().changePoints(Self.noisy(100, count: 30, seed: seed)).isEmpty, "seed \(seed)")
        }
    }

    @Test func theAnswerIsTheSameEveryTime() {
        let values = Self.noisy(100, count: 15, seed: 6) + Self.noisy(104, count: 15, seed: 7)
        #expect(EDivisive().changePoints(values) == EDivisive().changePoints(values))
    }

    @Test func tooShortASeriesHasNone() {
        #expect(EDivisive().changePoints([1, 2, 3, 100, 100]).isEmpty)
    }
}

@Suite struct TrendAndCheckTests {
    /// A machine's runs, one commit each: benchmark `b` of `ref` steps 40 % up at run `stepAt`.
    static func series(_ runs: SyntheticRuns, count: Int, stepAt: Int, machine: String = "kvm-2cpu") throws -> [String]
    {
        try (0..<count).map { index in
            try runs.write(
                SyntheticRuns.csv(
                    date: SyntheticRuns.date(index),
                    commit: String(format: "%07x", index + 1) + String(repeating: "f", count: 33),
                    machine: machine,
                    levels: ["ref/b": index >= stepAt ? 1400 : 1000], seed: UInt64(index + 1)))
        }
    }

    @Test func aTrendFollowsEachEngineAndFindsTheStep() throws {
        let runs = try SyntheticRuns()
        let files = try Self.series(runs, count: 12, stepAt: 8)
        let db = try HistoryDatabase(path: runs.path("h.sqlite"))
        _ = try db.add(files: files)
        let series = try db.trend(pattern: "case:b")
        #expect(series.map(\.engine) == ["cf", "ref"])
        #expect(series.allSatisfy { $0.points.count == 12 })
        #expect(series[0].changePoints.isEmpty)
        #expect(series[1].changePoints.map(\.index) == [8])
        let text = HistoryText.trend(series, metric: "real_time")
        #expect(text.contains("change point: 0000008..0000009"))  // runs 8 and 9 (indices 7 and 8)
        #expect(try db.trend(pattern: "case:b", engine: "ref").count == 1)
        #expect(try db.trend(pattern: "BM_Synth/engine:cf/case:a/manual_time").count == 1)
    }

    @Test func machinesAreNeverMixed() throws {
        let runs = try SyntheticRuns()
        let files =
            try Self.series(runs, count: 4, stepAt: 99) + Self.series(runs, count: 3, stepAt: 99, machine: "other")
        let db = try HistoryDatabase(path: runs.path("h.sqlite"))
        _ = try db.add(files: files)
        let series = try db.trend(pattern: "engine:ref/case:a")
        #expect(series.map(\.points.count).sorted() == [3, 4])
        #expect(
            try db.trend(pattern: "engine:ref/case:a", filter: RunFilter(machine: "other")).map(\.points.count) == [3])
        // Only when asked.
        #expect(try db.trend(pattern: "engine:ref/case:a", acrossMachines: true).map(\.points.count) == [7])
    }

    @Test func theTrendPageIsOneChartPerBenchmarkAndEngineAndParsesAsXML() throws {
        let runs = try SyntheticRuns()
        let db = try HistoryDatabase(path: runs.path("h.sqlite"))
        _ = try db.add(files: try Self.series(runs, count: 10, stepAt: 6))
        let series = try db.trend(pattern: "BM_Synth")
        let page = TrendPage.html(series, metric: "real_time", pattern: "BM_Synth", generated: "test")
        let document = try XMLDocument(xmlString: page, options: [])
        let charts = try document.nodes(forXPath: "//*[local-name()='div'][@class='charts']/*[local-name()='svg']")
        #expect(charts.count == 6)  // 3 benchmarks x 2 engines
        #expect(!page.contains("<script"))
        #expect(page.contains("stroke=\"#c62828\""))  // the change point's line
    }

    @Test func checkNamesARegressionWithItsCommitsAndSize() throws {
        let runs = try SyntheticRuns()
        let files = try Self.series(runs, count: 3, stepAt: 2)
        let database = runs.path("h.sqlite")
        #expect(HistoryTool.add(database: database, files: files).exitCode == 0)
        let outcome = HistoryTool.check(
            database: database, runFile: nil, metric: "real_time", thresholdPercent: 10,
            alpha: 0.05)
        #expect(outcome.exitCode == 1)
        #expect(outcome.diagnostics.count == 1)
        let line = outcome.diagnostics.first ?? ""
        #expect(line.hasPrefix("regressed: BM_Synth/engine:ref/case:b/manual_time: +4"), "\(line)")
        #expect(line.hasSuffix(" % (0000002..0000003)"), "\(line)")
        #expect(outcome.output.contains("REGRESSED (1)"))
        // The run before the step has nothing to answer for.
        let earlier = HistoryTool.check(
            database: database, runFile: files[1], metric: "real_time",
            thresholdPercent: 10, alpha: 0.05)
        #expect(earlier.exitCode == 0)
        #expect(earlier.output.contains("result: 0 regressed, 0 improved, 6 unchanged"))
    }

    @Test func checkOfAFirstRunHasNothingToCompare() throws {
        let runs = try SyntheticRuns()
        let database = runs.path("h.sqlite")
        _ = HistoryTool.add(database: database, files: try Self.series(runs, count: 1, stepAt: 9))
        let outcome = HistoryTool.check(
            database: database, runFile: nil, metric: "real_time", thresholdPercent: 10,
            alpha: 0.05)
        #expect(outcome.exitCode == 0)
        #expect(outcome.output.contains("no earlier run"))
    }

    @Test func aFasterHigherIsBetterMetricIsNoRegression() throws {
        let runs = try SyntheticRuns()
        let database = runs.path("h.sqlite")
        let files = try (0..<2).map { index in
            try runs.write(
                SyntheticRuns.csv(
                    date: SyntheticRuns.date(index), commit: "c\(index)",
                    levels: ["ref/a": index == 1 ? 500 : 1000], seed: UInt64(index + 1)))
        }
        _ = HistoryTool.add(database: database, files: files)
        let outcome = HistoryTool.check(
            database: database, runFile: nil, metric: "real_time", thresholdPercent: 10,
            alpha: 0.05)
        #expect(outcome.exitCode == 0)
        #expect(outcome.output.contains("improved (1)"))
    }
}

/// The database under two processes and under a killed one, through the built `runloop`.
@Suite(.serialized) struct ProcessTests {
    /// Waits for `process` at most `seconds`; kills it and fails if it is still running then.
    static func wait(_ process: Process, seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            Issue.record("runloop did not finish within \(seconds) s")
            return nil
        }
        return process.terminationStatus
    }

    /// Integrity, no measurement without its run, and the number of runs.
    static func consistentRuns(_ path: String) throws -> Int {
        let queue = try DatabaseQueue(path: path)
        return try queue.read { db in
            #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"])
            #expect(
                try Int.fetchOne(db, sql: "SELECT count(*) FROM measurement WHERE run_id NOT IN (SELECT id FROM run)")
                    == 0)
            #expect(
                try Int.fetchOne(db, sql: "SELECT count(*) FROM run_context WHERE run_id NOT IN (SELECT id FROM run)")
                    == 0)
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM run") ?? -1
        }
    }

    static func files(_ runs: SyntheticRuns, count: Int, machine: String, benchmarks: Int = 40) throws -> [String] {
        try (0..<count).map { index in
            try runs.write(
                SyntheticRuns.csv(
                    date: SyntheticRuns.date(index), commit: "\(machine)\(index)",
                    machine: machine, benchmarks: (0..<benchmarks).map { "b\($0)" },
                    seed: UInt64(index + 1)))
        }
    }

    @Test func twoProcessesAddingAtOnceBothLand() throws {
        #expect(FileManager.default.isExecutableFile(atPath: RunloopExecutable.path), "build runloop first")
        let runs = try SyntheticRuns()
        let database = runs.path("h.sqlite")  // created by whichever process comes first
        let first = try Self.files(runs, count: 12, machine: "one")
        let second = try Self.files(runs, count: 12, machine: "two")
        let a = try RunloopExecutable.start(["history", "add", "--db", database] + first)
        let b = try RunloopExecutable.start(["history", "add", "--db", database] + second)
        #expect(Self.wait(a, seconds: 120) == 0)
        #expect(Self.wait(b, seconds: 120) == 0)
        #expect(try Self.consistentRuns(database) == 24)
    }

    @Test func aKilledAddLeavesAllOrNothing() throws {
        #expect(FileManager.default.isExecutableFile(atPath: RunloopExecutable.path), "build runloop first")
        let runs = try SyntheticRuns()
        let database = runs.path("h.sqlite")
        _ = try HistoryDatabase(path: database)
        let files = try Self.files(runs, count: 30, machine: "m", benchmarks: 60)
        let process = try RunloopExecutable.start(["history", "add", "--db", database] + files)
        // Kill it once its transaction has started writing (its rollback journal exists), or whenever it ends.
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline,
            !FileManager.default.fileExists(atPath: database + "-journal")
        { usleep(500) }
        let killedMidway = process.isRunning
        if killedMidway { kill(process.processIdentifier, SIGKILL) }
        _ = Self.wait(process, seconds: 30)
        let count = try Self.consistentRuns(database)  // opening it rolls the hot journal back
        #expect(count == 0 || count == 30, "a killed import left \(count) of 30 runs")
        // And the database takes the same files afterwards.
        #expect(try HistoryDatabase(path: database).add(files: files).added.count == 30 - count)
    }
}
