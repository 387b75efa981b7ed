// `runloop history`: parses arguments and hands them to HistoryKit; all logic lives there.
import ArgumentParser
import Foundation
import HistoryKit

/// Every benchmark run kept: trends, change points and regressions across commits.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Every benchmark run kept: trends, change points and regressions across commits and machines.",
        discussion: """
            The results CSVs are the source of truth; the history is an SQLite index of them \
            (default \(HistoryTool.defaultDatabase), --db PATH) that `rebuild` makes again from the files.

            Exit status: 0 done, 1 `check` found a regression, 2 bad input (the message names the file and line).
            """,
        subcommands: [Add.self, Rebuild.self, List.self, Trend.self, Check.self])

    /// The options every subcommand shares.
    struct DatabaseOption: ParsableArguments {
        @Option(help: "The history database (default: \(HistoryTool.defaultDatabase)).")
        var db: String?
    }

    /// The run filters of `list` and `trend`.
    struct Filters: ParsableArguments {
        @Option(help: "Only runs of this machine label (the CSV's '# label:').")
        var machine: String?
        @Option(help: "Only runs of this profile (full, quick).")
        var profile: String?
        @Option(help: "Only runs on or after this date (ISO 8601 prefix, e.g. 2026-11-26).")
        var since: String?
        @Option(help: "Only runs before this date (ISO 8601 prefix).")
        var until: String?

        func filter(engine: String? = nil) -> RunFilter {
            RunFilter(machine: machine, profile: profile, engine: engine, since: since, until: until)
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record results CSVs (the same content twice is one run; all files or none).")
        @OptionGroup var database: DatabaseOption
        @Argument(help: "Results CSVs written by `runloop bench`.")
        var files: [String] = []
        func run() throws {
            try finish(HistoryTool.add(database: database.db, files: files))
        }
    }

    struct Rebuild: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Empty the history and record every *.csv in the directories again.")
        @OptionGroup var database: DatabaseOption
        @Argument(help: "Directories of results CSVs.")
        var directories: [String] = []
        func run() throws {
            try finish(HistoryTool.rebuild(database: database.db, directories: directories))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The runs, oldest first.")
        @OptionGroup var database: DatabaseOption
        @OptionGroup var filters: Filters
        @Option(help: "Only runs that measured this engine.")
        var engine: String?
        func run() throws {
            try finish(HistoryTool.list(database: database.db, filter: filters.filter(engine: engine)))
        }
    }

    struct Trend: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A benchmark's medians across runs, per engine, machine and profile, with change points.")
        @OptionGroup var database: DatabaseOption
        @Argument(help: "A benchmark's full name, or a regular expression searched in the names.")
        var pattern: String
        @Option(help: "Only this engine's series.")
        var engine: String?
        @Option(help: "real_time or a counter column (e.g. latency_p50_ns).")
        var metric: String = "real_time"
        @OptionGroup var filters: Filters
        @Flag(help: "One series per profile across every machine and CPU (by default each machine is its own).")
        var acrossMachines = false
        @Option(help: "Also write an HTML page with one chart per benchmark and engine.")
        var html: String?
        func run() throws {
            try finish(
                HistoryTool.trend(
                    database: database.db, pattern: pattern, metric: metric, engine: engine,
                    filter: filters.filter(), acrossMachines: acrossMachines, htmlPath: html))
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The newest run against the previous run of its machine and profile; exit 1 on a regression.")
        @OptionGroup var database: DatabaseOption
        @Flag(help: "Check the newest run in the history with values of the metric (the default).")
        var latest = false
        @Option(name: .customLong("run"), help: "Check the run recorded from this file instead of the newest.")
        var runFile: String?
        @Option(help: "real_time or a counter column.")
        var metric: String = "real_time"
        @Option(help: "Smallest relative change of the median, in percent, that counts.")
        var threshold: Double = 10
        @Option(help: "Significance level of the two-sided Mann-Whitney U test.")
        var alpha: Double = 0.05
        func validate() throws {
            if latest, runFile != nil { throw ValidationError("--latest and --run exclude each other") }
        }
        func run() throws {
            try finish(
                HistoryTool.check(
                    database: database.db, runFile: runFile, metric: metric,
                    thresholdPercent: threshold, alpha: alpha))
        }
    }
}

/// Prints an outcome and exits with its status.
private func finish(_ outcome: HistoryOutcome) throws {
    if !outcome.output.isEmpty { FileHandle.standardOutput.write(Data(outcome.output.utf8)) }
    for line in outcome.diagnostics { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    if outcome.exitCode != 0 { throw ExitCode(outcome.exitCode) }
}
