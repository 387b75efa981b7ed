// The loader's handling of malformed spec and expectations files: each kind of mistake gives a message naming the
// file, the line, the case and the field.

import ConformanceKit
import ConformanceTestSupport
import Testing

@Suite("Spec loader: bad input")
struct SpecLoaderTests {
    /// A valid case, with `{{steps}}` etc. replaced by the test.
    static func document(
        items: String = "o: observer\n      s: source0", steps: String = "- add: o\n      - run",
        expect: String = "- run default", extra: String = ""
    ) -> String {
        """
        spec_version: 1
        cases:
          - id: area.valid-case
            rule: A rule.
            source: observed
            items:
              \(items)
            steps:
              \(steps)
            expect:
              \(expect)
        \(extra)
        """
    }

    func loadError(_ text: String) -> SpecError? { specLoadError(text, file: "cases/bad.yaml") }

    @Test func validDocumentLoads() throws {
        let spec = try SpecLoader.parse(SpecLoaderTests.document(), file: "cases/good.yaml")
        #expect(spec.cases.count == 1)
        #expect(spec.cases[0].area == "area")
        #expect(spec.cases[0].items.map(\.name) == ["o", "s"])
    }

    @Test func yamlSyntaxErrorNamesFileAndLine() throws {
        let error = try #require(loadError("spec_version: 1\ncases:\n  - id: a.b\n    rule: [unclosed\n"))
        #expect(error.location.file == "cases/bad.yaml")
        #expect(error.location.line >= 4)
        #expect(error.description.contains("YAML syntax error"))
    }

    @Test func unknownActionNamesCaseAndField() throws {
        let error = try #require(loadError(Self.document(steps: "- add: o\n      - jump: o")))
        #expect(error.caseID == "area.valid-case")
        #expect(error.field == "steps[1]")
        #expect(error.location.line == 11)
        #expect(error.message.contains("unknown action 'jump'"))
        #expect(error.description.hasPrefix("cases/bad.yaml:11: case 'area.valid-case': field 'steps[1]'"))
    }

