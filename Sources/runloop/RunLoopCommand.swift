// `runloop`: the command-line front of RunLoopSuite. Parses arguments and calls the libraries; nothing else.

import ArgumentParser
import Foundation

@main
struct RunLoopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runloop",
        abstract: "Check run loops against the CFRunLoop conformance spec, and compare benchmark results.",
        discussion:
            "Exit codes: 0 success, 1 a check failed (a case not as expected, a significant regression), 2 bad input or usage.",
        subcommands: [
            ConformCommand.self, EnginesCommand.self, RulesCommand.self, FuzzCommand.self, CompareCommand.self,
            BenchCommand.self, ReportCommand.self, HistoryCommand.self, SiteCommand.self,
            FaultsCommand.self, WorkerCommand.self,
        ]
    )

    /// Runs the command; usage errors exit 2 like the other bad-input errors (ArgumentParser would say 64).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
