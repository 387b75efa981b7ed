// The benchmark report's data file (Benchmarks/targets.yaml): the summary tables and the targets an engine is held
// to, read with the line of every field so that a mistake in the file is reported where it is.
import Foundation
import ResultsKit
import YAMLKit

/// What the subject's value is divided by before it meets the bound.
enum TargetComparison: Sendable, Equatable {
    /// No division: the value itself meets the bound (with its unit).
    case absolute
    /// The same benchmark's value on another engine.
    case engine(String)
    /// The best value among these engines (the smallest for an upper bound, the largest for a lower bound), among
    /// those measured.
    case bestOf([String])
    /// Another column of the subject's own rows (`optimal_wakeups_per_fire`).
    case counter(MetricExpression)
    /// The same column of a machine limit (`BM_Limits/handoff:NAME`) with the subject's pinning (`pin`).
    case limit(String)
    /// Not a division: the subject's figure minus the same benchmark's figure on another engine, for counts where 0 is
    /// a figure (`late_fires` against the epoll floor's: "no more than the floor's").
    case difference(String)
    /// Not a division: how many of these engines beat the subject on every one of `figures` (the target's metric
    /// first), each in its own direction (more items per second, a lower p99, less CPU), strictly. Every one of the
    /// engines must be measured.
    case notDominated(engines: [String], figures: [MetricExpression])

    /// Whether the compared value is a ratio (`1.03x`); else it is a figure or a count in the metric's own terms.
    var isRatio: Bool {
        switch self {
        case .engine, .bestOf, .counter, .limit: return true
        case .absolute, .difference, .notDominated: return false
        }
    }

    /// Whether the target compares the subject with other engines (rather than with itself or the machine).
    var comparesEngines: Bool {
        switch self {
        case .engine, .bestOf, .difference, .notDominated: return true
        case .absolute, .counter, .limit: return false
        }
    }
}

/// The bound a target's value must meet: `<= 1.03x`, `>= 1x`, `<= 80 ms`, `<= 0`.
struct TargetBound: Sendable, Equatable, CustomStringConvertible {
    /// `<=` (at most) or `>=` (at least).
    var atMost: Bool
    /// The bound in the value's own unit (nanoseconds for times, a ratio for comparisons).
    var value: Double
    /// The text as written, for display.
    var text: String

    /// Parses `<= 1.03x`, `>= 1x`, `<= 80 ms`, `<= 0`; `ratio` says whether the value is a ratio (then the `x` is
    /// required), `time` whether it is a time (then ns, us, ms or s is accepted). `nil` if malformed.
    init?(_ written: String, ratio: Bool, time: Bool) {
        var text = written.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("<=") { atMost = true } else if text.hasPrefix(">=") { atMost = false } else { return nil }
        text = text.dropFirst(2).trimmingCharacters(in: .whitespaces)
        var scale = 1.0
        if ratio {
            guard text.hasSuffix("x") else { return nil }
            text = String(text.dropLast()).trimmingCharacters(in: .whitespaces)
        } else if time, let unit = BenchmarkTimeUnit.allCases.first(where: { text.hasSuffix(" " + $0.rawValue) }) {
            scale = unit.nanoseconds
            text = String(text.dropLast(unit.rawValue.count)).trimmingCharacters(in: .whitespaces)
        }
        guard let number = Double(text.replacingOccurrences(of: ",", with: "")), number.isFinite else { return nil }
        value = number * scale
        self.text = written.trimmingCharacters(in: .whitespaces)
    }

    /// Whether `value` meets the bound.
    func isMet(by value: Double) -> Bool { atMost ? value <= self.value : value >= self.value }

    var description: String { text }
}

/// The kind of run a table or target reads (its `run` field): a timed run of `runloop bench`, the instruction
/// counts of `runloop bench --instructions`, or the system calls per round trip of `runloop bench --syscalls` (both
/// results files marked `# timing: none`; the second has a `syscalls_per_round_trip` column). Each applies to its own
/// kind only: a timed run cannot measure an instruction target, nor a count a time.
enum RunMeasure: String, Sendable, Equatable, CaseIterable {
    case timed
    case instructions
    case syscalls

    /// The kind of `file`.
    init(_ file: ResultsFile) {
        if !file.isUntimed {
            self = .timed
        } else {
            self = file.columns.contains("syscalls_per_round_trip") ? .syscalls : .instructions
        }
    }

