// Runs cases against engines in this process: each case on a fresh thread with a fresh loop, under a watchdog.
// `runloop conform` runs cases in worker processes instead (IsolatedRunner.swift), which use this runner inside.

import EngineKit
import Foundation

/// Runs selected cases on selected engines in the calling process and collects their outcomes.
///
/// A case that times out here leaves its thread behind, and an engine that crashes takes the process with it: use
/// ``IsolatedRunner`` for anything but debugging an engine in a debugger and the runner's own tests.
public struct ConformanceRunner: Sendable {
    /// Seconds a case may take before it is reported TIMEOUT (a case's own `timeout` overrides it).
    public var defaultTimeout: Double
    /// How many times each case runs; the first repetition that does not meet the expectation is reported.
    public var repetitions: Int
    /// Called after each case, e.g. for progress output.
    public var progress: (@Sendable (CaseOutcome) -> Void)?

    public init(defaultTimeout: Double = 5, repetitions: Int = 1, progress: (@Sendable (CaseOutcome) -> Void)? = nil) {
        self.defaultTimeout = defaultTimeout
        self.repetitions = max(1, repetitions)
        self.progress = progress
    }

    /// Runs every case on every engine, engine by engine, in spec order.
    public func run(
        cases: [SpecCase], engines: [any RunLoopEngine],
        expectations: [String: EngineExpectations]
    ) -> ConformanceReport {
        var outcomes: [CaseOutcome] = []
        for engine in engines {
            for specCase in cases {
                let entry = expectations[engine.name]?.entries[specCase.id]
                let outcome = Self.repeating(repetitions) { run(specCase, on: engine, expected: entry) }
                progress?(outcome)
                outcomes.append(outcome)
            }
        }
        return ConformanceReport(
            engines: engines.map(\.name), outcomes: outcomes, caseIDs: cases.map(\.id),
            cases: cases)
    }

    /// Runs one case on one engine.
    public func run(
        _ specCase: SpecCase, on engine: any RunLoopEngine,
        expected entry: EngineExpectations.Entry? = nil
    ) -> CaseOutcome {
        let limit = specCase.timeout ?? defaultTimeout
        var outcome = CaseAttempt.run(specCase, on: engine, limit: limit)
        outcome.expect(entry)
        return outcome
    }

    /// Runs `attempt` up to `repetitions` times, until one does not meet its expectation, and returns that one (or the
    /// last), saying which repetition it was when it did not meet it. Each repetition is judged on a steady wall clock
    /// (``WallClock/judgedOnASteadyClock(offset:_:)``).
    static func repeating(_ repetitions: Int, _ attempt: () -> CaseOutcome) -> CaseOutcome {
        var outcome = WallClock.judgedOnASteadyClock(attempt)
        var repetition = 1
        while repetition < repetitions, outcome.meetsExpectation, outcome.status != .skip {
            repetition += 1
            outcome = WallClock.judgedOnASteadyClock(attempt)
        }
        if !outcome.meetsExpectation, repetitions > 1 {
            outcome.detail = "repetition \(repetition) of \(repetitions): " + (outcome.detail ?? "")
        }
        return outcome
    }
}

