// Judging one target on one results file, variant by variant: the subject engine's figure, then what the target's kind
// of comparison compares it with (nothing, an engine, the best of several, a limit, a counter, a difference, the
// engines that dominate it), each kind returning its verdict.
import Foundation
import ResultsKit

/// A target being judged on one results file (BenchReport.evaluate).
struct TargetEvaluation {
    let target: BenchmarkTarget
    let index: BenchIndex
    let run: BenchReport.RunKind
    /// The bound judged against: the quick bound in a quick run.
    let bound: TargetBound?
    /// The benchmarks the target selects.
    let selected: [IndexedBenchmark]
    /// Whether 0 is a figure: for a count held to an absolute bound or compared by difference ("no late fires", "no
    /// more than the floor's"); for a time, a rate or a ratio's term it means nothing was measured.
    let zeroIsValid: Bool
    /// The run's own failures, as the tail of a note on what has no rows.
    let failures: String

    init(_ target: BenchmarkTarget, _ index: BenchIndex, _ run: BenchReport.RunKind) {
        self.target = target
        self.index = index
        self.run = run
        bound = run.quick ? target.quickBound : target.bound
        selected = index.select(target.selection)
        switch target.comparison {
        case .absolute, .difference: zeroIsValid = !target.metric.isTime
        default: zeroIsValid = false
        }
        failures =
            run.runFailures.isEmpty
            ? ""
            : " (the run's own failures: "
                + run.runFailures.joined(separator: "; ") + ")"
    }

    /// The verdicts: the listed values no engine measured, then each variant measured, in order.
    func result() -> TargetResult {
        var outcomes = unmeasuredCombinations()
        outcomes += BenchIndex.orderedVariants(selected).compactMap(judge)
        if outcomes.isEmpty {
            outcomes.append(
                TargetOutcome(
                    variant: "", value: nil, subject: nil, reference: nil, status: .notMeasured,
                    note: "no rows of \(target.selection.description)" + failures))
        }
        return TargetResult(target: target, bound: bound, outcomes: outcomes)
    }

    /// A value the target names that no engine measured: a filtered run, a variant the harness does not have yet.
    func unmeasuredCombinations() -> [TargetOutcome] {
        guard target.selection.parameters.contains(where: { $0.values.count > 1 }) else { return [] }
        return BenchReport.combinations(target.selection).filter { combination in
            !selected.contains { benchmark in combination.allSatisfy { benchmark.parameter($0.key) == $0.value } }
        }.map { combination in
            TargetOutcome(
                variant: combination.map { "\($0.key):\($0.value)" }.joined(separator: "/"), value: nil,
                subject: nil, reference: nil, status: .notMeasured,
                note: "no rows of this variant on any engine" + failures)
        }
    }

    /// The verdict on one variant; nil for a variant of the subject alone (an option only it has, such as ref's
    /// `spin:on`) in a file where other engines measured the family, when the target compares engines: it has nothing
    /// to be compared with. (Without any other engine's rows, as in a run of the subject alone, its variants stay
    /// "not measured".)
    func judge(_ variant: String) -> TargetOutcome? {
        if target.comparison.comparesEngines, selected.contains(where: { $0.engine != target.engine }),
            !selected.contains(where: { $0.variant == variant && $0.engine != target.engine })
        {
            return nil
        }
        guard let subject = selected.first(where: { $0.variant == variant && $0.engine == target.engine }) else {
            return missingSubject(variant)
        }
        // The subject skipping a variant its target names is a miss, as a failure is: ref has every feature the
        // targets read, and the harness also skips the rest of an engine's family after it hung twice.
        if let skip = subject.skipped {
            return TargetOutcome(
                variant: variant, value: nil, subject: nil, reference: nil, status: .missed,
                note: "no data: \(skip)")
        }
        switch BenchReport.figure(
            subject, target.metric, target.statistic, invalidIf: target.invalidIf,
            zeroIsValid: zeroIsValid)
        {
        case .none(let why):
            return TargetOutcome(
                variant: variant, value: nil, subject: nil, reference: nil,
                status: subject.errors.isEmpty ? .notMeasured : .missed, note: why)
        case .value(let value, let note):
            let measured = MeasuredVariant(
                variant: variant, subject: subject, value: value,
                notes: [note].compactMap { $0 })
            return compare(measured)
        }
    }

