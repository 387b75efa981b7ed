// Matching and comparison: pairing benchmarks of two files (by name) or of two engines in one
// file (by family and parameters), the per-benchmark statistics and verdicts, and the report.
import Foundation
import ResultsKit

/// The knobs of a comparison.
struct ComparisonSettings: Sendable, Equatable {
    /// The quantity compared (default `real_time`).
    var metric: Metric
    /// The smallest relative change, in percent, that counts as faster or slower (default 5).
    var thresholdPercent: Double
    /// The significance level of the two-sided Mann-Whitney U test (default 0.05).
    var alpha: Double
    /// Whether larger values are better; `nil` decides from the metric (`*_per_second` counters).
    var higherIsBetter: Bool?

    /// Creates settings; the defaults are `real_time`, 5 %, alpha 0.05, direction from the metric.
    init(
        metric: Metric = .realTime, thresholdPercent: Double = 5, alpha: Double = 0.05,
        higherIsBetter: Bool? = nil
    ) {
        self.metric = metric
        self.thresholdPercent = thresholdPercent
        self.alpha = alpha
        self.higherIsBetter = higherIsBetter
    }

    /// The direction actually used.
    var resolvedHigherIsBetter: Bool { higherIsBetter ?? metric.defaultHigherIsBetter }
}

/// The outcome for one benchmark. For metrics where higher is better, `slower` means "worse".
enum Verdict: String, Sendable, Codable, CaseIterable {
    /// Significantly better by more than the threshold.
    case faster
    /// Significantly worse by more than the threshold (a regression: exit status 1).
    case slower
    /// Not significant, or within the threshold.
    case noSignificantChange = "no significant change"
}

/// Descriptive statistics of one side of a comparison.
struct SampleSummary: Sendable, Codable, Equatable {
    /// The number of values.
    let count: Int
    /// The median.
    let median: Double
    /// The smallest value.
    let minimum: Double
    /// The largest value.
    let maximum: Double
    /// The first quartile.
    let lowerQuartile: Double
    /// The third quartile.
    let upperQuartile: Double
    /// The values (nanoseconds for times).
    let values: [Double]
    /// Repetitions, or the aggregate row used when the file has none.
    let source: SampleSource
    /// The line of the first row used.
    let line: Int

    /// Summarises samples; `nil` if there are no values.
    init?(_ samples: BenchmarkSamples) {
        let values = samples.values
        guard let median = Statistics.median(values), let minimum = values.min(), let maximum = values.max(),
            let q1 = Statistics.quantile(values, 0.25), let q3 = Statistics.quantile(values, 0.75)
        else { return nil }
        count = values.count
        self.median = median
        self.minimum = minimum
        self.maximum = maximum
        lowerQuartile = q1
        upperQuartile = q3
        self.values = values
        source = samples.source
        line = samples.firstLine
    }
}

/// The comparison of one benchmark (or one family+parameters pair of engines).
struct BenchmarkComparison: Sendable, Codable, Equatable {
    /// The matching key: the benchmark name, or `family/parameters` in engine mode.
    let name: String
    /// The first path component of the name.
    let family: String
    /// The other components (without `engine:`).
    let parameters: String
    /// The baseline side (first file, or first engine).
    let base: SampleSummary
    /// The other side (second file, or second engine).
    let new: SampleSummary
    /// new median / base median; `nil` when the base median is 0 and the new one is not.
    let ratio: Double?
    /// `ratio - 1`, the relative change.
    let change: Double?
    /// The two-sided Mann-Whitney U test of base against new; `nil` when a side has fewer than
    /// 2 repetitions or only an aggregate row.
    let test: MannWhitneyResult?
    /// Faster, slower or no significant change.
    let verdict: Verdict
    /// True when the test could not reach alpha with these sample sizes (or a side is a single
    /// aggregate), so the verdict was decided by the threshold alone.
    let thresholdOnly: Bool
    /// True when a side has fewer than 9 repetitions (compare.py's reliability warning).
    let fewRepetitions: Bool
}

/// One input of the report and its run context.
struct FileSummary: Sendable, Codable, Equatable {
    /// The file path.
    let path: String
    /// The column label: the path's last component, or the engine name.
    let label: String
    /// The `# key: value` context pairs.
    let context: [ContextEntry]
    /// Other context lines (Google Benchmark's own: date, "Run on", caches, load).
    let otherContext: [String]
}

