// Runs batches of scenarios on engines in worker processes, through the conformance runner's own WorkerSession (its
// watchdog, CRASH and TIMEOUT handling). A batch is written to a temporary spec file, which the workers load like any
// spec, so the worker protocol is unchanged: a worker per engine per batch, cases sent by id.

import ConformanceKit
import Foundation
import Synchronization

/// What one engine did with one scenario, reduced to what two engines are compared on.
public struct FuzzRun: Sendable, Equatable {
    /// `done` when the case ran to its end, else how it ended.
    public var status: FuzzRunStatus
    /// The trace as compared (``FuzzScenario/comparable(_:allowances:)``).
    public var trace: [String]
    /// The trace as recorded.
    public var rawTrace: [String]
    /// Why, for statuses other than `done`.
    public var detail: String?

    public static func == (left: FuzzRun, right: FuzzRun) -> Bool {
        left.status == right.status && left.trace == right.trace
    }

    var isSkip: Bool { status == .ended(.skip) }
}

/// Runs scenario batches on a fixed list of engines.
public struct FuzzExecutor: Sendable {
    public var launcher: WorkerLauncher
    public var engines: [EngineDescription]
    /// The watchdog per scenario, in seconds.
    public var timeout: Double
    /// Where batch files are written (removed after each batch).
    public var directory: String
    /// The wall clock's offset from the monotonic clock (``WallClock/offset()``; another reading in tests), read
    /// before and after each run.
    public var clockOffset: @Sendable () -> Double = WallClock.offset

    public init(launcher: WorkerLauncher, engines: [EngineDescription], timeout: Double, directory: String) {
        self.launcher = launcher
        self.engines = engines
        self.timeout = timeout
        self.directory = directory
    }

    /// Runs every scenario on every engine; the result is indexed [scenario][engine]. The engines run at the same
    /// time (one worker each), the scenarios of one engine one after the other: the main-thread ones each in a worker
    /// of its own (the main loop and the main queue outlive a case), started ahead (``MainThreadWorkers``), the others
    /// all in one worker. With `keepGoing`, an engine starts a scenario only while it returns true (a campaign's time
    /// limit, an interrupt), and the result holds the scenarios every engine ran, from the first: the scenario under
    /// way when it turns false ends within its watchdog.
    public func run(_ scenarios: [SpecCase], while keepGoing: (@Sendable () -> Bool)? = nil) throws -> [[FuzzRun]] {
        guard !scenarios.isEmpty else { return [] }
        // Ids unique within the batch: shrink candidates all come from one scenario.
        let renamed = scenarios.enumerated().map { index, scenario -> SpecCase in
            var copy = scenario
            copy.id = "fuzz.batch-\(index)"
            return copy
        }
        let path = (directory as NSString).appendingPathComponent("batch-\(getpid())-\(Self.nextBatch()).yaml")
        do {
            try CaseWriter.file(renamed).write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw WorkerError(description: "cannot write the scenario batch \(path): \(error.localizedDescription)")
        }
        defer { unlink(path) }
        let results = ResultTable(scenarios: renamed.count, engines: engines.count)
        // The scenarios whose traces hold dates (fireDate, nextTimerFireDate queries).
        let datesQueried = Set(renamed.indices.filter { renamed[$0].allActions.contains(where: Self.queriesDate) })
        DispatchQueue.concurrentPerform(iterations: engines.count) { engineIndex in
            let engine = engines[engineIndex]
            let session = WorkerSession(launcher: launcher, specPath: path, engine: engine)
            defer { session.close() }
            let mainThreadScenarios = renamed.indices.filter { renamed[$0].features.contains(.mainThread) }
            let mainThread = MainThreadWorkers(
                launcher: launcher, specPath: path, engine: engine,
                scenarios: mainThreadScenarios, ahead: Self.mainThreadWorkersAhead)
            defer { mainThread.close() }
            for (index, scenario) in renamed.enumerated() {
                if let keepGoing, !keepGoing() { break }
                let scenarioSession = mainThread.session(for: index) ?? session
                // A trace with a date in it made while the wall clock moved is made again (a main-thread scenario's
                // session starts a new worker for it): dates an engine keeps in wall-clock time move with the clock,
                // so two engines' traces could differ by the clock alone. After WallClock.attempts such runs the scenario is not
                // compared: SKIP, which the campaign counts as skipped.
                let (outcome, steady, _) = WallClock.steady(
                    offset: clockOffset,
                    retrying: { datesQueried.contains(index) && FuzzRunStatus($0.status) == .done }
                ) {
                    scenarioSession.run(scenario, limit: timeout)
                }
                let status = steady ? FuzzRunStatus(outcome.status) : .ended(.skip)
                results.set(
                    index, engineIndex,
                    FuzzRun(
                        status: status,
                        trace: FuzzScenario.comparable(outcome.actualTrace, allowances: scenario.allowances),
                        rawTrace: outcome.actualTrace, detail: status == .done ? nil : outcome.detail))
            }
        }
        return results.rows
    }

