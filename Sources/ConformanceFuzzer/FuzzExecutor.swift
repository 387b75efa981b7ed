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

    public init(launcher: WorkerLauncher, engines: [EngineDescription], timeout: Double, directory: String) {
        self.launcher = launcher
        self.engines = engines
        self.timeout = timeout
        self.directory = directory
    }

    /// Runs every scenario on every engine; the result is indexed [scenario][engine]. The engines run at the same
    /// time (one worker each), the scenarios of one engine one after the other. With `keepGoing`, an engine starts a
    /// scenario only while it returns true (a campaign's time limit, an interrupt), and the result holds the scenarios
    /// every engine ran, from the first: the scenario under way when it turns false ends within its watchdog.
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
        DispatchQueue.concurrentPerform(iterations: engines.count) { engineIndex in
            let session = WorkerSession(launcher: launcher, specPath: path, engine: engines[engineIndex])
            defer { session.close() }
            for (index, scenario) in renamed.enumerated() {
                if let keepGoing, !keepGoing() { break }
                let outcome = session.run(scenario, limit: timeout)
                let status = FuzzRunStatus(outcome.status)
                results.set(index, engineIndex, FuzzRun(
                    status: status,
                    trace: FuzzScenario.comparable(outcome.actualTrace, allowances: scenario.allowances),
                    rawTrace: outcome.actualTrace, detail: status == .done ? nil : outcome.detail))
            }
        }
        return results.rows
    }

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
