// What a fuzzing campaign hands a person: a one-case spec file per divergence, a text summary and a JSON one.

import ConformanceKit
import Foundation

/// Renders findings and summaries.
public enum FuzzOutput {
    /// The command that replays the scenario of `seed` with the campaign's options.
    public static func replayCommand(seed: UInt64, options: FuzzOptions) -> String {
        var words = [
            "runloop fuzz", "--engines", options.engines.map(\.selector).joined(separator: ","),
            "--seed", "\(seed)", "--count", "1",
        ]
        let defaults = FuzzShape()
        if options.shape.maxSteps != defaults.maxSteps { words += ["--max-steps", "\(options.shape.maxSteps)"] }
        if options.shape.areas != defaults.areas {
            words += [
                "--areas",
                FuzzArea.allCases.filter(options.shape.areas.contains).map(\.rawValue).joined(separator: ","),
            ]
        }
        return words.joined(separator: " ")
    }

    /// A spec file holding the shrunk case: `source: observed`, `expect` the first engine's trace, the other engines'
    /// traces and the seed in comments.
    public static func caseFile(_ finding: FuzzFinding, options: FuzzOptions) -> String {
        let engines = options.engines.map(\.name)
        var comments = [
            "Found by: \(replayCommand(seed: finding.seed, options: options))",
            "(scenario of seed \(finding.seed), size \(finding.originalSize), shrunk to size "
                + "\(FuzzShrinker.size(finding.shrunk))).",
        ]
        if let explanation = finding.explanation {
            comments.append("Explained by fuzz-known.yaml: \(explanation.id).")
        }
        if finding.stable == false {
            comments.append("WARNING: the shrunk case did not give the same runs when run again.")
        }
        if !finding.rechecked {
            comments.append("WARNING: found when the time was up, not run again: it may be nondeterministic.")
        }
        if finding.shrinkState == .notShrunk { comments.append("Not shrunk (found when the time was up).") }
        if !finding.possibleExplanations.isEmpty {
            comments.append(
                "May be explained by fuzz-known.yaml: " + finding.possibleExplanations.joined(separator: ", ")
                    + " (its counterfactual not run).")
        }
        comments.append("expect: \(engines[0])'s trace" + statusNote(finding.runs[0]) + ".")
        for (engine, run) in zip(engines, finding.runs).dropFirst() {
            comments.append("\(engine)'s trace\(statusNote(run)):")
            comments += run.rawTrace.map { "  " + $0 }
            if run.rawTrace.isEmpty { comments.append("  (no lines)") }
        }
        return CaseWriter.file([finding.shrunk], comments: comments)
    }

    private static func statusNote(_ run: FuzzRun) -> String {
        run.status == .done ? "" : " (\(run.status): \(run.detail?.split(separator: "\n").first ?? ""))"
    }

