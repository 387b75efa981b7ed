// The history's database: an SQLite file (through GRDB) that indexes results CSVs. The CSVs are the source of
// truth; everything here can be rebuilt from them (`runloop history rebuild`), so a schema this build does not know
// is refused with that advice rather than guessed at.
import Foundation
import GRDB

/// An open history database, migrated to this build's schema.
public final class HistoryDatabase: Sendable {
    /// Where the database lives.
    public let path: String
    /// The connection; GRDB's queue serialises every access from this process, and SQLite's file locks (with a busy
    /// timeout) serialise writers from several processes.
    let queue: DatabaseQueue

    /// How long a writer waits for another process's transaction before giving up.
    static let busyTimeout: TimeInterval = 60

    /// Opens (creating if needed) the database at `path` and applies the migrations it lacks.
    /// - Throws: `HistoryError` when the file is not an SQLite database, is not a history database, or was written
    ///   by a newer schema than this build's.
    public init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        configuration.busyMode = .timeout(HistoryDatabase.busyTimeout)
        configuration.foreignKeysEnabled = true
        configuration.label = "history"
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            throw HistoryError.database(path, "its directory \(directory) does not exist")
        }
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw HistoryError.database(path, "cannot open it as an SQLite database (\(HistoryDatabase.reason(error)))")
        }
        try HistoryDatabase.migrate(queue, path: path)
    }

    /// Checks what the file holds and brings it to this build's schema.
    ///
    /// Two processes opening a new database at once race in GRDB's migrator, which reads what is applied before it
    /// takes the write lock: the loser's read can fail (the table appeared between its statement's preparation and
    /// its check) or its CREATE can (the winner made the table first). Both leave the database as it should be, so a
    /// database error here is retried a few times, 0.1 s apart, before it is reported.
    static func migrate(_ queue: DatabaseQueue, path: String) throws {
        var attempt = 0
        while true {
            do {
                try checkAndMigrate(queue, path: path)
                return
            } catch let error as HistoryError {
                throw error
            } catch {
                attempt += 1
                guard attempt < 5 else {
                    throw HistoryError.database(path, "cannot read or migrate it (\(reason(error)))")
                }
                usleep(100_000)
            }
        }
    }

    static func checkAndMigrate(_ queue: DatabaseQueue, path: String) throws {
        let migrator = HistorySchema.migrator
        let (superseded, tables, applied) = try queue.read { db in
            (
                try migrator.hasBeenSuperseded(db),
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT name FROM sqlite_master
                        WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'
                        """), try migrator.appliedIdentifiers(db)
            )
        }
        if superseded {
            let unknown = applied.filter { !migrator.migrations.contains($0) }.sorted()
            throw HistoryError.database(
                path,
                "the history database has schema versions this runloop does not "
                    + "know (\(unknown.joined(separator: ", "))): it was written by a newer runloop. Use that one, or "
                    + "rebuild this index from the CSVs: runloop history rebuild --db \(path) DIR")
        }
        if applied.isEmpty, !tables.isEmpty {
            throw HistoryError.database(
                path,
                "not a benchmark history database (it has tables "
                    + tables.sorted().joined(separator: ", ") + " and no schema version); choose another --db path")
        }
        try migrator.migrate(queue)
    }

    /// The schema versions applied to the database, oldest first.
    public func schemaVersions() throws -> [String] {
        try queue.read { db in try HistorySchema.migrator.appliedMigrations(db) }
    }

    /// SQLite's own words for a GRDB error.
    static func reason(_ error: Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? "\(error.resultCode)"
        }
        return "\(error)"
    }
}

/// The schema, as GRDB migrations. A migration is never edited once released: a new one is appended.
public enum HistorySchema {
    /// Every migration of this build, in order.
    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-runs-and-measurements") { db in
            // One row per imported results CSV, with the context lines the history groups and orders runs by.
            try db.execute(
                sql: """
                    CREATE TABLE run (
                        id INTEGER PRIMARY KEY,
                        file TEXT NOT NULL,
                        content_hash TEXT NOT NULL UNIQUE,
                        date TEXT NOT NULL,
                        machine TEXT NOT NULL,
                        cpu TEXT NOT NULL,
                        commit_id TEXT NOT NULL,
                        uncommitted_paths INTEGER,
                        profile TEXT NOT NULL,
                        profile_detail TEXT NOT NULL,
                        filter TEXT,
                        row_count INTEGER NOT NULL,
                        error_rows INTEGER NOT NULL
                    );
                    CREATE INDEX run_by_machine ON run(machine, cpu, profile, date);
                    CREATE TABLE run_context (
                        run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        key TEXT NOT NULL,
                        value TEXT NOT NULL,
                        PRIMARY KEY (run_id, position)
                    ) WITHOUT ROWID;
                    CREATE TABLE series (
                        id INTEGER PRIMARY KEY,
                        benchmark TEXT NOT NULL,
                        metric TEXT NOT NULL,
                        family TEXT NOT NULL,
                        engine TEXT,
                        parameters TEXT NOT NULL,
                        UNIQUE (benchmark, metric)
                    );
                    CREATE TABLE measurement (
                        series_id INTEGER NOT NULL REFERENCES series(id),
                        run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
                        count INTEGER NOT NULL,
                        median REAL NOT NULL,
                        q1 REAL NOT NULL,
                        q3 REAL NOT NULL,
                        minimum REAL NOT NULL,
                        maximum REAL NOT NULL,
                        samples BLOB NOT NULL,
                        PRIMARY KEY (series_id, run_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX measurement_by_run ON measurement(run_id);
                    """)
        }
        migrator.registerMigration("v2-engine-versions") { db in
            // Each run's engines and what they were (the `engine_<name>` context lines), for `history list --engine`;
            // filled from the context rows a version-1 database already holds.
            try db.execute(
                sql: """
                    CREATE TABLE run_engine (
                        run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
                        engine TEXT NOT NULL,
                        version TEXT NOT NULL,
                        PRIMARY KEY (run_id, engine)
                    ) WITHOUT ROWID;
                    INSERT OR IGNORE INTO run_engine (run_id, engine, version)
                        SELECT run_id, substr(key, 8), value FROM run_context WHERE key LIKE 'engine\\_%' ESCAPE '\\';
                    """)
        }
        return migrator
    }
}