    /// The verdict on a variant without a row of the subject engine.
    func missingSubject(_ variant: String) -> TargetOutcome {
        let status: TargetStatus
        let note: String
        if !index.benchmarks.contains(where: { $0.engine == target.engine }) {
            (status, note) = (.notMeasured, "no \(target.engine) rows in the file")
        } else if let filter = run.filter {
            (status, note) = (.notMeasured, "no \(target.engine) row (a filtered run: \(filter))")
        } else {
            (status, note) = (.missed, "no data: other engines measured this variant, \(target.engine) has no row")
        }
        return TargetOutcome(variant: variant, value: nil, subject: nil, reference: nil, status: status, note: note)
    }

    /// The verdict on a variant the subject measured, by the target's kind of comparison.
    func compare(_ measured: MeasuredVariant) -> TargetOutcome {
        switch target.comparison {
        case .absolute: return ratio(measured, reference: nil, notes: measured.notes)
        case .engine(let engine): return versusEngine(engine, measured)
        case .bestOf(let engines): return versusBest(of: engines, measured)
        case .limit(let handoff): return versusLimit(handoff, measured)
        case .counter(let counter): return versusCounter(counter, measured)
        case .difference(let engine): return difference(from: engine, measured)
        case .notDominated(let engines, let figures): return notDominated(by: engines, on: figures, measured)
        }
    }

    // MARK: - The kinds of comparison

    /// The subject's figure over another engine's.
    func versusEngine(_ engine: String, _ measured: MeasuredVariant) -> TargetOutcome {
        switch peer(engine, measured) {
        case .none(let why):
            return measured.unread([why], notes: measured.notes)
        case .value(let figure, let note):
            return ratio(measured, reference: (engine, figure), notes: measured.notes + [note].compactMap { $0 })
        }
    }

    /// The subject's figure over the best of several engines' (the lowest for an upper bound, the highest for a
    /// lower one). Every peer the target names must be measured: the best of fewer is a weaker bar.
    func versusBest(of engines: [String], _ measured: MeasuredVariant) -> TargetOutcome {
        var notes = measured.notes
        var figures: [(String, Double)] = []
        var problems: [String] = []
        for engine in engines {
            switch peer(engine, measured) {
            case .none(let why): problems.append(why)
            case .value(let figure, let note):
                figures.append((engine, figure))
                notes += [note].compactMap { $0 }
            }
        }
        guard problems.isEmpty,
            let best = target.bound.atMost
                ? figures.min(by: { $0.1 < $1.1 })
                : figures.max(by: { $0.1 < $1.1 })
        else {
            return measured.unread(problems, notes: notes)
        }
        return ratio(measured, reference: ("\(best.0) (the best)", best.1), notes: notes)
    }

    /// The subject's figure over the limit of its pinning's handoff (BM_Limits).
    func versusLimit(_ handoff: String, _ measured: MeasuredVariant) -> TargetOutcome {
        let limit = CostReport.limitBenchmark(index, handoff: handoff, pin: measured.subject.parameter("pin"))
        let limitFigure = limit.map {
            BenchReport.figure(
                $0, target.metric, target.statistic, invalidIf: nil,
                zeroIsValid: false)
        }
        switch limitFigure ?? BenchReport.Figure.none("no \(handoff) limit of this pinning (BM_Limits) in the file") {
        case .none(let why):
            return measured.unread([why], notes: measured.notes)
        case .value(let figure, _):
            return ratio(measured, reference: ("the \(handoff) limit", figure), notes: measured.notes)
        }
    }

    /// The subject's figure over another of its own figures.
    func versusCounter(_ counter: MetricExpression, _ measured: MeasuredVariant) -> TargetOutcome {
        switch BenchReport.figure(
            measured.subject, counter, target.statistic, invalidIf: target.invalidIf,
            zeroIsValid: false)
        {
        case .none(let why):
            return measured.outcome(measured.failed ? .missed : .notMeasured, why, subject: measured.value)
        case .value(let figure, _):
            return ratio(measured, reference: (counter.description, figure), notes: measured.notes)
        }
    }

