// The quantities read from a benchmark's rows: a column or a sum of columns (`ns_per_add + ns_per_remove`), and which
// value over the repetitions is taken (median, largest, smallest).
import Foundation

/// A quantity read from a benchmark's rows: one column, or the sum of several (`ns_per_add + ns_per_remove`),
/// summed per row.
public struct MetricExpression: Sendable, Equatable, CustomStringConvertible {
    /// The summed columns.
    var terms: [Metric]

    /// Parses `a + b + c`; `nil` if a term is empty.
    public init?(_ text: String) {
        let parts = text.split(separator: "+", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else { return nil }
        terms = parts.map(Metric.init)
    }

    /// The value on one row; `nil` when a term has no value there.
    public func value(on row: BenchmarkRow) -> Double? {
        var sum = 0.0
        for term in terms {
            guard let value = row.value(of: term) else { return nil }
            sum += value
        }
        return sum
    }

    /// Whether the values are times in nanoseconds: `real_time`, `cpu_time`, or counters named `*_ns`, `ns_per_*`
    /// or `*_ns_per_*` (`cpu_ns_per_fire`, `loop_cpu_ns_per_wake`).
    public var isTime: Bool {
        terms.allSatisfy {
            $0.isTime || $0.description.hasSuffix("_ns") || $0.description.hasPrefix("ns_per_")
                || $0.description.contains("_ns_per_")
        }
    }

    /// Whether larger values are better (every term a `*_per_second` rate).
    public var higherIsBetter: Bool { terms.allSatisfy(\.defaultHigherIsBetter) }

    /// `ns_per_add + ns_per_remove`.
    public var description: String { terms.map(\.description).joined(separator: " + ") }

    /// The columns a file must have for this expression.
    public var columns: [String] { terms.map(\.description) }
}

/// Which value of a benchmark's repetitions a target or table uses.
public enum Statistic: String, Sendable, Equatable, CaseIterable {
    /// The median over repetitions.
    case median
    /// The largest value over repetitions (the worst, for lateness and counts of misbehaviour).
    case max
    /// The smallest value over repetitions (the worst, for counts that must reach a level).
    case min
}
