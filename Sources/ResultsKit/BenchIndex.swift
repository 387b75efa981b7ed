// A results file indexed by benchmark: family, engine and parameters of each, its repetition rows, and whether it
// was skipped; the lookups the benchmark report's tables, targets and charts are made of.
import Foundation

/// One benchmark of a results file with the rows that measure it.
public struct IndexedBenchmark: Sendable {
    /// The name without Google Benchmark's run-type segments (`/manual_time`, `/iterations:1`).
    public let name: String
    /// The family, e.g. `BM_WakeLatency`.
    public let family: String
    /// The engine, or `""` when the name has none.
    public let engine: String
    /// The parameters besides the engine, in name order (`pin`=`same`, `load`=`none`).
    public let parameters: [(key: String, value: String)]
    /// The parameters joined, `pin:same/load:none`: the key engines are paired on within a family.
    public let variant: String
    /// The repetition rows; when the file has none, its `_median` aggregate row.
    public let rows: [BenchmarkRow]
    /// The skip message, when the benchmark was skipped (an error row whose message starts with `skipped:`).
    public let skipped: String?
    /// The messages of its error rows that are not skips (a repetition that failed or hung), in file order.
    public let errors: [String]

    /// Whether every repetition failed: error rows and no row with figures.
    public var isErrored: Bool { rows.isEmpty && !errors.isEmpty }

    /// The value of a parameter, if the benchmark has it.
    public func parameter(_ key: String) -> String? { parameters.first(where: { $0.key == key })?.value }

    /// The values of `metric` over the rows (rows without a value left out).
    public func values(_ metric: MetricExpression) -> [Double] { rows.compactMap(metric.value(on:)) }

    /// The median, largest or smallest value of `metric` over the rows; `nil` if no row has one.
    public func value(_ metric: MetricExpression, _ statistic: Statistic = .median) -> Double? {
        let values = values(metric)
        guard !values.isEmpty else { return nil }
        switch statistic {
        case .median: return Statistics.median(values)
        case .max: return values.max()
        case .min: return values.min()
        }
    }
}

/// A results file by benchmark.
public struct BenchIndex: Sendable {
    /// The file.
    public let file: ResultsFile
    /// Every benchmark, in the file's order.
    public let benchmarks: [IndexedBenchmark]
    /// The engines: those the context describes (`# engine_NAME:` lines) in that order, then any other in the
    /// order of the rows.
    public let engines: [String]

    /// Indexes `file`.
    public init(_ file: ResultsFile) {
        self.file = file
        var order: [String] = []
        var rowsOf: [String: [BenchmarkRow]] = [:]
        var medianOf: [String: BenchmarkRow] = [:]
        var skipOf: [String: String] = [:]
        var errorsOf: [String: [String]] = [:]
        var seen = Set<String>()
        for row in file.rows {
            let name = BenchmarkName.withoutRunTypeSegments(row.benchmark)
            if seen.insert(name).inserted { order.append(name) }
            switch row.kind {
            case .repetition: rowsOf[name, default: []].append(row)
            case .aggregate("median"): medianOf[name] = row
            case .error:
                let message = row.errorMessage ?? ""
                if message.hasPrefix("skipped") {
                    skipOf[name] = message
                } else {
                    errorsOf[name, default: []].append(message)
                }
            default: break
            }
        }
        var benchmarks: [IndexedBenchmark] = []
        for name in order {
            let parsed = BenchmarkName(name)
            let parameters = parsed.parameters.split(separator: "/").map { component -> (key: String, value: String) in
                guard let colon = component.firstIndex(of: ":") else { return (String(component), "") }
                return (String(component[..<colon]), String(component[component.index(after: colon)...]))
            }
            let rows = rowsOf[name] ?? medianOf[name].map { [$0] } ?? []
            // An error row of the run itself (`harness/family:wake`: a family process that crashed) names no engine:
            // the report lists it among the errors, it is no benchmark.
            let errors = parsed.engine == nil ? [] : errorsOf[name] ?? []
            guard !rows.isEmpty || skipOf[name] != nil || !errors.isEmpty else { continue }
            benchmarks.append(
                IndexedBenchmark(
                    name: name, family: parsed.family, engine: parsed.engine ?? "", parameters: parameters,
                    variant: parsed.parameters, rows: rows,
                    skipped: rows.isEmpty && errors.isEmpty ? skipOf[name] : nil, errors: errors))
        }
        self.benchmarks = benchmarks
        var engines = file.context.compactMap { entry -> String? in
            entry.key.hasPrefix("engine_") ? String(entry.key.dropFirst("engine_".count)) : nil
        }
        for benchmark in benchmarks where !benchmark.engine.isEmpty && !engines.contains(benchmark.engine) {
            engines.append(benchmark.engine)
        }
        self.engines = engines.filter { engine in benchmarks.contains { $0.engine == engine } }
    }

    /// The benchmarks of `selection`'s family that have all its parameters, on every engine.
    public func select(_ selection: BenchmarkSelection) -> [IndexedBenchmark] {
        benchmarks.filter { benchmark in
            benchmark.family == selection.family && selection.matches(benchmark.parameter)
        }
    }

    /// The benchmark of `family` and `variant` on `engine`, if the file has it.
    public func benchmark(family: String, variant: String, engine: String) -> IndexedBenchmark? {
        benchmarks.first { $0.family == family && $0.variant == variant && $0.engine == engine }
    }

    /// The families, in the file's order.
    public var families: [String] {
        var seen: [String] = []
        for benchmark in benchmarks where !seen.contains(benchmark.family) { seen.append(benchmark.family) }
        return seen
    }

    /// The distinct variants of `benchmarks`, ordered parameter by parameter (numbers by value, text
    /// alphabetically).
    public static func orderedVariants(_ benchmarks: [IndexedBenchmark]) -> [String] {
        var byVariant: [String: IndexedBenchmark] = [:]
        for benchmark in benchmarks where byVariant[benchmark.variant] == nil {
            byVariant[benchmark.variant] = benchmark
        }
        return byVariant.values.sorted { lhs, rhs in
            for (a, b) in zip(lhs.parameters, rhs.parameters) where a.value != b.value {
                if let x = Double(a.value), let y = Double(b.value) { return x < y }
                return a.value < b.value
            }
            return lhs.parameters.count < rhs.parameters.count
        }.map(\.variant)
    }
}
