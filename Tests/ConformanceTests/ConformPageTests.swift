// The conformance page (`runloop conform --html`) and the JUnit report are well-formed XML whatever a case's trace or
// an engine's message holds; the page has the matrix with counts and every non-PASS case with its rules, diff and
// expectation; the terminal table lists only what did not pass unless asked for everything.

import ConformanceSpec
import Foundation
import Testing

@testable import ConformanceKit

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite struct ConformPageTests {
    /// Parses `text` as XML; returns the parser's error with its line, or nil if it is well-formed.
    static func xmlProblem(_ text: String) -> String? {
        let parser = XMLParser(data: Data(text.utf8))
        if parser.parse() { return nil }
        return "line \(parser.lineNumber): \(parser.parserError.map { "\($0)" } ?? "unknown")"
    }

    /// Two real cases of the shipped spec, and outcomes of every kind on two engines, with text that needs escaping.
    static func fixture() throws -> (ConformanceReport, [SpecCase]) {
        let request = ConformanceRequest(
            specPath: try #require(SpecResources.casesDirectory), expectationsPath: nil,
            filter: "timer.*")
        let cases = Array(try Conformance.selectCases(request).prefix(5))
        #expect(cases.count == 5)
        let statuses: [(CaseStatus, CaseStatus, String?)] = [
            (.pass, .pass, nil),
            (
                .fail, .pass,
                TraceDiff.render(expected: ["run default", "t.fire <&>"], actual: ["run default", "\u{1}odd\""])
            ),
            (.fail, .fail, TraceDiff.render(expected: ["a"], actual: ["b"])),
            (.crash, .pass, "killed by SIGSEGV (signal 11) during the case"),
            (.skip, .pass, "the engine has no observers"),
        ]
        var outcomes: [CaseOutcome] = []
        for (index, specCase) in cases.enumerated() {
            for engine in ["one", "two"] {
                let (status, expected, detail) = engine == "one" ? statuses[index] : (.pass, .pass, nil)
                outcomes.append(
                    CaseOutcome(
                        caseID: specCase.id, area: specCase.area, engine: engine, status: status, expected: expected,
                        expectationReason: expected == .pass ? nil : "a known defect: <CF's #if TARGET_OS_MAC> & more",
                        detail: detail, expectedTrace: specCase.expectedTrace, actualTrace: [], seconds: 0.01))
            }
        }
        return (ConformanceReport(engines: ["one", "two"], outcomes: outcomes, caseIDs: cases.map(\.id)), cases)
    }

    @Test func thePageIsWellFormedWithTheMatrixAndEveryNonPassCase() throws {
        let (report, cases) = try Self.fixture()
        let page = ConformPage.html(report, cases: cases, catalogue: try RuleCatalogue.shipped(), specName: "spec <x>")
        #expect(Self.xmlProblem(page) == nil, "\(Self.xmlProblem(page) ?? "")")
        #expect(!page.contains("<script"))
        // The matrix: one area (timer), five cases, counts per engine.
        #expect(page.contains("<td class=\"fail\">1 PASS, 1 xFAIL, 1 SKIP, 1 FAIL!, 1 CRASH!</td>"))
        #expect(page.contains("<td class=\"pass\">5 PASS</td>"))
        // Four non-PASS cases, each in a <details>; those not as expected open.
        #expect(page.components(separatedBy: "<details").count - 1 == 4)
        #expect(page.components(separatedBy: "<details open=\"open\">").count - 1 == 2)
        // Rules by catalogue id with their text, the diff, the expectation's reason.
        let rule = try #require(cases[1].rules.first)
        #expect(page.contains("<code>\(rule)</code>: "))
        #expect(page.contains("<span class=\"del\">- t.fire &lt;&amp;&gt;</span>"))
        #expect(page.contains("a known defect: &lt;CF&apos;s #if TARGET_OS_MAC&gt; &amp; more"))
    }

    @Test func junitIsWellFormedWhateverTheMessages() throws {
        let (report, _) = try Self.fixture()
        let junit = ReportFormat.junit.render(report)
        #expect(Self.xmlProblem(junit) == nil, "\(Self.xmlProblem(junit) ?? "")")
    }

    @Test func theTableListsOnlyWhatDidNotPassUnlessVerbose() throws {
        let (report, cases) = try Self.fixture()
        let short = TableReport.render(report, rows: .notPassing)
        #expect(short.hasPrefix("one: 5 results, 3 as expected: 1 PASS"))  // summary first
        #expect(!short.contains(cases[0].id))
        #expect(short.contains(cases[2].id))
        let failures = TableReport.render(report, rows: .notAsExpected)
        #expect(!failures.contains(cases[2].id + " "))  // an expected failure is not listed
        #expect(failures.contains(cases[1].id))
        let all = TableReport.render(report, rows: .all)
        #expect(all.contains(cases[0].id))
    }
}