/// The geometric mean of the ratios of one family.
struct FamilySummary: Sendable, Codable, Equatable {
    /// The family (first name component).
    let family: String
    /// How many comparisons it has.
    let count: Int
    /// The geometric mean of its ratios, if all are positive.
    let geometricMean: Double?
    /// How many are slower.
    let slower: Int
    /// How many are faster.
    let faster: Int
}

/// Whether two files or two engines of one file were compared.
enum ComparisonMode: String, Sendable, Codable {
    /// BASE.csv against NEW.csv, matched by name.
    case files
    /// Engine A against engine B in one file, matched by family and parameters.
    case engines
}

/// Everything a comparison found; rendered by `ComparisonRenderer` and `RatioPlot`.
struct ComparisonReport: Sendable, Codable, Equatable {
    /// Files or engines.
    let mode: ComparisonMode
    /// The compared column.
    let metric: String
    /// `"ns"` for times (all values normalised to nanoseconds), `nil` for counters.
    let unit: String?
    /// Whether larger values are better.
    let higherIsBetter: Bool
    /// The threshold in percent.
    let thresholdPercent: Double
    /// The significance level.
    let alpha: Double
    /// The baseline input.
    let base: FileSummary
    /// The other input.
    let new: FileSummary
    /// Matched benchmarks, in the order of the base file.
    let comparisons: [BenchmarkComparison]
    /// Benchmarks only on the base side.
    let onlyInBase: [String]
    /// Benchmarks only on the new side.
    let onlyInNew: [String]
    /// Benchmarks without any value of a counter metric (empty cells).
    let withoutValues: [String]
    /// Rows with `error_occurred=true`, not compared.
    let errored: [ErroredRow]
    /// Per-family geometric means.
    let families: [FamilySummary]
    /// The geometric mean of all ratios.
    let geometricMean: Double?
    /// Reliability and data warnings.
    let warnings: [String]

    /// The comparisons judged slower (regressions).
    var regressions: [BenchmarkComparison] { comparisons.filter { $0.verdict == .slower } }

    /// 1 if any benchmark is significantly slower beyond the threshold, else 0.
    var exitCode: Int32 { regressions.isEmpty ? 0 : 1 }
}

/// Pairs benchmarks and computes their statistics.
enum Comparator {
    /// The repetition count below which compare.py warns that results are unreliable.
    static let recommendedRepetitions = 9

    /// Compares two files benchmark by benchmark (matched by exact name).
    /// - Throws: `InputError` if a file lacks the metric's column.
    static func compare(base: ResultsFile, new: ResultsFile, settings: ComparisonSettings) throws -> ComparisonReport {
        try base.requireColumn(for: settings.metric)
        try new.requireColumn(for: settings.metric)
        let baseSamples = base.samples(of: settings.metric)
        let newSamples = new.samples(of: settings.metric)
        let newByName = Dictionary(newSamples.map { ($0.name.full, $0) }, uniquingKeysWith: { first, _ in first })
        let baseNames = Set(baseSamples.map(\.name.full))
        var pairs: [(String, BenchmarkName, BenchmarkSamples, BenchmarkSamples)] = []
        for sample in baseSamples {
            if let other = newByName[sample.name.full] { pairs.append((sample.name.full, sample.name, sample, other)) }
        }
        let onlyInBase = baseSamples.map(\.name.full).filter { newByName[$0] == nil }
        let onlyInNew = newSamples.map(\.name.full).filter { !baseNames.contains($0) }
        var without = base.benchmarksWithoutValues(of: settings.metric).map { "\($0) (\(base.path))" }
        without += new.benchmarksWithoutValues(of: settings.metric).map { "\($0) (\(new.path))" }
        var baseLabel = (base.path as NSString).lastPathComponent
        var newLabel = (new.path as NSString).lastPathComponent
        if baseLabel == newLabel {
            baseLabel = base.path
            newLabel = new.path == base.path ? new.path + " (new)" : new.path
        }
        return assemble(
            mode: .files, pairs: pairs, settings: settings,
            base: summary(base, label: baseLabel), new: summary(new, label: newLabel),
            onlyInBase: onlyInBase, onlyInNew: onlyInNew, withoutValues: without,
            errored: base.erroredRows + new.erroredRows, extraWarnings: [])
    }

