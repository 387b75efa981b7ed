// `runloop rules`: rules x cases, from the rule catalogue and the spec.

import ArgumentParser
import ConformanceKit
import ConformanceSpec
import Foundation

struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "List the rule catalogue's rules with the cases that cite each.",
        discussion:
            "Exits 0 iff every rule has at least \(RuleCoverage.minimumCases) cases and every rule id the spec cites is in the catalogue, 1 otherwise, 2 for a malformed spec or catalogue or bad arguments. With --seeds: exits 0, or 2 for a malformed seed claims file (a case it cites missing from the spec, an unknown verdict)."
    )

    @Option(name: .long, help: "Output format: table or json.")
    var format: Format = .table

    @Option(name: .long, help: "A spec file or directory of them (default: the spec shipped with the package).")
    var spec: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A rule catalogue to read instead of the shipped one (its format: INTERPRETING.md).", valueName: "file"))
    var catalogue: String?

    @Flag(
        name: .long,
        help:
            "List the seed write-ups' claims instead: each with its verdict on CoreFoundation and the cases that check it."
    )
    var seeds = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A seed claims file to read instead of the shipped seeds.yaml (implies --seeds).", valueName: "file"))
    var seedsFile: String?

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json
    }

    func run() throws {
        guard let specPath = spec ?? SpecResources.casesDirectory else {
            throw failure("the shipped spec was not found next to the executable; pass --spec")
        }
        if seeds || seedsFile != nil {
            let claims: SeedClaims
            do {
                claims = try SeedClaims.load(path: seedsFile, specPath: specPath)
            } catch let error as SpecError {
                throw failure(error.description)
            }
            print(format == .table ? claims.renderTable() : claims.renderJSON())
            return
        }
        let coverage: RuleCoverage
        do {
            let rules = try catalogue.map { try RuleCatalogue.load(path: $0) } ?? RuleCatalogue.shipped()
            coverage = try RuleCoverage.load(specPath: specPath, catalogue: rules)
        } catch let error as SpecError {
            throw failure(error.description)
        }
        print(format == .table ? coverage.renderTable() : coverage.renderJSON())
        if !coverage.isComplete { throw ExitCode(1) }
    }

    private func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("runloop rules: \(message)\n".utf8))
        return ExitCode(2)
    }
}
