// The runner checks itself: a wrong expectation must FAIL with a diff, a hanging case must TIMEOUT without stopping
// the run, a missing feature must SKIP, and a stale expected failure must be reported.

import CFEngine
import EngineKit
import Testing

@testable import ConformanceKit

@Suite("Runner self-test", .serialized)
struct RunnerSelfTests {
    static func cases(_ body: String) throws -> [SpecCase] {
        try SpecLoader.parse("spec_version: 1\ncases:\n" + body, file: "self-test.yaml").cases
    }

    static let pollCase = """
          - id: self.poll
            rule: A poll pass in a mode with a source reports Entry, BeforeTimers, BeforeSources, Exit.
            source: observed
            items:
              o: observer
              s: source0
            steps:
              - add: o
              - add: s
              - run
            expect: [run default, o.entry, o.beforeTimers, o.beforeSources, o.exit, return timedOut]

        """

    @Test func correctExpectationPasses() throws {
        let outcome = ConformanceRunner().run(try Self.cases(Self.pollCase)[0], on: CoreFoundationEngine.toolchain)
        #expect(outcome.status == .pass, "\(outcome.detail ?? "")")
    }

    @Test func wrongExpectationFailsWithDiff() throws {
        let wrong = Self.pollCase.replacingOccurrences(of: "return timedOut", with: "return finished")
        let outcome = ConformanceRunner().run(try Self.cases(wrong)[0], on: CoreFoundationEngine.toolchain)
        #expect(outcome.status == .fail)
        #expect(outcome.detail?.contains("- return finished") == true)
        #expect(outcome.detail?.contains("+ return timedOut") == true)
        #expect(!outcome.meetsExpectation)
    }

    @Test func hangingCaseTimesOutAndTheRunGoesOn() throws {
        let hanging = """
              - id: self.hang
                rule: A run with an infinite timeout in a mode that only a source keeps alive never returns by itself.
                source: observed
                timeout: 0.5
                items:
                  s: source0
                steps:
                  - add: s
                  - run: {seconds: .inf}
                expect: [run default, return stopped]

            """
        let cases = try Self.cases(hanging + Self.pollCase)
        let report = ConformanceRunner().run(cases: cases, engines: [CoreFoundationEngine.toolchain], expectations: [:])
        #expect(report.outcomes.map(\.status) == [.timeout, .pass])
        #expect(!report.allMeetExpectations)
    }

    @Test func aCalloutMadeForeverIsCutOffAsAnError() throws {
        // A source that signals itself from its own perform: the run never ends by itself and the trace grows
        // without bound, as with an engine whose timer fires in a busy loop.
        let forever = """
              - id: self.forever
                rule: A source signalled from its own perform is performed again in every pass.
                source: observed
                items: {s: source0}
                steps: [{add: s}, {signal: s}, {run: {seconds: .inf}}]
                on:
                  - {when: perform s, every: true, do: [{signal: s}]}
                expect: [run default, perform s, return stopped]

            """
        let outcome = ConformanceRunner().run(try Self.cases(forever)[0], on: CoreFoundationEngine.toolchain)
        #expect(outcome.status == .error)
        #expect(outcome.detail?.contains("recorded \(CaseExecution.maxTraceLines) trace lines") == true)
        #expect(outcome.actualTrace.count == CaseExecution.maxTraceLines)
    }

    @Test func missingFeatureSkips() throws {
        let needsSource1 = """
              - id: self.needs-source1
                rule: A version-1 source performs when its descriptor is readable.
                source: observed
                features: [source1]
                items:
                  p: {source1: {}}
                steps: [{add: p}, {write: p}, run]
                expect: [run default, perform p, return timedOut]

            """
        let outcome = ConformanceRunner().run(try Self.cases(needsSource1)[0], on: FeaturelessEngine())
        #expect(outcome.status == .skip)
        #expect(outcome.meetsExpectation)
    }

    @Test func expectedFailureThatPassesIsReported() throws {
        let entry = EngineExpectations.Entry(
            status: .fail, reason: "pretend this fails on cf",
            location: SpecLocation(file: "x", line: 1))
        let outcome = ConformanceRunner().run(
            try Self.cases(Self.pollCase)[0], on: CoreFoundationEngine.toolchain, expected: entry)
        #expect(outcome.status == .pass)
        #expect(outcome.isUnexpectedPass)
        #expect(!outcome.meetsExpectation)
    }

    @Test func expectedFailureThatFailsMeetsExpectation() throws {
        let wrong = Self.pollCase.replacingOccurrences(of: "return timedOut", with: "return finished")
        let entry = EngineExpectations.Entry(
            status: .fail, reason: "known divergence", location: SpecLocation(file: "x", line: 1))
        let outcome = ConformanceRunner().run(
            try Self.cases(wrong)[0], on: CoreFoundationEngine.toolchain, expected: entry)
        #expect(outcome.status == .fail)
        #expect(outcome.meetsExpectation)
    }

    @Test func reportsRenderEveryFormat() throws {
        let cases = try Self.cases(Self.pollCase)
        let report = ConformanceRunner().run(cases: cases, engines: [CoreFoundationEngine.toolchain], expectations: [:])
        #expect(ReportFormat.table.render(report).contains("self.poll"))
        #expect(ReportFormat.json.render(report).contains("\"PASS\" : 1"))
        #expect(ReportFormat.junit.render(report).contains("<testcase classname=\"cf.self\" name=\"self.poll\""))
    }
}

