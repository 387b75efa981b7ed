// The benchmark report of one results file: the counts of rows, the errors, the engines' findings, the summary
// tables and the targets met and missed, computed from the file and the targets file (Benchmarks/targets.yaml).
import Foundation

/// Whether a target is met.
public enum TargetStatus: String, Sendable, Codable {
    /// Every measured variant meets the bound.
    case met
    /// A variant misses it.
    case missed
    /// The rows it needs are not in the file (a filtered or smoke run, a family not yet built): not a failure.
    case notMeasured = "not measured"
}

/// One variant of a target: the subject's figure, what it was compared with, and the verdict.
public struct TargetOutcome: Sendable {
    /// The benchmark variant (`pin:same/load:none`).
    public let variant: String
    /// The compared value: a ratio, or the figure itself for an absolute bound.
    public let value: Double?
    /// The subject engine's figure.
    public let subject: Double?
    /// What it was divided by, and whose it is (`epoll`, `best of libuv, glib, libevent: glib`).
    public let reference: (label: String, value: Double)?
    /// Met, missed or not measured.
    public let status: TargetStatus
    /// Why it was not measured, or which engines of a set were absent.
    public let note: String?
}

/// A target with its outcome on the file.
public struct TargetResult: Sendable {
    /// The target.
    public let target: BenchmarkTarget
    /// One outcome per variant of the subject (usually one).
    public let outcomes: [TargetOutcome]

    /// Missed if a measured variant misses, met if the measured ones all meet it, not measured if none is.
    public var status: TargetStatus {
        if outcomes.contains(where: { $0.status == .missed }) { return .missed }
        if outcomes.contains(where: { $0.status == .met }) { return .met }
        return .notMeasured
    }
}

/// A summary table filled in from the file.
public struct TableResult: Sendable {
    /// A cell: the values of the table's metrics, or why there are none.
    public enum Cell: Sendable {
        case values([Double?])
        case skipped
        case absent
    }

    /// The table's definition.
    public let table: SummaryTable
    /// The columns.
    public let engines: [String]
    /// One row per variant: its label and a cell per engine.
    public let rows: [(variant: String, cells: [Cell])]
}

/// An engine firing timers before their date in some repetitions of a benchmark: its finding, not an error.
public struct EarlyFireFinding: Sendable {
    /// The engine.
    public let engine: String
    /// The benchmark.
    public let benchmark: String
    /// Early fires over all repetitions.
    public let fires: Double
    /// Repetitions with an early fire.
    public let repetitions: Int
    /// Repetitions measured.
    public let measured: Int
    /// The largest amount by which a fire was early, in nanoseconds, when the file reports it.
    public let earliestByNs: Double?
}

/// The report of one results file.
public struct BenchReport: Sendable {
    /// The file's index.
    public let index: BenchIndex
    /// The targets file used.
    public let targetsPath: String
    /// Rows of single repetitions.
    public let repetitionRows: Int
    /// Aggregate rows (`_mean`, `_median`, ...).
    public let aggregateRows: Int
    /// Skipped rows (error rows whose message starts with `skipped`).
    public let skippedRows: Int
    /// Error rows that are not skips.
    public let errors: [ErroredRow]
    /// Early fires, per benchmark.
    public let findings: [EarlyFireFinding]
    /// The summary tables.
    public let tables: [TableResult]
    /// The targets.
    public let targets: [TargetResult]

    /// The profile the file was measured with (`full`, `quick`, `smoke`), from its context.
    public var profile: String? {
        index.file.contextValue("profile").map { String($0.prefix(while: { !$0.isWhitespace })) }
    }

    /// A smoke run's figures are meaningless: its targets are not evaluated.
    public var isSmoke: Bool { profile == "smoke" }

    /// Computes the report of `file` against `targets`.
    public init(file: ResultsFile, targets: TargetsFile) {
        let index = BenchIndex(file)
        self.index = index
        targetsPath = targets.path
        repetitionRows = file.rows.filter { $0.kind == .repetition }.count
        aggregateRows = file.rows.filter { if case .aggregate = $0.kind { return true } else { return false } }.count
        skippedRows = file.rows.filter { $0.kind == .error && ($0.errorMessage ?? "").hasPrefix("skipped") }.count
        errors = file.erroredRows.filter { !$0.message.hasPrefix("skipped") }
        findings = BenchReport.earlyFires(index)
        tables = targets.summary.map { BenchReport.fill($0, index) }
        let smoke = file.contextValue("profile").map { $0.hasPrefix("smoke") } ?? false
        self.targets = smoke ? [] : targets.targets.map { BenchReport.evaluate($0, index) }
    }

