// ref-mutants: mutant schemata of the reference loop. It parses its arguments and calls MutantsKit.Commands.
//
//   ref-mutants generate --sources DIR --out DIR --manifest FILE --spans FILE [--exclude FILE]
//   ref-mutants blame --out DIR --manifest FILE --spans FILE --log FILE
//   ref-mutants select --manifest FILE --equivalents FILE [--coverage FILE] [SELECTION] [--format ids|tsv]
//   ref-mutants report --manifest FILE --equivalents FILE --semantic FILE --results FILE --coverage FILE
//                      [SELECTION] [--format table|tsv] [--wall SECONDS]
//
// SELECTION: --only ID|KEY (repeatable), --operator NAME[,NAME], --file NAME[,NAME], --sample N [--seed S].
// Exit status: 0 done, 1 (blame) an error in no mutant's text, 2 bad arguments or input (file and line named).

import Foundation
import MutantsKit

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ref-mutants: \(message)\n".utf8))
    exit(2)
}

enum Usage {
    static let text = """
        usage: ref-mutants generate --sources DIR --out DIR --manifest FILE --spans FILE [--exclude FILE]
               ref-mutants blame --out DIR --manifest FILE --spans FILE --log FILE
               ref-mutants select --manifest FILE --equivalents FILE [--coverage FILE] [SELECTION] [--format ids|tsv]
               ref-mutants report --manifest FILE --equivalents FILE --semantic FILE --results FILE --coverage FILE
                                  [SELECTION] [--format table|tsv] [--wall SECONDS]
        SELECTION: --only ID|KEY (repeatable), --operator NAME[,NAME], --file NAME[,NAME], --sample N [--seed S]
        operators: \(MutationOperator.allCases.map(\.rawValue).joined(separator: ", "))
        """
}

/// Parses the arguments and runs the command; everything is local, so nothing is shared between threads.
func run(_ arguments: [String]) {
    var arguments = arguments
    guard let command = arguments.first else { fail(Usage.text) }
    arguments.removeFirst()
    var options: [String: String] = [:]
    var only: [String] = []
    let known: [String: Set<String>] = [
        "generate": ["--sources", "--out", "--manifest", "--spans", "--exclude"],
        "blame": ["--out", "--manifest", "--spans", "--log"],
        "select": [
            "--manifest", "--equivalents", "--coverage", "--only", "--operator", "--file", "--format", "--sample",
            "--seed",
        ],
        "report": [
            "--manifest", "--equivalents", "--semantic", "--results", "--coverage", "--only", "--operator", "--file",
            "--format", "--wall", "--sample", "--seed",
        ],
    ]
    guard let allowed = known[command] else { fail("unknown command '\(command)'\n\(Usage.text)") }
    while !arguments.isEmpty {
        let name = arguments.removeFirst()
        guard allowed.contains(name) else { fail("\(command): unknown option '\(name)'\n\(Usage.text)") }
        guard !arguments.isEmpty else { fail("\(command): \(name) needs a value") }
        let value = arguments.removeFirst()
        if name == "--only" { only.append(value) } else { options[name] = value }
    }
    func required(_ name: String) -> String {
        guard let value = options[name] else { fail("\(command): \(name) is required\n\(Usage.text)") }
        return value
    }
    func selection() -> Selection {
        var operators: Set<MutationOperator> = []
        for name in (options["--operator"] ?? "").split(separator: ",") {
            guard let mutationOperator = MutationOperator(rawValue: String(name)) else {
                fail(
                    "--operator: no operator '\(name)' ("
                        + MutationOperator.allCases.map(\.rawValue).joined(separator: ", ") + ")"
                )
            }
            operators.insert(mutationOperator)
        }
        let files = Set((options["--file"] ?? "").split(separator: ",").map(String.init))
        var sample: Int? = nil
        if let text = options["--sample"] {
            guard let count = Int(text), count > 0 else { fail("--sample needs a positive number") }
            sample = count
        }
        var seed: UInt64 = 1
        if let text = options["--seed"] {
            guard let value = UInt64(text) else { fail("--seed needs a number") }
            seed = value
        }
        return Selection(only: only, operators: operators, files: files, sample: sample, seed: seed)
    }

    do {
        switch command {
        case "generate":
            let count = try Commands.generate(
                sources: required("--sources"), out: required("--out"), manifest: required("--manifest"),
                spans: required("--spans"), excludeFile: options["--exclude"]
            )
            print("ref-mutants: \(count) mutants")
        case "blame":
            do {
                let keys = try Commands.blame(
                    out: required("--out"), manifest: required("--manifest"), spans: required("--spans"),
                    log: required("--log")
                )
                for key in keys { print(key) }
            } catch {
                FileHandle.standardError.write(Data("ref-mutants: \(error)\n".utf8))
                exit(1)
            }
        case "select":
            let format = options["--format"] ?? "ids"
            guard format == "ids" || format == "tsv" else { fail("select: --format is ids or tsv, not '\(format)'") }
            let mutants = try Commands.select(
                manifest: required("--manifest"), equivalents: required("--equivalents"),
                coverage: options["--coverage"],
                selection: selection()
            )
            for mutant in mutants {
                print(
                    format == "ids" ? String(mutant.id) : "\(mutant.id)\t\(mutant.file):\(mutant.line)\t\(mutant.key)")
            }
        default:
            let format = options["--format"] ?? "table"
            guard format == "table" || format == "tsv" else {
                fail("report: --format is table or tsv, not '\(format)'")
            }
            var wall: Int? = nil
            if let text = options["--wall"] {
                guard let seconds = Int(text) else { fail("report: --wall needs a number of seconds") }
                wall = seconds
            }
            print(
                try Commands.report(
                    manifest: required("--manifest"), equivalents: required("--equivalents"),
                    semantic: required("--semantic"), results: required("--results"), coverage: required("--coverage"),
                    selection: selection(), format: format, wallSeconds: wall
                ),
                terminator: ""
            )
        }
    } catch {
        fail("\(error)")
    }
}

run(Array(CommandLine.arguments.dropFirst()))
