// `runloop conform merge`: the JSON results of several conformance runs (other engines, other CoreFoundation builds,
// other machines or Swift versions) made into one matrix, one column per engine of each run, each column keeping its
// run's context (ConformanceRunContext). A column keeps its engine's name when no other run has an engine of that name,
// else it is qualified by its run: `cf #2`. Inputs are read defensively (JSONInput): an empty, truncated or foreign
// file, or a run given twice, is refused by name.

import Foundation

public enum ConformanceMerge {
    /// The merged report of the files at `paths`, in order; `cases` give the cases' facts, as for one run.
    /// - Throws: ``ConformanceJSONError`` naming the file.
    public static func merge(paths: [String], cases: [SpecCase] = []) throws -> ConformanceReport {
        var reports: [ConformanceReport] = []
        for (index, path) in paths.enumerated() {
            let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            if let earlier = paths[..<index].first(where: {
                URL(fileURLWithPath: $0).resolvingSymlinksInPath().path == resolved
            }) {
                throw ConformanceJSONError(file: path, detail: "given twice (as \(earlier) too); give each run once")
            }
            var report = try ConformanceJSON.read(path: path, cases: cases)
            if report.runs.isEmpty {
                // A document older than version 4 says nothing of its run: its file stands for it.
                report.runs = [
                    ConformanceRunContext(
                        date: "unknown", machine: .init(hostname: "unknown", kernel: "unknown", cpus: 0),
                        toolchain: .init(swift_version: "unknown", compiled_with: "unknown"),
                        runloop: "unknown (a document of format version 3 or older)",
                        engines: report.engines.map { .init(column: $0, name: $0, selector: $0, build: "unknown") })
                ]
            }
            for index in report.runs.indices where report.runs[index].file == nil {
                report.runs[index].file = path
            }
            for (earlier, earlierPath) in zip(reports, paths) {
                if let same = report.runs.first(where: { run in earlier.runs.contains { sameRun($0, run) } }) {
                    throw ConformanceJSONError(
                        file: path,
                        detail: "the run of \(same.date) on \(same.machine.hostname) ("
                            + same.engines.map(\.column)
                            .joined(separator: ", ") + ") again: \(earlierPath) has it too; give each run once")
                }
            }
            reports.append(report)
        }
        return merge(reports)
    }

    /// Whether two contexts are of one run: all but the file they were read from.
    static func sameRun(_ first: ConformanceRunContext, _ second: ConformanceRunContext) -> Bool {
        var first = first
        var second = second
        first.file = nil
        second.file = nil
        return first == second && first.date != "unknown"
    }

    /// The reports' columns side by side, renamed where two runs share an engine name.
    public static func merge(_ reports: [ConformanceReport]) -> ConformanceReport {
        var uses: [String: Int] = [:]
        for report in reports { for engine in report.engines { uses[engine, default: 0] += 1 } }
        var engines: [String] = []
        var outcomes: [CaseOutcome] = []
        var caseIDs: [String] = []
        var seen = Set<String>()
        var runs: [ConformanceRunContext] = []
        var facts: [String: CaseFacts] = [:]
        for (position, report) in reports.enumerated() {
            func column(_ engine: String) -> String {
                uses[engine, default: 0] > 1 ? "\(engine) #\(position + 1)" : engine
            }
            engines += report.engines.map(column)
            outcomes += report.outcomes.map { outcome in
                var renamed = outcome
                renamed.engine = column(outcome.engine)
                return renamed
            }
            for id in report.caseIDs where seen.insert(id).inserted { caseIDs.append(id) }
            runs += report.runs.map { run in
                var renamed = run
                renamed.engines = run.engines.map { engine in
                    var copy = engine
                    copy.column = column(engine.column)
                    return copy
                }
                return renamed
            }
            facts.merge(report.facts) { first, _ in first }
        }
        var merged = ConformanceReport(engines: engines, outcomes: outcomes, caseIDs: caseIDs)
        merged.facts = facts
        merged.runs = runs
        merged.referenceExpectations = reports.first?.referenceExpectations ?? merged.referenceExpectations
        return merged
    }
}
