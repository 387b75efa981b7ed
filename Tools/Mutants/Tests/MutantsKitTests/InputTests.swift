// Bad input names its file and line; blame traces a compile error back to its mutant.

import Foundation
import Testing

@testable import MutantsKit

@Suite struct InputTests {
    let mutants = Generator.generate(sources: [("Fixture.swift", Fixtures.comparison)]).mutants

    func temporaryFile(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "ref-mutants-test-\(UUID().uuidString).tsv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func equivalentsAreRead() throws {
        let path = try temporaryFile("# comment\n\(mutants[1].key)\tthe operands are never equal\n")
        let equivalents = try Equivalents.read(path: path, mutants: mutants)
        #expect(equivalents == [mutants[1].key: "the operands are never equal"])
    }

    @Test func aStaleKeyNamesFileAndLine() throws {
        let path = try temporaryFile("# comment\n\(mutants[1].key)\twhy\nFixture.swift gone #0: x => y\twhy\n")
        #expect {
            _ = try Equivalents.read(path: path, mutants: mutants)
        } throws: { error in
            let error = error as? InputError
            return error?.file == path && error?.line == 3 && error?.description.contains("no mutant") == true
        }
    }

    @Test func aLineWithoutReasonNamesFileAndLine() throws {
        let path = try temporaryFile("\(mutants[1].key)\n")
        #expect {
            _ = try Equivalents.read(path: path, mutants: mutants)
        } throws: { error in
            (error as? InputError)?.line == 1
        }
    }

    @Test func manifestRoundTrip() throws {
        let path = try temporaryFile(Manifest.write(mutants))
        let read = try Manifest.read(path: path)
        #expect(read.map(\.key) == mutants.map(\.key))
        #expect(read.map(\.id) == mutants.map(\.id))
    }

    @Test func blameFindsTheInnermostMutant() {
        let generation = Generator.generate(sources: [("Fixture.swift", Fixtures.comparison)])
        let text = generation.files[0].text
        let spans = generation.spans.map { ($0.span.range, $0.span.ids) }
        // Line 2 of the instrumented file: an error on the `<=` of the replace-comparison mutant's text.
        let line = text.split(separator: "\n", omittingEmptySubsequences: false)[1]
        let column = line.distance(from: line.startIndex, to: line.range(of: "a <= b")!.lowerBound) + 1
        let log = "/tmp/x/Fixture.swift:2:\(column): error: something\n/tmp/x/Other.swift:1:1: error: elsewhere\n"
        let errors = Blame.errors(inLog: log, fileNames: ["Fixture.swift"])
        #expect(errors == [Blame.CompileError(file: "Fixture.swift", line: 2, column: column)])
        #expect(Blame.mutants(for: errors[0], text: text, spans: spans) == [2])
        // Outside every mutant's text: nothing to blame.
        let outside = Blame.CompileError(file: "Fixture.swift", line: 1, column: 1)
        #expect(Blame.mutants(for: outside, text: text, spans: spans) == nil)
    }

    @Test func blameReadsTheExcerptsMarks() {
        // swiftc's default style: an error outside the mutants' text whose excerpt marks where the value was consumed.
        let log = """
            /tmp/x/Fixture.swift:3:33: error: 'entry' used after consume
             3 |         let entry = make()
               |             `- error: 'entry' used after consume
             4 |         use(consume entry)
               |                     `- note: consumed here
            [12/20] Compiling Other

            """
        #expect(
            Blame.errors(inLog: log, fileNames: ["Fixture.swift"]) == [
                Blame.CompileError(file: "Fixture.swift", line: 3, column: 33),
                Blame.CompileError(file: "Fixture.swift", line: 3, column: 13),
                Blame.CompileError(file: "Fixture.swift", line: 4, column: 21),
            ]
        )
    }

    @Test func selectionRejectsUnknownNames() {
        #expect(throws: InputError.self) { _ = try Selection(only: ["999"]).apply(to: mutants) }
        #expect(throws: InputError.self) { _ = try Selection(files: ["Nope.swift"]).apply(to: mutants) }
        #expect((try? Selection(operators: [.negateCondition]).apply(to: mutants))?.count == 1)
        // A sample is the same for the same seed.
        let first = try? Selection(sample: 1, seed: 7).apply(to: mutants).map(\.id)
        #expect(first?.count == 1)
        #expect(first == (try? Selection(sample: 1, seed: 7).apply(to: mutants).map(\.id)))
    }
}
