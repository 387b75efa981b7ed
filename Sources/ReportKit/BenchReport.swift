// The benchmark report of one results file: the counts of rows, the errors, the engines' findings, the summary
// tables and the targets met and missed, computed from the file and the targets file (Benchmarks/targets.yaml).
import Foundation
import MarkupKit
import ResultsKit

/// Whether a target is met. A target is met only on data: a figure that is absent, errored or degenerate is never
/// counted as met.
enum TargetStatus: String, Sendable, Codable, CaseIterable {
    /// Every variant it names was measured and meets the bound.
    case met
    /// A variant misses the bound, or the subject engine failed to measure it (error rows, a skip, or no row where the
    /// other engines have one).
    case missed
    /// A figure it needs is not in the file (a filtered or partial run, a counter the harness does not write yet, a
    /// peer engine absent or failed, a degenerate value): not a failure, not a success.
    case notMeasured = "not measured"
    /// Measured but not judged: a quick run's figure for a target whose bound is for full runs only.
    case reported = "reported, not judged"
}

/// One variant of a target: the subject's figure, what it was compared with, and the verdict.
struct TargetOutcome: Sendable {
    /// The benchmark variant (`pin:same/load:none`).
    let variant: String
    /// The compared value: a ratio, or the figure itself for an absolute bound.
    let value: Double?
    /// The subject engine's figure.
    let subject: Double?
    /// What it was divided by, and whose it is (`epoll`, `best of libuv, glib, libevent: glib`).
    let reference: (label: String, value: Double)?
    /// Met, missed, not measured or reported.
    let status: TargetStatus
    /// Why it was missed or not measured, or what else the reader should know (repetitions left out).
    let note: String?
}

/// A target with its outcome on the file.
struct TargetResult: Sendable {
    /// The target.
    let target: BenchmarkTarget
    /// The bound it was judged against (the quick bound in a quick run), or `nil` when it was only reported.
    let bound: TargetBound?
    /// One outcome per variant (usually one).
    let outcomes: [TargetOutcome]

    /// Missed if a variant misses; otherwise not measured if a variant was not measured; otherwise reported if it was
    /// not judged; met only when every variant was measured and meets the bound.
    var status: TargetStatus {
        for status in [TargetStatus.missed, .notMeasured, .reported]
        where outcomes.contains(where: { $0.status == status }) {
            return status
        }
        return outcomes.isEmpty ? .notMeasured : .met
    }
}

/// A summary table filled in from the file.
struct TableResult: Sendable {
    /// A cell: the values of the table's metrics, or why there are none.
    enum Cell: Sendable {
        case values([Double?])
        case skipped
        /// Every repetition failed (error rows only).
        case errored
        case absent
    }

    /// The table's definition.
    let table: SummaryTable
    /// The columns.
    let engines: [String]
    /// One row per variant: its label and a cell per engine.
    let rows: [(variant: String, cells: [Cell])]
}

/// An engine firing timers before their date in some repetitions of a benchmark: its finding, not an error.
struct EarlyFireFinding: Sendable {
    /// The engine.
    let engine: String
    /// The benchmark.
    let benchmark: String
    /// Early fires over all repetitions.
    let fires: Double
    /// Repetitions with an early fire.
    let repetitions: Int
    /// Repetitions measured.
    let measured: Int
    /// The largest amount by which a fire was early, in nanoseconds, when the file reports it.
    let earliestByNs: Double?
}

/// The report of one results file.
struct BenchReport: Sendable {
    /// The file's index.
    let index: BenchIndex
    /// The targets file used.
    let targetsPath: String
    /// Rows of single repetitions.
    let repetitionRows: Int
    /// Aggregate rows (`_mean`, `_median`, ...).
    let aggregateRows: Int
    /// Skipped rows (error rows whose message starts with `skipped`).
    let skippedRows: Int
    /// Error rows that are not skips.
    let errors: [ErroredRow]
    /// Early fires, per benchmark.
    let findings: [EarlyFireFinding]
    /// The summary tables.
    let tables: [TableResult]
    /// The targets.
    let targets: [TargetResult]
    /// What the page draws for each family (the targets file's `page` section).
    let pages: [FamilyPage]

    /// The profile the file was measured with (`full`, `quick`, `smoke`), from its context.
    var profile: String? {
        index.file.contextValue("profile").map { String($0.prefix(while: { !$0.isWhitespace })) }
    }

