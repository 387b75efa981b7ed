// Spec format 1.1's constructs in the loader and the case writer: items created by a step, `runForever`, `took`; the
// version rule (a 1.1 construct in a version-1 file is refused, naming the case and the construct); bad spellings give
// messages naming the file, line, case and field.

import ConformanceTestSupport
import Testing

@testable import ConformanceKit

@Suite("Spec format 1.1")
struct SpecFormat11Tests {
    static func document(
        version: String = "1.1", items: String = "t: {timer: {fire: -1, created: later}}",
        steps: String = "- create: t\n      - add: t\n      - run",
        expect: String = "- create t\n      - run default"
    ) -> String {
        OneCaseDocument.text(version: version, items: items, steps: steps, expect: expect, markDone: false)
    }

    func loadError(_ text: String) -> SpecError? { specLoadError(text, file: "cases/new.yaml") }

    @Test func createdLaterLoads() throws {
        let file = try SpecLoader.parse(Self.document(), file: "cases/new.yaml")
        #expect(file.version == .v1_1)
        let specCase = try #require(file.cases.first)
        #expect(specCase.items.first?.createdByStep == true)
        #expect(specCase.laterConstructs == ["created: later", "create"])
        #expect(specCase.formatVersion == .v1_1)
    }

    @Test func versionOneFileRefusesLaterConstructs() throws {
        let error = try #require(loadError(Self.document(version: "1")))
        #expect(error.caseID == "area.new-case")
        #expect(error.message.contains("spec_version: 1.1"))
        #expect(error.message.contains("created: later"))
        let forever = try #require(
            loadError(
                Self.document(
                    version: "1", items: "s: source0",
                    steps: "- add: s\n      - runForever", expect: "- runForever")))
        #expect(forever.message.contains("runForever"))
    }

    @Test func unknownVersionNamesTheKnownOnes() throws {
        let error = try #require(loadError(Self.document(version: "1.9")))
        #expect(error.message.contains("spec_version 1.9 is not supported"))
        #expect(error.message.contains("1, 1.1, 1.2, 1.3 and 1.4"))
    }

    @Test func laterItemNeverCreated() throws {
        let error = try #require(loadError(Self.document(steps: "- run", expect: "- run default")))
        #expect(error.message.contains("no 'create: t' action"))
        #expect(error.location.line == 7)
    }

    @Test func createOfAnItemMadeBeforeTheSteps() throws {
        let error = try #require(loadError(Self.document(items: "t: {timer: {fire: -1}}")))
        #expect(error.message.contains("created: later"))
        #expect(error.field == "steps[0].create")
    }

    @Test func badCreatedValueAndBlock() throws {
        let value = try #require(loadError(Self.document(items: "t: {timer: {fire: -1, created: soon}}")))
        #expect(value.message.contains("created must be 'later'"))
        let block = try #require(
            loadError(
                Self.document(items: "t: {timer: {fire: -1, created: later}}\n      b: {block: {created: later}}")))
        #expect(block.message.contains("a block is a name"))
    }

    @Test func timingBounds() throws {
        let tight = try #require(
            loadError(
                Self.document(
                    items: "s: source0", steps: "- add: s\n      - run: {seconds: 0, took: {under: 0.5}}",
                    expect: "- run default")))
        #expect(tight.message.contains("under must be at least 1"))
        #expect(tight.field?.hasSuffix("took.under") == true)
        let poll = try #require(
            loadError(
                Self.document(
                    items: "s: source0", steps: "- add: s\n      - run: {seconds: 0, took: atLeastTimeout}",
                    expect: "- run default")))
        #expect(poll.message.contains("atLeastTimeout needs a run with a finite timeout"))
        let close = try #require(
            loadError(
                Self.document(
                    items: "s: source0", steps: "- add: s\n      - run: {seconds: 2, took: {atLeast: 2, under: 2.5}}",
                    expect: "- run default")))
        #expect(close.message.contains("above atLeast"))
        let word = try #require(
            loadError(
                Self.document(
                    items: "s: source0", steps: "- add: s\n      - runForever: {took: quickly}", expect: "- runForever")
            ))
        #expect(word.message.contains("unknown timing 'quickly'"))
    }

    @Test func traceGrammarOfNewLines() throws {
        let bad = try #require(loadError(Self.document(expect: "- create t\n      - runForever stopped")))
        #expect(bad.message.contains("runForever returned"))
    }

    /// The fuzzer's writer writes 1.1 constructs back in a form the loader reads as the same case.
    @Test func writerRoundTrip() throws {
        let text = Self.document(
            items: "t: {timer: {fire: -1, created: later}}\n      s: source0",
            steps:
                "- add: s\n      - create: t\n      - add: t\n      - run: {seconds: 0.2, took: atLeastTimeout}\n      - runForever: {took: {under: 2}}",
            expect: "- create t")
        let original = try #require(try SpecLoader.parse(text, file: "a.yaml").cases.first)
        let written = CaseWriter.file([original])
        #expect(written.hasPrefix("spec_version: 1.1\n"))
        let reread = try #require(try SpecLoader.parse(written, file: "b.yaml").cases.first)
        #expect(CaseWriter.file([reread]) == written)
        #expect(reread.items.map(\.createdByStep) == [true, false])
    }
}
