// The result model: a results file's context and rows, benchmark names, time units, metrics,
// and the per-benchmark samples that the comparison consumes.
import Foundation

/// A Google Benchmark time unit.
public enum BenchmarkTimeUnit: String, Sendable, Codable, CaseIterable {
    /// Nanoseconds.
    case ns
    /// Microseconds.
    case us
    /// Milliseconds.
    case ms
    /// Seconds.
    case s

    /// How many nanoseconds one of this unit is.
    public var nanoseconds: Double {
        switch self {
        case .ns: return 1
        case .us: return 1e3
        case .ms: return 1e6
        case .s: return 1e9
        }
    }
}

/// A benchmark name split into Google Benchmark's path components.
///
/// `BM_WakeLatency/engine:ref/pin:same/real_time` has family `BM_WakeLatency`, engine `ref`
/// and parameters `pin:same/real_time`.
public struct BenchmarkName: Sendable, Hashable, Codable {
    /// The full name as written in the file.
    public let full: String
    /// The first path component (the registered benchmark function).
    public let family: String
    /// The value of the `engine:NAME` component, if there is one.
    public let engine: String?
    /// The remaining components (except `engine:`), joined with `/`; empty if none.
    public let parameters: String

    /// Splits `full` at `/` into family, engine and parameters.
    public init(_ full: String) {
        self.full = full
        let parts = full.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        family = parts.first ?? full
        var engine: String?
        var rest: [String] = []
        for part in parts.dropFirst() {
            if engine == nil, part.hasPrefix("engine:") {
                engine = String(part.dropFirst("engine:".count))
            } else {
                rest.append(part)
            }
        }
        self.engine = engine
        parameters = rest.joined(separator: "/")
    }

    /// Whether `lhs` sorts before `rhs` for people: component by component (`/` and `:` separate them), numbers
    /// by value, so `n:100` < `n:1000` < `n:10000` and `observers:8` < `observers:64`.
    public static func naturalOrder(_ lhs: String, _ rhs: String) -> Bool {
        let separators: (Character) -> Bool = { $0 == "/" || $0 == ":" }
        let left = lhs.split(whereSeparator: separators)
        let right = rhs.split(whereSeparator: separators)
        for (a, b) in zip(left, right) where a != b {
            if let x = Double(a), let y = Double(b) { return x < y }
            return a < b
        }
        return left.count < right.count
    }

    /// Family and parameters without the engine component: the key engines are paired on.
    public var withoutEngine: String {
        parameters.isEmpty ? family : family + "/" + parameters
    }

    /// `name` without the run-type segments Google Benchmark appends (`/manual_time`, `/real_time`,
    /// `/iterations:N`: the same on every row of a family).
    public static func withoutRunTypeSegments(_ name: String) -> String {
        var segments = name.split(separator: "/", omittingEmptySubsequences: false)
        while segments.count > 1, let last = segments.last,
            last == "manual_time" || last == "real_time" || last.hasPrefix("iterations:")
        {
            segments.removeLast()
        }
        return segments.joined(separator: "/")
    }
}

/// What a CSV row represents.
public enum RowKind: Sendable, Equatable, Codable {
    /// One repetition (or the single run) of a benchmark.
    case repetition
    /// An aggregate row (`_mean`, `_median`, `_stddev`, `_cv`) of the named statistic.
    case aggregate(String)
    /// A complexity row (`_BigO`, `_RMS`); never compared.
    case complexity(String)
    /// A row with `error_occurred=true`; reported, never compared.
    case error
}

/// One data row of a results CSV, with numbers as written (times in the row's unit).
public struct BenchmarkRow: Sendable {
    /// The 1-based line of the row in its file.
    public let line: Int
    /// The name exactly as in the file, including any aggregate suffix.
    let rawName: String
    /// The benchmark the row belongs to: `rawName` without an aggregate or complexity suffix.
    public let benchmark: String
    /// Repetition, aggregate, complexity or error row.
    public let kind: RowKind
    /// The `iterations` cell, if present.
    public let iterations: Double?
    /// The `real_time` cell in `timeUnit`, if present.
    public let realTime: Double?
    /// The `cpu_time` cell in `timeUnit`, if present.
    let cpuTime: Double?
    /// The `time_unit` cell, if it is a time unit.
    let timeUnit: BenchmarkTimeUnit?
    /// The `label` cell (may be empty).
    public let label: String
    /// The `error_message` cell for error rows.
    public let errorMessage: String?
    /// Numeric counters: `bytes_per_second`, `items_per_second` and every user counter with a value.
    public let counters: [String: Double]

