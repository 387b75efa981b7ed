// Reading a results CSV: turning the tokenized document into validated rows, telling
// repetitions, aggregates, complexity rows and error rows apart.
import Foundation

/// Reads Google Benchmark CSV output (and this package's results CSVs, which are the same format
/// with `# key: value` context lines before the header) into a validated `ResultsFile`.
///
/// Validation is strict where a wrong number would silently skew a comparison: every numeric
/// cell must be a finite number, every data row must have as many fields as the header (except
/// error rows, which Google Benchmark writes without counter cells), the time unit must be one
/// of ns/us/ms/s and the same for all rows of one benchmark.
///
/// A file whose context says `# timing: none` holds counts that are not times (instructions counted under callgrind:
/// runloop bench --instructions): its rows leave `real_time`, `cpu_time` and `time_unit` empty and must have a value
/// in every counter column.
public enum ResultsReader {
    /// The columns Google Benchmark always writes; any other column is a user counter.
    public static let standardColumns: [String] = [
        "name", "iterations", "real_time", "cpu_time", "time_unit", "bytes_per_second",
        "items_per_second", "label", "error_occurred", "error_message",
    ]

    /// The columns a file must have.
    static let requiredColumns: [String] = ["name", "real_time", "cpu_time", "time_unit"]

    /// The context key that marks a file of counts without times, and its one value.
    public static let timingKey = "timing"
    public static let untimedValue = "none"
    /// The context key naming the counters whose values are exact (comma-separated): two runs of one build give the
    /// same value, so any difference between builds is the code's (callgrind's instruction counts).
    public static let exactMetricsKey = "exact_metrics"
    /// The context key, one line per benchmark, naming a benchmark of the file whose counts of the exact metrics are
    /// not exact after all (a repeated run of one build gave another count).
    public static let inexactKey = "inexact"

    /// The aggregate suffixes Google Benchmark appends with `--benchmark_repetitions`.
    static let aggregateSuffixes: [String] = ["mean", "median", "stddev", "cv"]

    /// The complexity suffixes Google Benchmark appends for `->Complexity()` benchmarks.
    static let complexitySuffixes: [String] = ["BigO", "RMS"]

    /// Reads and validates the file at `path`.
    /// - Throws: `InputError` naming the file, line and field of the first problem.
    public static func read(path: String) throws -> ResultsFile {
        try interpret(CSVReader.read(path: path), file: path)
    }

    /// Parses and validates CSV `text`; `file` is used for error messages and as the path.
    /// - Throws: `InputError` naming the file, line and field of the first problem.
    public static func parse(text: String, file: String) throws -> ResultsFile {
        try interpret(CSVReader.parse(text: text, file: file), file: file)
    }