    /// Whether `action` traces a date, which an engine may keep in wall-clock time.
    static func queriesDate(_ action: Action) -> Bool {
        switch action {
        case .query(.fireDate), .query(.nextTimerFireDate): return true
        default: return false
        }
    }

    /// How many main-thread scenarios of a batch have their workers started ahead, per engine: a worker starts (exec,
    /// Foundation, the batch file) while the cases before its own run, so a main-thread scenario costs that start's
    /// processor time but not its latency. Two keep one starting while the next is ready, without crowding the other
    /// engine's worker off a two-core machine.
    static let mainThreadWorkersAhead = 2

    /// Numbers the batch files of this process.
    private static let batchCounter = Atomic<Int>(0)

    private static func nextBatch() -> Int { batchCounter.wrappingAdd(1, ordering: .relaxed).newValue }
}

/// The results of one batch, filled by one thread per engine. `cells` is protected by `lock`.
private final class ResultTable: @unchecked Sendable {
    private let lock = NSLock()
    private var cells: [[FuzzRun?]]

    init(scenarios: Int, engines: Int) {
        cells = Array(repeating: Array(repeating: nil, count: engines), count: scenarios)
    }

    func set(_ scenario: Int, _ engine: Int, _ run: FuzzRun) {
        lock.withLock { cells[scenario][engine] = run }
    }

    /// The rows every engine filled, from the first (each engine's thread fills its column, up to where it stopped,
    /// before `concurrentPerform` returns).
    var rows: [[FuzzRun]] {
        lock.withLock { cells.prefix { row in row.allSatisfy { $0 != nil } }.map { row in row.map { $0! } } }
    }
}

/// The workers of one engine's main-thread scenarios in a batch: a session each, whose worker is started ahead on a
/// background thread, at most `ahead` at a time, in the order the scenarios run. A main-thread case ends its worker
/// when it is done (WorkerSession), so each session serves one case.
///
/// Thread safety: `session(for:)` and `close()` are called by the engine's thread only; `starting` and `next` are
/// confined to it too, and each session's own lock orders a start ahead before the case that uses it.
private final class MainThreadWorkers: @unchecked Sendable {
    private let sessions: [Int: WorkerSession]
    /// The scenario indices, in the order they run.
    private let order: [Int]
    private let ahead: Int
    /// Signalled when the start ahead of the session of that scenario index has finished; removed once waited for.
    private var starting: [Int: DispatchSemaphore] = [:]
    /// How many of `order` have had their start launched.
    private var next = 0

    init(launcher: WorkerLauncher, specPath: String, engine: EngineDescription, scenarios: [Int], ahead: Int) {
        order = scenarios
        self.ahead = max(1, ahead)
        var sessions: [Int: WorkerSession] = [:]
        for index in scenarios {
            sessions[index] = WorkerSession(launcher: launcher, specPath: specPath, engine: engine)
        }
        self.sessions = sessions
        launchStarts(upTo: self.ahead)
    }

    /// The session for scenario `index`, its worker started (or its start failed, which the case reports), or nil
    /// when the scenario is not a main-thread one. Launches the start of the next sessions.
    func session(for index: Int) -> WorkerSession? {
        guard let session = sessions[index] else { return nil }
        let position = order.firstIndex(of: index) ?? 0
        launchStarts(upTo: position + 1)
        starting.removeValue(forKey: index)?.wait()
        launchStarts(upTo: position + 1 + ahead)
        return session
    }

    /// Starts the workers of `order` up to (not including) position `end`, each on a thread of its own.
    private func launchStarts(upTo end: Int) {
        while next < min(end, order.count) {
            let index = order[next]
            next += 1
            guard let session = sessions[index] else { continue }
            let done = DispatchSemaphore(value: 0)
            starting[index] = done
            // A thread of its own, not a dispatch queue's: the engines' threads are concurrentPerform's, and a start
            // queued behind them on a two-core machine's dispatch pool would wait for them while they wait for it.
            Thread.detachNewThread {
                session.prestart()
                done.signal()
            }
        }
    }

    /// Waits for the starts under way and ends every worker not used (a batch cut short).
    func close() {
        for done in starting.values { done.wait() }
        for session in sessions.values { session.close() }
    }
}
