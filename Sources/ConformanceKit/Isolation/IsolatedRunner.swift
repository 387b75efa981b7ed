// Runs cases in worker processes, one worker per engine at a time: an engine that crashes costs one case (CRASH, with
// the signal and the last trace lines) and a case that hangs costs one case (TIMEOUT, its process killed, no thread
// left behind); either way a fresh worker takes the next case. What `runloop conform` uses.
//
// Why one worker per engine and not one per case: starting a worker (exec, Foundation, loading the spec) costs about
// 40 ms, so a process per case would add 40 ms times the number of cases to each engine's run (seconds for the
// shipped spec); with one per engine the whole spec on an engine takes as long as in-process plus a pipe round trip
// per case.

import Foundation
import Synchronization

/// Runs cases on engines hosted by worker processes.
public struct IsolatedRunner: Sendable {
    public var launcher: WorkerLauncher
    /// Seconds a case may take before it is reported TIMEOUT (a case's own `timeout` overrides it).
    public var defaultTimeout: Double
    /// How many times each case runs; the first repetition that does not meet the expectation is reported.
    public var repetitions: Int
    /// Called after each case, e.g. for progress output (from several threads at once when `jobs` is above 1).
    public var progress: (@Sendable (CaseOutcome) -> Void)?
    /// Worker processes per engine running cases at the same time: case i goes to worker i mod `jobs`, and the
    /// report keeps spec order. Cases are independent by construction (each runs in a fresh loop, a main-thread case
    /// in a worker of its own); most of a spec's time is cases waiting on their own timers and timeouts, which
    /// wait side by side.
    public var jobs: Int = 1

    public init(
        launcher: WorkerLauncher, defaultTimeout: Double = 5, repetitions: Int = 1,
        progress: (@Sendable (CaseOutcome) -> Void)? = nil
    ) {
        self.launcher = launcher
        self.defaultTimeout = defaultTimeout
        self.repetitions = max(1, repetitions)
        self.progress = progress
    }

    /// The engines the launcher's worker hosts. Throws ``WorkerError`` when it cannot be started or does not answer.
    public static func listEngines(_ launcher: WorkerLauncher) throws -> [EngineDescription] {
        try ask(launcher, .list)
    }

    /// The engine a worker makes of `selector` (`cf:PATH`), checked in a worker process so that a library that
    /// crashes while loading cannot take the runner with it. Throws ``WorkerError`` with the worker's reason.
    public static func describeEngine(_ launcher: WorkerLauncher, selector: String) throws -> EngineDescription {
        guard let engine = try ask(launcher, .describe(selector: selector)).first else {
            throw WorkerError(description: "\(launcher.executable) described no engine for '\(selector)'")
        }
        return engine
    }

    private static func ask(_ launcher: WorkerLauncher, _ question: WorkerArguments) throws -> [EngineDescription] {
        let process = try WorkerProcess.spawn(launcher, arguments: question)
        let deadline = WorkerProcess.monotonicNanoseconds() + UInt64(WorkerSession.startupSeconds * 1e9)
        switch process.next(deadline: deadline) {
        case .message(.engines(let engines)):
            return engines
        case .message(.fatal(let reason)):
            throw WorkerError(description: reason)
        case .message(let message):
            throw WorkerError(
                description: "\(launcher.executable) answered \(question.arguments[0]) with something "
                    + "else: \(message)")
        case .garbled(let line):
            throw WorkerError(description: "\(launcher.executable) is not a conformance worker (it wrote '\(line)')")
        case .closed:
            let how = process.termination(waitingUpTo: 2)
            let stderr = CrashOutput.excerpt(process.stderrLines(), lines: 5).joined(separator: "\n")
            let said = stderr.isEmpty ? "" : ":\n" + stderr
            if case .describe(let selector) = question {
                throw WorkerError(description: "the worker \(how) while loading '\(selector)'" + said)
            }
            throw WorkerError(
                description: "\(launcher.executable) is not a conformance worker: it \(how) without "
                    + "describing its engines" + said)
        case .timedOut:
            throw WorkerError(
                description: "\(launcher.executable) did not describe its engines within "
                    + "\(WorkerSession.startupSeconds) s")
        }
    }

