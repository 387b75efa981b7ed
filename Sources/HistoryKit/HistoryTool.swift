// The entry points behind `runloop history`: each takes the command line's values, does the work and says what to
// print and how to exit. The CLI only parses arguments.
import Foundation

/// What a history command prints and how it exits.
public struct HistoryOutcome: Sendable {
    /// For stdout.
    public var output: String = ""
    /// For stderr.
    public var diagnostics: [String] = []
    /// 0 done (check: no regression), 1 check found a regression, 2 bad input.
    public var exitCode: Int32 = 0
}

/// `runloop history` subcommands.
public enum HistoryTool {
    /// Where the database lives unless `--db` says: beside the results.
    public static let defaultDatabase = "results/history.sqlite"

    /// `history add FILE...`.
    public static func add(database: String?, files: [String]) -> HistoryOutcome {
        run { outcome in
            guard !files.isEmpty else { throw HistoryError.usage("history add needs at least one results CSV") }
            let db = try HistoryDatabase(path: database ?? defaultDatabase)
            let summary = try db.add(files: files)
            outcome.output = importLines(summary, db: db.path)
        }
    }

    /// `history rebuild DIR...`.
    public static func rebuild(database: String?, directories: [String]) -> HistoryOutcome {
        run { outcome in
            guard !directories.isEmpty else {
                throw HistoryError.usage("history rebuild needs a directory of results CSVs")
            }
            let db = try HistoryDatabase(path: database ?? defaultDatabase)
            let summary = try db.rebuild(directories: directories)
            outcome.output = importLines(summary, db: db.path)
        }
    }

    /// `history list`.
    public static func list(database: String?, filter: RunFilter) -> HistoryOutcome {
        run { outcome in
            let db = try open(database)
            outcome.output = HistoryText.runs(try db.runs(filter))
        }
    }

    /// `history trend PATTERN`: the text, and the page when `htmlPath` is set.
    public static func trend(
        database: String?, pattern: String, metric: String, engine: String?, filter: RunFilter,
        acrossMachines: Bool = false, htmlPath: String?
    ) -> HistoryOutcome {
        run { outcome in
            let db = try open(database)
            let series = try db.trend(
                pattern: pattern, metric: metric, engine: engine, filter: filter,
                acrossMachines: acrossMachines)
            if series.isEmpty {
                let metrics = try db.metrics()
                guard metrics.contains(metric) else {
                    throw HistoryError.usage(
                        "no values of metric '\(metric)' in the history; it has "
                            + metrics.joined(separator: ", "))
                }
                throw HistoryError.usage(
                    "no benchmark matches '\(pattern)'"
                        + (engine.map { " on engine \($0)" } ?? "") + " in the runs selected")
            }
            outcome.output = HistoryText.trend(series, metric: metric)
            if let htmlPath {
                let page = TrendPage.html(
                    series, metric: metric, pattern: pattern,
                    generated: "from \(db.path), \(Set(series.flatMap { $0.points.map(\.run.id) }).count) runs")
                do {
                    try page.write(toFile: htmlPath, atomically: true, encoding: .utf8)
                } catch {
                    throw HistoryError.file(htmlPath, "cannot write the page (\(error.localizedDescription))")
                }
                outcome.output += "\nwrote \(htmlPath)\n"
            }
        }
    }

    /// `history check [--latest | --run FILE]`: exit 1 naming each regressed benchmark.
    public static func check(
        database: String?, runFile: String?, metric: String, thresholdPercent: Double,
        alpha: Double
    ) -> HistoryOutcome {
        run { outcome in
            let db = try open(database)
            guard
                let report = try db.check(
                    runFile: runFile, metric: metric, thresholdPercent: thresholdPercent,
                    alpha: alpha)
            else {
                outcome.output = "history check: no earlier run of the same machine, CPU and profile to compare with\n"
                return
            }
            outcome.output = HistoryText.check(report)
            if !report.regressions.isEmpty {
                outcome.exitCode = 1
                outcome.diagnostics = report.regressions.map {
                    "regressed: \($0.benchmark): \(HistoryText.percent($0.change)) "
                        + "(\(String($0.baseline.commit.prefix(7)))..\(String(report.run.commit.prefix(7))))"
                }
            }
        }
    }

    /// Opens an existing database (reading commands never create one).
    static func open(_ database: String?) throws -> HistoryDatabase {
        let path = database ?? defaultDatabase
        guard FileManager.default.fileExists(atPath: path) else {
            throw HistoryError.database(
                path,
                "no history database here; create it with runloop history add FILE... "
                    + "or runloop history rebuild DIR (or name another with --db)")
        }
        return try HistoryDatabase(path: path)
    }

    static func importLines(_ summary: ImportSummary, db: String) -> String {
        var lines = summary.alreadyPresent.map {
            "already in the history: \($0.file)"
                + ($0.file == $0.recordedAs ? "" : " (the same content as \($0.recordedAs))")
        }
        lines.append(
            "\(db): \(summary.added.count) run\(summary.added.count == 1 ? "" : "s") added, "
                + "\(summary.alreadyPresent.count) already present")
        return lines.joined(separator: "\n") + "\n"
    }

    static func run(_ body: (inout HistoryOutcome) throws -> Void) -> HistoryOutcome {
        var outcome = HistoryOutcome()
        do {
            try body(&outcome)
        } catch let error as HistoryError {
            return HistoryOutcome(output: "", diagnostics: [error.message], exitCode: 2)
        } catch {
            return HistoryOutcome(output: "", diagnostics: ["error: \(error)"], exitCode: 2)
        }
        return outcome
    }
}
