// Reading the history: the runs (filtered), and the series of one metric per benchmark and engine across runs.
import Foundation
import GRDB
import ResultsKit

/// A run as listed.
public struct HistoryRun: Sendable, Equatable {
    public let id: Int64
    public let file: String
    public let date: String
    public let machine: String
    public let cpu: String
    public let commit: String
    public let uncommittedPaths: Int?
    public let profile: String
    public let filter: String?
    public let rowCount: Int
    public let errorRows: Int
    /// The engines the run's context names, with what each was.
    public let engines: [String: String]

    /// The commit's first 7 digits, with `+` when the tree had uncommitted paths.
    public var shortCommit: String {
        String(commit.prefix(7)) + ((uncommittedPaths ?? 0) > 0 ? "+" : "")
    }

    /// Machine and CPU: runs compare only within one of these (and one profile).
    public var machineKey: String { "\(machine) (\(cpu))" }
}

/// Which runs to list or follow.
public struct RunFilter: Sendable, Equatable {
    /// The machine label (`# label:`), exactly.
    public var machine: String?
    /// The profile's name, exactly.
    public var profile: String?
    /// Runs that measured this engine.
    public var engine: String?
    /// Runs on or after this date (an ISO 8601 prefix: `2026-11-26` or `2026-11-26T13:00`).
    public var since: String?
    /// Runs before this date (same form).
    public var until: String?

    public init(
        machine: String? = nil, profile: String? = nil, engine: String? = nil, since: String? = nil,
        until: String? = nil
    ) {
        self.machine = machine
        self.profile = profile
        self.engine = engine
        self.since = since
        self.until = until
    }
}

/// One point of a series: one run's values of one benchmark and metric.
public struct TrendPoint: Sendable {
    public let run: HistoryRun
    public let count: Int
    public let median: Double
    public let q1: Double
    public let q3: Double
    public let minimum: Double
    public let maximum: Double
}

/// The series of one benchmark and engine on one machine and profile, in date order, with its change points.
public struct TrendSeries: Sendable {
    /// The benchmark's full name.
    public let benchmark: String
    /// The benchmark without its engine component (the key engines are drawn side by side on).
    public let key: String
    /// The engine, if the name has one.
    public let engine: String?
    /// `machine (cpu)`.
    public let machine: String
    public let profile: String
    public let points: [TrendPoint]
    public var changePoints: [ChangePoint] = []
    /// True when every run of the series says its metric is exact (`# exact_metrics:`, as instruction counts are) and
    /// none lists its benchmark as not exact after all (`# inexact:`): its change points are then ``ExactSteps``', not
    /// E-divisive's.
    public var exact = false
    /// For a series said to be exact whose runs of one build disagree: where. Its change points are then
    /// E-divisive's, as for any noisy series.
    public var disagreement: ExactSteps.Disagreement?

    /// The build a run measured: its commit, or the run itself when its tree had uncommitted paths.
    static func build(_ run: HistoryRun) -> String {
        run.commit + ((run.uncommittedPaths ?? 0) > 0 ? "+run\(run.id)" : "")
    }
}

extension HistoryDatabase {
    /// The runs that pass `filter`, oldest first.
    public func runs(_ filter: RunFilter = RunFilter()) throws -> [HistoryRun] {
        try read { db in try runs(filter, db) }
    }