    /// Runs every case on every engine, engine by engine, in spec order. `specPath` is the file or directory the
    /// cases were loaded from: each worker loads it too and runs cases by id.
    public func run(
        cases: [SpecCase], specPath: String, engines: [EngineDescription],
        expectations: [String: EngineExpectations]
    ) -> ConformanceReport {
        var outcomes: [CaseOutcome] = []
        for engine in engines {
            outcomes += run(cases: cases, specPath: specPath, engine: engine, expectations: expectations[engine.name])
        }
        return ConformanceReport(
            engines: engines.map(\.name), outcomes: outcomes, caseIDs: cases.map(\.id),
            cases: cases)
    }

    /// One engine's outcomes in spec order, from `jobs` workers at once.
    private func run(
        cases: [SpecCase], specPath: String, engine: EngineDescription,
        expectations: EngineExpectations?
    ) -> [CaseOutcome] {
        let jobs = max(1, min(self.jobs, cases.count))
        guard jobs > 1 else {
            return runShard(cases, specPath: specPath, engine: engine, expectations: expectations)
        }
        // Shard `index` holds every `jobs`-th case from `index`; each shard's outcomes are written by its own thread
        // only, under the mutex. A thread per shard, not concurrentPerform (which runs no more at once than there are
        // cores). The wait ends: every case of a shard has its watchdog, and a worker that does not start is ERROR
        // after its start-up limit.
        let shards = Mutex<[[CaseOutcome]]>(Array(repeating: [], count: jobs))
        let done = DispatchGroup()
        for index in 0..<jobs {
            done.enter()
            let mine = stride(from: index, to: cases.count, by: jobs).map { cases[$0] }
            Thread {
                let outcomes = runShard(mine, specPath: specPath, engine: engine, expectations: expectations)
                shards.withLock { $0[index] = outcomes }
                done.leave()
            }.start()
        }
        done.wait()
        let finished = shards.withLock { $0 }
        return cases.indices.map { finished[$0 % jobs][$0 / jobs] }
    }

    /// `cases` one after the other in one engine's worker (a fresh one after a crash or a timeout).
    private func runShard(
        _ cases: [SpecCase], specPath: String, engine: EngineDescription,
        expectations: EngineExpectations?
    ) -> [CaseOutcome] {
        let session = WorkerSession(launcher: launcher, specPath: specPath, engine: engine)
        defer { session.close() }
        return cases.map { specCase in
            let entry = expectations?.entries[specCase.id]
            let outcome = ConformanceRunner.repeating(repetitions) {
                var outcome = session.run(specCase, limit: specCase.timeout ?? defaultTimeout)
                outcome.expect(entry)
                return outcome
            }
            progress?(outcome)
            return outcome
        }
    }
}

/// One engine's worker, started on first use and started again after a crash, a timeout or a garbled reply.
///
/// Thread safety: every member takes `lock`, so cases from several threads run one after the other.
public final class WorkerSession: @unchecked Sendable {
    /// How long a worker may take to start and load the spec.
    static let startupSeconds = 30.0
    /// After this many workers in a row fail to start, the remaining cases are ERROR at once.
    static let startAttempts = 3
    /// How many trace lines and stderr lines a CRASH report quotes.
    static let quotedLines = 10

    public let launcher: WorkerLauncher
    public let specPath: String
    public let engine: EngineDescription

    private let lock = NSLock()
    /// Protected by `lock`.
    private var process: WorkerProcess?
    /// Workers that failed to start since the last one that did; protected by `lock`.
    private var failedStarts = 0
    private var lastStartFailure = ""

    public init(launcher: WorkerLauncher, specPath: String, engine: EngineDescription) {
        self.launcher = launcher
        self.specPath = specPath
        self.engine = engine
    }

    deinit { close() }

    /// Ends the worker, if one is running.
    public func close() {
        lock.withLock { endWorkerLocked() }
    }