/// The cf engine with no optional features, to see cases skip.
struct FeaturelessEngine: RunLoopEngine {
    var name: String { "featureless" }
    var features: Set<EngineFeature> { [] }
    func currentLoop() -> any EngineLoop { CoreFoundationEngine.toolchain.currentLoop() }
}

@Suite("Trace matching")
struct TraceMatchingTests {
    @Test func datesAreRelativeToTheCaseUnlessNoCaseCouldMakeThem() {
        let epoch = 816_000_000.0
        #expect(Trace.relative(0, epoch: epoch) == "none")
        #expect(Trace.relative(epoch + 1.05, epoch: epoch) == "1.05")
        #expect(Trace.relative(epoch - 250, epoch: epoch) == "-250.00")
        // A constant wrong answer reads the same whatever the case's start.
        #expect(Trace.relative(-1, epoch: epoch) == "absolute -1.00")
        #expect(Trace.relative(-1, epoch: epoch + 3.7) == "absolute -1.00")
        #expect(Trace.relative(epoch + 2e6, epoch: epoch) == "absolute 818000000.00")
        // An engine whose dates count from the boot (a case's start 36,613 s in): -1 is still no date.
        #expect(Trace.relative(-1, epoch: 36_613.5) == "absolute -1.00")
        #expect(Trace.relative(36_614.5, epoch: 36_613.5) == "1.00")
    }

    @Test func idleWakeCyclesAreRemovedAfterBeforeWaiting() {
        let actual = [
            "o.beforeWaiting", "o.afterWaiting", "o.beforeTimers", "o.beforeSources", "o.beforeWaiting",
            "o.afterWaiting", "fire t", "o.exit",
        ]
        #expect(IdleWakeFilter.apply(actual) == ["o.beforeWaiting", "o.afterWaiting", "fire t", "o.exit"])
    }

    @Test func idleWakeFilterKeepsCyclesWithCallouts() {
        let actual = [
            "o.beforeWaiting", "o.afterWaiting", "perform s", "o.beforeTimers", "o.beforeSources",
            "o.beforeWaiting",
        ]
        #expect(IdleWakeFilter.apply(actual) == actual)
    }

    @Test func idleWakeFilterHandlesSeveralObservers() {
        let actual = [
            "a.beforeWaiting", "b.beforeWaiting", "a.afterWaiting", "b.afterWaiting", "a.beforeTimers",
            "a.beforeSources", "a.beforeWaiting", "b.beforeWaiting", "a.afterWaiting", "b.afterWaiting", "a.exit",
        ]
        #expect(
            IdleWakeFilter.apply(actual) == [
                "a.beforeWaiting", "b.beforeWaiting", "a.afterWaiting",
                "b.afterWaiting", "a.exit",
            ])
    }

    @Test func idleWakeFilterRejectsOutOfOrderActivities() {
        let actual = ["o.beforeWaiting", "o.beforeSources", "o.afterWaiting", "o.beforeWaiting"]
        #expect(IdleWakeFilter.apply(actual) == actual)
    }

    @Test func diffMarksMissingAndExtraLines() {
        let diff = TraceDiff.render(expected: ["a", "b", "c"], actual: ["a", "c", "d"])
        #expect(diff == "--- expected\n+++ actual\n  a\n- b\n  c\n+ d")
    }
}

@Suite("Unordered groups")
struct UnorderedGroupTests {
    @Test func groupMatchesAnyPermutationAtItsPosition() {
        let expected = ["run default", "schedule s a", "schedule s b", "return timedOut"]
        let actual = ["run default", "schedule s b", "schedule s a", "return timedOut"]
        #expect(TraceMatch.alignUnordered(expected: expected, ranges: [1..<3], actual: actual) == actual)
    }

    @Test func groupDoesNotMatchOtherLinesOrPositions() {
        let expected = ["schedule s a", "schedule s b", "run default"]
        let shifted = ["run default", "schedule s b", "schedule s a"]
        #expect(TraceMatch.alignUnordered(expected: expected, ranges: [0..<2], actual: shifted) == expected)
        let other = ["schedule s a", "schedule s c", "run default"]
        #expect(TraceMatch.alignUnordered(expected: expected, ranges: [0..<2], actual: other) == expected)
    }

    @Test func loaderReadsAnyOrderGroups() throws {
        let text = """
            spec_version: 1
            cases:
              - id: a.b
                rule: r
                source: observed
                items: {s: {source0: {callouts: true}}}
                steps: [{add: [s, common]}]
                expect:
                  - {any-order: [schedule s default, schedule s tracking]}
            """
        let loaded = try SpecLoader.parse(text, file: "x.yaml").cases[0]
        #expect(loaded.expectedTrace == ["schedule s default", "schedule s tracking"])
        #expect(loaded.unorderedRanges == [0..<2])
        #expect(throws: SpecError.self) {
            try SpecLoader.parse(
                text.replacingOccurrences(of: "schedule s tracking", with: "schedule ghost x"), file: "x.yaml")
        }
    }
}