    /// Validates a tokenized document and builds the rows.
    static func interpret(_ document: CSVDocument, file: String) throws -> ResultsFile {
        let header = document.header
        var index: [String: Int] = [:]
        for (position, column) in header.enumerated() {
            if index[column] != nil {
                throw InputError(
                    .duplicateColumn, file: file, line: document.headerLine, field: column,
                    detail: "the column appears more than once in the header")
            }
            index[column] = position
        }
        for column in requiredColumns where index[column] == nil {
            throw InputError(
                .missingColumn, file: file, line: document.headerLine, field: column,
                detail: "the header lacks the required column '\(column)' (header: \(header.joined(separator: ",")))")
        }
        let counterColumns = header.filter {
            $0 != ""
                && ![
                    "name", "iterations", "real_time", "cpu_time", "time_unit",
                    "label", "error_occurred", "error_message",
                ].contains($0)
        }
        guard !document.records.isEmpty else {
            throw InputError(
                .noBenchmarks, file: file, line: document.headerLine,
                detail: "the header is followed by no benchmark rows (truncated file?)")
        }

        // First pass: shape, error flag and raw name of every record.
        var raw: [(record: CSVRecord, name: String, isError: Bool)] = []
        for record in document.records {
            func cell(_ column: String) -> String? {
                guard let position = index[column], position < record.fields.count else { return nil }
                return record.fields[position]
            }
            let isError = cell("error_occurred")?.trimmingCharacters(in: .whitespaces).lowercased() == "true"
            if record.fields.count > header.count || (record.fields.count < header.count && !isError) {
                throw InputError(
                    .wrongFieldCount, file: file, line: record.line,
                    detail: "the row has \(record.fields.count) field(s) but the header has \(header.count) "
                        + "(truncated or garbled row)")
            }
            let name = cell("name") ?? ""
            if name.trimmingCharacters(in: .whitespaces).isEmpty {
                throw InputError(
                    .missingValue, file: file, line: record.line, field: "name",
                    detail: "the benchmark name is empty")
            }
            raw.append((record, name, isError))
        }
        let kinds = classify(raw.map { ($0.name, $0.isError) })
        let untimed = try isUntimed(document, file: file)
        try checkExactMetrics(document, counterColumns: counterColumns, file: file)

        // Second pass: values, with the unit of each benchmark checked for consistency.
        var rows: [BenchmarkRow] = []
        var unitOf: [String: (unit: BenchmarkTimeUnit, line: Int)] = [:]
        for (position, entry) in raw.enumerated() {
            let record = entry.record
            let (kind, benchmark) = kinds[position]
            func cell(_ column: String) -> String {
                guard let position = index[column], position < record.fields.count else { return "" }
                // Most counter cells are empty (each family has its own counters), and trimming is the slow part.
                let field = record.fields[position]
                return field.isEmpty ? "" : field.trimmingCharacters(in: .whitespaces)
            }
            func number(_ column: String, required: Bool) throws -> Double? {
                let text = cell(column)
                if text.isEmpty {
                    if required {
                        throw InputError(
                            .missingValue, file: file, line: record.line, field: column,
                            detail: "the cell is empty in a row of '\(entry.name)'")
                    }
                    return nil
                }
                guard let value = Double(text), value.isFinite else {
                    throw InputError(
                        .nonNumeric, file: file, line: record.line, field: column,
                        detail: "'\(text)' is not a finite number (benchmark '\(entry.name)')")
                }
                return value
            }
            if kind == .error {
                rows.append(
                    BenchmarkRow(
                        line: record.line, rawName: entry.name, benchmark: benchmark, kind: kind, iterations: nil,
                        realTime: nil, cpuTime: nil, timeUnit: nil, label: cell("label"),
                        errorMessage: cell("error_message"), counters: [:]))
                continue
            }
            let isData = kind == .repetition || kind == .aggregate("median") || kind == .aggregate("mean")
            if let untimed {
                rows.append(
                    try untimedRow(
                        record, file: file, name: entry.name, benchmark: benchmark, kind: kind, isData: isData,
                        counterColumns: counterColumns, timingLine: untimed, cell: cell, number: number))
                continue
            }
            let iterations = try number("iterations", required: false)
            let realTime = try number("real_time", required: isData)
            let cpuTime = try number("cpu_time", required: isData)
            var counters: [String: Double] = [:]
            for column in counterColumns {
                if let value = try number(column, required: false) { counters[column] = value }
            }
            var unit: BenchmarkTimeUnit?
            if case .complexity = kind {
                unit = nil  // `_BigO` rows hold a complexity ("N^2") here, `_RMS` rows nothing.
            } else {
                let text = cell("time_unit")
                guard let parsed = BenchmarkTimeUnit(rawValue: text) else {
                    throw InputError(
                        .unknownUnit, file: file, line: record.line, field: "time_unit",
                        detail: "'\(text)' is not one of ns, us, ms, s (benchmark '\(entry.name)')")
                }
                if let previous = unitOf[benchmark], previous.unit != parsed {
                    throw InputError(
                        .mixedUnits, file: file, line: record.line, field: "time_unit",
                        detail: "benchmark '\(benchmark)' uses '\(parsed.rawValue)' here but "
                            + "'\(previous.unit.rawValue)' on line \(previous.line)")
                }
                if unitOf[benchmark] == nil { unitOf[benchmark] = (parsed, record.line) }
                unit = parsed
            }
            rows.append(
                BenchmarkRow(
                    line: record.line, rawName: entry.name, benchmark: benchmark, kind: kind, iterations: iterations,
                    realTime: realTime, cpuTime: cpuTime, timeUnit: unit, label: cell("label"),
                    errorMessage: nil, counters: counters))
        }
        try checkInexact(document, benchmarks: Set(rows.map(\.benchmark)), file: file)
        return ResultsFile(
            path: file, contextLines: document.contextLines, headerLine: document.headerLine,
            columns: header, rows: rows)
    }

    /// Checks that each `# inexact:` line names a benchmark of the file, in a file that declares exact metrics.
    /// - Throws: `InputError` naming the context line.
    static func checkInexact(_ document: CSVDocument, benchmarks: Set<String>, file: String) throws {
        let entries = document.contextLines.enumerated().compactMap { offset, line in
            ResultsFile.contextEntries([line]).first.map { (line: offset + 1, entry: $0) }
        }
        let declaresExact = entries.contains { $0.entry.key == exactMetricsKey }
        for (line, entry) in entries where entry.key == inexactKey {
            guard declaresExact else {
                throw InputError(
                    .invalidArgument, file: file, line: line, field: inexactKey,
                    detail: "context line '\(inexactKey)' in a file with no '\(exactMetricsKey)' line (only a count "
                        + "declared exact can be listed as not exact after all)")
            }
            guard benchmarks.contains(entry.value) else {
                throw InputError(
                    .missingValue, file: file, line: line, field: inexactKey,
                    detail: "context line '\(inexactKey)' names '\(entry.value)', which is not a benchmark of the file")
            }
        }
    }

