// One results CSV as the history records it: the run's identity from its context lines (machine, CPU, commit,
// profile, date, engines) and, per benchmark and metric, the repetitions' values and their summary.
import Foundation
import ResultsKit

/// A run read from a results CSV, ready to be stored.
public struct RunRecord: Sendable {
    /// The file's path as given.
    public let file: String
    /// SHA-256 of the file's bytes: the same file imported twice is one run.
    public let contentHash: String
    /// The `# date:` line (ISO 8601, UTC), as written.
    public let date: String
    /// The `# label:` line: the machine kind the run was taken on.
    public let machine: String
    /// The `# cpu_model:` line.
    public let cpu: String
    /// The commit of `# commit:`.
    public let commit: String
    /// How many paths differed from the commit, when the line says.
    public let uncommittedPaths: Int?
    /// The profile's name (`full`, `quick`): the first word of `# profile:`.
    public let profile: String
    /// The whole `# profile:` line (repetitions, min time).
    public let profileDetail: String
    /// The `# filter:` line, if any.
    public let filter: String?
    /// Every `# key: value` pair, in order.
    public let context: [ContextEntry]
    /// `engine_<name>` lines: engine name to what it was.
    public let engines: [(engine: String, version: String)]
    /// Data rows in the file, and how many of them were error rows.
    public let rowCount: Int
    public let errorRows: Int
    /// One entry per benchmark and metric with values.
    public let measurements: [Measurement]

    /// The context lines a run must have to be placed in the history, and what each is for.
    public static let requiredContext: [(key: String, purpose: String)] = [
        ("date", "orders the run"),
        ("label", "names the machine"),
        ("cpu_model", "names the machine's CPU"),
        ("commit", "names the code measured"),
        ("profile", "names the profile (full, quick)"),
    ]

    /// Builds the record of a parsed file whose bytes hash to `hash`.
    init(results: ResultsFile, hash: String) throws {
        let path = results.path
        func required(_ key: String) throws -> String {
            guard let value = results.contextValue(key), !value.isEmpty else {
                let purpose = RunRecord.requiredContext.first { $0.key == key }?.purpose ?? ""
                throw HistoryError.file(
                    path,
                    "missing context line '# \(key): ...' (it \(purpose)); a run in the "
                        + "history needs # " + RunRecord.requiredContext.map(\.key).joined(separator: ", # ")
                        + " before the header, as `runloop bench` writes them")
            }
            return value
        }
        let date = try required("date")
        let line = (results.contextLines.firstIndex { $0.hasPrefix("# date:") } ?? 0) + 1
        guard RunRecord.parseDate(date) != nil else {
            throw HistoryError.file(
                path, line: line,
                "context line 'date': '\(date)' is not an ISO 8601 date "
                    + "such as 2026-11-27T01:19:11Z")
        }
        let commitLine = try required("commit")
        let commit = String(commitLine.split(separator: " ").first ?? "")
        let profileLine = try required("profile")
        self.file = path
        contentHash = hash
        self.date = date
        machine = try required("label")
        cpu = try required("cpu_model")
        self.commit = commit
        uncommittedPaths = RunRecord.uncommitted(commitLine)
        profile = String(profileLine.split(separator: " ").first ?? "")
        profileDetail = profileLine
        filter = results.contextValue("filter")
        context = results.context
        var engines: [(String, String)] = []
        for entry in results.context where entry.key.hasPrefix("engine_") {
            let name = String(entry.key.dropFirst("engine_".count))
            if !engines.contains(where: { $0.0 == name }) { engines.append((name, entry.value)) }
        }
        self.engines = engines
        rowCount = results.rows.count
        errorRows = results.rows.filter { $0.kind == .error }.count
        measurements = Measurement.all(of: results)
    }

    /// `2026-11-27T01:19:11Z` as a date.
    static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// `0c6b8cb... (3 uncommitted paths)`: 3.
    static func uncommitted(_ line: String) -> Int? {
        guard let open = line.firstIndex(of: "(") else { return nil }
        let words = line[line.index(after: open)...].split(separator: " ")
        guard words.count >= 2, words[1].hasPrefix("uncommitted") else { return nil }
        return Int(words[0])
    }
}

/// One benchmark's values of one metric in one run.
public struct Measurement: Sendable, Equatable {
    /// The full benchmark name.
    public let benchmark: String
    /// `real_time` (nanoseconds) or a counter's name.
    public let metric: String
    /// The repetitions' values (or one aggregate's), in file order.
    public let samples: [Double]

    /// The median, quartiles and extremes of the samples.
    public var summary: (median: Double, q1: Double, q3: Double, minimum: Double, maximum: Double) {
        (
            Statistics.median(samples) ?? .nan, Statistics.quantile(samples, 0.25) ?? .nan,
            Statistics.quantile(samples, 0.75) ?? .nan, samples.min() ?? .nan, samples.max() ?? .nan
        )
    }

    /// `real_time` and every counter that has values, for every benchmark of the file (error rows never count).
    static func all(of results: ResultsFile) -> [Measurement] {
        // Google Benchmark's own rate column is a figure too (the resident thread's items per second).
        let counters = results.columns.filter {
            !ResultsReader.standardColumns.contains($0) || $0 == "items_per_second"
        }
        var result: [Measurement] = []
        let metrics = [Metric.realTime] + counters.map(Metric.counter)
        for (metric, samplesOfMetric) in zip(metrics, results.samples(ofEach: metrics)) {
            for samples in samplesOfMetric where !samples.values.isEmpty {
                result.append(
                    Measurement(
                        benchmark: samples.name.full, metric: metric.description,
                        samples: samples.values))
            }
        }
        return result
    }

    /// The samples as the database stores them: little-endian IEEE doubles.
    var blob: Data {
        var data = Data(capacity: samples.count * 8)
        for value in samples {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// Samples from a blob written by `blob`.
    static func samples(fromBlob data: Data) -> [Double] {
        var values: [Double] = []
        values.reserveCapacity(data.count / 8)
        var index = data.startIndex
        while index + 8 <= data.endIndex {
            var bits: UInt64 = 0
            for offset in 0..<8 { bits |= UInt64(data[index + offset]) << (8 * UInt64(offset)) }
            values.append(Double(bitPattern: UInt64(littleEndian: bits)))
            index += 8
        }
        return values
    }
}
