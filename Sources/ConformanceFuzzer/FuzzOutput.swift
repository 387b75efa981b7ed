// What a fuzzing campaign hands a person: a one-case spec file per divergence, a text summary and a JSON one.

import ConformanceKit
import Foundation

/// Renders findings and summaries.
public enum FuzzOutput {
    /// The command that replays the scenario of `seed` with the campaign's options.
    public static func replayCommand(seed: UInt64, options: FuzzOptions) -> String {
        var words = ["runloop fuzz", "--engines", options.engines.map(\.selector).joined(separator: ","),
                     "--seed", "\(seed)", "--count", "1"]
        let defaults = FuzzShape()
        if options.shape.maxSteps != defaults.maxSteps { words += ["--max-steps", "\(options.shape.maxSteps)"] }
        if options.shape.areas != defaults.areas {
            words += ["--areas", FuzzArea.allCases.filter(options.shape.areas.contains).map(\.rawValue).joined(separator: ",")]
        }
        return words.joined(separator: " ")
    }

    /// A spec file holding the shrunk case: `source: observed`, `expect` the first engine's trace, the other engines'
    /// traces and the seed in comments.
    public static func caseFile(_ finding: FuzzFinding, options: FuzzOptions) -> String {
        let engines = options.engines.map(\.name)
        var comments = ["Found by: \(replayCommand(seed: finding.seed, options: options))",
                        "(scenario of seed \(finding.seed), size \(finding.originalSize), shrunk to size "
                            + "\(FuzzShrinker.size(finding.shrunk)))."]
        if let explanation = finding.explanation {
            comments.append("Explained by fuzz-known.yaml: \(explanation.id).")
        }
        if !finding.stable { comments.append("WARNING: the shrunk case did not give the same runs when run again.") }
        comments.append("expect: \(engines[0])'s trace" + statusNote(finding.runs[0]) + ".")
        for (engine, run) in zip(engines, finding.runs).dropFirst() {
            comments.append("\(engine)'s trace\(statusNote(run)):")
            comments += run.rawTrace.map { "  " + $0 }
            if run.rawTrace.isEmpty { comments.append("  (no lines)") }
        }
        return CaseWriter.file([finding.shrunk], comments: comments)
    }

    private static func statusNote(_ run: FuzzRun) -> String {
        run.status == "done" ? "" : " (\(run.status): \(run.detail?.split(separator: "\n").first ?? ""))"
    }

    /// The summary as text: counts, then each divergence with its file and its traces side by side as a diff.
    public static func text(_ summary: FuzzSummary, options: FuzzOptions) -> String {
        var lines = ["runloop fuzz: \(summary.engines.joined(separator: " vs ")), seeds \(summary.firstSeed) to "
                     + "\(summary.firstSeed &+ UInt64(max(summary.scenarios, 1) - 1)) (scenario i has seed "
                     + "\(summary.firstSeed) + i)"]
        lines.append("\(summary.scenarios) scenarios in \(String(format: "%.1f", summary.seconds)) s "
                     + "(\(String(format: "%.1f", Double(summary.scenarios) / max(summary.seconds, 0.001))) per second): "
                     + "\(summary.unexplained.count) unexplained divergences, \(summary.explained.count) explained, "
                     + "\(summary.nondeterministic.count) nondeterministic, \(summary.skipped) skipped, "
                     + "\(summary.hung.count) hung on every engine, \(summary.failedEverywhere.count) failed on every engine")
        if !summary.hung.isEmpty {
            lines.append("hung on every engine: seeds " + summary.hung.map(String.init).joined(separator: ", "))
        }
        // The first few with their status (one broken setup fails every scenario alike); the JSON lists every seed.
        for failed in summary.failedEverywhere.prefix(10) {
            lines.append("failed on every engine: seed \(failed.seed) (\(failed.status))")
        }
        if summary.failedEverywhere.count > 10 {
            lines.append("failed on every engine: \(summary.failedEverywhere.count - 10) more (--format json lists every seed)")
        }
        if !summary.nondeterministic.isEmpty {
            lines.append("nondeterministic (set aside): seeds " + summary.nondeterministic.map(String.init).joined(separator: ", "))
        }
        lines.append("shrinking: \(String(format: "%.1f", summary.shrinkSeconds)) s in all (at most "
                     + "\(String(format: "%.0f", options.shrinkSeconds)) s per divergence"
                     + (options.seconds.map { ", within the run's \(String(format: "%.0f", $0)) s" } ?? "") + ")"
                     + { let cut = summary.findings.filter(\.shrinkCut).count
                         return cut == 0 ? "" : "; \(cut) stopped at the time limit, their smallest case so far kept" }())
        // Each defect once (the triage's departure of the shrunk case), with how many scenarios hit it.
        let defects = summary.defects
        lines.append("defects: \(defects.count) (\(summary.findings.count) divergent scenarios)")
        for (defect, findings) in defects {
            lines.append("")
            lines += findingLines(findings[0], options: options, engines: summary.engines,
                                  scenarios: findings.count, others: findings.dropFirst().map(\.seed))
            _ = defect
        }
        return lines.joined(separator: "\n")
    }