    /// Reads an entry's optional `run` field (default `timed`).
    static func read(_ fields: inout Fields) throws -> RunMeasure {
        guard let node = fields.optional("run") else { return .timed }
        guard let run = RunMeasure(rawValue: try node.string()) else {
            throw node.error("expected " + allCases.map(\.rawValue).joined(separator: " or "))
        }
        return run
    }
}

/// One target: a figure of the subject engine, how it is compared, and the bound it must meet.
struct BenchmarkTarget: Sendable, Equatable {
    /// A short stable id, e.g. `wake.same.epoll`.
    var id: String
    /// What it checks, in words.
    var description: String
    /// The engine held to the target.
    var engine: String
    /// The benchmarks it reads (every variant that matches must meet it).
    var selection: BenchmarkSelection
    /// The quantity.
    var metric: MetricExpression
    /// Median or worst repetition.
    var statistic: Statistic
    /// What the value is divided by.
    var comparison: TargetComparison
    /// The bound a full run (or a file that does not say its profile) is held to.
    var bound: TargetBound
    /// The bound a quick run is held to; without one a quick run's figure is reported, not judged.
    var quickBound: TargetBound?
    /// A 0/1 column (`loop_saturated`): a repetition where it is not 0 has no valid figure and is left out; a
    /// variant without a valid repetition is not measured.
    var invalidIf: MetricExpression?
    /// What the target is for, in words, for the reader (the `why` field).
    var why: String?
    /// The kind of run it reads.
    var run: RunMeasure = .timed
    /// Its line in the targets file.
    var line: Int
}

/// One table of the summary: a family's figure per variant (rows) and engine (columns).
struct SummaryTable: Sendable, Equatable {
    /// The heading.
    var title: String
    /// The benchmarks shown.
    var selection: BenchmarkSelection
    /// One or more quantities, shown as `a / b` in a cell.
    var metrics: [MetricExpression]
    /// The kind of run it reads.
    var run: RunMeasure = .timed
    /// Its line in the targets file.
    var line: Int
}

/// The parsed targets file.
struct TargetsFile: Sendable {
    /// The format version this reader understands.
    static let formatVersion = 1
    /// The path it was read from.
    var path: String
    /// The engine targets are for unless one says otherwise.
    var engine: String
    /// The summary tables, in order.
    var summary: [SummaryTable]
    /// The targets, in order.
    var targets: [BenchmarkTarget]
    /// What the page draws for each family (the `page` section).
    var page: [FamilyPage] = []

