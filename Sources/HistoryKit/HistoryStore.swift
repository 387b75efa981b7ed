// Writing runs into the history: `add` (idempotent by content hash, every file in one transaction) and `rebuild`
// (the index emptied and filled again from the CSVs, also in one transaction).
import Foundation
import GRDB
import ResultsKit

/// What an import did.
public struct ImportSummary: Sendable, Equatable {
    /// Files recorded as new runs.
    public var added: [String] = []
    /// Files whose content was already a run (path of the file, path it was first recorded from).
    public var alreadyPresent: [(file: String, recordedAs: String)] = []

    public static func == (lhs: ImportSummary, rhs: ImportSummary) -> Bool {
        lhs.added == rhs.added && lhs.alreadyPresent.map(\.file) == rhs.alreadyPresent.map(\.file)
    }
}

extension HistoryDatabase {
    /// Reads every file, then records those not yet present in one transaction: a file that cannot be read or lacks
    /// the context a run needs stops the import before anything is written. A file whose bytes the history already
    /// holds is not parsed.
    /// - Throws: `HistoryError` naming the first bad file.
    public func add(files: [String]) throws -> ImportSummary {
        let runFiles = try files.map(RunFile.read(path:))
        let known = try read { db in Set(try String.fetchAll(db, sql: "SELECT content_hash FROM run")) }
        let runs = try runFiles.map { file in
            PendingRun(file: file, record: known.contains(file.contentHash) ? nil : try file.record())
        }
        return try write { db in try HistoryDatabase.insert(runs, db) }
    }

    /// ``add(files:)`` for files the caller has already read and parsed (``RunFile/results()``): nothing is read or
    /// parsed again.
    /// - Throws: `HistoryError` naming the first file that lacks the context a run needs.
    public func add(parsed runs: [(file: RunFile, results: ResultsFile)]) throws -> ImportSummary {
        let pending = try runs.map { run in
            PendingRun(file: run.file, record: try RunRecord(results: run.results, hash: run.file.contentHash))
        }
        return try write { db in try HistoryDatabase.insert(pending, db) }
    }

    /// Empties the index and imports every `*.csv` in `directories` (sorted by name), in one transaction.
    /// Files that are not runs (a CSV without the context lines) are an error, as in `add`.
    public func rebuild(directories: [String]) throws -> ImportSummary {
        var files: [String] = []
        for directory in directories {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw HistoryError.file(directory, "not a directory")
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            files += names.filter { $0.hasSuffix(".csv") }.sorted().map {
                (directory as NSString).appendingPathComponent($0)
            }
        }
        let runs = try files.map { path in
            let file = try RunFile.read(path: path)
            return PendingRun(file: file, record: try file.record())
        }
        return try write { db in
            try db.execute(sql: "DELETE FROM run; DELETE FROM series")
            return try HistoryDatabase.insert(runs, db)
        }
    }

    /// Runs `body` in one IMMEDIATE transaction (the write lock taken at its start, so two processes queue on
    /// SQLite's busy timeout instead of failing on a lock upgrade), turning database errors into `HistoryError`.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        } catch let error as HistoryError {
            throw error
        } catch {
            throw HistoryError.database(path, "writing failed, nothing was recorded (\(HistoryDatabase.reason(error)))")
        }
    }

    /// Inserts the runs not already present (by content hash). A run read unparsed, as one the history held, is
    /// parsed here if that run has gone since (a `rebuild` in between).
    static func insert(_ runs: [PendingRun], _ db: Database) throws -> ImportSummary {
        var summary = ImportSummary()
        var seriesIDs: [String: Int64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, benchmark, metric FROM series") {
            seriesIDs[(row["benchmark"] as String) + "\u{0}" + (row["metric"] as String)] = row["id"]
        }
        let insertSeries = try db.makeStatement(
            sql: """
                INSERT INTO series (benchmark, metric, family, engine, parameters) VALUES (?, ?, ?, ?, ?)
                """)
        let insertMeasurement = try db.makeStatement(
            sql: """
                INSERT INTO measurement (series_id, run_id, count, median, q1, q3, minimum, maximum, samples)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        let insertContext = try db.makeStatement(
            sql: "INSERT INTO run_context (run_id, position, key, value) VALUES (?, ?, ?, ?)")
        let insertEngine = try db.makeStatement(
            sql: "INSERT OR IGNORE INTO run_engine (run_id, engine, version) VALUES (?, ?, ?)")
        for run in runs {
            if let existing = try String.fetchOne(
                db, sql: "SELECT file FROM run WHERE content_hash = ?",
                arguments: [run.file.contentHash])
            {
                summary.alreadyPresent.append((run.file.path, existing))
                continue
            }
            let record = try run.record ?? run.file.record()
            try db.execute(
                sql: """
                    INSERT INTO run (file, content_hash, date, machine, cpu, commit_id, uncommitted_paths, profile,
                                     profile_detail, filter, row_count, error_rows)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    record.file, record.contentHash, record.date, record.machine, record.cpu,
                    record.commit, record.uncommittedPaths, record.profile, record.profileDetail,
                    record.filter, record.rowCount, record.errorRows,
                ])
            let runID = db.lastInsertedRowID
            for (position, entry) in record.context.enumerated() {
                try insertContext.execute(arguments: [runID, position, entry.key, entry.value])
            }
            for engine in record.engines {
                try insertEngine.execute(arguments: [runID, engine.engine, engine.version])
            }
            for measurement in record.measurements {
                let key = measurement.benchmark + "\u{0}" + measurement.metric
                let seriesID: Int64
                if let known = seriesIDs[key] {
                    seriesID = known
                } else {
                    let name = BenchmarkName(measurement.benchmark)
                    try insertSeries.execute(arguments: [
                        measurement.benchmark, measurement.metric, name.family,
                        name.engine, name.parameters,
                    ])
                    seriesID = db.lastInsertedRowID
                    seriesIDs[key] = seriesID
                }
                let s = measurement.summary
                try insertMeasurement.execute(arguments: [
                    seriesID, runID, measurement.samples.count, s.median, s.q1,
                    s.q3, s.minimum, s.maximum, measurement.blob,
                ])
            }
            summary.added.append(record.file)
        }
        return summary
    }
}

/// A file to import: its record, or nil when the history held its bytes as it was read (not parsed).
struct PendingRun {
    let file: RunFile
    let record: RunRecord?
}
