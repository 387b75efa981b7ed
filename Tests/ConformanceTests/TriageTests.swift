// The triage of a conformance run (Triage.swift, INTERPRETING.md "Reading a run: triage"), the one trace cap of every
// report, the closing tally, and expectations that add up: on synthetic outcomes, and on real runs of the test
// worker's `silent-observers` engine (the reference engine whose observers are never called).

import ConformanceSpec
import ConformanceTestSupport
import Foundation
import Testing

@testable import ConformanceKit

@Suite("Triage")
struct TriageTests {
    /// An outcome of case `id` on engine `engine`.
    static func outcome(
        _ id: String, _ status: CaseStatus, expected: [String], actual: [String],
        engine: String = "broken", detail: String? = nil
    ) -> CaseOutcome {
        CaseOutcome(
            caseID: id, area: String(id.split(separator: ".")[0]), engine: engine, status: status,
            expected: .pass, expectationReason: nil, detail: detail, expectedTrace: expected,
            actualTrace: actual, seconds: 0)
    }

    static func report(_ outcomes: [CaseOutcome], facts: [String: CaseFacts] = [:]) -> ConformanceReport {
        var ids: [String] = []
        for outcome in outcomes where !ids.contains(outcome.caseID) { ids.append(outcome.caseID) }
        var report = ConformanceReport(
            engines: Array(Set(outcomes.map(\.engine))).sorted(), outcomes: outcomes,
            caseIDs: ids)
        report.facts = facts
        return report
    }

    static let observerKinds: Set<String> = Set(
        [
            "entry", "beforeTimers", "beforeSources", "beforeWaiting",
            "afterWaiting", "exit",
        ].map { "observer " + $0 })

    /// Observers never called: every case whose expected trace has observer lines fails, each differently, and one
    /// also has a second defect. One cluster for the observers, one for the other defect; the passes of cases with
    /// an observer whose trace has none are flagged.
    @Test func deadObserversAreOneCluster() {
        let outcomes = [
            Self.outcome(
                "a.poll", .fail, expected: ["run default", "o.entry", "o.beforeTimers", "o.exit", "return timedOut"],
                actual: ["run default", "return timedOut"]),
            Self.outcome(
                "a.fire", .fail,
                expected: ["run default", "o.beforeWaiting", "o.afterWaiting", "fire t", "return finished"],
                actual: ["run default", "fire t", "return finished"]),
            Self.outcome(
                "a.perform", .fail,
                expected: ["run default", "o.entry", "perform s", "o.exit", "return handledSource"],
                actual: ["run default", "perform s", "return handledSource"]),
            // A second defect behind the first: the stop is lost too.
            Self.outcome(
                "a.stop", .timeout, expected: ["run default", "o.beforeWaiting", "return stopped"],
                actual: ["run default"]),
            // Passes only because observers are dead: its observer must not be called after its removal.
            Self.outcome(
                "a.removed", .pass, expected: ["run default", "return timedOut"],
                actual: ["run default", "return timedOut"]),
            // Passes and has no observer: not flagged.
            Self.outcome(
                "a.timer", .pass, expected: ["run default", "fire t", "return finished"],
                actual: ["run default", "fire t", "return finished"]),
        ]
        let facts: [String: CaseFacts] = [
            "a.removed": CaseFacts(rule: "A removed observer is not called.", calloutKinds: Self.observerKinds),
            "a.timer": CaseFacts(rule: "A due timer fires.", calloutKinds: ["timer fire"]),
            "a.stop": CaseFacts(rule: "A stop from another thread wakes the loop.", rules: ["stop.wakes"]),
        ]
        let triage = Triage(Self.report(outcomes, facts: facts))
        let dead = [
            "observer entry", "observer beforeTimers", "observer beforeWaiting", "observer afterWaiting",
            "observer exit",
        ]
        #expect(triage.deadKinds["broken"] == dead)
        #expect(triage.clusters.count == 2)
        let first = triage.clusters[0]
        #expect(first.title.hasPrefix("callouts never made on broken: observer entry"))
        #expect(first.caseIDs == ["a.fire", "a.perform", "a.poll"])
        #expect(first.alsoElsewhere == 1)
        #expect(triage.clusters[1].departure == "missing return stopped")
        #expect(triage.clusters[1].title == "hung (TIMEOUT) where the expected trace continues with return stopped")
        #expect(triage.clusters[1].instead.map(\.kind) == ["TIMEOUT"])
        #expect(triage.clusters[1].rules.map(\.id) == ["stop.wakes"])
        #expect(triage.vacuousPasses == [VacuousPass(caseID: "a.removed", engine: "broken", kinds: dead)])
        let table = TableReport.render(Self.report(outcomes, facts: facts), rows: .notPassing)
        #expect(table.contains("a.removed"))
        #expect(table.contains("PASS?"))
        #expect(table.contains("Passes only vacuously on broken: 1"))
        #expect(table.contains("(1 only vacuously)"))
        let json = ReportFormat.json.render(Self.report(outcomes, facts: facts))
        #expect(json.contains("\"only_vacuously\" : ["))
        #expect(json.contains("\"dead_callouts\""))
        let page = ConformPage.html(
            Self.report(outcomes, facts: facts), cases: [], catalogue: nil, specName: "synthetic")
        #expect(ConformPageTests.xmlProblem(page) == nil, "\(ConformPageTests.xmlProblem(page) ?? "")")
        #expect(page.contains("Passes only vacuously on broken: 1"))
        #expect(page.contains("1 PASS?"))
    }