    /// Reads and validates the file.
    /// - Throws: `InputError` naming the file, line and field.
    static func load(path: String) throws -> TargetsFile {
        guard FileManager.default.fileExists(atPath: path) else {
            throw InputError(.fileNotFound, file: path, field: "--targets", detail: "no such targets file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(.unreadable, file: path, detail: "cannot read the targets file")
        }
        return try parse(String(decoding: data, as: UTF8.self), file: path)
    }

    /// Parses the text of a targets file; `file` names it in errors.
    /// - Throws: `InputError` naming the file, line and field.
    static func parse(_ text: String, file: String) throws -> TargetsFile {
        let root: YAMLValue
        do {
            guard let node = try YAMLSyntax.compose(text) else {
                throw InputError(.emptyFile, file: file, detail: "the targets file is empty")
            }
            root = YAMLValue(node: node, file: file, caseID: nil, field: "", wording: .targets)
        } catch let error as YAMLSyntaxError {
            let (line, problem) = located(error)
            throw InputError(.invalidArgument, file: file, line: line, detail: "YAML syntax error: \(problem)")
        }
        do {
            return try read(root, file: file)
        } catch let error as YAMLError {
            throw InputError(
                .invalidArgument, file: file, line: error.location.line, field: error.field,
                detail: error.message)
        }
    }

    /// The targets file from its composed root. Throws ``YAMLError``.
    private static func read(_ top: YAMLValue, file: String) throws -> TargetsFile {
        var fields = try top.fields()
        let version = try fields.required("format").int()
        guard version == formatVersion else {
            var error = fields.owner.error(
                "format \(version) is not supported (this runloop reads format \(formatVersion))")
            error.field = "format"
            throw error
        }
        let engine = try fields.required("engine").string()
        var summary: [SummaryTable] = []
        for (index, entry) in try (fields.optional("summary")?.sequence() ?? []).enumerated() {
            var table = try entry.renamed("summary[\(index)]").fields()
            let selection = try readSelection(&table)
            let metricNode = try table.required("metric")
            let metrics = try (metricNode.isSequence ? metricNode.sequence() : [metricNode]).map { try $0.metric() }
            summary.append(
                SummaryTable(
                    title: try table.required("title").string(), selection: selection,
                    metrics: metrics, run: try RunMeasure.read(&table), line: entry.location.line))
            try table.finish()
        }
        var targets: [BenchmarkTarget] = []
        var ids = Set<String>()
        for (index, entry) in try (fields.optional("targets")?.sequence() ?? []).enumerated() {
            var target = try entry.renamed("targets[\(index)]").fields()
            let idNode = try target.required("id")
            let id = try idNode.string()
            guard ids.insert(id).inserted else { throw idNode.error("duplicate target id '\(id)'") }
            let selection = try readSelection(&target)
            let metric = try target.required("metric").metric()
            var statistic = Statistic.median
            if let node = target.optional("statistic") {
                guard let parsed = Statistic(rawValue: try node.string()) else {
                    throw node.error("expected median, max or min")
                }
                statistic = parsed
            }
            var comparisons: [TargetComparison] = []
            if let node = target.optional("ratio_to") { comparisons.append(.engine(try node.string())) }
            if let node = target.optional("ratio_to_best_of") {
                let engines = try node.sequence().map { try $0.string() }
                guard !engines.isEmpty else { throw node.error("name at least one engine") }
                comparisons.append(.bestOf(engines))
            }
            if let node = target.optional("ratio_to_counter") { comparisons.append(.counter(try node.metric())) }
            if let node = target.optional("ratio_to_limit") { comparisons.append(.limit(try node.string())) }
            if let node = target.optional("difference_to") { comparisons.append(.difference(try node.string())) }
            let tradeOff = try target.optional("trade_off_with").map { node in
                try node.sequence().map { try $0.metric() }
            }
            if let node = target.optional("not_dominated_by") {
                let engines = try node.sequence().map { try $0.string() }
                guard !engines.isEmpty else { throw node.error("name at least one engine") }
                guard let tradeOff, !tradeOff.isEmpty else {
                    throw node.error("not_dominated_by needs 'trade_off_with': the figures beside the metric")
                }
                comparisons.append(.notDominated(engines: engines, figures: [metric] + tradeOff))
            } else if tradeOff != nil {
                throw entry.error("'trade_off_with' goes with 'not_dominated_by'")
            }
            guard comparisons.count <= 1 else {
                throw entry.error(
                    "give at most one of ratio_to, ratio_to_best_of, ratio_to_counter, ratio_to_limit, "
                        + "difference_to, not_dominated_by")
            }
            let comparison = comparisons.first ?? .absolute
            let isRatio = comparison.isRatio
            // A difference and a count of engines are counts, whatever the metric's unit.
            let isCount: Bool
            switch comparison {
            case .notDominated: isCount = true
            default: isCount = false
            }
            func readBound(_ boundNode: YAMLValue) throws -> TargetBound {
                guard
                    let bound = TargetBound(
                        try boundNode.string(), ratio: isRatio,
                        time: !isRatio && !isCount && metric.isTime)
                else {
                    throw boundNode.error(
                        isRatio
                            ? "expected '<= NUMBERx' or '>= NUMBERx' (a ratio)"
                            : "expected '<= NUMBER' or '>= NUMBER'"
                                + (metric.isTime && !isCount ? ", with a unit ns, us, ms or s" : ""))
                }
                return bound
            }
            let bound = try readBound(try target.required("bound"))
            let quickBound = try target.optional("quick_bound").map { try readBound($0) }
            let invalidIf = try target.optional("invalid_if")?.metric()
            targets.append(
                BenchmarkTarget(
                    id: id, description: try target.required("description").string(),
                    engine: try target.optional("engine")?.string() ?? engine, selection: selection, metric: metric,
                    statistic: statistic, comparison: comparison, bound: bound, quickBound: quickBound,
                    invalidIf: invalidIf, why: try target.optional("why")?.string(), run: try RunMeasure.read(&target),
                    line: entry.location.line))
            try target.finish()
        }
        var page: [FamilyPage] = []
        for (index, node) in try (fields.optional("page")?.sequence() ?? []).enumerated() {
            let entry = node.renamed("page[\(index)]")
            let family = try readFamilyPage(entry)
            if let first = page.first(where: { $0.family == family.family }) {
                throw entry.error("the family \(family.family) has an entry already, on line \(first.line)")
            }
            page.append(family)
        }
        try fields.finish()
        return TargetsFile(path: file, engine: engine, summary: summary, targets: targets, page: page)
    }

    /// One family's entry of the `page` section.
    private static func readFamilyPage(_ entry: YAMLValue) throws -> FamilyPage {
        var fields = try entry.fields()
        let family = try fields.required("family").string()
        let note = try fields.optional("note")?.string()
        var charts: [ChartDefinition] = []
        for (index, element) in try (fields.optional("charts")?.sequence() ?? []).enumerated() {
            let node = element.renamed("\(entry.field).charts[\(index)]")
            var chart = try node.fields()
            let dots = chart.optional("dots")
            let lines = chart.optional("lines")
            guard (dots == nil) != (lines == nil) else {
                throw node.error("give one of 'dots: TITLE' and 'lines: TITLE'")
            }
            let metric = try chart.required("metric").metric()
            let axis = try chart.required("axis").string()
            if let dots {
                var statistic = Statistic.median
                if let node = chart.optional("tail_statistic") {
                    guard let parsed = Statistic(rawValue: try node.string()) else {
                        throw node.error("expected median, max or min")
                    }
                    statistic = parsed
                }
                charts.append(
                    .dots(
                        DotChart(
                            title: try dots.string(), center: metric, centerName: try chart.required("name").string(),
                            tail: try chart.required("tail").metric(),
                            tailName: try chart.required("tail_name").string(),
                            tailStatistic: statistic, axis: axis,
                            withLimits: try chart.optional("with_limits")?.bool() ?? false)))
            } else if let lines {
                charts.append(
                    .lines(
                        LineChart(
                            title: try lines.string(), x: try chart.required("x").string(), y: metric, axis: axis,
                            logY: try chart.optional("log_y")?.bool() ?? true,
                            optimum: try chart.optional("optimum")?.metric())))
            }
            try chart.finish()
        }
        var modes: [LatencyMode] = []
        for (index, node) in try (fields.optional("modes")?.sequence() ?? []).enumerated() {
            var mode = try node.renamed("\(entry.field).modes[\(index)]").fields()
            modes.append(
                LatencyMode(
                    name: try mode.required("name").string(), share: try mode.required("share").metric(),
                    median: try mode.required("median").metric()))
            try mode.finish()
        }
        try fields.finish()
        return FamilyPage(family: family, note: note, charts: charts, modes: modes, line: entry.location.line)
    }

    /// `family` and `where` of a table or target.
    private static func readSelection(_ fields: inout Fields) throws -> BenchmarkSelection {
        let family = try fields.required("family").string()
        var parameters: [(String, [String])] = []
        if let node = fields.optional("where") {
            for (key, value) in try node.mapping() {
                let values = try value.isSequence ? value.sequence().map { try $0.string() } : [value.string()]
                guard !values.isEmpty else { throw value.error("name at least one value") }
                parameters.append((key, values))
            }
        }
        return BenchmarkSelection(family: family, parameters: parameters)
    }

    /// The line and the words of a YAML syntax error.
    private static func located(_ error: YAMLSyntaxError) -> (line: Int?, problem: String) {
        switch error.problem {
        case .syntax(let text): return (error.line, text)
        case .duplicateKeys(let duplicates):
            return (error.line, "a key appears twice in one mapping: " + duplicates.joined(separator: ", "))
        case .reader, .other: return (nil, error.yamsDescription)
        }
    }
}

extension YAMLWording {
    /// The targets file's wording: "expected a text value", "the field 'x' is missing", "unknown field 'x'".
    static let targets = YAMLWording(
        namesWhatItFound: false, refusesEmptyStrings: true,
        missing: { key, _ in "the field '\(key)' is missing" }, missingNamesTheField: false,
        unknown: { key, _ in "unknown field '\(key)'" }, duplicateAtValue: true)
}

extension YAMLValue {
    /// A metric column or a sum of them.
    fileprivate func metric() throws -> MetricExpression {
        guard let metric = MetricExpression(try string()) else {
            throw error("expected a column name or a sum of them ('ns_per_add + ns_per_remove')")
        }
        return metric
    }
}
