// A family's bound on a hanging engine: after `hangsPerEngine` watchdog expiries of one engine's benchmarks in a
// family, the rest of that engine's benchmarks there are not run but become rows "skipped: engine hung twice ...", so
// an engine that hangs everywhere costs two watchdog periods per family, not one per benchmark.

/// The watchdog expiries of one family, per engine.
public struct HangBook: Sendable, Equatable {
    /// Expiries of one engine in a family after which its other benchmarks there are skipped.
    public static let hangsPerEngine = 2
    /// The message of the rows of a hung engine's benchmarks not run.
    public static let skipMessage =
        "skipped: engine hung twice in this family (watchdog); its other benchmarks here "
        + "were not run"

    /// Expiries by engine.
    private var hangs: [String: Int] = [:]

    public init() {}

    /// Counts an expiry of `benchmark`; returns its engine when that was the engine's `hangsPerEngine`-th.
    public mutating func note(_ benchmark: String) -> String? {
        guard let engine = BenchmarkName.engine(benchmark) else { return nil }
        hangs[engine, default: 0] += 1
        return hangs[engine] == HangBook.hangsPerEngine ? engine : nil
    }

    /// Whether `benchmark`'s engine already hung `hangsPerEngine` times.
    public func hasHung(_ benchmark: String) -> Bool {
        guard let engine = BenchmarkName.engine(benchmark) else { return false }
        return hangs[engine, default: 0] >= HangBook.hangsPerEngine
    }
}
