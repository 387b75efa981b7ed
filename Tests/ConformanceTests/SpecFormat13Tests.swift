// Spec format 1.3's Foundation verbs in the loader, the runner and the case writer: every verb and timer form loads
// and needs feature `foundation` without listing it; the version rule (a 1.3 construct in a 1.2 file is refused,
// naming the case and the construct); bad spellings name the file, line, case and field; an engine without
// Foundation's layer reports SKIP with its reason, and the engine `foundation` runs the verbs.

import CFEngine
import ConformanceTestSupport
import EngineKit
import FoundationEngine
import RefEngine
import Testing

@testable import ConformanceKit

@Suite("Spec format 1.3")
struct SpecFormat13Tests {
    static func document(
        version: String = "1.3", items: String = "s: source0\n      b: block", steps: String,
        expect: String = "- mark done"
    ) -> String {
        OneCaseDocument.text(version: version, items: items, steps: steps, expect: expect, markDone: true)
    }

    func load(_ text: String) throws -> SpecCase {
        try #require(try SpecLoader.parse(text, file: "cases/new.yaml").cases.first)
    }

    func loadError(_ text: String) -> SpecError? { specLoadError(text, file: "cases/new.yaml") }

    @Test func everyVerbLoadsAndNeedsFoundation() throws {
        let specCase = try load(
            Self.document(
                items: "s: source0\n      b: block\n      t: {timer: {interval: 1, repeats: false, form: scheduled}}",
                steps: """
                    - foundationRun
                          - runUntil: 0.5
                          - runBefore: {mode: default, seconds: 1, untilFlag: true}
                          - limitDate: common
                          - acceptInput: other
                          - performInModes: [b, [default, common]]
                          - performInModes: b
                          - setFlag
                    """))
        #expect(specCase.formatVersion == .v1_3)
        #expect(specCase.features == [.foundation])
        #expect(specCase.items[2].foundationForm == .scheduled)
        #expect(specCase.items[2].repeats == false)
        guard case .runBefore(.default, 1, true) = specCase.steps[2],
            case .acceptInput(.named("other"), 0) = specCase.steps[4],
            case .performInModes("b", [.default, .common]?) = specCase.steps[5],
            case .performInModes("b", nil) = specCase.steps[6]
        else {
            Issue.record("steps: \(specCase.steps)")
            return
        }
        // The writer spells each verb so that the loader reads it back the same.
        let written = specCase.steps.map(CaseWriter.action)
        #expect(written[2] == "{runBefore: {mode: default, seconds: 1, untilFlag: true}}")
        #expect(written[5] == "{performInModes: [b, [default, common]]}")
        #expect(written[7] == "setFlag")
    }

    /// `setFlag` alone is 1.3 but engine-neutral: it needs no feature.
    @Test func setFlagNeedsNoFoundation() throws {
        let specCase = try load(Self.document(steps: "- setFlag"))
        #expect(specCase.features.isEmpty)
        #expect(specCase.formatVersion == .v1_3)
    }

    @Test func versionGate() throws {
        let refused = try #require(loadError(Self.document(version: "1.2", steps: "- limitDate: default")))
        #expect(refused.caseID == "area.new-case")
        #expect(refused.message.contains("uses spec format 1.3 constructs (limitDate)"))
        let form = try #require(
            loadError(Self.document(version: "1.2", items: "t: {timer: {fire: 1, form: fire}}", steps: "- add: t")))
        #expect(form.message.contains("(form)"))
    }

    @Test func badSpellingsNameTheField() throws {
        let unknownForm = try #require(
            loadError(Self.document(items: "t: {timer: {fire: 1, form: later}}", steps: "- add: t")))
        #expect(unknownForm.message.contains("unknown timer form 'later'"))
        #expect(unknownForm.field == "items.t.timer.form")
        let dated = try #require(
            loadError(Self.document(items: "t: {timer: {fire: 1, form: scheduled}}", steps: "- add: t")))
        #expect(dated.message.contains("Foundation dates it from its creation"))
        let ordered = try #require(
            loadError(Self.document(items: "t: {timer: {order: 2, form: fire}}", steps: "- add: t")))
        #expect(ordered.message.contains("Foundation's Timer has no order"))
        let repeatsAlone = try #require(
            loadError(Self.document(items: "t: {timer: {fire: 1, repeats: true}}", steps: "- add: t")))
        #expect(repeatsAlone.message.contains("repeats needs a Foundation form"))
        let inTarget = try #require(
            loadError(Self.document(steps: "- target: {loop: here, do: [{runBefore: default}]}")))
        #expect(inTarget.message.contains("'runBefore' cannot be in a target's list"))
        let flagOnAccept = try #require(
            loadError(Self.document(steps: "- acceptInput: {mode: default, untilFlag: true}")))
        #expect(flagOnAccept.field == "steps[0].acceptInput.untilFlag")
        let badLine = try #require(
            loadError(Self.document(steps: "- runBefore: default", expect: "- runBefore returned maybe")))
        #expect(badLine.message.contains("runBefore returned true|false"))
    }

    static let pollCase = """
        spec_version: 1.3
        cases:
          - id: area.foundation-poll
            rule: A rule.
            source: observed
            items:
              o: {observer: {activities: [entry, exit]}}
              s: {source0: {order: 1}}
              b: block
            steps:
              - add: o
              - add: s
              - signal: s
              - performInModes: b
              - runBefore: {mode: default, seconds: 2}
              - limitDate: default
              - runBefore: empty
            expect:
              - runBefore default
              - o.entry
              - block b
              - perform s
              - o.exit
              - runBefore returned true
              - o.entry
              - o.exit
              - limitDate default distantFuture
              - runBefore empty
              - runBefore returned false
        """

    /// The engine `foundation` runs the verbs; `cf` and `ref` report SKIP, naming the feature and why they lack it.
    @Test func foundationRunsAndOthersSkip() throws {
        let specCase = try #require(try SpecLoader.parse(Self.pollCase, file: "cases/new.yaml").cases.first)
        let outcome = ConformanceRunner().run(specCase, on: FoundationRunLoopEngine())
        #expect(outcome.status == .pass, "\(outcome.detail ?? "")\n\(outcome.actualTrace)")
        for engine in [CoreFoundationEngine.toolchain, ReferenceEngine()] as [any RunLoopEngine] {
            let skipped = ConformanceRunner().run(specCase, on: engine)
            #expect(skipped.status == .skip)
            #expect(skipped.detail?.contains("engine lacks: foundation (") == true, "\(skipped.detail ?? "")")
        }
    }
}