    /// One kind of line expected once in a case is no evidence: a kind is dead only when two completed cases
    /// expect it.
    @Test func oneCaseIsNoEvidenceOfADeadKind() {
        let outcomes = [
            Self.outcome(
                "b.one", .fail, expected: ["run default", "o.entry", "return timedOut"],
                actual: ["run default", "return timedOut"]),
            Self.outcome(
                "b.crash", .crash, expected: ["run default", "o.entry", "return timedOut"],
                actual: ["run default"], detail: "the worker process killed by SIGSEGV (signal 11) during the case"),
        ]
        let triage = Triage(Self.report(outcomes))
        #expect(triage.deadKinds.isEmpty)
        #expect(Set(triage.clusters.map(\.title)) == ["missing observer entry", "CRASH SIGSEGV"])
    }

    /// A stop from another thread that never wakes the wait gives `return timedOut` in a bounded run and a TIMEOUT in
    /// an unbounded one: one cluster, with what came instead counted.
    @Test func aLostWakeUpIsOneClusterWhateverTheRunReturns() {
        let outcomes = [
            Self.outcome(
                "c.bounded", .fail, expected: ["run default", "mark stopping", "return stopped"],
                actual: ["run default", "mark stopping", "return timedOut"]),
            Self.outcome(
                "c.forever", .timeout, expected: ["run default", "mark stopping", "return stopped"],
                actual: ["run default", "mark stopping"]),
            Self.outcome(
                "c.other", .fail, expected: ["run default", "perform s", "return handledSource"],
                actual: ["run default", "perform s", "perform s", "return handledSource"]),
        ]
        let triage = Triage(Self.report(outcomes))
        #expect(triage.clusters.map(\.title) == ["missing return stopped", "extra source perform"])
        #expect(Set(triage.clusters[0].instead.map(\.kind)) == ["TIMEOUT", "return timedOut"])
        #expect(triage.clusters[0].statuses == [.fail: 1, .timeout: 1])
    }

    /// A timer that fires at once: an extra fire, whatever return it displaced, is one cluster; a query answered
    /// otherwise is named so.
    @Test func anEarlyTimerIsOneClusterWhateverItDisplaced() {
        let outcomes = [
            Self.outcome(
                "f.quiet", .fail, expected: ["run default", "return timedOut"],
                actual: ["run default", "fire t", "return timedOut"]),
            Self.outcome(
                "f.ended", .fail, expected: ["run default", "return timedOut"],
                actual: ["run default", "fire t", "return finished"]),
            Self.outcome(
                "f.marked", .fail, expected: ["run default", "mark before", "fire t", "return finished"],
                actual: ["run default", "fire t", "mark before", "return finished"]),
            Self.outcome("f.date", .fail, expected: ["fireDate t 100.00"], actual: ["fireDate t 0.00"]),
        ]
        let triage = Triage(Self.report(outcomes))
        #expect(triage.clusters.map(\.title) == ["extra timer fire", "different query fireDate"])
        #expect(triage.clusters[0].caseIDs.count == 3)
    }

