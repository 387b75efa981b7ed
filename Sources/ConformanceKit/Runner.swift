// Runs cases against engines: each case on a fresh thread with a fresh loop, under a watchdog.

import EngineKit
import Foundation

/// Runs selected cases on selected engines and collects their outcomes.
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
    public func run(cases: [SpecCase], engines: [any RunLoopEngine],
                    expectations: [String: EngineExpectations]) -> ConformanceReport {
        var outcomes: [CaseOutcome] = []
        for engine in engines {
            for specCase in cases {
                let entry = expectations[engine.name]?.entries[specCase.id]
                var outcome = run(specCase, on: engine, expected: entry)
                var repetition = 1
                while repetition < repetitions, outcome.meetsExpectation, outcome.status != .skip {
                    repetition += 1
                    outcome = run(specCase, on: engine, expected: entry)
                }
                if !outcome.meetsExpectation, repetitions > 1 {
                    outcome.detail = "repetition \(repetition) of \(repetitions): " + (outcome.detail ?? "")
                }
                progress?(outcome)
                outcomes.append(outcome)
            }
        }
        return ConformanceReport(engines: engines.map(\.name), outcomes: outcomes, caseIDs: cases.map(\.id))
    }

    /// Runs one case on one engine.
    public func run(_ specCase: SpecCase, on engine: any RunLoopEngine,
                    expected entry: EngineExpectations.Entry? = nil) -> CaseOutcome {
        var outcome = CaseOutcome(caseID: specCase.id, area: specCase.area, engine: engine.name, status: .pass,
                                  expected: entry?.status ?? .pass, expectationReason: entry?.reason, detail: nil,
                                  expectedTrace: specCase.expectedTrace, actualTrace: [], seconds: 0)
        let missing = specCase.features.filter { !engine.features.contains($0) }
        if !missing.isEmpty {
            outcome.status = .skip
            outcome.detail = "engine lacks: \(missing.map(\.rawValue).joined(separator: ", "))"
            return outcome
        }

        let started = DispatchTime.now()
        let execution = CaseExecution(engine: engine, specCase: specCase)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            execution.execute()
            done.signal()
        }
        thread.name = "case \(specCase.id)"
        thread.stackSize = 8 << 20 // nested runs recurse through callouts
        thread.start()

        let limit = specCase.timeout ?? defaultTimeout
        let finished = done.wait(timeout: .now() + limit) == .success
        outcome.seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        let (trace, error) = execution.result
        outcome.actualTrace = trace
        guard finished else {
            // The thread cannot be killed: stop recording, ask the loop to stop, and leave the thread behind.
            execution.abandon()
            outcome.status = .timeout
            outcome.detail = "no result after \(limit) s; trace so far:\n" + trace.map { "  " + $0 }.joined(separator: "\n")
            return outcome
        }
        execution.releaseResources()
        if let error {
            outcome.status = .error
            outcome.detail = error
            return outcome
        }
        let comparable = specCase.allowances.contains(.idleWakes) ? IdleWakeFilter.apply(trace) : trace
        let expected = TraceMatch.alignUnordered(expected: specCase.expectedTrace, ranges: specCase.unorderedRanges,
                                                 actual: comparable)
        if comparable != expected {
            outcome.status = .fail
            outcome.detail = TraceDiff.render(expected: expected, actual: comparable)
        }
        return outcome
    }
}