    @Test func unknownActivityInItem() throws {
        let error = try #require(
            loadError(Self.document(items: "o: {observer: {activities: [entry, beforeSleeping]}}")))
        #expect(error.caseID == "area.valid-case")
        #expect(error.field == "items.o.observer.activities[1]")
        #expect(error.message.contains("unknown activity 'beforeSleeping'"))
    }

    @Test func unknownActivityInExpectedTrace() throws {
        let error = try #require(loadError(Self.document(expect: "- run default\n      - o.beforeSleeping")))
        #expect(error.field == "expect[1]")
        #expect(error.message.contains("unknown activity 'beforeSleeping'"))
    }

    @Test func undefinedItemInStep() throws {
        let error = try #require(loadError(Self.document(steps: "- add: nothere")))
        #expect(error.field == "steps[0].add")
        #expect(error.message.contains("'nothere' is not a declared item"))
    }

    @Test func undefinedItemInTrace() throws {
        let error = try #require(loadError(Self.document(expect: "- perform ghost")))
        #expect(error.field == "expect[0]")
        #expect(error.message.contains("'ghost' is not a declared item"))
    }

    @Test func itemOfTheWrongKind() throws {
        let error = try #require(loadError(Self.document(steps: "- signal: o")))
        #expect(
            error.message.contains("'o' is a observer") || error.message.contains("'o' is an observer")
                || error.message.contains("is a observer"))
    }

    @Test func duplicateIDAcrossCases() throws {
        let second = """
              - id: area.valid-case
                rule: Again.
                source: observed
                steps: [run]
                expect: [run default]
            """
        let error = try #require(loadError(Self.document(extra: second)))
        #expect(error.caseID == "area.valid-case")
        #expect(error.field == "id")
        #expect(error.message.contains("duplicate id"))
    }

    @Test func missingField() throws {
        let text = "spec_version: 1\ncases:\n  - id: a.b\n    source: observed\n    steps: [run]\n    expect: []\n"
        let error = try #require(loadError(text))
        #expect(error.caseID == "a.b")
        #expect(error.field == "rule")
        #expect(error.message.contains("missing field 'rule'"))
    }

    @Test func wrongType() throws {
        let error = try #require(loadError(Self.document(steps: "- run: {seconds: soon}")))
        #expect(error.field == "steps[0].run.seconds")
        #expect(error.message.contains("expected a number"))
    }

    @Test func unknownFieldIsRejected() throws {
        let error = try #require(loadError(Self.document(items: "t: {timer: {fire: -1, intervall: 1}}")))
        #expect(error.field == "items.t.timer.intervall")
        #expect(error.message.contains("unknown field 'intervall'"))
    }

    @Test func duplicateItemName() throws {
        let error = try #require(loadError(Self.document(items: "o: observer\n      o: source0")))
        #expect(error.location.line == 7)  // the mapping that holds the duplicate
        #expect(error.message.contains("duplicated key(s): 'o'") || error.message.contains("duplicate key 'o'"))
    }

    @Test func unsupportedVersion() throws {
        let error = try #require(loadError("spec_version: 7\ncases: []\n"))
        #expect(error.message.contains("spec_version 7 is not supported"))
    }

    @Test func badCaseID() throws {
        let error = try #require(
            loadError(SpecLoaderTests.document().replacingOccurrences(of: "area.valid-case", with: "NoArea")))
        #expect(error.field == "id")
    }

    @Test func badTriggerEvent() throws {
        let trigger = """
                on:
                  - when: o.afterSleeping
                    do: [stop]
            """
        let error = try #require(loadError(SpecLoaderTests.document() + trigger))
        #expect(error.field == "on[0].when")
        #expect(error.message.contains("unknown activity"))
    }

    @Test func expectationsFileErrors() throws {
        let known: Set<String> = ["area.valid-case"]
        func expectationsError(_ text: String) -> SpecError? {
            do {
                _ = try EngineExpectations.parse(text, file: "expectations/cf.yaml", engine: "cf", knownIDs: known)
                return nil
            } catch {
                return error as? SpecError
            }
        }
        let unknown = try #require(
            expectationsError(
                """
                spec_version: 1
                engine: cf
                expected:
                  area.no-such-case: {status: FAIL, reason: "A reason long enough to count."}
                """))
        #expect(unknown.caseID == "area.no-such-case")
        #expect(unknown.message.contains("no case of the spec has this id"))
        let badStatus = try #require(
            expectationsError(
                """
                spec_version: 1
                engine: cf
                expected:
                  area.valid-case: {status: BROKEN, reason: "A reason long enough to count."}
                """))
        #expect(badStatus.field == "expected.area.valid-case.status")
        let wrongEngine = try #require(expectationsError("spec_version: 1\nengine: ref\nexpected: {}\n"))
        #expect(wrongEngine.field == "engine")
        let loaded = try EngineExpectations.parse(
            """
            spec_version: 1
            engine: cf
            expected:
              area.valid-case: {status: FAIL, reason: "A reason long enough to count."}
            """, file: "expectations/cf.yaml", engine: "cf", knownIDs: known)
        #expect(loaded.entries["area.valid-case"]?.status == .fail)
    }
}

@Suite("Spec loader: misspelt case fields")
struct MisspeltCaseFieldTests {
    @Test func misspeltItemsIsNamedAsUnknown() throws {
        let text = SpecLoaderTests.document().replacingOccurrences(of: "    items:", with: "    itmes:")
        do {
            _ = try SpecLoader.parse(text, file: "x.yaml")
            Issue.record("a misspelt field loaded")
        } catch let error as SpecError {
            #expect(error.message.contains("unknown field 'itmes'"))
            #expect(error.caseID == "area.valid-case")
        }
    }
}

/// Inputs the fuzzer (scripts/fuzz-inputs.sh) found rejected without a clear message, minimised.
@Suite("Spec loader: fuzz regressions")
struct SpecLoaderFuzzRegressionTests {
    /// libyaml's reader reports a control character with a byte offset, not a line: the rejection said line 0 and
    /// quoted the raw line, control character included.
    @Test func controlCharacterIsRejectedWithItsLine() throws {
        do {
            _ = try SpecLoader.parse("spec_version: 1\ncases:\n  - id: a\u{07}b\n", file: "cases/bad.yaml")
            Issue.record("a control character loaded")
        } catch let error as SpecError {
            #expect(error.location.line == 3)
            #expect(
                error.description
                    == "cases/bad.yaml:3: YAML syntax error: control characters are not allowed (character U+0007)")
        }
    }
}