    /// The line of `# timing: none` when the file has it, nil when it has no `timing` line.
    /// - Throws: `InputError` naming the line when `timing` has another value.
    static func isUntimed(_ document: CSVDocument, file: String) throws -> Int? {
        for (offset, line) in document.contextLines.enumerated() {
            guard let entry = ResultsFile.contextEntries([line]).first, entry.key == timingKey else { continue }
            guard entry.value == untimedValue else {
                throw InputError(
                    .invalidArgument, file: file, line: offset + 1, field: timingKey,
                    detail: "context line 'timing': '\(entry.value)' is not '\(untimedValue)' (the only value: a file "
                        + "of counts without times)")
            }
            return offset + 1
        }
        return nil
    }

    /// Checks that `# exact_metrics:` names counter columns of the file, at least one.
    /// - Throws: `InputError` naming the context line and the name that is not a counter.
    static func checkExactMetrics(_ document: CSVDocument, counterColumns: [String], file: String) throws {
        for (offset, line) in document.contextLines.enumerated() {
            guard let entry = ResultsFile.contextEntries([line]).first, entry.key == exactMetricsKey else { continue }
            let names = ResultsFile.metricList(entry.value)
            if names.isEmpty {
                throw InputError(
                    .missingValue, file: file, line: offset + 1, field: exactMetricsKey,
                    detail: "context line '\(exactMetricsKey)' names no counter")
            }
            for name in names where !counterColumns.contains(name) {
                throw InputError(
                    .missingColumn, file: file, line: offset + 1, field: exactMetricsKey,
                    detail: "context line '\(exactMetricsKey)' names '\(name)', which is not a counter column of the "
                        + "file (counters: \(counterColumns.isEmpty ? "none" : counterColumns.joined(separator: ", ")))"
                )
            }
        }
    }

    /// A row of a `# timing: none` file: no time cells, a value in every counter column of a data row.
    static func untimedRow(
        _ record: CSVRecord, file: String, name: String, benchmark: String, kind: RowKind, isData: Bool,
        counterColumns: [String],
        timingLine: Int, cell: (String) -> String, number: (String, Bool) throws -> Double?
    ) throws -> BenchmarkRow {
        for column in ["real_time", "cpu_time", "time_unit"] where !cell(column).isEmpty {
            throw InputError(
                .invalidArgument, file: file, line: record.line, field: column,
                detail: "'\(cell(column))' in a file of counts without times ('# timing: none' on line "
                    + "\(timingLine)): leave the cell empty (benchmark '\(name)')")
        }
        var counters: [String: Double] = [:]
        for column in counterColumns {
            if let value = try number(column, isData) { counters[column] = value }
        }
        return BenchmarkRow(
            line: record.line, rawName: name, benchmark: benchmark, kind: kind,
            iterations: try number("iterations", false), realTime: nil, cpuTime: nil, timeUnit: nil,
            label: cell("label"), errorMessage: nil, counters: counters)
    }

    /// Tells repetition rows from aggregate and complexity rows by their names.
    ///
    /// Google Benchmark's CSV has no run-type column, so a row `X_S` is an aggregate of statistic
    /// `S` when `S` is alphanumeric and either `X` is itself a (non-suffixed) row of the file, or
    /// `S` is one of mean/median/stddev/cv and another such suffix exists for `X` (the shape of
    /// `--benchmark_report_aggregates_only`). `X_BigO` / `X_RMS` rows are complexity rows.
    /// - Returns: for each input row, its kind and the benchmark it belongs to.
    static func classify(_ rows: [(name: String, isError: Bool)]) -> [(RowKind, String)] {
        let names = Set(rows.map(\.name))
        func split(_ name: String) -> (base: String, suffix: String)? {
            guard let underscore = name.lastIndex(of: "_") else { return nil }
            let suffix = String(name[name.index(after: underscore)...])
            let base = String(name[..<underscore])
            guard !base.isEmpty, !suffix.isEmpty,
                suffix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
            else { return nil }
            return (base, suffix)
        }
        // Bases that have at least two known aggregate suffixes among the names.
        var knownSuffixCount: [String: Int] = [:]
        for name in names {
            if let (base, suffix) = split(name), aggregateSuffixes.contains(suffix) {
                knownSuffixCount[base, default: 0] += 1
            }
        }
        return rows.map { row in
            guard let (base, suffix) = split(row.name) else {
                return (row.isError ? .error : .repetition, row.name)
            }
            if complexitySuffixes.contains(suffix),
                names.contains(base) || names.contains(base + "_" + (suffix == "BigO" ? "RMS" : "BigO"))
            {
                return (.complexity(suffix), base)
            }
            let isAggregate =
                (names.contains(base) && split(base).map { !aggregateSuffixes.contains($0.suffix) } ?? true)
                || (aggregateSuffixes.contains(suffix) && (knownSuffixCount[base] ?? 0) >= 2)
            if isAggregate { return (row.isError ? .error : .aggregate(suffix), base) }
            return (row.isError ? .error : .repetition, row.name)
        }
    }
}