    /// Counts of targets by status.
    public var targetCounts: [TargetStatus: Int] {
        var counts: [TargetStatus: Int] = [:]
        for target in targets { counts[target.status, default: 0] += 1 }
        return counts
    }

    // MARK: - Computing

    static func earlyFires(_ index: BenchIndex) -> [EarlyFireFinding] {
        let early = MetricExpression("early_fires")!, by = MetricExpression("earliest_by_ns")!
        var findings: [EarlyFireFinding] = []
        for benchmark in index.benchmarks {
            let repetitions = benchmark.rows.filter { $0.kind == .repetition }
            let counts = repetitions.compactMap(early.value(on:))
            let firing = counts.filter { $0 > 0 }
            guard !firing.isEmpty else { continue }
            let earliest = repetitions.compactMap(by.value(on:)).max()
            findings.append(EarlyFireFinding(
                engine: benchmark.engine, benchmark: benchmark.name, fires: firing.reduce(0, +),
                repetitions: firing.count, measured: counts.count, earliestByNs: earliest))
        }
        return findings
    }

    static func fill(_ table: SummaryTable, _ index: BenchIndex) -> TableResult {
        let selected = index.select(table.selection)
        let engines = index.engines.filter { engine in selected.contains { $0.engine == engine } }
        let rows = BenchIndex.orderedVariants(selected).map { variant -> (variant: String, cells: [TableResult.Cell]) in
            let cells = engines.map { engine -> TableResult.Cell in
                guard let benchmark = selected.first(where: { $0.variant == variant && $0.engine == engine }) else {
                    return .absent
                }
                if benchmark.skipped != nil { return .skipped }
                return .values(table.metrics.map { benchmark.value($0) })
            }
            return (variant, cells)
        }
        return TableResult(table: table, engines: engines, rows: rows)
    }

    static func evaluate(_ target: BenchmarkTarget, _ index: BenchIndex) -> TargetResult {
        let selected = index.select(target.selection).filter { $0.engine == target.engine && $0.skipped == nil }
        let subjects = BenchIndex.orderedVariants(selected).compactMap { variant in
            selected.first { $0.variant == variant }
        }
        guard !subjects.isEmpty else {
            return TargetResult(target: target, outcomes: [TargetOutcome(
                variant: "", value: nil, subject: nil, reference: nil, status: .notMeasured,
                note: "no \(target.engine) rows of \(target.selection.description)")])
        }
        let outcomes = subjects.map { subject -> TargetOutcome in
            func notMeasured(_ note: String, _ value: Double? = nil) -> TargetOutcome {
                TargetOutcome(variant: subject.variant, value: nil, subject: value, reference: nil,
                              status: .notMeasured, note: note)
            }
            guard let value = subject.value(target.metric, target.statistic) else {
                return notMeasured("no value for \(target.metric)")
            }
            func judged(_ reference: (label: String, value: Double)?, note: String? = nil) -> TargetOutcome {
                guard let reference else {
                    return TargetOutcome(variant: subject.variant, value: value, subject: value, reference: nil,
                                         status: target.bound.isMet(by: value) ? .met : .missed, note: note)
                }
                guard reference.value > 0 else { return notMeasured("\(reference.label)'s value is 0: no ratio", value) }
                let ratio = value / reference.value
                return TargetOutcome(variant: subject.variant, value: ratio, subject: value, reference: reference,
                                     status: target.bound.isMet(by: ratio) ? .met : .missed, note: note)
            }
            func peer(_ engine: String) -> Double? {
                index.benchmark(family: subject.family, variant: subject.variant, engine: engine)
                    .flatMap { $0.skipped == nil ? $0.value(target.metric, target.statistic) : nil }
            }
            switch target.comparison {
            case .absolute:
                return judged(nil)
            case .engine(let engine):
                guard let reference = peer(engine) else { return notMeasured("no \(engine) rows to compare with", value) }
                return judged((engine, reference))
            case .bestOf(let engines):
                let measured = engines.compactMap { engine in peer(engine).map { (engine, $0) } }
                let best = target.bound.atMost ? measured.min(by: { $0.1 < $1.1 }) : measured.max(by: { $0.1 < $1.1 })
                guard let best else {
                    return notMeasured("none of \(engines.joined(separator: ", ")) measured", value)
                }
                let absent = engines.filter { name in !measured.contains { $0.0 == name } }
                return judged(("\(best.0) (the best)", best.1),
                              note: absent.isEmpty ? nil : "not measured: \(absent.joined(separator: ", "))")
            case .counter(let counter):
                guard let reference = subject.value(counter, target.statistic) else {
                    return notMeasured("no value for \(counter)", value)
                }
                return judged((counter.description, reference))
            }
        }
        return TargetResult(target: target, outcomes: outcomes)
    }
}