    /// Starts the worker now, if none is running, and waits until it is ready, so that the next case sent to this
    /// session does not wait for it. A runner that knows a case needs a worker of its own (a main-thread case) can
    /// give it a session of its own and start that session's worker ahead, while other cases run. A worker that
    /// cannot start is left to the case, which reports why.
    public func prestart() {
        lock.withLock { _ = startIfNeeded() }
    }

    /// Runs one case in the worker with a watchdog of `limit` seconds. The outcome's expectation is PASS; apply the
    /// engine's entry with `expect`.
    public func run(_ specCase: SpecCase, limit: Double) -> CaseOutcome {
        lock.withLock {
            var outcome = runLocked(specCase, limit: limit)
            if let caseStarted {
                outcome.seconds = Double(WorkerProcess.monotonicNanoseconds() - caseStarted) / 1e9
            }
            return outcome
        }
    }

    /// When the running case's id was sent (worker start-up is not part of a case's time); protected by `lock`.
    private var caseStarted: UInt64?

    /// Whether the running worker has served a case; protected by `lock`.
    private var servedCases = false

    /// Ends the running worker (it exits when its input ends, or is killed after 2 s). Caller holds `lock`.
    private func endWorkerLocked() {
        process?.finishInput()
        _ = process?.termination(waitingUpTo: 2)
        process = nil
    }

    private func runLocked(_ specCase: SpecCase, limit: Double) -> CaseOutcome {
        // A main-thread case gets a worker of its own: the main loop and the main dispatch queue outlive a case, so
        // nothing may run on that thread before it or after it in the same process. (Also when the engine lacks the
        // feature and the case is SKIP: a description's feature list may be empty, and the cost is one start.)
        let ownWorker = specCase.features.contains(.mainThread)
        if ownWorker, servedCases { endWorkerLocked() }
        defer { if ownWorker { endWorkerLocked() } }
        caseStarted = nil
        var outcome = CaseOutcome(
            caseID: specCase.id, area: specCase.area, engine: engine.name, status: .error,
            expected: .pass, expectationReason: nil, detail: nil,
            expectedTrace: specCase.expectedTrace, actualTrace: [], seconds: 0)
        let worker: WorkerProcess
        // A start per main-thread case costs a process, not a parse of the whole spec: a worker parses only the files
        // of the cases it is asked for (ServedSpec.swift).
        switch startIfNeeded() {
        case .success(let running): worker = running
        case .failure(let error):
            outcome.detail = error.description
            return outcome
        }
        let started = WorkerProcess.monotonicNanoseconds()
        caseStarted = started
        let deadline = started + UInt64(min(limit, 1e6) * 1e9)
        var trace: [String] = []
        servedCases = true
        guard worker.send(line: specCase.id) else {
            return ended(worker, &outcome, trace: trace)
        }
        while true {
            switch worker.next(deadline: deadline) {
            case .message(.trace(let line)):
                trace.append(line)
            case .message(.done(let done)) where done.id == specCase.id:
                outcome.status = done.status
                outcome.detail = done.detail
                outcome.actualTrace = done.trace
                return outcome
            case .message(let message):
                process = nil
                worker.terminate()
                outcome.actualTrace = trace
                outcome.detail = "the worker sent an unexpected message (\(message)); it was ended"
                return outcome
            case .garbled(let line):
                process = nil
                worker.terminate()
                outcome.actualTrace = trace
                outcome.detail = "the worker sent a line that is not a message: '\(line)'; it was ended"
                return outcome
            case .closed:
                return ended(worker, &outcome, trace: trace)
            case .timedOut:
                process = nil
                worker.terminate()
                outcome.status = .timeout
                outcome.actualTrace = trace
                outcome.detail =
                    "no result after \(limit) s; the worker process was killed"
                    + CaseAttempt.floodNote(trace)
                return outcome
            }
        }
    }