/// A case's `rules:` field and the catalogue it is checked against.
@Suite("Spec loader: rule ids")
struct RuleIDLoaderTests {
    func loadError(_ text: String) -> SpecError? { SpecLoaderTests().loadError(text) }

    @Test func knownRuleIDsLoad() throws {
        let text = SpecLoaderTests.document().replacingOccurrences(
            of: "source: observed\n", with: "source: observed\n    rules: [order.entry-first-exit-last, timeout.poll]\n"
        )
        let spec = try SpecLoader.parse(text, file: "cases/good.yaml")
        #expect(spec.cases[0].rules == ["order.entry-first-exit-last", "timeout.poll"])
    }

    @Test func unknownRuleIDNamesFileLineCaseAndField() throws {
        let text = SpecLoaderTests.document().replacingOccurrences(
            of: "source: observed\n", with: "source: observed\n    rules: [timeout.poll, stop.no-such-rule]\n")
        let error = try #require(loadError(text))
        #expect(error.location.file == "cases/bad.yaml")
        #expect(error.location.line == 6)
        #expect(error.caseID == "area.valid-case")
        #expect(error.field == "rules[1]")
        #expect(error.message.contains("unknown rule 'stop.no-such-rule'"))
    }

    @Test func ruleCheckNoneReadsIDsAsWritten() throws {
        let text = SpecLoaderTests.document().replacingOccurrences(
            of: "source: observed\n", with: "source: observed\n    rules: [stop.no-such-rule]\n")
        let spec = try SpecLoader.$ruleCheck.withValue(.none) { try SpecLoader.parse(text, file: "cases/mine.yaml") }
        #expect(spec.cases[0].rules == ["stop.no-such-rule"])
    }

    @Test func emptyOrRepeatedRulesAreErrors() throws {
        for (list, problem) in [("[]", "at least one rule id"), ("[timeout.poll, timeout.poll]", "listed twice")] {
            let text = SpecLoaderTests.document().replacingOccurrences(
                of: "source: observed\n", with: "source: observed\n    rules: \(list)\n")
            let error = loadError(text)
            #expect(error?.message.contains(problem) == true)
        }
    }

    /// A catalogue's first lines, before its rules.
    static let header = "catalogue_version: 2\ncf_source: {repository: r, tag: t, file: f}\nrules:\n"

    @Test func catalogueErrors() throws {
        let duplicate = """
            catalogue_version: 2
            cf_source: {repository: r, tag: t, file: f}
            rules:
              - {id: a.rule, text: x, cf: y, level: cf}
              - {id: a.rule, text: x, cf: y, level: cf}
            """
        #expect(throws: SpecError.self) { try RuleCatalogue.parse(duplicate, file: "catalogue.yaml") }
        let missingCF = Self.header + "  - {id: a.rule, text: x}\n"
        #expect(throws: SpecError.self) { try RuleCatalogue.parse(missingCF, file: "catalogue.yaml") }
    }

    /// `exposes` is read; a field the schema does not know is still refused, naming the rule's line and the field.
    @Test func catalogueExposesAndUnknownFields() throws {
        let good = Self.header + "  - {id: a.rule, text: x, cf: y, level: cf, exposes: z}\n"
        #expect(try RuleCatalogue.parse(good, file: "catalogue.yaml").rule("a.rule")?.exposes == "z")
        let unknown = Self.header + "  - {id: a.rule, text: x, cf: y, level: cf, exposed: z}\n"
        do {
            _ = try RuleCatalogue.parse(unknown, file: "catalogue.yaml")
            Issue.record("an unknown field was accepted")
        } catch let error as SpecError {
            #expect(error.location == SpecLocation(file: "catalogue.yaml", line: 4))
            #expect(error.description.contains("exposed"))
        }
    }
}
