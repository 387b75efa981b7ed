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
        // Each distinct minimal case once, with every seed that shrank to it.
        var seen: [String: [UInt64]] = [:]
        var distinct: [FuzzFinding] = []
        for finding in summary.findings {
            if seen[finding.signature] == nil { distinct.append(finding) }
            seen[finding.signature, default: []].append(finding.seed)
        }
        lines.append("distinct shrunk cases: \(distinct.count)")
        for finding in distinct {
            let label = finding.explanation.map { "EXPLAINED (\($0.id))" } ?? "DIVERGENCE"
            let seeds = seen[finding.signature] ?? [finding.seed]
            lines.append("")
            lines.append("\(label): seed \(finding.seed), shrunk from size \(finding.originalSize) to "
                         + "\(FuzzShrinker.size(finding.shrunk))" + (finding.stable ? "" : " (unstable when run again)"))
            if seeds.count > 1 {
                lines.append("  the same minimal case from \(seeds.count) seeds: "
                             + seeds.map(String.init).joined(separator: ", "))
            }
            if let file = finding.file { lines.append("  case: \(file)") }
            lines.append("  replay: \(replayCommand(seed: finding.seed, options: options))")
            let diff = TraceDiff.render(expected: finding.runs[0].rawTrace, actual: finding.runs[1].rawTrace)
                .replacingOccurrences(of: "--- expected", with: "--- \(summary.engines[0]) (\(finding.runs[0].status))")
                .replacingOccurrences(of: "+++ actual", with: "+++ \(summary.engines[1]) (\(finding.runs[1].status))")
            lines += diff.split(separator: "\n").map { "  " + $0 }
        }
        return lines.joined(separator: "\n")
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
            var findings: [Finding]
        }
        let findings = summary.findings.map { finding in
            Finding(seed: finding.seed, explained_by: finding.explanation?.id, stable: finding.stable,
                    original_size: finding.originalSize, shrunk_size: FuzzShrinker.size(finding.shrunk),
                    file: finding.file, signature: finding.signature, replay: replayCommand(seed: finding.seed, options: options),
                    found_after_seconds: (finding.foundAfter * 10).rounded() / 10,
                    statuses: Dictionary(uniqueKeysWithValues: zip(summary.engines, finding.runs.map(\.status))),
                    traces: Dictionary(uniqueKeysWithValues: zip(summary.engines, finding.runs.map(\.rawTrace))))
        }
        let value = Summary(engines: summary.engines, first_seed: summary.firstSeed, scenarios: summary.scenarios,
                            seconds: summary.seconds, unexplained: summary.unexplained.count,
                            explained: summary.explained.count, nondeterministic: summary.nondeterministic.count,
                            nondeterministic_seeds: summary.nondeterministic, skipped: summary.skipped,
                            hung: summary.hung.count, hung_seeds: summary.hung,
                            failed_everywhere: summary.failedEverywhere.count,
                            failed_everywhere_seeds: summary.failedEverywhere.map(\.seed), findings: findings)
        return JSONText.render(value)
    }
}