    /// The row's value of `metric`, normalised to nanoseconds for times; `nil` if the cell is empty.
    public func value(of metric: Metric) -> Double? {
        switch metric {
        case .realTime:
            guard let realTime, let timeUnit else { return nil }
            return realTime * timeUnit.nanoseconds
        case .cpuTime:
            guard let cpuTime, let timeUnit else { return nil }
            return cpuTime * timeUnit.nanoseconds
        case .counter(let name):
            return counters[name]
        }
    }
}

/// The quantity being compared.
public enum Metric: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The `real_time` column (wall clock), normalised to nanoseconds.
    case realTime
    /// The `cpu_time` column, normalised to nanoseconds.
    case cpuTime
    /// A counter column compared as written (no unit conversion).
    case counter(String)

    /// Parses `real_time`, `cpu_time`, or any other text as a counter name.
    public init(_ text: String) {
        switch text {
        case "real_time": self = .realTime
        case "cpu_time": self = .cpuTime
        default: self = .counter(text)
        }
    }

    /// The column name.
    public var description: String {
        switch self {
        case .realTime: return "real_time"
        case .cpuTime: return "cpu_time"
        case .counter(let name): return name
        }
    }

    /// Whether values are times (normalised to nanoseconds).
    public var isTime: Bool {
        if case .counter = self { return false }
        return true
    }

    /// The default direction: times and counters are lower-is-better, except names ending in
    /// `_per_second` (rates such as `items_per_second`), which are higher-is-better.
    public var defaultHigherIsBetter: Bool {
        if case .counter(let name) = self { return name.hasSuffix("_per_second") }
        return false
    }
}

/// One `key: value` pair from the context lines before the header.
public struct ContextEntry: Sendable, Equatable, Codable {
    /// The key, e.g. `commit` or `cpu`.
    public let key: String
    /// The value, trimmed.
    public let value: String
}

/// Where a benchmark's samples came from.
public enum SampleSource: String, Sendable, Codable {
    /// Individual repetition rows (the Mann-Whitney test can run).
    case repetitions
    /// Only a `_median` aggregate row (no repetitions in the file).
    case medianAggregate = "median aggregate"
    /// Only a `_mean` aggregate row (no repetitions in the file).
    case meanAggregate = "mean aggregate"
}

/// The values of one metric for one benchmark in one file.
public struct BenchmarkSamples: Sendable {
    /// The benchmark's name.
    public let name: BenchmarkName
    /// The values (nanoseconds for times), in file order.
    public let values: [Double]
    /// Repetitions or a fallback aggregate.
    public let source: SampleSource
    /// The line of the first row used.
    public let firstLine: Int
}

/// A benchmark row that reported `error_occurred=true`.
public struct ErroredRow: Sendable, Codable, Equatable {
    /// The file it was found in.
    public let file: String
    /// Its line.
    public let line: Int
    /// The benchmark name.
    public let benchmark: String
    /// The `error_message` cell.
    public let message: String

    /// One line per file, benchmark and message, consecutive repeats folded:
    /// `file:first-last: name: message (n rows)`.
    public static func lines(_ rows: [ErroredRow]) -> [String] {
        var groups: [(row: ErroredRow, last: Int, count: Int)] = []
        for row in rows {
            if let index = groups.lastIndex(where: {
                $0.row.file == row.file && $0.row.benchmark == row.benchmark && $0.row.message == row.message
            }) {
                groups[index].last = row.line
                groups[index].count += 1
            } else {
                groups.append((row, row.line, 1))
            }
        }
        return groups.map { group in
            let lines = group.count == 1 ? "\(group.row.line)" : "\(group.row.line)-\(group.last)"
            let count = group.count == 1 ? "" : " (\(group.count) rows)"
            return "\(group.row.file):\(lines): \(group.row.benchmark): \(group.row.message)\(count)"
        }
    }
}

/// A parsed and validated results CSV: Google Benchmark output, optionally preceded by
/// `# key: value` context lines.
public struct ResultsFile: Sendable {
    /// The path the file was read from.
    public let path: String
    /// Every line before the header, verbatim.
    public let contextLines: [String]
    /// The `# key: value` pairs among the context lines, in order.
    public let context: [ContextEntry]
    /// The 1-based line number of the header.
    let headerLine: Int
    /// The header's column names.
    public let columns: [String]
    /// All data rows, in file order.
    public let rows: [BenchmarkRow]

    /// Creates a results file from parsed parts (see `ResultsReader` for reading one from disk).
    public init(path: String, contextLines: [String], headerLine: Int, columns: [String], rows: [BenchmarkRow]) {
        self.path = path
        self.contextLines = contextLines
        self.headerLine = headerLine
        self.columns = columns
        self.rows = rows
        context = ResultsFile.contextEntries(contextLines)
    }

