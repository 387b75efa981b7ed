// The fault files of scripts/mutation.sh as `runloop faults` reads them (MutationFaults): fields, escapes decoded as
// the script's `printf %b` decoded them, and each mistake named with its file and line.

import Foundation
import Testing

@testable import ConformanceKit

@Suite("Mutation fault files")
struct MutationFaultsTests {
    static let catalogue = Result { try RuleCatalogue.shipped() }
    static let rule = "run.common-modes-refused"

    static func parse(_ text: String) throws -> [MutationFault] {
        try MutationFaults.parse(text, file: "faults.tsv", catalogue: try catalogue.get())
    }

    @Test func aFaultHasSixFieldsWithItsEscapesDecoded() throws {
        let faults = try Self.parse(
            "# a comment\n\nf1\t\(Self.rule)\tA.swift\tif a {\\n\\tb(\"\\\\(x)\")\\q\t\tdrops it\n")
        #expect(faults.count == 1)
        let fault = try #require(faults.first)
        #expect(
            fault.id == "f1" && fault.rule == Self.rule && fault.file == "A.swift" && fault.description == "drops it")
        #expect(fault.text == "if a {\n\tb(\"\\(x)\")\\q")
        #expect(fault.replacement == "")
        #expect(fault.location.line == 3)
    }

    @Test func mistakesNameTheFileAndLine() throws {
        let cases: [(String, String)] = [
            ("f1\t\(Self.rule)\tA.swift\ttext\tnew\n", "faults.tsv:1: a fault needs six tab-separated fields"),
            ("\nf1\t\(Self.rule)\t\ttext\tnew\twhat\n", "faults.tsv:2: a fault needs six tab-separated fields"),
            (
                "f1\tno.such-rule\tA.swift\ttext\tnew\twhat\n",
                "faults.tsv:1: field 'rule': fault f1: rule 'no.such-rule'"
            ),
            (
                "f1\t\(Self.rule)\tA.swift\ta\tb\tc\nf1\t\(Self.rule)\tB.swift\ta\tb\tc\n",
                "faults.tsv:2: fault id 'f1' is used twice"
            ),
        ]
        for (text, message) in cases {
            do {
                _ = try Self.parse(text)
                Issue.record("no error for \(text)")
            } catch let error as SpecError {
                #expect(error.description.hasPrefix(message), "\(error)")
            }
        }
    }

    /// The shipped files load, and every fault's text is one that a file of Sources/RefRunLoop holds.
    @Test func theShippedFaultFilesLoad() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for name in ["faults.tsv", "faults-blind.tsv"] {
            let path = root.appendingPathComponent("scripts/mutation/\(name)").path
            let faults = try MutationFaults.load(path: path, catalogue: try Self.catalogue.get())
            #expect(!faults.isEmpty, "\(name)")
            for fault in faults {
                let source = try String(
                    contentsOfFile: root.appendingPathComponent("Sources/RefRunLoop/\(fault.file)").path,
                    encoding: .utf8)
                #expect(source.contains(fault.text), "\(name): \(fault.id)")
            }
        }
    }
}
