// `runloop compare`: parses arguments and hands them to CompareKit; all logic lives there.
import ArgumentParser
import CompareKit
import Foundation

/// Compares benchmark result CSVs with statistics, a regression gate and a chart.
struct CompareCommand: ParsableCommand {
    /// The subcommand's name and help.
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare benchmark result CSVs: medians, Mann-Whitney U, a regression gate and a chart.",
        discussion: """
            runloop compare BASE.csv NEW.csv   compares two runs (or two machines) benchmark by benchmark.
            runloop compare FILE --engines cf,ref   compares engine ref against engine cf in one file.

            Exit status: 0 when no benchmark is significantly slower beyond the threshold, 1 when one \
            is, 2 for bad input (the message names the file, line and field).
            """)

    /// BASE.csv NEW.csv, or FILE with --engines.
    @Argument(help: "BASE.csv NEW.csv, or one FILE with --engines.")
    var files: [String] = []

    /// The compared column.
    @Option(help: "real_time, cpu_time or a counter column (e.g. latency_p50_ns).")
    var metric: String = "real_time"

    /// The threshold in percent.
    @Option(help: "Smallest relative change, in percent, that counts as faster or slower.")
    var threshold: Double = 5

    /// The significance level.
    @Option(help: "Significance level of the two-sided Mann-Whitney U test.")
    var alpha: Double = 0.05

    /// The output format.
    @Option(help: "The output format.")
    var format: OutputFormat = .table

    /// Two engines to compare within one file.
    @Option(help: "A,B: compare engine B against engine A in one file (ratio = B / A).")
    var engines: String?

    /// Which way is better, when not the metric's default.
    @Flag var direction: Direction?

    /// `--higher-is-better` or `--lower-is-better`.
    enum Direction: String, EnumerableFlag {
        case higherIsBetter, lowerIsBetter

        static func help(for value: Direction) -> ArgumentHelp? {
            switch value {
            case .higherIsBetter: return "Larger values are better (default for *_per_second counters)."
            case .lowerIsBetter: return "Smaller values are better (default for times and other counters)."
            }
        }
    }

    /// Where to write the SVG chart.
    @Option(help: "Write an SVG chart of the ratios and their spread to this file.")
    var plot: String?

    /// Runs the comparison, printing the report to stdout and problems to stderr.
    func run() throws {
        let outcome = CompareTool.run(
            CompareOptions(
                files: files, metric: metric, thresholdPercent: threshold, alpha: alpha, format: format.rawValue,
                engines: engines, higherIsBetter: direction.map { $0 == .higherIsBetter }, plotPath: plot))
        if !outcome.output.isEmpty {
            FileHandle.standardOutput.write(Data(outcome.output.utf8))
        }
        for line in outcome.diagnostics {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        if outcome.exitCode != 0 {
            throw ExitCode(outcome.exitCode)
        }
    }
}

extension OutputFormat: ExpressibleByArgument {}
