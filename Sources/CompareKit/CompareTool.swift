// The entry point behind `runloop compare`: validates the command-line values, reads the files,
// compares, renders, writes the plot, and decides the exit status. The CLI only parses arguments.
import Foundation
import ResultsKit

/// The values of `runloop compare`, as typed by the user (validated by `CompareTool.run`).
public struct CompareOptions: Sendable, Equatable {
    /// BASE.csv and NEW.csv, or the single file of `--engines`.
    var files: [String]
    /// `real_time`, `cpu_time` or a counter column name.
    var metric: String
    /// The threshold in percent.
    var thresholdPercent: Double
    /// The significance level.
    var alpha: Double
    /// `table`, `markdown`, `json` or `csv`.
    var format: String
    /// `A,B` to compare engine B against engine A within one file.
    var engines: String?
    /// Force higher-is-better (`true`) or lower-is-better (`false`); `nil` decides from the metric.
    var higherIsBetter: Bool?
    /// Where to write the SVG chart, if anywhere.
    var plotPath: String?

    /// Creates options; the defaults match the command's defaults.
    public init(
        files: [String], metric: String = "real_time", thresholdPercent: Double = 5, alpha: Double = 0.05,
        format: String = "table", engines: String? = nil, higherIsBetter: Bool? = nil, plotPath: String? = nil
    ) {
        self.files = files
        self.metric = metric
        self.thresholdPercent = thresholdPercent
        self.alpha = alpha
        self.format = format
        self.engines = engines
        self.higherIsBetter = higherIsBetter
        self.plotPath = plotPath
    }
}

/// What `runloop compare` prints and how it exits.
public struct CompareOutcome: Sendable {
    /// The rendered report for stdout (empty on bad input).
    public let output: String
    /// Messages for stderr: the input error, or warnings when the format is machine-readable.
    public let diagnostics: [String]
    /// 0: no regression; 1: a benchmark is significantly slower beyond the threshold; 2: bad input.
    public let exitCode: Int32
    /// The report, when the inputs could be compared.
    let report: ComparisonReport?
}

/// Runs a comparison from command-line values.
public enum CompareTool {
    /// The exit status for bad input.
    static let badInputExitCode = InputError.exitStatus

    /// Validates `options`, reads and compares the files, renders the report and writes the plot.
    /// Never throws and never traps on bad input: errors become exit status 2 and a diagnostic
    /// naming the file, line and field.
    public static func run(_ options: CompareOptions) -> CompareOutcome {
        do {
            let (report, format) = try compare(options)
            var diagnostics: [String] = []
            if format == .json || format == .csv {
                diagnostics = report.warnings.map { "warning: \($0)" }
            }
            if let plotPath = options.plotPath {
                try RatioPlot.write(report, to: plotPath)
            }
            return CompareOutcome(
                output: ComparisonRenderer.render(report, as: format), diagnostics: diagnostics,
                exitCode: report.exitCode, report: report)
        } catch let error as InputError {
            return CompareOutcome(output: "", diagnostics: [error.description], exitCode: badInputExitCode, report: nil)
        } catch {
            return CompareOutcome(output: "", diagnostics: ["error: \(error)"], exitCode: badInputExitCode, report: nil)
        }
    }

    /// Validates `options`, reads the files and compares them.
    /// - Throws: `InputError` for bad arguments or bad files.
    static func compare(_ options: CompareOptions) throws -> (ComparisonReport, OutputFormat) {
        let arguments = "<arguments>"
        guard let format = OutputFormat(rawValue: options.format) else {
            throw InputError(
                .invalidArgument, file: arguments, field: "--format",
                detail: "'\(options.format)' is not one of table, markdown, json, csv")
        }
        guard options.thresholdPercent.isFinite, options.thresholdPercent >= 0 else {
            throw InputError(
                .invalidArgument, file: arguments, field: "--threshold",
                detail: "the threshold must be a percentage >= 0, not \(options.thresholdPercent)")
        }
        guard options.alpha > 0, options.alpha < 1 else {
            throw InputError(
                .invalidArgument, file: arguments, field: "--alpha",
                detail: "alpha must be between 0 and 1 (exclusive), not \(options.alpha)")
        }
        let metricName = options.metric.trimmingCharacters(in: .whitespaces)
        guard !metricName.isEmpty, !metricName.contains(","),
            !["name", "iterations", "time_unit", "label", "error_occurred", "error_message"].contains(metricName)
        else {
            throw InputError(
                .invalidArgument, file: arguments, field: "--metric",
                detail: "'\(options.metric)' is not real_time, cpu_time or a counter column")
        }
        let settings = ComparisonSettings(
            metric: Metric(metricName), thresholdPercent: options.thresholdPercent,
            alpha: options.alpha, higherIsBetter: options.higherIsBetter)
        if let engines = options.engines {
            let names = engines.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard names.count == 2, !names[0].isEmpty, !names[1].isEmpty, names[0] != names[1] else {
                throw InputError(
                    .invalidArgument, file: arguments, field: "--engines",
                    detail: "expected two different engine names such as 'cf,ref', not '\(engines)'")
            }
            guard options.files.count == 1 else {
                throw InputError(
                    .invalidArgument, file: arguments, field: "FILE",
                    detail: "--engines takes exactly one results file, got \(options.files.count)")
            }
            let file = try ResultsReader.read(path: options.files[0])
            return (
                try Comparator.compareEngines(file: file, engines: (names[0], names[1]), settings: settings), format
            )
        }
        guard options.files.count == 2 else {
            throw InputError(
                .invalidArgument, file: arguments, field: "FILE",
                detail: "expected BASE.csv and NEW.csv (or one file with --engines A,B), "
                    + "got \(options.files.count) file(s)")
        }
        let base = try ResultsReader.read(path: options.files[0])
        let new = try ResultsReader.read(path: options.files[1])
        return (try Comparator.compare(base: base, new: new, settings: settings), format)
    }
}