    /// A smoke run's figures are meaningless: its targets are not evaluated.
    var isSmoke: Bool { profile == "smoke" }

    /// A quick run's figures are judged only against the targets' quick bounds.
    var isQuick: Bool { profile == "quick" }

    /// Computes the report of `file` against `targets`.
    init(file: ResultsFile, targets: TargetsFile) {
        let index = BenchIndex(file)
        self.index = index
        targetsPath = targets.path
        repetitionRows = file.rows.filter { $0.kind == .repetition }.count
        aggregateRows = file.rows.filter { if case .aggregate = $0.kind { return true } else { return false } }.count
        skippedRows = file.rows.filter { $0.kind == .error && ($0.errorMessage ?? "").hasPrefix("skipped") }.count
        errors = file.erroredRows.filter { !$0.message.hasPrefix("skipped") }
        findings = BenchReport.earlyFires(index)
        // Tables and targets of the file's kind of run only (timed, or instruction counts).
        let measure = RunMeasure(file)
        tables = targets.summary.filter { $0.run == measure }.map { BenchReport.fill($0, index) }
        let run = RunKind(file)
        self.targets =
            run.smoke ? [] : targets.targets.filter { $0.run == measure }.map { BenchReport.evaluate($0, index, run) }
        // The page's charts are of timed runs' columns; a file of counts gets its tables only.
        pages = measure == .timed ? targets.page : []
    }

    /// Counts of targets by status.
    var targetCounts: [TargetStatus: Int] {
        var counts: [TargetStatus: Int] = [:]
        for target in targets { counts[target.status, default: 0] += 1 }
        return counts
    }

    // MARK: - Computing