    /// A repeating timer that never advances: its fire over and over, whatever line it displaced, one cluster; the
    /// reports keep the first 200 lines of its trace and say how many more there were, in every format, and an ERROR
    /// keeps its trace.
    @Test func aSpinningTimerIsOneClusterAndItsTraceIsCapped() throws {
        let spin = ["run default"] + Array(repeating: "fire t", count: 10_000)
        let outcomes = [
            Self.outcome(
                "d.spin", .timeout, expected: ["run default", "fire t", "mark later", "return stopped"],
                actual: spin),
            Self.outcome(
                "d.flood", .error, expected: ["run default", "fire t", "perform s", "return stopped"],
                actual: spin, detail: "the case recorded 10000 trace lines and was cut off there"),
        ]
        let report = Self.report(outcomes)
        let triage = Triage(report)
        #expect(triage.clusters.map(\.title) == ["timer fire over and over"])
        let note = TraceCap.note(more: spin.count - TraceCap.lines)
        #expect(note == "... 9801 more lines")
        let table = TableReport.render(report, rows: .notPassing)
        #expect(table.components(separatedBy: "\n  fire t").count - 1 == 2 * TraceCap.lines)
        #expect(table.contains("actual trace (10001 lines):"))
        #expect(table.contains(note))
        let junit = ReportFormat.junit.render(report)
        #expect(junit.components(separatedBy: "\n  fire t").count - 1 == 2 * TraceCap.lines)
        #expect(junit.contains(note))
        let json = ReportFormat.json.render(report)
        #expect(json.components(separatedBy: "\"fire t\"").count - 1 == 2 * TraceCap.lines)
        #expect(json.contains("\"actual_trace_lines\" : 10001"))
        #expect(json.contains(note))
        let page = ConformPage.html(report, cases: [], catalogue: nil, specName: "synthetic")
        #expect(page.components(separatedBy: "\nfire t").count - 1 == 2 * TraceCap.lines)
        #expect(page.contains(note))
    }