    /// Checks that the file has a column for `metric`.
    /// - Throws: `InputError.Kind.missingColumn` located at the header line.
    public func requireColumn(for metric: Metric) throws {
        guard columns.contains(metric.description) else {
            let counters = columns.filter { !ResultsReader.standardColumns.contains($0) }
            throw InputError(
                .missingColumn, file: path, line: headerLine, field: metric.description,
                detail: "the header has no column '\(metric)'; counters in this file: "
                    + (counters.isEmpty ? "none" : counters.joined(separator: ", ")))
        }
    }

    /// The value for a context key (first occurrence), if present.
    public func contextValue(_ key: String) -> String? {
        context.first(where: { $0.key == key })?.value
    }

    /// True for a file of counts without times (`# timing: none`): its rows have no `real_time`.
    public var isUntimed: Bool { contextValue(ResultsReader.timingKey) == ResultsReader.untimedValue }

    /// The counters the file says are exact (`# exact_metrics:`): the same build always gives the same value.
    public var exactMetrics: [String] { ResultsFile.metricList(contextValue(ResultsReader.exactMetricsKey) ?? "") }

    /// The benchmarks whose counts of the exact metrics are not exact after all (`# inexact:`, one line each).
    public var inexactBenchmarks: Set<String> {
        Set(context.filter { $0.key == ResultsReader.inexactKey }.map(\.value))
    }

    /// `a, b` as `["a", "b"]`.
    public static func metricList(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Rows with `error_occurred=true`.
    public var erroredRows: [ErroredRow] {
        rows.filter { $0.kind == .error }.map {
            ErroredRow(file: path, line: $0.line, benchmark: $0.benchmark, message: $0.errorMessage ?? "")
        }
    }

    /// The benchmarks of the file, in order of first appearance, with the samples of `metric`.
    ///
    /// Repetition rows are preferred; a benchmark with no repetition rows falls back to its
    /// `_median` (else `_mean`) aggregate. Benchmarks with no value for `metric` are left out
    /// (see `benchmarksWithoutValues(of:)`); error rows are never used.
    public func samples(of metric: Metric) -> [BenchmarkSamples] {
        samples(ofEach: [metric])[0]
    }

    /// `samples(of:)` for each of `metrics`, in their order, with the rows grouped by benchmark once for all of them
    /// (a run has dozens of counters, and grouping its rows again for each was most of a history import).
    public func samples(ofEach metrics: [Metric]) -> [[BenchmarkSamples]] {
        var order: [String] = []
        var grouped: [String: [BenchmarkRow]] = [:]
        for row in rows where row.kind != .error {
            if grouped[row.benchmark] == nil { order.append(row.benchmark) }
            grouped[row.benchmark, default: []].append(row)
        }
        let groups = order.map { benchmark in
            let group = grouped[benchmark] ?? []
            return (name: BenchmarkName(benchmark), group: group, repetitions: group.filter { $0.kind == .repetition })
        }
        return metrics.map { metric in
            var result: [BenchmarkSamples] = []
            for (name, group, repetitions) in groups {
                let values = repetitions.compactMap { $0.value(of: metric) }
                if !values.isEmpty, let first = repetitions.first(where: { $0.value(of: metric) != nil }) {
                    result.append(
                        BenchmarkSamples(name: name, values: values, source: .repetitions, firstLine: first.line))
                    continue
                }
                for (statistic, source) in [("median", SampleSource.medianAggregate), ("mean", .meanAggregate)] {
                    if let row = group.first(where: { $0.kind == .aggregate(statistic) }),
                        let value = row.value(of: metric)
                    {
                        result.append(
                            BenchmarkSamples(name: name, values: [value], source: source, firstLine: row.line))
                        break
                    }
                }
            }
            return result
        }
    }

    /// Benchmarks that have non-error rows but no value for `metric` (empty counter cells).
    public func benchmarksWithoutValues(of metric: Metric) -> [String] {
        let withValues = Set(samples(of: metric).map(\.name.full))
        var seen = Set<String>()
        var result: [String] = []
        for row in rows where row.kind == .repetition || row.kind == .aggregate("median") {
            if !withValues.contains(row.benchmark), seen.insert(row.benchmark).inserted {
                result.append(row.benchmark)
            }
        }
        return result
    }

    /// Extracts `# key: value` pairs from context lines; other lines are ignored.
    static func contextEntries(_ lines: [String]) -> [ContextEntry] {
        lines.compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("#") else { return nil }
            let body = trimmed.dropFirst().trimmingCharacters(in: .whitespaces)
            // The key ends at the first ": " (a key may hold a colon: `engine_cf:Foundation: ...`), else at a ":".
            guard let colon = body.range(of: ": ")?.lowerBound ?? body.firstIndex(of: ":") else { return nil }
            let key = body[..<colon].trimmingCharacters(in: .whitespaces)
            let value = body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            return key.isEmpty ? nil : ContextEntry(key: key, value: value)
        }
    }
}
