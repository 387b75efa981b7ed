// `runloop results`: what scripts do with benchmark CSVs (merge the families' files, list rows by kind, write error
// rows), so that no script parses CSV itself. Parses arguments and calls ResultsKit's ResultsMerge.
import ArgumentParser
import Foundation
import ResultsKit

struct ResultsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "results",
        abstract: "Merge Google Benchmark CSVs, list their rows by kind, write error rows (for scripts/bench.sh).",
        discussion: "Exit status: 0, or 2 for bad input (the message names the file and line).",
        subcommands: [Merge.self, Rows.self, ErrorRows.self, Header.self])

    /// Reads every file, or exits 2 naming the first that is not a Google Benchmark CSV.
    static func read(_ paths: [String]) throws -> [RawResultsFile] {
        do {
            return try paths.map(RawResultsFile.read)
        } catch let error as InputError {
            FileHandle.standardError.write(Data("runloop results: \(error.description)\n".utf8))
            throw ExitCode(InputError.exitStatus)
        }
    }

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the files' rows under one header (the union of their counters), the first file's context "
                + "as \"# gb: ...\" lines first, without Google Benchmark's _cv rows.")

        @Argument(help: "Google Benchmark CSVs, in the order their rows are to appear.")
        var files: [String]

        func run() throws {
            FileHandle.standardOutput.write(Data(ResultsMerge.merge(try ResultsCommand.read(files)).utf8))
        }
    }

    struct Rows: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the rows of the files (as CSV lines, or their names), of one kind if asked.")

        @Option(
            help: ArgumentHelp(
                "measured (rows with figures), error (\"error: ...\" rows), skipped "
                    + "(\"skipped: ...\" rows) or other-error.", valueName: "kind"))
        var kind: RawResultRow.Status?

        @Option(help: ArgumentHelp("Only rows whose error message starts with this text.", valueName: "text"))
        var messagePrefix: String?

        @Flag(help: "Print each row's benchmark name only.")
        var names = false

        @Argument(help: "Google Benchmark CSVs.")
        var files: [String]

        func run() throws {
            let text = ResultsMerge.rows(
                try ResultsCommand.read(files), status: kind, messagePrefix: messagePrefix,
                namesOnly: names)
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }

    struct ErrorRows: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "error-rows",
            abstract: "Print a CSV with Google Benchmark's header and one error row per name, with the message.")

        @Option(help: ArgumentHelp("The rows' message: \"error: ...\" or \"skipped: ...\".", valueName: "text"))
        var message: String

        @Argument(help: "Benchmark names.")
        var names: [String] = []

        func run() throws {
            FileHandle.standardOutput.write(Data(ResultsMerge.errorRows(names: names, message: message).utf8))
        }
    }

    struct Header: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print Google Benchmark's CSV header, with these counter columns after its own.")

        @Argument(help: "Counter columns.")
        var counters: [String] = []

        func run() throws {
            print(ResultsMerge.header(counters: counters))
        }
    }
}

extension RawResultRow.Status: ExpressibleByArgument {}