    /// The series of `metric` for the benchmarks `pattern` selects (a name exactly, else a regular expression
    /// searched in the full name), one per benchmark, engine, machine and profile, each with its change points.
    /// `acrossMachines` puts the runs of every machine and CPU in one series per profile (only when asked: levels
    /// differ between machines, so their change points are then mostly the machine changing).
    public func trend(
        pattern: String, metric: String = "real_time", engine: String? = nil,
        filter: RunFilter = RunFilter(), acrossMachines: Bool = false,
        detector: EDivisive = EDivisive(), exactSteps: ExactSteps = ExactSteps()
    ) throws -> [TrendSeries] {
        let regex: Regex<AnyRegexOutput>
        do {
            regex = try Regex(pattern)
        } catch {
            throw HistoryError.usage("'\(pattern)' is not a benchmark name or a regular expression: \(error)")
        }
        var series = try read { db -> [TrendSeries] in
            let all = try Row.fetchAll(
                db, sql: "SELECT id, benchmark, engine FROM series WHERE metric = ?",
                arguments: [metric])
            var chosen = all.filter { ($0["benchmark"] as String) == pattern }
            if chosen.isEmpty { chosen = all.filter { ($0["benchmark"] as String).contains(regex) } }
            if let engine { chosen = chosen.filter { ($0["engine"] as String?) == engine } }
            guard !chosen.isEmpty else { return [] }
            let names = Dictionary(uniqueKeysWithValues: chosen.map { ($0["id"] as Int64, $0["benchmark"] as String) })
            let runs = Dictionary(uniqueKeysWithValues: try self.runs(filter, db).map { ($0.id, $0) })
            let ids = names.keys.map(String.init).joined(separator: ",")
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT m.series_id, m.run_id, m.count, m.median, m.q1, m.q3, m.minimum, m.maximum
                    FROM measurement m JOIN run r ON r.id = m.run_id
                    WHERE m.series_id IN (\(ids)) ORDER BY r.date, r.id
                    """)
            var grouped: [String: (benchmark: String, machine: String, profile: String, points: [TrendPoint])] = [:]
            var order: [String] = []
            while let row = try rows.next() {
                guard let run = runs[row["run_id"]], let benchmark = names[row["series_id"]] else { continue }
                let machine = acrossMachines ? "every machine" : run.machineKey
                let key = benchmark + "\u{0}" + machine + "\u{0}" + run.profile
                if grouped[key] == nil {
                    grouped[key] = (benchmark, machine, run.profile, [])
                    order.append(key)
                }
                grouped[key]!.points.append(
                    TrendPoint(
                        run: run, count: row["count"], median: row["median"],
                        q1: row["q1"], q3: row["q3"], minimum: row["minimum"],
                        maximum: row["maximum"]))
            }
            // The runs that say this metric is exact.
            var exactRuns = Set<Int64>()
            for row in try Row.fetchAll(
                db, sql: "SELECT run_id, value FROM run_context WHERE key = ?",
                arguments: [ResultsReader.exactMetricsKey])
            where ResultsFile.metricList(row["value"]).contains(metric) {
                exactRuns.insert(row["run_id"])
            }
            // The benchmarks each run lists as not exact after all (`# inexact:`).
            var inexact: [Int64: Set<String>] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT run_id, value FROM run_context WHERE key = ?",
                arguments: [ResultsReader.inexactKey])
            {
                inexact[row["run_id"], default: []].insert(row["value"])
            }
            return order.compactMap { grouped[$0] }.map { group in
                let name = BenchmarkName(group.benchmark)
                var series = TrendSeries(
                    benchmark: group.benchmark, key: name.withoutEngine, engine: name.engine,
                    machine: group.machine, profile: group.profile, points: group.points)
                series.exact = group.points.allSatisfy {
                    exactRuns.contains($0.run.id) && inexact[$0.run.id]?.contains(group.benchmark) != true
                }
                return series
            }
        }
        // Machines and profiles with the newest run first (the machine in use now leads), then benchmarks in natural
        // order, then engines.
        var newest: [String: String] = [:]
        for s in series {
            let group = s.machine + "\u{0}" + s.profile
            newest[group] = max(newest[group] ?? "", s.points.last?.run.date ?? "")
        }
        series.sort {
            let left = $0.machine + "\u{0}" + $0.profile
            let right = $1.machine + "\u{0}" + $1.profile
            if left != right { return (newest[left] ?? "", right) > (newest[right] ?? "", left) }
            return $0.key != $1.key ? BenchmarkName.naturalOrder($0.key, $1.key) : ($0.engine ?? "") < ($1.engine ?? "")
        }
        for index in series.indices {
            if series[index].exact {
                let runs = series[index].points.map {
                    ExactSteps.Run(
                        build: TrendSeries.build($0.run), median: $0.median, minimum: $0.minimum, maximum: $0.maximum)
                }
                switch exactSteps.changePoints(runs) {
                case .success(let points):
                    series[index].changePoints = points
                    continue
                case .failure(let error):
                    series[index].disagreement = error.disagreement
                }
            }
            series[index].changePoints = detector.changePoints(series[index].points.map(\.median))
        }
        return series
    }

    /// The metrics the history has values of.
    public func metrics() throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT DISTINCT metric FROM series ORDER BY metric") }
    }

    /// Runs in `body` with database errors turned into `HistoryError`.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.read(body)
        } catch let error as HistoryError {
            throw error
        } catch {
            throw HistoryError.database(path, "reading failed (\(HistoryDatabase.reason(error)))")
        }
    }

    func runs(_ filter: RunFilter, _ db: Database) throws -> [HistoryRun] {
        var conditions: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        if let machine = filter.machine {
            conditions.append("machine = ?")
            arguments.append(machine)
        }
        if let profile = filter.profile {
            conditions.append("profile = ?")
            arguments.append(profile)
        }
        if let since = filter.since {
            conditions.append("date >= ?")
            arguments.append(since)
        }
        if let until = filter.until {
            conditions.append("date < ?")
            arguments.append(until)
        }
        if let engine = filter.engine {
            conditions.append("id IN (SELECT run_id FROM run_engine WHERE engine = ?)")
            arguments.append(engine)
        }
        let sql =
            "SELECT * FROM run" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + " ORDER BY date, id"
        let engines = try HistoryDatabase.engines(db)
        return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map {
            HistoryDatabase.run($0, engines: engines[$0["id"]] ?? [:])
        }
    }

    static func engines(_ db: Database) throws -> [Int64: [String: String]] {
        var result: [Int64: [String: String]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT run_id, engine, version FROM run_engine") {
            result[row["run_id"], default: [:]][row["engine"]] = row["version"]
        }
        return result
    }

    static func run(_ row: Row, engines: [String: String]) -> HistoryRun {
        HistoryRun(
            id: row["id"], file: row["file"], date: row["date"], machine: row["machine"], cpu: row["cpu"],
            commit: row["commit_id"], uncommittedPaths: row["uncommitted_paths"], profile: row["profile"],
            filter: row["filter"], rowCount: row["row_count"], errorRows: row["error_rows"], engines: engines)
    }
}
