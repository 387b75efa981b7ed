// The entry point behind `runloop report`: reads a results file and the targets file, prints the summary and the
// targets, and writes the HTML page. The CLI only parses arguments.
import Foundation

/// The values of `runloop report`.
public struct ReportOptions: Sendable, Equatable {
    /// The results CSV.
    public var file: String
    /// More results CSVs of the same build, measured in separate processes: the report is then the spread of each
    /// target's figure across all the files (``TargetSpread``), not the summary of one.
    public var moreFiles: [String] = []
    /// The targets file; `nil` looks for Benchmarks/targets.yaml (see `ReportTool.defaultTargetsPath`).
    public var targetsPath: String?
    /// Where to write the HTML page, if anywhere.
    public var htmlPath: String?

    /// Creates options.
    public init(file: String, moreFiles: [String] = [], targetsPath: String? = nil, htmlPath: String? = nil) {
        self.file = file
        self.moreFiles = moreFiles
        self.targetsPath = targetsPath
        self.htmlPath = htmlPath
    }
}

/// Runs the benchmark report from command-line values.
public enum ReportTool {
    /// The targets file's place in the repository.
    public static let targetsFileName = "Benchmarks/targets.yaml"

    /// Reads the files, renders the report and writes the page. Exit status 0 when the report was printed (missed
    /// targets included: they are the report's content), 2 for bad input (a broken CSV or targets file: its file
    /// and line), never a crash.
    public static func run(_ options: ReportOptions) -> CompareOutcome {
        do {
            guard let targetsPath = options.targetsPath ?? defaultTargetsPath() else {
                throw CompareInputError(.fileNotFound, file: targetsFileName, field: "--targets",
                                        detail: "not found in the current directory or above the runloop executable; "
                                            + "pass --targets PATH")
            }
            let targets = try TargetsFile.load(path: targetsPath)
            if !options.moreFiles.isEmpty {
                guard options.htmlPath == nil else {
                    throw CompareInputError(.invalidArgument, file: "<arguments>", field: "--html",
                                            detail: "the page is for one file; with several files the report is the "
                                                + "targets' spread across them")
                }
                let paths = [options.file] + options.moreFiles
                let reports = try paths.map { BenchReport(file: try ResultsReader.read(path: $0), targets: targets) }
                return CompareOutcome(output: TargetSpread(files: paths, reports: reports).text(), diagnostics: [],
                                      exitCode: 0, report: nil)
            }
            let file = try ResultsReader.read(path: options.file)
            let report = BenchReport(file: file, targets: targets)
            if let htmlPath = options.htmlPath {
                do {
                    try BenchPage.html(report).write(toFile: htmlPath, atomically: true, encoding: .utf8)
                } catch {
                    throw CompareInputError(.unwritableOutput, file: htmlPath, field: "--html",
                                            detail: "cannot write the page: \(error.localizedDescription)")
                }
            }
            return CompareOutcome(output: report.text(), diagnostics: [], exitCode: 0, report: nil)
        } catch let error as CompareInputError {
            return CompareOutcome(output: "", diagnostics: [error.description], exitCode: CompareTool.badInputExitCode,
                                  report: nil)
        } catch {
            return CompareOutcome(output: "", diagnostics: ["error: \(error)"], exitCode: CompareTool.badInputExitCode,
                                  report: nil)
        }
    }

    /// Benchmarks/targets.yaml in the current directory or in a directory above the running executable (a build in
    /// .build/debug of a checkout finds its checkout's file).
    public static func defaultTargetsPath() -> String? {
        if FileManager.default.fileExists(atPath: targetsFileName) { return targetsFileName }
        var directories: [String] = []
        // /proc/self/exe names the executable however it was started (a relative path, a symbolic link, PATH).
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
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