    /// Compares engine `engines.1` against engine `engines.0` within one file: rows named with
    /// `engine:A` and `engine:B` that share family and parameters are paired; ratio = B / A.
    /// - Throws: `InputError` if the metric's column is missing or neither engine occurs.
    static func compareEngines(
        file: ResultsFile, engines: (String, String),
        settings: ComparisonSettings
    ) throws -> ComparisonReport {
        try file.requireColumn(for: settings.metric)
        let samples = file.samples(of: settings.metric)
        let seen = Set(file.rows.compactMap { BenchmarkName($0.benchmark).engine })
        for engine in [engines.0, engines.1] where !seen.contains(engine) {
            throw InputError(
                .invalidArgument, file: file.path, field: "--engines",
                detail: "no benchmark has the component 'engine:\(engine)'; engines in this file: "
                    + (seen.isEmpty ? "none" : seen.sorted().joined(separator: ", ")))
        }
        let first = samples.filter { $0.name.engine == engines.0 }
        let second = samples.filter { $0.name.engine == engines.1 }
        let secondByKey = Dictionary(second.map { ($0.name.withoutEngine, $0) }, uniquingKeysWith: { a, _ in a })
        let firstKeys = Set(first.map(\.name.withoutEngine))
        var pairs: [(String, BenchmarkName, BenchmarkSamples, BenchmarkSamples)] = []
        for sample in first {
            if let other = secondByKey[sample.name.withoutEngine] {
                pairs.append((sample.name.withoutEngine, sample.name, sample, other))
            }
        }
        let ignored = samples.filter {
            $0.name.engine == nil || ($0.name.engine != engines.0 && $0.name.engine != engines.1)
        }
        var warnings: [String] = []
        if !ignored.isEmpty {
            warnings.append(
                "\(ignored.count) benchmark(s) without engine:\(engines.0) or engine:\(engines.1) were ignored")
        }
        let context = summary(file, label: engines.0)
        return assemble(
            mode: .engines, pairs: pairs, settings: settings,
            base: context,
            new: FileSummary(
                path: file.path, label: engines.1, context: context.context, otherContext: context.otherContext),
            onlyInBase: first.map(\.name.withoutEngine).filter { secondByKey[$0] == nil },
            onlyInNew: second.map(\.name.withoutEngine).filter { !firstKeys.contains($0) },
            withoutValues: file.benchmarksWithoutValues(of: settings.metric),
            errored: file.erroredRows, extraWarnings: warnings)
    }

    /// Compares one pair of samples: medians, ratio, U test and verdict.
    static func compare(
        name: String, benchmark: BenchmarkName, base: BenchmarkSamples,
        new: BenchmarkSamples, settings: ComparisonSettings
    ) -> BenchmarkComparison? {
        guard let baseSummary = SampleSummary(base), let newSummary = SampleSummary(new) else { return nil }
        let ratio: Double?
        if baseSummary.median != 0 {
            ratio = newSummary.median / baseSummary.median
        } else {
            ratio = newSummary.median == 0 ? 1 : nil
        }
        let change = ratio.map { $0 - 1 }
        // Like compare.py, no test with fewer than 2 repetitions on a side (p would always be 1).
        let bothRepetitions =
            base.source == .repetitions && new.source == .repetitions
            && min(base.values.count, new.values.count) >= 2
        let test = bothRepetitions ? Statistics.mannWhitneyU(base.values, new.values) : nil
        let testable =
            test != nil && bothRepetitions
            && Statistics.smallestPossiblePValue(n1: base.values.count, n2: new.values.count) < settings.alpha
        let higher = settings.resolvedHigherIsBetter
        let threshold = settings.thresholdPercent / 100
        let worse: Bool
        let better: Bool
        if let change {
            worse = higher ? change < -threshold : change > threshold
            better = higher ? change > threshold : change < -threshold
        } else {
            // Base median 0, new median not: no relative change; use the direction alone.
            let increased = newSummary.median > baseSummary.median
            worse = higher ? !increased : increased
            better = !worse
        }
        let verdict: Verdict
        if testable, let test, test.pValue >= settings.alpha {
            verdict = .noSignificantChange
        } else if worse {
            verdict = .slower
        } else if better {
            verdict = .faster
        } else {
            verdict = .noSignificantChange
        }
        let few = min(base.values.count, new.values.count) < recommendedRepetitions
        return BenchmarkComparison(
            name: name, family: benchmark.family, parameters: benchmark.parameters,
            base: baseSummary, new: newSummary, ratio: ratio, change: change,
            test: test, verdict: verdict, thresholdOnly: !testable, fewRepetitions: few)
    }