    /// One finding: its defect, how many scenarios hit it, its case file, replay command and the diff of the first two
    /// engines' traces (capped as conformance reports cap them).
    public static func findingLines(_ finding: FuzzFinding, options: FuzzOptions, engines: [String], scenarios: Int = 1,
                                    others: [UInt64] = []) -> [String] {
        let label = finding.explanation.map { "EXPLAINED (\($0.id))" } ?? "DIVERGENCE"
        var lines = ["\(label): \(finding.defect)"]
        lines.append("  seed \(finding.seed), shrunk from size \(finding.originalSize) to \(FuzzShrinker.size(finding.shrunk))"
                     + " in \(String(format: "%.1f", finding.shrinkSeconds)) s"
                     + (finding.shrinkCut ? " (stopped at the time limit)" : "")
                     + (finding.stable ? "" : " (unstable when run again)"))
        if scenarios > 1 {
            let listed = others.prefix(10).map(String.init).joined(separator: ", ")
            lines.append("  hit by \(scenarios) scenarios; the other seeds: \(listed)"
                         + (others.count > 10 ? ", ... \(others.count - 10) more" : ""))
        }
        if let file = finding.file { lines.append("  case: \(file)") }
        lines.append("  replay: \(replayCommand(seed: finding.seed, options: options))")
        let diff = TraceDiff.render(expected: finding.runs[0].rawTrace, actual: finding.runs[1].rawTrace)
            .replacingOccurrences(of: "--- expected", with: "--- \(engines[0]) (\(finding.runs[0].status))")
            .replacingOccurrences(of: "+++ actual", with: "+++ \(engines[1]) (\(finding.runs[1].status))")
        lines += TraceCap.apply(text: diff).split(separator: "\n").map { "  " + $0 }
        return lines
    }

    /// What `runloop fuzz` prints as a finding is made: the whole finding for the first of its defect, one line for
    /// a later one.
    public static func foundText(_ finding: FuzzFinding, firstOfDefect: Bool, options: FuzzOptions) -> String {
        let engines = options.engines.map(\.name)
        guard firstOfDefect else {
            return "found again (seed \(finding.seed), shrunk to size \(FuzzShrinker.size(finding.shrunk))): "
                + finding.defect
        }
        return (["found after \(String(format: "%.1f", finding.foundAfter)) s:"]
            + findingLines(finding, options: options, engines: engines)).joined(separator: "\n")
    }

    /// The summary as JSON.
    public static func json(_ summary: FuzzSummary, options: FuzzOptions) -> String {
        struct Finding: Encodable {
            var seed: UInt64
            var explained_by: String?
            var stable: Bool
            var original_size: Int
            var shrunk_size: Int
            var file: String?
            var signature: String
            var replay: String
            var found_after_seconds: Double
            var shrink_seconds: Double
            var shrink_stopped_at_time_limit: Bool
            var defect: String
            var statuses: [String: String]
            var traces: [String: [String]]
        }
        struct Summary: Encodable {
            var engines: [String]
            var first_seed: UInt64
            var scenarios: Int
            var seconds: Double
            var unexplained: Int
            var explained: Int
            var nondeterministic: Int
            var nondeterministic_seeds: [UInt64]
            var skipped: Int
            var hung: Int
            var hung_seeds: [UInt64]
            var failed_everywhere: Int
            var failed_everywhere_seeds: [UInt64]
            var shrink_seconds: Double
            var shrink_budget_seconds: Double
            /// Each defect once, with how many scenarios hit it and the seeds.
            var defects: [Defect]
            var findings: [Finding]
        }
        struct Defect: Encodable {
            var defect: String
            var scenarios: Int
            var seeds: [UInt64]
        }
        let findings = summary.findings.map { finding in
            Finding(seed: finding.seed, explained_by: finding.explanation?.id, stable: finding.stable,
                    original_size: finding.originalSize, shrunk_size: FuzzShrinker.size(finding.shrunk),
                    file: finding.file, signature: finding.signature, replay: replayCommand(seed: finding.seed, options: options),
                    found_after_seconds: (finding.foundAfter * 10).rounded() / 10,
                    shrink_seconds: (finding.shrinkSeconds * 10).rounded() / 10,
                    shrink_stopped_at_time_limit: finding.shrinkCut, defect: finding.defect,
                    statuses: Dictionary(uniqueKeysWithValues: zip(summary.engines, finding.runs.map(\.status))),
                    traces: Dictionary(uniqueKeysWithValues: zip(summary.engines, finding.runs.map(\.rawTrace))))
        }
        let value = Summary(engines: summary.engines, first_seed: summary.firstSeed, scenarios: summary.scenarios,
                            seconds: summary.seconds, unexplained: summary.unexplained.count,
                            explained: summary.explained.count, nondeterministic: summary.nondeterministic.count,
                            nondeterministic_seeds: summary.nondeterministic, skipped: summary.skipped,
                            hung: summary.hung.count, hung_seeds: summary.hung,
                            failed_everywhere: summary.failedEverywhere.count,
                            failed_everywhere_seeds: summary.failedEverywhere.map(\.seed),
                            shrink_seconds: (summary.shrinkSeconds * 10).rounded() / 10,
                            shrink_budget_seconds: options.shrinkSeconds,
                            defects: summary.defects.map {
                                Defect(defect: $0.defect, scenarios: $0.findings.count, seeds: $0.findings.map(\.seed))
                            },
                            findings: findings)
        return JSONText.render(value)
    }
}