    /// The outcome of a case whose worker died under it: CRASH, with how it ended, its last trace lines and stderr.
    private func ended(_ worker: WorkerProcess, _ outcome: inout CaseOutcome, trace: [String]) -> CaseOutcome {
        process = nil
        let how = worker.termination(waitingUpTo: 2)
        let stderr = CrashOutput.excerpt(worker.stderrLines(), lines: Self.quotedLines)
        outcome.status = .crash
        outcome.actualTrace = trace
        outcome.detail =
            "the worker process \(how) during the case; "
            + CaseAttempt.traceSoFar(trace, last: Self.quotedLines)
            + (stderr.isEmpty ? "" : "\nwhat it wrote to stderr:\n" + stderr.map { "  " + $0 }.joined(separator: "\n"))
        return outcome
    }

    /// The running worker, or a new one, serving `specPath`, that has said it is ready.
    private func startIfNeeded() -> Result<WorkerProcess, WorkerError> {
        if let process { return .success(process) }
        guard failedStarts < Self.startAttempts else {
            return .failure(
                WorkerError(
                    description: "no worker for engine '\(engine.name)' after \(failedStarts) "
                        + "failed starts; the last: \(lastStartFailure)"))
        }
        let result = start(specPath: specPath)
        switch result {
        case .success(let worker):
            failedStarts = 0
            process = worker
            servedCases = false
        case .failure(let error):
            failedStarts += 1
            lastStartFailure = error.description
        }
        return result
    }

    private func start(specPath: String) -> Result<WorkerProcess, WorkerError> {
        let worker: WorkerProcess
        do {
            worker = try WorkerProcess.spawn(launcher, arguments: .serve(specPath: specPath, engine: engine.selector))
        } catch let error as WorkerError {
            return .failure(error)
        } catch {
            return .failure(WorkerError(description: "\(error)"))
        }
        let deadline = WorkerProcess.monotonicNanoseconds() + UInt64(Self.startupSeconds * 1e9)
        switch worker.next(deadline: deadline) {
        case .message(.ready):
            return .success(worker)
        case .message(.fatal(let reason)):
            worker.terminate()
            return .failure(WorkerError(description: "the worker for '\(engine.name)' could not start: " + reason))
        case .message(let message):
            worker.terminate()
            return .failure(WorkerError(description: "the worker for '\(engine.name)' could not start: \(message)"))
        case .garbled(let line):
            worker.terminate()
            return .failure(
                WorkerError(
                    description: "the worker for '\(engine.name)' wrote '\(line)' instead of "
                        + "ready"))
        case .closed:
            let how = worker.termination(waitingUpTo: 2)
            let stderr = CrashOutput.excerpt(worker.stderrLines(), lines: Self.quotedLines).joined(separator: "\n")
            return .failure(
                WorkerError(
                    description: "the worker for '\(engine.name)' \(how) before it was ready"
                        + (stderr.isEmpty ? "" : ":\n" + stderr)))
        case .timedOut:
            worker.terminate()
            return .failure(
                WorkerError(
                    description: "the worker for '\(engine.name)' was not ready after "
                        + "\(Self.startupSeconds) s"))
        }
    }
}

/// The part of a crashed worker's standard error worth quoting.
enum CrashOutput {
    /// The lines that say what went wrong ("Fatal error: ...", the Swift backtracer's "Program crashed: ...", a
    /// sanitizer's report line) and the top frames of the crashed thread's backtrace; when there are none, the last
    /// `lines` lines.
    static func excerpt(_ stderr: [String], lines: Int) -> [String] {
        let headlines = stderr.filter { line in
            [
                "Fatal error", "Program crashed", "Assertion failed", "Precondition failed", "ERROR: AddressSanitizer",
                "terminate called",
            ].contains { line.contains($0) }
        }.prefix(3)
        var frames: [String] = []
        if let crashed = stderr.firstIndex(where: { $0.hasPrefix("Thread ") && $0.hasSuffix("crashed:") }) {
            frames.append(stderr[crashed])
            for line in stderr[(crashed + 1)...] {
                let trimmed = line.drop { $0 == " " }
                guard trimmed.first?.isNumber == true || trimmed == "...", frames.count <= lines else { break }
                frames.append(line)
            }
        }
        if headlines.isEmpty, frames.isEmpty { return Array(stderr.suffix(lines)) }
        return headlines.map { $0.trimmingCharacters(in: .whitespaces) } + frames
    }
}