    /// The subject's figure minus another engine's, held to the bound.
    func difference(from engine: String, _ measured: MeasuredVariant) -> TargetOutcome {
        switch peer(engine, measured) {
        case .none(let why):
            return measured.unread([why], notes: measured.notes)
        case .value(let figure, let note):
            let difference = measured.value - figure
            let notes =
                ["\(engine) " + BenchReport.figure(figure, target.metric)] + measured.notes
                + [note].compactMap { $0 }
            return measured.outcome(
                status(difference, failed: measured.failed), notes.joined(separator: "; "),
                value: difference, subject: measured.value)
        }
    }

    /// How many of the named engines beat the subject on every one of the figures, held to the bound.
    func notDominated(
        by engines: [String], on figures: [MetricExpression],
        _ measured: MeasuredVariant
    ) -> TargetOutcome {
        switch BenchReport.dominance(
            measured.subject, variant: measured.variant, engines: engines, figures: figures,
            index: index, statistic: target.statistic, invalidIf: target.invalidIf)
        {
        case .failure(let problem):
            return measured.unread([problem.text], notes: measured.notes)
        case .success(let dominating):
            let count = Double(dominating.count)
            let listed = figures.map(\.description).joined(separator: ", ")
            let verdict =
                dominating.isEmpty
                ? "none of \(engines.joined(separator: ", ")) beats it on all of " + listed
                : "beaten on all of \(listed) by " + dominating.joined(separator: ", ")
            return measured.outcome(
                status(count, failed: measured.failed),
                ([verdict] + measured.notes).joined(separator: "; "), value: count,
                subject: measured.value)
        }
    }

    // MARK: - Shared steps

    /// The subject's figure over `reference` (the figure itself without one), held to the bound.
    func ratio(
        _ measured: MeasuredVariant, reference: (label: String, value: Double)?,
        notes: [String]
    ) -> TargetOutcome {
        let compared = reference.map { measured.value / $0.value } ?? measured.value
        guard compared.isFinite else {
            return measured.outcome(.notMeasured, "degenerate ratio", subject: measured.value, reference: reference)
        }
        return measured.outcome(
            status(compared, failed: measured.failed),
            notes.isEmpty ? nil : notes.joined(separator: "; "), value: compared,
            subject: measured.value, reference: reference)
    }

    /// Missed when the subject failed repetitions (even when the others have a figure), else whether `value` meets
    /// the bound; reported when there is no bound to judge by.
    func status(_ value: Double, failed: Bool) -> TargetStatus {
        if failed { return .missed }
        guard let bound else { return .reported }
        return bound.isMet(by: value) ? .met : .missed
    }

    /// Another engine's figure on the same variant, its note and reason naming the engine.
    func peer(_ engine: String, _ measured: MeasuredVariant) -> BenchReport.Figure {
        guard
            let benchmark = index.benchmark(
                family: measured.subject.family, variant: measured.variant,
                engine: engine)
        else {
            return .none("no \(engine) row")
        }
        switch BenchReport.figure(
            benchmark, target.metric, target.statistic, invalidIf: target.invalidIf,
            zeroIsValid: zeroIsValid)
        {
        case .none(let why): return .none("\(engine): \(why)")
        case .value(let value, let note): return .value(value, note: note.map { "\(engine): \($0)" })
        }
    }
}

/// A variant whose subject figure was read: what every kind of comparison starts from.
struct MeasuredVariant {
    let variant: String
    /// The subject engine's benchmark.
    let subject: IndexedBenchmark
    /// The subject's figure.
    let value: Double
    /// What the reader should know about the subject's figure (repetitions left out or failed).
    let notes: [String]

    /// The subject's failed repetitions make a miss even when the others have a figure.
    var failed: Bool { !subject.errors.isEmpty }

    func outcome(
        _ status: TargetStatus, _ note: String?, value: Double? = nil, subject: Double? = nil,
        reference: (label: String, value: Double)? = nil
    ) -> TargetOutcome {
        TargetOutcome(
            variant: variant, value: value, subject: subject, reference: reference, status: status,
            note: note)
    }

    /// What the target could not read (a peer, a limit), with the notes so far: not measured, or missed when the
    /// subject itself failed.
    func unread(_ reasons: [String], notes: [String]) -> TargetOutcome {
        outcome(failed ? .missed : .notMeasured, (reasons + notes).joined(separator: "; "), subject: value)
    }
}
