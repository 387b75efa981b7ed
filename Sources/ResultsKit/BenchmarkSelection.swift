// A selection of benchmarks: one family, and the values its parameters must have.
import Foundation

/// A selection of benchmarks: one family, and the parameters (`pin: same`) every selected benchmark has, each with
/// one value or a list of values (`load: [none, idle1000]`) every one of which the target expects to find.
public struct BenchmarkSelection: Sendable, Equatable {
    /// The family, e.g. `BM_WakeLatency`.
    public var family: String
    /// Parameters a benchmark must have, one of the listed values each (`pin:same`, `load:none|idle1000`), besides
    /// its engine; the others make its variants.
    public var parameters: [(key: String, values: [String])]

    /// Creates a selection.
    public init(family: String, parameters: [(key: String, values: [String])] = []) {
        self.family = family
        self.parameters = parameters
    }

    /// Creates a selection of one value per parameter.
    public init(family: String, parameters: [(key: String, value: String)]) {
        self.init(family: family, parameters: parameters.map { ($0.key, [$0.value]) })
    }

    /// `BM_WakeLatency pin:same load:none|idle1000`.
    public var description: String {
        ([family] + parameters.map(Self.text)).joined(separator: " ")
    }

    /// `load:none|idle1000`.
    static func text(_ parameter: (key: String, values: [String])) -> String {
        "\(parameter.key):\(parameter.values.joined(separator: "|"))"
    }

    /// Whether a benchmark with these parameters is selected (its family is checked apart).
    public func matches(_ value: (String) -> String?) -> Bool {
        parameters.allSatisfy { parameter in value(parameter.key).map(parameter.values.contains) ?? false }
    }

    public static func == (lhs: BenchmarkSelection, rhs: BenchmarkSelection) -> Bool {
        lhs.family == rhs.family && lhs.parameters.map(text) == rhs.parameters.map(text)
    }
}