/// One attempt at one case in this process: what the in-process runner and a worker process both do.
enum CaseAttempt {
    /// Runs the case on a fresh thread and judges its trace. With a `limit`, gives up after that many seconds and
    /// reports TIMEOUT, leaving the thread behind; without one (in a worker, whose parent holds the watchdog and ends
    /// the whole process instead), waits for the thread. `onTrace` sees each trace line as it is recorded.
    ///
    /// A main-thread case (feature mainThread) runs on `mainThread`'s thread instead, the process's main thread,
    /// and is waited for; without an executor (the in-process runner keeps the main thread) it is SKIP.
    static func run(
        _ specCase: SpecCase, on engine: any RunLoopEngine, limit: Double?,
        mainThread: MainThreadExecutor? = nil,
        onTrace: (@Sendable (String) -> Void)? = nil
    ) -> CaseOutcome {
        var outcome = CaseOutcome(
            caseID: specCase.id, area: specCase.area, engine: engine.name, status: .pass,
            expected: .pass, expectationReason: nil, detail: nil,
            expectedTrace: specCase.expectedTrace, actualTrace: [], seconds: 0)
        let missing = specCase.features.filter { !engine.features.contains($0) }
        if !missing.isEmpty {
            outcome.status = .skip
            outcome.detail =
                "engine lacks: "
                + missing.map { feature in
                    feature.rawValue + (engine.whyLacking(feature).map { " (\($0))" } ?? "")
                }.joined(separator: ", ")
            return outcome
        }

        if specCase.features.contains(.mainThread) {
            guard let mainThread else {
                outcome.status = .skip
                outcome.detail =
                    "a main-thread case runs only in a worker process (the in-process runner, "
                    + "--isolation none, keeps the main thread for itself)"
                return outcome
            }
            let started = DispatchTime.now()
            let execution = CaseExecution(engine: engine, specCase: specCase, onTrace: onTrace)
            mainThread.run {
                (engine as? any CaseObservingEngine)?.caseWillStart(specCase.id)
                execution.execute()
            }
            outcome.seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            let (trace, error) = execution.result
            outcome.actualTrace = trace
            execution.releaseResources()
            (outcome.status, outcome.detail) = judge(specCase, trace: trace, error: error)
            return outcome
        }

        let started = DispatchTime.now()
        let execution = CaseExecution(engine: engine, specCase: specCase, onTrace: onTrace)
        let thread = CaseThread()
        guard
            thread.start({
                (engine as? any CaseObservingEngine)?.caseWillStart(specCase.id)
                execution.execute()
            })
        else {
            outcome.status = .error
            outcome.detail = "could not create the case's thread"
            return outcome
        }
        let finished: Bool
        if let limit {
            finished = thread.join(seconds: limit)
        } else {
            thread.join()
            finished = true
        }
        outcome.seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        let (trace, error) = execution.result
        outcome.actualTrace = trace
        guard finished else {
            // The thread cannot be killed: stop recording, ask the loop to stop, and leave the thread behind.
            execution.abandon()
            outcome.status = .timeout
            outcome.detail =
                "no result after \(limit ?? 0) s (in-process run: its thread is left behind)"
                + floodNote(trace)
            return outcome
        }
        execution.releaseResources()
        (outcome.status, outcome.detail) = judge(specCase, trace: trace, error: error)
        return outcome
    }

    /// PASS when the trace matches the expected one (`any-order` groups and the `idle-wakes` allowance applied),
    /// FAIL with a diff when it does not, ERROR when the case could not be carried out.
    static func judge(_ specCase: SpecCase, trace: [String], error: String?) -> (CaseStatus, String?) {
        if let error { return (.error, error) }
        let comparable = specCase.allowances.contains(.idleWakes) ? IdleWakeFilter.apply(trace) : trace
        let expected = TraceMatch.alignUnordered(
            expected: specCase.expectedTrace, ranges: specCase.unorderedRanges,
            actual: comparable)
        if comparable == expected { return (.pass, nil) }
        return (.fail, TraceDiff.render(expected: expected, actual: comparable))
    }

    /// For a case that did not finish: what it means that its trace reached the recording limit (the trace itself is
    /// in the outcome, and every report shows its start).
    static func floodNote(_ trace: [String]) -> String {
        guard trace.count >= CaseExecution.maxTraceLines else { return "" }
        return "; its trace reached \(CaseExecution.maxTraceLines) lines, where recording stops (a callout made over "
            + "and over), and the loop did not return when asked to stop"
    }

    /// "trace so far:" and the lines, indented, for the detail of a case that did not finish.
    static func traceSoFar(_ trace: [String], last: Int? = nil) -> String {
        let shown = last.map { Array(trace.suffix($0)) } ?? trace
        let heading = shown.count < trace.count ? "last \(shown.count) of \(trace.count) trace lines" : "trace so far"
        if trace.isEmpty { return "trace so far: (none)" }
        return heading + ":\n" + shown.map { "  " + $0 }.joined(separator: "\n")
    }
}

extension CaseOutcome {
    /// Applies an engine's expectation entry for this case (PASS when there is none).
    mutating func expect(_ entry: EngineExpectations.Entry?) {
        expected = entry?.status ?? .pass
        expectationReason = entry?.reason
    }
}
