// A figure of a column as people read it, its unit taken from the column's name: times (real_time, cpu_time,
// counters `*_ns`, `ns_per_*` and `*_ns_per_*`, all nanoseconds) with a unit, rates (`*_per_second`) with a prefix,
// counts plain.
import MarkupKit

/// Formatting of measured values by what their column holds.
public enum FigureText {
    /// A value of the column `metric`: `4.680 us` for times (`time` says the column is one whatever its name),
    /// `1.250 M/s` for rates, `0.0159` otherwise.
    public static func value(_ value: Double, metric: String, time: Bool) -> String {
        if time || metric.hasSuffix("_ns") || metric.hasPrefix("ns_per_") || metric.contains("_ns_per_") {
            return NumberText.duration(value)
        }
        if metric.hasSuffix("_per_second") { return NumberText.rate(value) }
        return NumberText.significant(value)
    }
}
