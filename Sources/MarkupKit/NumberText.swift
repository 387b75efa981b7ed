// Numbers as people and tools read them: about four significant digits, durations with their unit, rates with a
// prefix, and the shortest exact form for machine-readable output.
import Foundation

/// Number formatting shared by the terminal tables and the pages.
public enum NumberText {
    /// About four significant digits without exponent for ordinary magnitudes: `0.0159`, `4.680`, `12.80`, `468.0`.
    public static func significant(_ value: Double) -> String {
        let magnitude = abs(value)
        if magnitude == 0 { return "0" }
        if magnitude >= 1e6 || magnitude < 1e-3 { return String(format: "%.4g", value) }
        let decimals = magnitude >= 100 ? 1 : magnitude >= 10 ? 2 : 3
        return String(format: "%.\(decimals)f", value)
    }

    /// A duration given in nanoseconds, in the largest unit it reaches: `468.0 ns`, `4.680 us`, `1.200 ms`, `2.000 s`.
    public static func duration(_ nanoseconds: Double) -> String {
        let magnitude = abs(nanoseconds)
        let (scaled, unit): (Double, String) =
            magnitude >= 1e9
            ? (nanoseconds / 1e9, "s")
            : magnitude >= 1e6
                ? (nanoseconds / 1e6, "ms")
                : magnitude >= 1e3 ? (nanoseconds / 1e3, "us") : (nanoseconds, "ns")
        return significant(scaled) + " " + unit
    }

    /// A rate per second with a decimal prefix: `1.250 M/s`, `512.0 /s`.
    public static func rate(_ value: Double) -> String {
        let magnitude = abs(value)
        let (scaled, prefix): (Double, String) =
            magnitude >= 1e9
            ? (value / 1e9, "G")
            : magnitude >= 1e6
                ? (value / 1e6, "M") : magnitude >= 1e3 ? (value / 1e3, "k") : (value, "")
        return significant(scaled) + " " + prefix + "/s"
    }

    /// A number for machine-readable output: an integer without a fraction, else the shortest round-trip form.
    public static func exact(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }

    /// A fraction as a signed percentage with one decimal: `+12.3%`.
    public static func signedPercent(_ fraction: Double) -> String {
        String(format: "%+.1f%%", fraction * 100)
    }
}