    static func earlyFires(_ index: BenchIndex) -> [EarlyFireFinding] {
        let early = MetricExpression("early_fires")!
        let by = MetricExpression("earliest_by_ns")!
        var findings: [EarlyFireFinding] = []
        for benchmark in index.benchmarks {
            let repetitions = benchmark.rows.filter { $0.kind == .repetition }
            let counts = repetitions.compactMap(early.value(on:))
            let firing = counts.filter { $0 > 0 }
            guard !firing.isEmpty else { continue }
            let earliest = repetitions.compactMap(by.value(on:)).max()
            findings.append(
                EarlyFireFinding(
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
                if benchmark.isErrored { return .errored }
                return .values(table.metrics.map { benchmark.value($0) })
            }
            return (variant, cells)
        }
        return TableResult(table: table, engines: engines, rows: rows)
    }

    /// What the file's context says about how it was measured, as far as judging targets goes.
    struct RunKind {
        /// A smoke run: targets are not evaluated.
        var smoke = false
        /// A quick run: only quick bounds are judged.
        var quick = false
        /// The benchmark filter of a filtered run (`# filter:` other than `(all)`): a variant one engine lacks was
        /// perhaps filtered out, not lost.
        var filter: String?
        /// Error rows of the run itself, which name no engine (`harness/family:wake`: a family process that crashed):
        /// what a target without rows may have lost.
        var runFailures: [String] = []

        init(_ file: ResultsFile) {
            let profile = file.contextValue("profile").map { String($0.prefix(while: { !$0.isWhitespace })) }
            smoke = profile == "smoke"
            quick = profile == "quick"
            filter = file.contextValue("filter").flatMap { $0 == "(all)" || $0.isEmpty ? nil : $0 }
            runFailures = file.erroredRows.filter { row in
                BenchmarkName(row.benchmark).engine == nil && !row.message.hasPrefix("skipped")
            }.map { "\($0.benchmark): \($0.message)" }
        }

        init() {}
    }

    /// A benchmark's figure for a target, or why it has none.
    enum Figure {
        case value(Double, note: String?)
        case none(String)
    }

    /// The figure of `metric` on `benchmark` by `statistic`, over its valid repetitions (those whose `invalidIf`
    /// flag is 0); `zeroIsValid` says whether 0 is a figure (a count that must be 0) or a sign that nothing was
    /// measured (a time, a rate, a ratio's term).
    static func figure(
        _ benchmark: IndexedBenchmark, _ metric: MetricExpression, _ statistic: Statistic,
        invalidIf: MetricExpression?, zeroIsValid: Bool
    ) -> Figure {
        if let skip = benchmark.skipped { return .none(skip) }
        if benchmark.isErrored {
            return .none("no data: \(benchmark.errors.count) error rows (\(benchmark.errors[0]))")
        }
        var rows = benchmark.rows
        var notes: [String] = []
        if !benchmark.errors.isEmpty {
            notes.append(
                "\(benchmark.errors.count) of \(benchmark.errors.count + rows.count) repetitions failed "
                    + "(\(benchmark.errors[0]))")
        }
        if let flag = invalidIf {
            let flagged = rows.map(flag.value(on:))
            guard !flagged.contains(where: { $0 == nil }) else { return .none("no value for \(flag)") }
            rows = zip(rows, flagged).filter { $0.1 == 0 }.map(\.0)
            guard !rows.isEmpty else { return .none("\(flag) is set in every repetition: no valid figure") }
            if rows.count < flagged.count {
                notes.append("\(flagged.count - rows.count) of \(flagged.count) repetitions left out (\(flag) set)")
            }
        }
        let values = rows.map(metric.value(on:))
        let present = values.compactMap { $0 }
        guard !present.isEmpty else { return .none("no value for \(metric)") }
        guard present.count == values.count else {
            return .none("\(values.count - present.count) of \(values.count) repetitions have no value for \(metric)")
        }
        let value: Double
        switch statistic {
        case .median: value = Statistics.median(present) ?? .nan
        case .max: value = present.max() ?? .nan
        case .min: value = present.min() ?? .nan
        }
        guard value.isFinite, value > 0 || (zeroIsValid && value == 0) else {
            let shown = value.isFinite ? NumberText.significant(value) : "\(value)"
            return .none("degenerate value (\(shown) of \(metric))")
        }
        return .value(value, note: notes.isEmpty ? nil : notes.joined(separator: "; "))
    }

    /// Every combination of the listed values of a selection's parameters (`pin:same/load:none`, ...).
    static func combinations(_ selection: BenchmarkSelection) -> [[(key: String, value: String)]] {
        selection.parameters.reduce([[]]) { partial, parameter in
            partial.flatMap { prefix in parameter.values.map { prefix + [(parameter.key, $0)] } }
        }
    }

    /// The verdicts of `target` on the file, variant by variant (TargetEvaluation).
    static func evaluate(_ target: BenchmarkTarget, _ index: BenchIndex, _ run: RunKind = RunKind()) -> TargetResult {
        TargetEvaluation(target, index, run).result()
    }

    /// Why a dominance comparison has no answer.
    struct DominanceProblem: Error {
        let text: String
    }

    /// The engines among `engines` that beat `subject` strictly on every one of `figures` (each in its own direction:
    /// higher for rates, lower for times and counts), in the same variant; a failure when a figure of the subject or
    /// of a named engine cannot be read (every one must be measured, or "not dominated" would be said on no data).
    static func dominance(
        _ subject: IndexedBenchmark, variant: String, engines: [String],
        figures: [MetricExpression], index: BenchIndex, statistic: Statistic,
        invalidIf: MetricExpression?
    ) -> Result<[String], DominanceProblem> {
        func values(_ benchmark: IndexedBenchmark) -> Result<[Double], DominanceProblem> {
            var read: [Double] = []
            for metric in figures {
                switch figure(benchmark, metric, statistic, invalidIf: invalidIf, zeroIsValid: false) {
                case .none(let why): return .failure(DominanceProblem(text: "\(benchmark.engine): \(why)"))
                case .value(let value, _): read.append(value)
                }
            }
            return .success(read)
        }
        let mine: [Double]
        switch values(subject) {
        case .failure(let problem): return .failure(problem)
        case .success(let read): mine = read
        }
        var dominating: [String] = []
        var problems: [String] = []
        for engine in engines {
            guard let benchmark = index.benchmark(family: subject.family, variant: variant, engine: engine) else {
                problems.append("no \(engine) row")
                continue
            }
            switch values(benchmark) {
            case .failure(let problem): problems.append(problem.text)
            case .success(let theirs):
                let beats = zip(figures, zip(theirs, mine)).allSatisfy { metric, pair in
                    metric.higherIsBetter ? pair.0 > pair.1 : pair.0 < pair.1
                }
                if beats { dominating.append(engine) }
            }
        }
        guard problems.isEmpty else { return .failure(DominanceProblem(text: problems.joined(separator: "; "))) }
        return .success(dominating)
    }
}