    /// The closing line counts each way apart and is never of the form "N passed, N failed".
    @Test func theClosingLineIsATallyNotAVerdict() {
        var expectedFailure = Self.outcome("e.known", .fail, expected: ["a"], actual: ["b"])
        expectedFailure.expected = .fail
        var skipped = Self.outcome("e.skip", .skip, expected: ["a"], actual: [])
        skipped.detail = "engine lacks: source1"
        let outcomes = [
            Self.outcome("e.ok", .pass, expected: ["a"], actual: ["a"]), expectedFailure, skipped,
            Self.outcome("e.bad", .fail, expected: ["a"], actual: ["c"]),
            Self.outcome("e.hang", .timeout, expected: ["a"], actual: []),
        ]
        let table = TableReport.render(Self.report(outcomes), rows: .notPassing)
        let last = table.split(separator: "\n").last.map(String.init) ?? ""
        #expect(
            last == "conform: 5 results, 3 as expected: 1 PASS, 1 xFAIL, 1 FAIL, 1 SKIP, 1 TIMEOUT, 0 CRASH, "
                + "0 ERROR, 0 XPASS")
        let verdict = try! Regex("[0-9]+ passed, [0-9]+ failed")
        #expect(table.split(separator: "\n").allSatisfy { $0.firstMatch(of: verdict) == nil })
        // Every result not as expected shows its rule and, for a TIMEOUT, the expected trace.
        #expect(table.contains("TIMEOUT: e.hang on broken (expected PASS)"))
        #expect(table.contains("expected trace (1 line):"))
    }

    /// Three areas of the shipped spec (order, stop, observer) on an engine whose observers are never called: the
    /// largest cluster names the observer callouts, it accounts for most results not as expected, and some passes
    /// are flagged. (A case whose stop waits for an observer's callout hangs here: a 1 s watchdog keeps it short.)
    @Test func silentObserversOnTheShippedSpec() throws {
        let shipped = try #require(SpecResources.casesDirectory)
        let specPath = NSTemporaryDirectory() + "runloop-triage-\(getpid())"
        try FileManager.default.createDirectory(atPath: specPath, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: specPath) }
        for file in ["10-order.yaml", "40-stop.yaml", "85-observer.yaml"] {
            try FileManager.default.copyItem(
                atPath: (shipped as NSString).appendingPathComponent(file),
                toPath: (specPath as NSString).appendingPathComponent(file))
        }
        let cases = try SpecLoader.load(path: specPath).flatMap(\.cases)
        let runner = IsolatedRunner(launcher: TestWorker.launcher(), defaultTimeout: 1)
        let report = runner.run(
            cases: cases, specPath: specPath, engines: [TestWorker.engine("silent-observers")],
            expectations: [:])
        let triage = Triage(report)
        let unmet = report.outcomes.filter { !$0.meetsExpectation }.count
        let top = try #require(triage.clusters.first)
        #expect(
            top.title.hasPrefix(
                "callouts never made on silent-observers: observer entry, observer beforeTimers, "
                    + "observer beforeSources, observer beforeWaiting, observer afterWaiting, observer exit"))
        #expect(top.reach == unmet, "\(triage.clusters.map { "\($0.title): \($0.caseIDs.count)" })")
        #expect(top.caseIDs.count * 10 >= unmet * 9, "\(triage.clusters.map { "\($0.title): \($0.caseIDs.count)" })")
        #expect(!triage.vacuousPasses.isEmpty)
        // The cases the reference engine fails on are none: everything else here is the planted defect.
        #expect(triage.clusters.allSatisfy { $0.engine == "silent-observers" })
    }

    /// A cluster whose results all fail as the reference engine's expectations say its cases fail on `cf` is that
    /// known defect of the toolchain's CoreFoundation: marked with the claim of the reasons, in every format, and
    /// listed after the clusters that are not, though it is larger. A cluster with one result that fails otherwise
    /// (another status, or a case `cf` passes) is not marked.
    @Test func aKnownDefectOfTheToolchainsCFIsMarkedAndListedLast() throws {
        let location = SpecLocation(file: "/somewhere/expectations/cf.yaml", line: 5)
        var reference = EngineExpectations(engine: Triage.referenceEngine)
        for id in ["t.one", "t.two", "t.three"] {
            reference.entries[id] = .init(
                status: .fail, reason: "CF on Linux stores no tolerance: \(id) evidence",
                location: location)
        }
        reference.entries["t.hangs"] = .init(status: .fail, reason: "Another claim: evidence", location: location)
        let outcomes = [
            Self.outcome("t.one", .fail, expected: ["tolerance t 0.05"], actual: ["tolerance t 0.00"]),
            Self.outcome("t.two", .fail, expected: ["tolerance t 0.05"], actual: ["tolerance t 0.00"]),
            Self.outcome("t.three", .fail, expected: ["tolerance t 0.10"], actual: ["tolerance t 0.00"]),
            Self.outcome(
                "s.lost", .fail, expected: ["run default", "return stopped"],
                actual: ["run default", "return timedOut"]),
            // Listed in the reference expectations, but as FAIL: hanging is another way, not the known defect.
            Self.outcome("t.hangs", .timeout, expected: ["run default", "return stopped"], actual: ["run default"]),
        ]
        var report = Self.report(outcomes)
        report.referenceExpectations = reference
        let triage = Triage(report)
        #expect(triage.clusters.map(\.departure) == ["missing return stopped", "different query tolerance"])
        let known = try #require(triage.clusters.last)
        #expect(
            known.referenceDefect
                == ReferenceDefect(
                    file: "expectations/cf.yaml",
                    reason: "CF on Linux stores no tolerance"))
        #expect(triage.clusters[0].referenceDefect == nil)
        let note =
            "also a known defect of the toolchain's CoreFoundation (expectations/cf.yaml: CF on Linux stores "
            + "no tolerance)"
        let table = TableReport.render(report, rows: .notPassing)
        #expect(table.contains("  2. broken: different query tolerance: 3 results (3 FAIL)\n     " + note))
        let json = ReportFormat.json.render(report)
        #expect(json.contains("\"known_defect\" : {"))
        #expect(json.contains("\"reason\" : \"CF on Linux stores no tolerance\""))
        #expect(json.components(separatedBy: "\"known_defect\"").count == 2)
        let page = ConformPage.html(report, cases: [], catalogue: nil, specName: "synthetic")
        #expect(ConformPageTests.xmlProblem(page) == nil, "\(ConformPageTests.xmlProblem(page) ?? "")")
        #expect(page.contains(note.replacingOccurrences(of: "'", with: "&apos;")))
        // Without the reference expectations nothing is marked, and the larger cluster comes first.
        let plain = Triage(Self.report(outcomes))
        #expect(plain.clusters.allSatisfy { $0.referenceDefect == nil })
        #expect(plain.clusters.first?.departure == "different query tolerance")
    }

    /// A user's expectations add to the shipped ones: cf keeps its shipped entries, and gains the user's.
    @Test func userExpectationsAddToTheShippedOnes() throws {
        let shippedDirectory = try #require(SpecResources.expectationsDirectory)
        var request = ConformanceRequest(
            specPath: try #require(SpecResources.casesDirectory),
            expectationsPath: shippedDirectory)
        let shipped = try Conformance.loadExpectations(request, engines: ["cf", "ref"])
        let shippedCF = try #require(shipped["cf"])
        #expect(!shippedCF.entries.isEmpty)
        let someCase = try #require(
            try Conformance.selectCases(request).map(\.id)
                .first { shippedCF.entries[$0] == nil })
        let file = NSTemporaryDirectory() + "runloop-user-expectations-\(getpid()).yaml"
        try """
        spec_version: 1
        engine: ref
        expected:
          \(someCase): {status: FAIL, reason: "a user's own known failure, with its evidence"}

        """.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        request.userExpectationsPath = file
        let merged = try Conformance.loadExpectations(request, engines: ["cf", "ref"])
        #expect(merged["cf"]?.entries.keys.sorted() == shippedCF.entries.keys.sorted())
        #expect(merged["ref"]?.entries[someCase]?.status == .fail)
        // `none` (no path at all) still means none.
        let none = try Conformance.loadExpectations(
            ConformanceRequest(specPath: request.specPath, expectationsPath: nil),
            engines: ["cf"])
        #expect(none.isEmpty)
    }
}
