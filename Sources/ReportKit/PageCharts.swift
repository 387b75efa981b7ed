// What the benchmark page draws for each family: the charts (which counter, against which parameter, on which axis,
// with which title), the modes table and the sentence under the family's heading. The definitions are data, the
// `page` section of the targets file (Benchmarks/targets.yaml), read by `TargetsFile`; `BenchPage` draws them.
import ResultsKit

/// The page's part for one family.
struct FamilyPage: Sendable, Equatable {
    /// The family, e.g. `BM_WakeLatency`.
    var family: String
    /// The sentence under the family's heading: what is measured.
    var note: String?
    /// The charts, in order.
    var charts: [ChartDefinition]
    /// The modes of a latency distribution, in the order of the columns of the modes table; empty for no table.
    var modes: [LatencyMode]
    /// Its line in the targets file.
    var line: Int
}

/// One chart of a family.
enum ChartDefinition: Sendable, Equatable {
    /// A dot plot per variant and engine on a log axis of times: a centre (filled) and a tail (hollow).
    case dots(DotChart)
    /// Line charts of a figure against a numeric parameter, one panel per combination of the other parameters, one
    /// line per engine.
    case lines(LineChart)
}

/// A dot plot: per variant and engine, the median over repetitions of `center` and `tailStatistic` of `tail`.
struct DotChart: Sendable, Equatable {
    var title: String
    var center: MetricExpression
    /// The centre's name in the legend (`mean`, `p50`).
    var centerName: String
    var tail: MetricExpression
    /// The tail's name in the legend (`p99`, `worst`).
    var tailName: String
    var tailStatistic: Statistic
    /// The axis label.
    var axis: String
    /// Whether each variant also shows the machine's limits (`BM_Limits`) of its pinning, as rows of their own
    /// (`with_limits: true`).
    var withLimits: Bool = false
}

/// Line charts of the median of `y` against the numeric parameter `x` (log x axis).
struct LineChart: Sendable, Equatable {
    var title: String
    /// The parameter on the x axis (`observers`, `n`), also its label.
    var x: String
    var y: MetricExpression
    /// The y axis label.
    var axis: String
    /// A logarithmic y axis (the default) or a linear one.
    var logY: Bool
    /// A column of the subject engine's rows drawn as a dashed line (the fewest wake-ups that serve the fires).
    var optimum: MetricExpression?
}

/// One mode of a latency distribution the harness reports: its share of the round trips and its median.
struct LatencyMode: Sendable, Equatable {
    /// `low`, `high`.
    var name: String
    var share: MetricExpression
    var median: MetricExpression
}