    /// "SIGINT", "SIGTERM", or "signal N".
    public static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(signal)"
        }
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }

    /// The summary as text: counts, where the time went, the dead callout kinds, then each defect once with how many
    /// scenarios hit it and its finding to read (its traces side by side as a diff).
    public static func text(_ summary: FuzzSummary, options: FuzzOptions) -> String {
        let shard = options.shard
        let firstRun = shard.seed(first: summary.firstSeed, position: 0)
        let last = shard.seed(first: summary.firstSeed, position: max(summary.scenarios, 1) - 1)
        var lines = [
            "runloop fuzz: \(summary.engines.joined(separator: " vs ")), seeds \(firstRun) to \(last) "
                + (shard.count == 1
                    ? "(scenario i has seed \(summary.firstSeed) + i)"
                    : "(shard \(shard) of the campaign from seed \(summary.firstSeed): every \(shard.count)th seed)")
        ]
        if let signal = summary.interrupted {
            lines.append(
                "INTERRUPTED by \(signalName(signal)) after \(seconds(summary.seconds)): the batch under way "
                    + "was not counted; what was found before is below")
        }
        let notRunAgain = summary.findings.filter { finding in
            if case .sameDefect = finding.shrinkState { return false }
            return !finding.rechecked
        }.count
        lines.append(
            "\(summary.scenarios) scenarios: \(summary.unexplained.count) unexplained divergences, "
                + "\(summary.explained.count) explained, "
                + (summary.unclassified.isEmpty
                    ? ""
                    : "\(summary.unclassified.count) that a known divergence may "
                        + "explain (its counterfactual not run), ")
                + "\(summary.nondeterministic.count) nondeterministic, \(summary.skipped) skipped"
                + (summary.skippedForTheClock.isEmpty
                    ? "" : " (\(summary.skippedForTheClock.count) for the moving wall clock)") + ", "
                + "\(summary.hung.count) hung on every engine, \(summary.failedEverywhere.count) failed on every engine"
                + (notRunAgain == 0 ? "" : "; \(notRunAgain) divergences found at the end were not run again"))
        lines.append(timeLine(summary, options: options))
        if !summary.hung.isEmpty {
            lines.append("hung on every engine: seeds " + summary.hung.map(String.init).joined(separator: ", "))
        }
        if !summary.skippedForTheClock.isEmpty {
            lines.append(
                "skipped because the wall clock moved during each run on some engine (run them again): seeds "
                    + summary.skippedForTheClock.map(String.init).joined(separator: ", "))
        }
        // The first few with their status (one broken setup fails every scenario alike); the JSON lists every seed.
        for failed in summary.failedEverywhere.prefix(10) {
            lines.append("failed on every engine: seed \(failed.seed) (\(failed.status))")
        }
        if summary.failedEverywhere.count > 10 {
            lines.append(
                "failed on every engine: \(summary.failedEverywhere.count - 10) more (--format json lists every seed)")
        }
        if !summary.nondeterministic.isEmpty {
            lines.append(
                "nondeterministic (set aside): seeds "
                    + summary.nondeterministic.map { "\($0.seed) (\($0.engines.joined(separator: ", ")))" }
                    .joined(separator: ", "))
            lines += summary.nondeterministic.flatMap(\.lines).map { "  " + $0 }
        }
        for engine in summary.engines where summary.deadKinds[engine] != nil {
            lines.append(
                "callouts \(engine) never made in the whole campaign, while \(summary.engines[0]) did (dead): "
                    + summary.deadKinds[engine]!.joined(separator: ", "))
        }
        // Each defect once, with how many scenarios hit it.
        let defects = summary.defects
        lines.append("defects: \(defects.count) (\(summary.findings.count) divergent scenarios)")
        for (_, findings) in defects {
            let shown =
                findings.first { finding in
                    if case .sameDefect = finding.shrinkState { return false }
                    return finding.shrinkState != .notShrunk
                } ?? findings[0]
            lines.append("")
            lines += findingLines(
                shown, options: options, engines: summary.engines, scenarios: findings.count,
                others: findings.map(\.seed).filter { $0 != shown.seed })
        }
        return lines.joined(separator: "\n")
    }

    /// Where the campaign's time went: its wall time against the limit, then running, re-checking, shrinking,
    /// writing and the rest.
    static func timeLine(_ summary: FuzzSummary, options: FuzzOptions) -> String {
        let timing = summary.timing
        let limit =
            options.seconds.map {
                " for a limit of \(String(format: "%.0f", $0)) s (no run starts after it; one under way ends within its "
                    + "watchdog, \(String(format: "%g", options.timeout)) s)"
            } ?? ""
        let shrunk = summary.findings.filter {
            switch $0.shrinkState {
            case .pending, .notShrunk, .sameDefect: return false
            default: return true
            }
        }.count
        let cut = summary.findings.filter {
            $0.shrinkState == .stoppedAtTimeLimit || $0.shrinkState == .stoppedByInterrupt
        }
        .count
        let perScenario =
            summary.scenarios == 0
            ? "" : String(format: ", %.3f s per scenario", timing.running / Double(summary.scenarios))
        return "time: \(seconds(timing.total)) wall\(limit): running \(seconds(timing.running)) "
            + "(\(summary.batches) batches\(perScenario)), re-checking \(seconds(timing.rechecking)), shrinking "
            + "\(seconds(timing.shrinking)) (\(shrunk) divergences, at most \(String(format: "%.0f", options.shrinkSeconds)) s "
            + "each" + (options.seconds == nil ? "" : " and half the time left")
            + (cut == 0 ? "" : "; \(cut) cut short")
            + "), writing \(seconds(timing.writing)), other \(seconds(timing.other))"
    }

    /// How far a finding was shrunk, for its report.
    static func shrinkText(_ finding: FuzzFinding) -> String {
        let size = FuzzShrinker.size(finding.shrunk)
        let took = " in " + seconds(finding.shrinkSeconds)
        switch finding.shrinkState {
        case .pending: return "size \(finding.originalSize), not shrunk yet"
        case .minimal: return "shrunk from size \(finding.originalSize) to \(size)\(took)"
        case .stoppedAtBudget:
            return "shrunk from size \(finding.originalSize) to \(size)\(took) (stopped at its budget)"
        case .stoppedAtTimeLimit:
            return "shrunk from size \(finding.originalSize) to \(size)\(took) (stopped at the time limit)"
        case .stoppedByInterrupt:
            return "shrunk from size \(finding.originalSize) to \(size)\(took) (stopped by the interrupt)"
        case .notShrunk: return "size \(finding.originalSize), NOT SHRUNK (found when the time was up)"
        case .sameDefect(let seed):
            return "size \(finding.originalSize), not run again, not shrunk: the defect of seed \(seed)"
        }
    }

    /// What a finding's checks say beyond its shrinking: not run again, unstable, possibly explained.
    static func checkNotes(_ finding: FuzzFinding) -> String {
        var notes: [String] = []
        if case .sameDefect = finding.shrinkState {
            // Not run again by design: its defect's first finding was.
        } else if !finding.rechecked {
            notes.append("NOT RUN AGAIN (found when the time was up; it may be nondeterministic)")
        }
        if finding.stable == false { notes.append("unstable when run again") }
        if !finding.possibleExplanations.isEmpty {
            notes.append(
                "may be explained by " + finding.possibleExplanations.joined(separator: ", ")
                    + " (its counterfactual not run)")
        }
        return notes.isEmpty ? "" : "; " + notes.joined(separator: "; ")
    }

    /// One finding: its defect, how many scenarios hit it, its case file, replay command and the diff of the first two
    /// engines' traces (capped as conformance reports cap them).
    public static func findingLines(
        _ finding: FuzzFinding, options: FuzzOptions, engines: [String], scenarios: Int = 1,
        others: [UInt64] = []
    ) -> [String] {
        let label = finding.explanation.map { "EXPLAINED (\($0.id))" } ?? "DIVERGENCE"
        var lines = ["\(label): \(finding.defect)"]
        lines.append("  seed \(finding.seed), " + shrinkText(finding) + checkNotes(finding))
        if scenarios > 1 {
            let listed = others.prefix(10).map(String.init).joined(separator: ", ")
            lines.append(
                "  hit by \(scenarios) scenarios; the other seeds: \(listed)"
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

    /// What `runloop fuzz` prints as it goes: one line per divergence as it is found, and the whole finding (its
    /// diff, case file and replay command) once a new defect's finding is shrunk.
    public static func eventText(_ event: FuzzEvent, options: FuzzOptions) -> String {
        let engines = options.engines.map(\.name)
        switch event {
        case .found(let finding, let newDefect):
            let stamp = "[" + seconds(finding.foundAfter) + "]"
            let label = finding.explanation.map { " EXPLAINED (\($0.id))" } ?? ""
            let what = newDefect ? "found" : "found again"
            let next =
                finding.shrinkState != .pending
                ? ""
                : finding.knownCandidates.isEmpty
                    ? "; shrinking"
                    : "; next: its counterfactual runs (" + finding.knownCandidates.joined(separator: ", ")
                        + " in fuzz-known.yaml), then shrinking if no earlier finding is its defect"
            return "\(stamp) \(what)\(label): seed \(finding.seed): \(finding.defect) (" + shrinkText(finding)
                + checkNotes(finding) + ")\(next)"
        case .shrunk(let finding):
            return
                (["[" + seconds(finding.shrunkAfter) + "] shrunk seed \(finding.seed):"]
                + findingLines(finding, options: options, engines: engines)).joined(separator: "\n")
        case .setAside(let nondeterminism, let after):
            var lines = nondeterminism.lines
            lines[0] = "[" + seconds(after) + "] set aside as nondeterministic: " + lines[0]
            return lines.joined(separator: "\n")
        }
    }

    /// The summary as JSON (``FuzzReport``).
    public static func json(_ summary: FuzzSummary, options: FuzzOptions) -> String {
        JSONText.render(report(summary, options: options))
    }

    /// The summary as the JSON document's model.
    public static func report(_ summary: FuzzSummary, options: FuzzOptions) -> FuzzReport {
        typealias Finding = FuzzReport.Finding
        func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }
        let findings = summary.findings.map { finding in
            var state: String
            var sameAs: UInt64?
            switch finding.shrinkState {
            case .pending: state = "pending"
            case .minimal: state = "minimal"
            case .stoppedAtBudget: state = "stopped-at-budget"
            case .stoppedAtTimeLimit: state = "stopped-at-time-limit"
            case .stoppedByInterrupt: state = "stopped-by-interrupt"
            case .notShrunk: state = "not-shrunk"
            case .sameDefect(let seed):
                state = "same-defect"
                sameAs = seed
            }
            return Finding(
                seed: finding.seed, explained_by: finding.explanation?.id,
                may_be_explained_by: finding.possibleExplanations, rechecked: finding.rechecked,
                stable: finding.stable, original_size: finding.originalSize,
                shrunk_size: FuzzShrinker.size(finding.shrunk),
                shrunk_case: caseFile(finding, options: options), file: finding.file,
                signature: finding.signature, replay: replayCommand(seed: finding.seed, options: options),
                found_after_seconds: rounded(finding.foundAfter),
                shrink_seconds: rounded(finding.shrinkSeconds), shrink_state: state, same_defect_as: sameAs,
                shrink_stopped_at_time_limit: finding.shrinkCut, defect: finding.defect,
                statuses: Dictionary(
                    uniqueKeysWithValues: zip(summary.engines, finding.runs.map(\.status.description))),
                traces: Dictionary(uniqueKeysWithValues: zip(summary.engines, finding.runs.map(\.rawTrace))))
        }
        let timing = summary.timing
        return FuzzReport(
            campaign: FuzzReport.Campaign(
                engines: options.engines.map(\.selector), first_seed: options.seed, count: options.count,
                max_steps: options.shape.maxSteps,
                areas: FuzzArea.allCases.filter(options.shape.areas.contains).map(\.rawValue),
                timeout_seconds: options.timeout, known: options.known.map(\.id)),
            shard: FuzzReport.Shard(index: options.shard.index, count: options.shard.count),
            engines: summary.engines, first_seed: summary.firstSeed, scenarios: summary.scenarios,
            batches: summary.batches, seconds: rounded(summary.seconds),
            time_limit_seconds: options.seconds, reached_time_limit: summary.reachedTimeLimit,
            interrupted_by: summary.interrupted.map(signalName),
            timing_seconds: FuzzReport.Timing(
                total: rounded(timing.total), running: rounded(timing.running),
                rechecking: rounded(timing.rechecking),
                shrinking: rounded(timing.shrinking),
                writing: rounded(timing.writing), other: rounded(timing.other)),
            unexplained: summary.unexplained.count, explained: summary.explained.count,
            may_be_explained: summary.unclassified.count,
            nondeterministic: summary.nondeterministic.count,
            nondeterministic_seeds: summary.nondeterministic.map(\.seed),
            nondeterministic_scenarios: summary.nondeterministic.map(FuzzReport.SetAside.init),
            skipped: summary.skipped, skipped_for_the_clock_seeds: summary.skippedForTheClock,
            hung: summary.hung.count, hung_seeds: summary.hung,
            failed_everywhere: summary.failedEverywhere.count,
            failed_everywhere_seeds: summary.failedEverywhere.map(\.seed),
            shrink_seconds: rounded(summary.shrinkSeconds),
            shrink_budget_seconds: options.shrinkSeconds, dead_kinds: summary.deadKinds,
            defects: summary.defects.map {
                FuzzReport.Defect(defect: $0.defect, scenarios: $0.findings.count, seeds: $0.findings.map(\.seed))
            },
            findings: findings)
    }
}
