// `runloop report`: parses arguments and hands them to ReportKit's ReportTool; all logic lives there.
import ArgumentParser
import Foundation
import ReportKit

/// The summary and the targets of one benchmark results file, and its HTML page.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract:
            "Summarise a benchmark results file: tables per family, the engines' findings, the targets met and missed.",
        discussion: """
            runloop report results/FILE.csv   prints what `runloop bench` prints after a run.
            runloop report FILE.csv --html page.html   also writes one self-contained page (inline SVG charts).
            runloop report RUN1.csv RUN2.csv ...   files of one build measured in separate processes (e.g. \
            `runloop bench --filter BM_WakeLatency` run five times: scripts/bench-stability.sh): each target's figure \
            in every file, how far it \
            moves ((largest - smallest) / median) against the room its bound leaves, and whether the verdict held.

            The summary tables and the targets come from Benchmarks/targets.yaml (the file's own comments say how \
            to add one). A target whose rows are not in the file is "not measured", not missed.

            Exit status: 0 when the report was printed (missed targets included), 2 for bad input (the message \
            names the file, line and field).
            """)

    @Argument(help: "A results CSV written by `runloop bench` (or any Google Benchmark CSV).")
    var file: String

    @Argument(help: "More results CSVs of the same build: report the targets' spread across all the files.")
    var more: [String] = []

    @Option(
        help: ArgumentHelp("The targets file (default: Benchmarks/targets.yaml of the checkout).", valueName: "path"))
    var targets: String?

    @Option(help: ArgumentHelp("Write the report as one self-contained HTML page to this file.", valueName: "file"))
    var html: String?

    func run() throws {
        let outcome = ReportTool.run(ReportOptions(file: file, moreFiles: more, targetsPath: targets, htmlPath: html))
        if !outcome.output.isEmpty { FileHandle.standardOutput.write(Data(outcome.output.utf8)) }
        for line in outcome.diagnostics { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        if outcome.exitCode != 0 { throw ExitCode(outcome.exitCode) }
    }
}
