// Spec format 1.2's constructs in the loader and the case writer: `took: {underTimeout: F}`, timers dated `from:
// creation`, `waitUntilSlept`, the `isMainThread` query and `sleep`; the version rule (a 1.2 construct in a 1.1 file is
// refused, naming the case and only the constructs 1.1 lacks; a 1.1 file loads unchanged); bad spellings give messages
// naming the file, line, case and field. The contexts `runloop rules` derives from a case are checked here too.

import ConformanceTestSupport
import Testing

@testable import ConformanceKit

@Suite("Spec format 1.2")
struct SpecFormat12Tests {
    static func document(
        version: String = "1.2", loops: String = "",
        items: String = "o: {observer: {activities: [beforeWaiting]}}\n      s: source0",
        steps: String, expect: String = "- mark done"
    ) -> String {
        OneCaseDocument.text(
            version: version, loops: loops, items: items, steps: steps, expect: expect, markDone: true)
    }

    func load(_ text: String) throws -> SpecCase {
        try #require(try SpecLoader.parse(text, file: "cases/new.yaml").cases.first)
    }

    func loadError(_ text: String) -> SpecError? { specLoadError(text, file: "cases/new.yaml") }

    @Test func everyConstructLoads() throws {
        let text = Self.document(
            loops: "[bg]",
            items:
                "o: {observer: {activities: [beforeWaiting]}}\n      t: {timer: {fire: 0.5, created: later, from: creation}}",
            steps: """
                - add: o
                      - run: {seconds: 2, took: {underTimeout: 0.5}}
                      - create: t
                      - query: isMainThread
                      - sleep: 0.01
                      - waitUntilSlept: {loop: bg, observer: o, nth: 2}
                """)
        let specCase = try load(text)
        #expect(specCase.formatVersion == .v1_2)
        #expect(
            specCase.laterConstructs == [
                "created: later", "from: creation", "loops", "took: underTimeout", "create",
                "query: isMainThread", "sleep", "waitUntilSlept",
            ])
        #expect(specCase.items[1].firesFromCreation)
        guard case .run(let request) = specCase.steps[1] else {
            Issue.record("step 1: \(specCase.steps[1])")
            return
        }
        #expect(request.took == .underTimeout(fraction: 0.5))
        guard case .waitUntilSlept("bg", 2, "o") = specCase.steps[5] else {
            Issue.record("step 5: \(specCase.steps[5])")
            return
        }
    }

    /// A 1.1 file keeps loading; a 1.2 construct in it is refused, naming the case and only what 1.1 lacks.
    @Test func versionGate() throws {
        let older = Self.document(version: "1.1", steps: "- add: s\n      - run: {seconds: 2, took: {under: 1}}")
        #expect(try load(older).formatVersion == .v1_1)
        let refused = try #require(
            loadError(
                Self.document(
                    version: "1.1", loops: "[bg]", steps: "- post: {loop: bg, do: [{sleep: 0.1}]}\n      - join: bg")))
        #expect(refused.caseID == "area.new-case")
        #expect(refused.location == SpecLocation(file: "cases/new.yaml", line: 3))
        #expect(refused.message.contains("uses spec format 1.2 constructs (sleep)"))
        #expect(refused.message.contains("write spec_version: 1.2"))
        let fromVersionOne = try #require(loadError(Self.document(version: "1", steps: "- query: isMainThread")))
        #expect(fromVersionOne.message.contains("(query: isMainThread)"))
    }

    @Test func underTimeoutBounds() throws {
        let tight = try #require(loadError(Self.document(steps: "- run: {seconds: 1, took: {underTimeout: 0.5}}")))
        #expect(tight.message.contains("a tighter bound does not hold on a loaded machine"))
        #expect(tight.field == "steps[0].run.took.underTimeout")
        let poll = try #require(loadError(Self.document(steps: "- run: {seconds: 0, took: {underTimeout: 0.5}}")))
        #expect(poll.message.contains("needs a run with a finite timeout"))
        let infinite = try #require(
            loadError(Self.document(steps: "- run: {seconds: .inf, took: {underTimeout: 0.5}}")))
        #expect(infinite.message.contains("needs a run with a finite timeout"))
        let fraction = try #require(loadError(Self.document(steps: "- run: {seconds: 4, took: {underTimeout: 1.5}}")))
        #expect(fraction.message.contains("above 0 and at most 1"))
        let mixed = try #require(
            loadError(Self.document(steps: "- run: {seconds: 4, took: {underTimeout: 0.5, under: 2}}")))
        #expect(mixed.field?.hasPrefix("steps[0].run.took") == true)
    }

    @Test func fromCreationNeedsALaterTimer() throws {
        let early = try #require(
            loadError(
                Self.document(
                    items: "t: {timer: {fire: 1, from: creation}}",
                    steps: "- add: t")))
        #expect(early.message.contains("from: creation needs created: later"))
        #expect(early.field == "items.t.timer.from")
        #expect(early.location.line == 7)
        let source = try #require(
            loadError(
                Self.document(
                    items: "s: {source0: {created: later, from: creation}}",
                    steps: "- create: s")))
        #expect(source.message.contains("only a timer"))
        let word = try #require(
            loadError(
                Self.document(
                    items: "t: {timer: {fire: 1, created: later, from: now}}",
                    steps: "- create: t")))
        #expect(word.message.contains("from must be 'creation'"))
    }

    @Test func waitUntilSleptMistakes() throws {
        let blind = try #require(
            loadError(
                Self.document(
                    loops: "[bg]", items: "o: {observer: {activities: [entry]}}",
                    steps: "- waitUntilSlept: {loop: bg, observer: o}")))
        #expect(blind.message.contains("does not observe beforeWaiting"))
        #expect(blind.field == "steps[0].waitUntilSlept.observer")
        let own = try #require(
            loadError(
                Self.document(
                    loops: "[bg]", steps: "- post: {loop: bg, do: [{waitUntilSlept: {loop: bg, observer: o}}]}")))
        #expect(own.message.contains("would wait for its own thread"))
        let zero = try #require(
            loadError(
                Self.document(
                    loops: "[bg]", steps: "- waitUntilSlept: {loop: bg, observer: o, nth: 0}")))
        #expect(zero.message.contains("nth counts from 1"))
        let notAnObserver = try #require(
            loadError(
                Self.document(
                    loops: "[bg]", steps: "- waitUntilSlept: {loop: bg, observer: s}")))
        #expect(notAnObserver.message.contains("'s' is a source0; expected a observer"))
        let inTarget = try #require(
            loadError(
                Self.document(
                    loops: "[bg]", steps: "- target: {loop: bg, do: [{waitUntilSlept: {loop: here, observer: o}}]}")))
        #expect(inTarget.message.contains("cannot be in a target's list"))
        let undeclared = try #require(loadError(Self.document(steps: "- waitUntilSlept: {loop: bg, observer: o}")))
        #expect(undeclared.message.contains("the case declares no loops"))
    }

    @Test func sleepAndQueryMistakes() throws {
        let long = try #require(loadError(Self.document(steps: "- sleep: 11")))
        #expect(long.message.contains("sleep takes 0 to 10 seconds"))
        #expect(long.field == "steps[0].sleep")
        let query = try #require(loadError(Self.document(steps: "- query: isMainThreadNow")))
        #expect(query.message.contains("isMainThread"))
        let trace = try #require(loadError(Self.document(steps: "- query: isMainThread", expect: "- isMainThread")))
        #expect(trace.message.contains("needs its answer"))
    }

    /// The fuzzer's writer writes 1.2 constructs back in a form the loader reads as the same case.
    @Test func writerRoundTrip() throws {
        let text = Self.document(
            loops: "[bg]",
            items:
                "o: {observer: {activities: [beforeWaiting]}}\n      t: {timer: {fire: 0.5, created: later, from: creation}}",
            steps:
                "- create: t\n      - run: {seconds: 2, took: {underTimeout: 0.5}}\n      - sleep: 0.01\n      - query: isMainThread\n      - waitUntilSlept: {loop: bg, observer: o, nth: 2}"
        )
        let written = CaseWriter.file([try load(text)])
        #expect(written.hasPrefix("spec_version: 1.2\n"))
        let reread = try #require(try SpecLoader.parse(written, file: "b.yaml").cases.first)
        #expect(CaseWriter.file([reread]) == written)
        #expect(reread.items.map(\.firesFromCreation) == [false, true])
    }

    /// The contexts `runloop rules` reads from a case: outer runs, nesting, the callouts that act, the flag, slowness.
    @Test func caseContexts() throws {
        let poll = CaseContext(try load(Self.document(steps: "- add: s\n      - run")))
        #expect(poll.runKinds == [.poll])
        #expect(poll.onlyPolls)
        #expect(!poll.nested && poll.actors.isEmpty && !poll.slowCallout)

        let text = """
            spec_version: 1.2
            cases:
              - id: area.contexts
                rule: A rule.
                source: observed
                items:
                  o: observer
                  s: source0
                steps:
                  - add: o
                  - add: s
                  - signal: s
                  - thread: {wait: waiting, do: [stop]}
                  - run: {seconds: .inf}
                on:
                  - {when: o.entry, do: [{sleep: 0.01}]}
                  - {when: perform s, do: [{run: {seconds: 0, returnAfterSourceHandled: true}}]}
                expect: [run default]
            """
        let rich = CaseContext(try load(text))
        #expect(rich.runKinds == [.infinite])
        #expect(!rich.onlyPolls)
        #expect(rich.nested)
        #expect(rich.actors == [.entry, .perform, .otherThread])
        #expect(rich.returnAfterSourceHandled == [false, true])
        #expect(rich.slowCallout)
        #expect(
            rich.summary
                == "runs infinite; nested; acts from Entry, perform, another thread; returnAfterSourceHandled off+on; slow callout"
        )
        let rule = RuleContexts([poll, rich])
        #expect(rule.runKinds == [.poll, .infinite])
        #expect(!rule.onlyPolls)
        #expect(RuleContexts([poll, poll]).onlyPolls)
        #expect(!RuleContexts([]).onlyPolls)
    }

    /// `runloop rules` counts a rule as pinned only in polls when every citing case runs only polls, lists each
    /// case's contexts, and names the rules whose catalogue entry lacks `exposes`.
    @Test func ruleCoveragePollOnlyRules() throws {
        let catalogue = try RuleCatalogue.parse(
            """
            catalogue_version: 2
            cf_source: {repository: r, tag: t, file: f}
            rules:
              - {id: a.polled, text: x, cf: y, level: cf, exposes: z}
              - {id: a.slept, text: x, cf: y, level: cf}
            """, file: "catalogue.yaml")
        func specCase(_ id: String, rules: String, run: String) throws -> SpecCase {
            try SpecLoader.$ruleCheck.withValue(.none) {
                try load(
                    """
                    spec_version: 1.2
                    cases:
                      - id: \(id)
                        rule: A rule.
                        source: observed
                        rules: \(rules)
                        items: {s: source0}
                        steps: [{add: s}, \(run)]
                        expect: [run default]
                    """)
            }
        }
        let cases = [
            try specCase("a.one", rules: "[a.polled, a.slept]", run: "run"),
            try specCase("a.two", rules: "[a.slept]", run: "{run: {seconds: 0.1}}"),
        ]
        let coverage = RuleCoverage(catalogue: catalogue, cases: cases)
        #expect(coverage.pollOnlyRules.map(\.rule) == ["a.polled"])
        #expect(coverage.rulesWithoutExposes == ["a.slept"])
        #expect(
            coverage.rows[1].caseContexts.map(\.contexts) == [
                "runs poll; returnAfterSourceHandled off", "runs finite; returnAfterSourceHandled off",
            ])
        #expect(coverage.renderTable().contains("rules pinned only in polls (1): a.polled"))
        #expect(coverage.renderJSON().contains("\"poll_only_rules\" : [\n    \"a.polled\"\n  ]"))
    }
}
