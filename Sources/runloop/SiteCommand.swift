// `runloop site DIR`: parses arguments and hands them to SiteKit; all logic lives there.
import ArgumentParser
import ConformanceKit
import Engines
import Foundation
import SiteKit

/// One static results site: the newest verdicts, conformance, benchmarks, trends, engines and rules.
struct SiteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "site",
        abstract: "Write the results site: the newest conformance and benchmark runs, trends, engines and rules.",
        discussion: """
            Writes index.html, conformance.html, bench.html, trends.html, engines.html and rules.html into DIR: \
            XHTML with inline CSS and SVG, no script, nothing from the network, relative links only, so the pages \
            work opened from disk. The conformance page comes from the JSON `runloop conform --json-out FILE` \
            writes; the benchmark page reports the newest CSV of --results by its '# date:' line; the trends come \
            from every CSV there (a history built in memory: results/history.sqlite is not touched).

            Exit status: 0 the site was written, 2 bad input (an unreadable CSV or JSON: the message names the file \
            and its line or field; nothing is written then).
            """)

    @Argument(help: ArgumentHelp("The directory to write the pages into (created if needed).", valueName: "dir"))
    var directory: String

    @Option(help: ArgumentHelp("The directory of results CSVs.", valueName: "dir"))
    var results: String = "results"

    @Option(
        help: ArgumentHelp(
            "The conformance JSON (default: RESULTS/conformance.json, which may be absent).",
            valueName: "file"))
    var conformance: String?

    @Option(
        help: ArgumentHelp(
            "The targets file (default: Benchmarks/targets.yaml of the checkout).",
            valueName: "path"))
    var targets: String?

    func run() throws {
        let engines = BuiltinEngines.catalogue.engines.map { EngineDescription($0) }
        let options = SiteOptions(
            directory: directory, resultsDirectory: results, conformancePath: conformance,
            targetsPath: targets, engines: engines)
        do {
            for path in try SiteBuilder.build(options) { print("wrote \(path)") }
        } catch let error as SiteError {
            FileHandle.standardError.write(Data("runloop site: \(error.description)\n".utf8))
            throw ExitCode(2)
        }
    }
}
