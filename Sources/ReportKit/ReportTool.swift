// The entry point behind `runloop report`: reads a results file and the targets file, prints the summary and the
// targets, and writes the HTML page. The CLI only parses arguments.
import Foundation
import ResultsKit

/// The values of `runloop report`.
public struct ReportOptions: Sendable, Equatable {
    /// The results CSV.
    var file: String
    /// More results CSVs of the same build, measured in separate processes: the report is then the spread of each
    /// target's figure across all the files (``TargetSpread``), not the summary of one.
    var moreFiles: [String] = []
    /// The targets file; `nil` looks for Benchmarks/targets.yaml (see `ReportTool.defaultTargetsPath`).
    var targetsPath: String?
    /// Where to write the HTML page, if anywhere.
    var htmlPath: String?

    /// Creates options.
    public init(file: String, moreFiles: [String] = [], targetsPath: String? = nil, htmlPath: String? = nil) {
        self.file = file
        self.moreFiles = moreFiles
        self.targetsPath = targetsPath
        self.htmlPath = htmlPath
    }
}

/// What `runloop report` prints and how it ends.
public struct ReportOutcome: Sendable {
    /// The report, for stdout.
    public let output: String
    /// Error messages, for stderr.
    public let diagnostics: [String]
    /// 0 when the report was printed, 2 for bad input.
    public let exitCode: Int32
}

/// Runs the benchmark report from command-line values.
public enum ReportTool {
    /// The targets file's place in the repository.
    static let targetsFileName = "Benchmarks/targets.yaml"

    /// Reads the files, renders the report and writes the page. Exit status 0 when the report was printed (missed
    /// targets included: they are the report's content), 2 for bad input (a broken CSV or targets file: its file
    /// and line), never a crash.
    public static func run(_ options: ReportOptions) -> ReportOutcome {
        do {
            guard let targetsPath = options.targetsPath ?? defaultTargetsPath() else {
                throw InputError(
                    .fileNotFound, file: targetsFileName, field: "--targets",
                    detail: "not found in the current directory or above the runloop executable; "
                        + "pass --targets PATH")
            }
            let targets = try TargetsFile.load(path: targetsPath)
            if !options.moreFiles.isEmpty {
                guard options.htmlPath == nil else {
                    throw InputError(
                        .invalidArgument, file: "<arguments>", field: "--html",
                        detail: "the page is for one file; with several files the report is the "
                            + "targets' spread across them")
                }
                let paths = [options.file] + options.moreFiles
                let reports = try paths.map { BenchReport(file: try ResultsReader.read(path: $0), targets: targets) }
                return ReportOutcome(
                    output: TargetSpread(files: paths, reports: reports).text(), diagnostics: [],
                    exitCode: 0)
            }
            let file = try ResultsReader.read(path: options.file)
            let report = BenchReport(file: file, targets: targets)
            if let htmlPath = options.htmlPath {
                do {
                    try BenchPage.html(report).write(toFile: htmlPath, atomically: true, encoding: .utf8)
                } catch {
                    throw InputError(
                        .unwritableOutput, file: htmlPath, field: "--html",
                        detail: "cannot write the page: \(error.localizedDescription)")
                }
            }
            return ReportOutcome(output: report.text(), diagnostics: [], exitCode: 0)
        } catch let error as InputError {
            return ReportOutcome(output: "", diagnostics: [error.description], exitCode: InputError.exitStatus)
        } catch {
            return ReportOutcome(output: "", diagnostics: ["error: \(error)"], exitCode: InputError.exitStatus)
        }
    }

    /// Benchmarks/targets.yaml in the current directory or in a directory above the running executable (a build in
    /// .build/debug of a checkout finds its checkout's file).
    static func defaultTargetsPath() -> String? {
        if FileManager.default.fileExists(atPath: targetsFileName) { return targetsFileName }
        var directories: [String] = []
        // /proc/self/exe names the executable however it was started (a relative path, a symbolic link, PATH).
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? Bundle.main.executablePath ?? CommandLine.arguments.first ?? ""
        var directory = URL(fileURLWithPath: executable).standardizedFileURL.resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<6 {
            directories.append(directory.path)
            directory.deleteLastPathComponent()
        }
        return directories.map { ($0 as NSString).appendingPathComponent(targetsFileName) }
            .first { FileManager.default.fileExists(atPath: $0) }
    }
}