    /// Builds the report from matched pairs.
    static func assemble(
        mode: ComparisonMode, pairs: [(String, BenchmarkName, BenchmarkSamples, BenchmarkSamples)],
        settings: ComparisonSettings, base: FileSummary, new: FileSummary,
        onlyInBase: [String], onlyInNew: [String], withoutValues: [String],
        errored: [ErroredRow], extraWarnings: [String]
    ) -> ComparisonReport {
        let comparisons = pairs.compactMap {
            compare(name: $0.0, benchmark: $0.1, base: $0.2, new: $0.3, settings: settings)
        }.sorted { BenchmarkName.naturalOrder($0.name, $1.name) }
        var familyOrder: [String] = []
        var byFamily: [String: [BenchmarkComparison]] = [:]
        for comparison in comparisons {
            if byFamily[comparison.family] == nil { familyOrder.append(comparison.family) }
            byFamily[comparison.family, default: []].append(comparison)
        }
        let families = familyOrder.map { family -> FamilySummary in
            let members = byFamily[family] ?? []
            return FamilySummary(
                family: family, count: members.count,
                geometricMean: Statistics.geometricMean(members.compactMap(\.ratio)),
                slower: members.filter { $0.verdict == .slower }.count,
                faster: members.filter { $0.verdict == .faster }.count)
        }
        var warnings = extraWarnings
        let few = comparisons.filter(\.fewRepetitions)
        if !few.isEmpty {
            let smallest = few.map { min($0.base.count, $0.new.count) }.min() ?? 0
            warnings.append(
                "\(few.count) of \(comparisons.count) benchmark(s) have fewer than \(recommendedRepetitions) "
                    + "repetitions on a side (fewest: \(smallest)): results unreliable, "
                    + "\(recommendedRepetitions)+ repetitions recommended (--benchmark_repetitions)")
        }
        let thresholdOnly = comparisons.filter(\.thresholdOnly)
        if !thresholdOnly.isEmpty {
            warnings.append(
                "\(thresholdOnly.count) benchmark(s) (marked *) were judged by the \(formatPercent(settings.thresholdPercent)) "
                    + "threshold alone: with so few repetitions the U test cannot reach p < \(settings.alpha)")
        }
        let aggregates = comparisons.filter { $0.base.source != .repetitions || $0.new.source != .repetitions }
        if !aggregates.isEmpty {
            warnings.append(
                "\(aggregates.count) benchmark(s) have no repetition rows on a side; "
                    + "the _median (or _mean) aggregate row was used and no test was run")
        }
        if !errored.isEmpty {
            warnings.append("\(errored.count) row(s) report error_occurred=true and were not compared")
        }
        return ComparisonReport(
            mode: mode, metric: settings.metric.description, unit: settings.metric.isTime ? "ns" : nil,
            higherIsBetter: settings.resolvedHigherIsBetter, thresholdPercent: settings.thresholdPercent,
            alpha: settings.alpha, base: base, new: new, comparisons: comparisons,
            onlyInBase: onlyInBase, onlyInNew: onlyInNew, withoutValues: withoutValues, errored: errored,
            families: families, geometricMean: Statistics.geometricMean(comparisons.compactMap(\.ratio)),
            warnings: warnings)
    }

    /// The input summary for a file.
    static func summary(_ file: ResultsFile, label: String) -> FileSummary {
        let other = file.contextLines.filter {
            let trimmed = $0.trimmingCharacters(in: .whitespaces)
            return !trimmed.isEmpty && !trimmed.hasPrefix("#")
        }
        return FileSummary(path: file.path, label: label, context: file.context, otherContext: other)
    }

    /// `5%`, `2.5%`.
    static func formatPercent(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? "\(Int(value))%" : "\(value)%"
    }
}
