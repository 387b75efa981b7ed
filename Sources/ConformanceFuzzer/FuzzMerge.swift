// `runloop fuzz merge`: the JSON reports of a campaign's shards (FuzzReport, one per `--shard K/N` run) made into one
// report: each defect once, with the seeds and shards that hit it and the smallest case any shard shrank it to, and
// which of the campaign's scenarios the shards covered. Inputs are checked first: a file that is empty, cut short,
// foreign (a conformance results file, a CSV), of another campaign, or a second file of one shard is refused by name.

import ConformanceKit
import Foundation

/// An input of a merge that cannot be used: the file and why.
public struct FuzzMergeError: Error, CustomStringConvertible, Sendable, Equatable {
    public let file: String
    public let detail: String
    public var description: String { "\(file): \(detail)" }
}

/// The merged report, as `runloop fuzz merge --json-out` writes it.
public struct FuzzMerged: Codable, Sendable, Equatable {
    public static let formatName = "runloop fuzz merge"
    public var format = formatName
    public var format_version = 1
    /// The campaigns merged: one, unless the merge was told to mix them (`--allow-mixed`).
    public var campaigns: [FuzzReport.Campaign]
    public var shards: [ShardEntry]
    /// Scenarios run, over every shard.
    public var scenarios: Int
    public var coverage: [Coverage]
    /// Each defect once, the first found first (by shard, then by the order each shard found it).
    public var defects: [Defect]
    /// Defects with an unexplained finding.
    public var unexplained_defects: Int
    public var nondeterministic_seeds: [UInt64]
    /// The shards' set-aside scenarios, with the engines whose runs changed (by seed; none from a shard's report that
    /// records only their seeds).
    public var nondeterministic_scenarios: [FuzzReport.SetAside] = []
    public var hung_seeds: [UInt64]
    public var failed_everywhere_seeds: [UInt64]
    public var skipped: Int
    /// The skipped scenarios that the moving wall clock left unjudged, by seed (none from a report that does not say).
    public var skipped_for_the_clock_seeds: [UInt64] = []

    public struct ShardEntry: Codable, Sendable, Equatable {
        public var file: String
        /// Its campaign's position in `campaigns`.
        public var campaign: Int
        public var shard: FuzzReport.Shard
        public var scenarios: Int
        public var seconds: Double
        public var reached_time_limit: Bool
        public var interrupted_by: String?
        public var dead_kinds: [String: [String]]
    }

    /// Which scenarios of a campaign the shards covered: every scenario i < `contiguous` (seeds first_seed to
    /// first_seed + contiguous - 1), and `beyond` more past the first gap.
    public struct Coverage: Codable, Sendable, Equatable {
        public var campaign: Int
        public var shard_count: Int
        public var shards_missing: [Int]
        public var scenarios: Int
        /// The campaign's count, when it had one.
        public var of_total: Int?
        public var contiguous: Int
        public var beyond: Int
        /// Whether every scenario of the campaign's count was run.
        public var complete: Bool
    }

    public struct Defect: Codable, Sendable, Equatable {
        public var defect: String
        public var explained_by: String?
        public var unexplained: Bool
        public var scenarios: Int
        public var seeds: [UInt64]
        /// The shards that hit it, as K/N.
        public var shards: [String]
        public var smallest: Smallest
    }

    /// The smallest case of a defect over every shard (fewest size units, then lowest seed).
    public struct Smallest: Codable, Sendable, Equatable {
        public var seed: UInt64
        public var shard: String
        public var file: String
        public var size: Int
        public var shrink_state: String
        public var replay: String
        public var shrunk_case: String
    }
}

public enum FuzzMerge {
    /// Reads `path` as one shard's report. Throws ``FuzzMergeError``.
    public static func read(_ path: String) throws -> FuzzReport {
        do {
            return try parse(try JSONInput.contents(path), file: path)
        } catch let error as ConformanceJSONError {
            throw FuzzMergeError(file: error.file, detail: error.detail)
        }
    }

    /// The report in `data` (read from `file`, for messages).
    public static func parse(_ data: Data, file: String) throws -> FuzzReport {
        let object: [String: Any]
        let kind: JSONDocumentKind
        do {
            (object, kind) = try JSONInput.object(data, file: file)
        } catch let error as ConformanceJSONError {
            throw FuzzMergeError(file: error.file, detail: error.detail)
        }
        switch kind {
        case .fuzz: break
        case .conformance:
            throw FuzzMergeError(
                file: file, detail: kind.name + ", not a fuzz report: `runloop conform merge` merges those")
        case .fuzzMerge:
            throw FuzzMergeError(file: file, detail: kind.name + ": merge the shards' own reports instead")
        case .other:
            throw FuzzMergeError(file: file, detail: "not a runloop fuzz report (no \"format\": \"runloop fuzz\")")
        }
        guard let version = object["format_version"] as? Int else {
            throw FuzzMergeError(
                file: file,
                detail: "a fuzz report of an older runloop (no format_version; it does not say its campaign): run "
                    + "the campaign again with --json-out")
        }
        guard version == FuzzReport.formatVersion else {
            throw FuzzMergeError(
                file: file,
                detail: "field format_version: \(version) is not a version this runloop reads "
                    + "(\(FuzzReport.formatVersion))")
        }
        let report: FuzzReport
        do {
            report = try JSONDecoder().decode(FuzzReport.self, from: data)
        } catch let error as DecodingError {
            throw FuzzMergeError(file: file, detail: ConformanceJSON.describe(error))
        }
        let shard: FuzzShard
        do {
            shard = try FuzzShard(index: report.shard.index, count: report.shard.count)
        } catch {
            throw FuzzMergeError(file: file, detail: "field shard: \(error.reason)")
        }
        guard report.scenarios >= 0 else { throw FuzzMergeError(file: file, detail: "field scenarios: negative") }
        for (index, finding) in report.findings.enumerated() {
            let offset = finding.seed &- report.campaign.first_seed
            guard offset % UInt64(shard.count) == UInt64(shard.index - 1) else {
                throw FuzzMergeError(
                    file: file, detail: "field findings[\(index)].seed: \(finding.seed) is not a seed of shard \(shard)"
                )
            }
        }
        return report
    }

    /// Merges the reports, `files[i]` naming `reports[i]`. Throws ``FuzzMergeError`` naming the file for a second
    /// report of one shard, and, unless `allowMixed`, for a report of another campaign than the first's.
    public static func merge(_ reports: [FuzzReport], files: [String], allowMixed: Bool = false) throws -> FuzzMerged {
        precondition(reports.count == files.count, "one file per report")
        var campaigns: [FuzzReport.Campaign] = []
        var shardCounts: [Int] = []
        var entries: [FuzzMerged.ShardEntry] = []
        var seenShard: [String: String] = [:]
        for (report, file) in zip(reports, files) {
            var position = campaigns.indices.first {
                campaigns[$0] == report.campaign && shardCounts[$0] == report.shard.count
            }
            if position == nil {
                if let first = campaigns.first, !allowMixed {
                    let differences =
                        report.shard.count != shardCounts[0]
                        ? ["shard count \(report.shard.count), not \(shardCounts[0])"]
                        : differencesText(report.campaign, first)
                    throw FuzzMergeError(
                        file: file,
                        detail: "another campaign than \(files[0])'s (" + differences.joined(separator: "; ")
                            + "); --allow-mixed merges them anyway")
                }
                campaigns.append(report.campaign)
                shardCounts.append(report.shard.count)
                position = campaigns.count - 1
            }
            let key = "\(position!)#\(report.shard.index)"
            if let other = seenShard[key] {
                throw FuzzMergeError(
                    file: file,
                    detail: "shard \(report.shard.index)/\(report.shard.count) of the campaign again (\(other) is it "
                        + "too): give each shard once")
            }
            seenShard[key] = file
            entries.append(
                FuzzMerged.ShardEntry(
                    file: file, campaign: position!, shard: report.shard, scenarios: report.scenarios,
                    seconds: report.seconds, reached_time_limit: report.reached_time_limit,
                    interrupted_by: report.interrupted_by, dead_kinds: report.dead_kinds))
        }
        return FuzzMerged(
            campaigns: campaigns, shards: entries, scenarios: reports.reduce(0) { $0 + $1.scenarios },
            coverage: campaigns.indices.map { coverage(campaign: $0, count: shardCounts[$0], in: entries, campaigns) },
            defects: defects(reports, files: files),
            unexplained_defects: 0,
            nondeterministic_seeds: reports.flatMap(\.nondeterministic_seeds).sorted(),
            nondeterministic_scenarios: reports.flatMap { $0.nondeterministic_scenarios ?? [] }.sorted {
                $0.seed < $1.seed
            },
            hung_seeds: reports.flatMap(\.hung_seeds).sorted(),
            failed_everywhere_seeds: reports.flatMap(\.failed_everywhere_seeds).sorted(),
            skipped: reports.reduce(0) { $0 + $1.skipped },
            skipped_for_the_clock_seeds: reports.flatMap { $0.skipped_for_the_clock_seeds ?? [] }.sorted()
        ).countingUnexplained()
    }

    /// The fields in which two campaigns differ, "first_seed 5, not 1".
    static func differencesText(_ campaign: FuzzReport.Campaign, _ first: FuzzReport.Campaign) -> [String] {
        var out: [String] = []
        func differ<T: Equatable>(_ name: String, _ path: KeyPath<FuzzReport.Campaign, T>, _ text: (T) -> String) {
            if campaign[keyPath: path] != first[keyPath: path] {
                out.append("\(name) \(text(campaign[keyPath: path])), not \(text(first[keyPath: path]))")
            }
        }
        differ("engines", \.engines) { $0.joined(separator: ",") }
        differ("first_seed", \.first_seed) { "\($0)" }
        differ("count", \.count) { $0.map(String.init) ?? "none" }
        differ("max_steps", \.max_steps) { "\($0)" }
        differ("areas", \.areas) { $0.joined(separator: ",") }
        differ("timeout_seconds", \.timeout_seconds) { "\($0)" }
        differ("known", \.known) { "\($0.count) entries" }
        return out
    }

    /// Which of campaign `index`'s scenarios its shards ran. Scenario i of the unsharded campaign is shard
    /// (i mod N) + 1's position i / N, so the first one not run is, over every shard k, (k - 1) + ran_k * N.
    static func coverage(
        campaign index: Int, count shardCount: Int, in entries: [FuzzMerged.ShardEntry],
        _ campaigns: [FuzzReport.Campaign]
    ) -> FuzzMerged.Coverage {
        let mine = entries.filter { $0.campaign == index }
        var ran = Array(repeating: 0, count: shardCount)
        for entry in mine { ran[entry.shard.index - 1] = entry.scenarios }
        let total = campaigns[index].count
        var contiguous = ran.indices.map { $0 + ran[$0] * shardCount }.min() ?? 0
        if let total { contiguous = min(contiguous, total) }
        let scenarios = ran.reduce(0, +)
        return FuzzMerged.Coverage(
            campaign: index, shard_count: shardCount,
            shards_missing: (1...shardCount).filter { index in !mine.contains { $0.shard.index == index } },
            scenarios: scenarios, of_total: total, contiguous: contiguous, beyond: scenarios - contiguous,
            complete: total.map { contiguous >= $0 } ?? false)
    }

    /// Each defect once over every report: the seeds and shards that hit it and its smallest case.
    static func defects(_ reports: [FuzzReport], files: [String]) -> [FuzzMerged.Defect] {
        var order: [String] = []
        var merged: [String: FuzzMerged.Defect] = [:]
        for (report, file) in zip(reports, files) {
            let shard = "\(report.shard.index)/\(report.shard.count)"
            for finding in report.findings {
                let candidate = FuzzMerged.Smallest(
                    seed: finding.seed, shard: shard, file: file, size: finding.shrunk_size,
                    shrink_state: finding.shrink_state, replay: finding.replay, shrunk_case: finding.shrunk_case)
                let unexplained = finding.explained_by == nil && finding.may_be_explained_by.isEmpty
                guard var defect = merged[finding.defect] else {
                    order.append(finding.defect)
                    merged[finding.defect] = FuzzMerged.Defect(
                        defect: finding.defect, explained_by: finding.explained_by, unexplained: unexplained,
                        scenarios: 1, seeds: [finding.seed], shards: [shard], smallest: candidate)
                    continue
                }
                defect.scenarios += 1
                defect.seeds.append(finding.seed)
                defect.unexplained = defect.unexplained || unexplained
                if !defect.shards.contains(shard) { defect.shards.append(shard) }
                if (candidate.size, candidate.seed) < (defect.smallest.size, defect.smallest.seed) {
                    defect.smallest = candidate
                }
                merged[finding.defect] = defect
            }
        }
        return order.map { defect in
            var value = merged[defect]!
            value.seeds.sort()
            return value
        }
    }

    /// The merged report as text: what was merged and covered, then each defect with its smallest case.
    public static func text(_ merged: FuzzMerged) -> String {
        var lines: [String] = []
        for (index, campaign) in merged.campaigns.enumerated() {
            let coverage = merged.coverage[index]
            let shards = merged.shards.filter { $0.campaign == index }
            lines.append(
                "campaign \(campaign.engines.joined(separator: ",")) from seed \(campaign.first_seed)"
                    + (campaign.count.map { ", count \($0)" } ?? "") + ": \(shards.count) of \(coverage.shard_count) "
                    + "shard\(coverage.shard_count == 1 ? "" : "s"), \(coverage.scenarios) scenarios")
            for shard in shards {
                lines.append(
                    "  shard \(shard.shard.index)/\(shard.shard.count) (\(shard.file)): \(shard.scenarios) scenarios "
                        + "in " + String(format: "%.1f s", shard.seconds)
                        + (shard.reached_time_limit ? " (time limit reached)" : "")
                        + (shard.interrupted_by.map { " (interrupted by \($0))" } ?? ""))
            }
            let last = campaign.first_seed &+ UInt64(max(coverage.contiguous, 1) - 1)
            lines.append(
                "  covered: "
                    + (coverage.contiguous == 0
                        ? "no contiguous range from the first seed"
                        : "every seed \(campaign.first_seed) to \(last) (\(coverage.contiguous) scenarios)")
                    + (coverage.beyond > 0 ? ", and \(coverage.beyond) more past the first gap" : "")
                    + (coverage.of_total.map {
                        coverage.complete ? " = the whole count \($0)" : "; \(coverage.scenarios) of the count \($0)"
                    } ?? "")
                    + (coverage.shards_missing.isEmpty
                        ? "" : "; shards missing: " + coverage.shards_missing.map(String.init).joined(separator: ", ")))
        }
        let divergent = merged.defects.reduce(0) { $0 + $1.scenarios }
        lines.append(
            "merged: \(merged.scenarios) scenarios, \(merged.defects.count) defect"
                + (merged.defects.count == 1 ? "" : "s") + " (\(divergent) divergent "
                + "scenarios, \(merged.unexplained_defects) unexplained), "
                + "\(merged.nondeterministic_seeds.count) "
                + "nondeterministic, \(merged.hung_seeds.count) hung, \(merged.failed_everywhere_seeds.count) failed "
                + "on every engine, \(merged.skipped) skipped"
                + (merged.skipped_for_the_clock_seeds.isEmpty
                    ? "" : " (\(merged.skipped_for_the_clock_seeds.count) for the moving wall clock)"))
        for setAside in merged.nondeterministic_scenarios {
            lines.append(
                "nondeterministic (set aside): seed \(setAside.seed): "
                    + setAside.changes.map(\.difference).joined(separator: "; "))
        }
        for defect in merged.defects {
            let label = defect.explained_by.map { "EXPLAINED (\($0))" } ?? "DIVERGENCE"
            let listed = defect.seeds.prefix(10).map(String.init).joined(separator: ", ")
            lines.append("")
            lines.append("\(label): \(defect.defect)")
            lines.append(
                "  hit by \(defect.scenarios) scenario\(defect.scenarios == 1 ? "" : "s") in shard"
                    + (defect.shards.count == 1 ? " " : "s ") + defect.shards.joined(separator: ", ") + "; seeds "
                    + listed + (defect.seeds.count > 10 ? ", ... \(defect.seeds.count - 10) more" : ""))
            lines.append(
                "  smallest case: seed \(defect.smallest.seed) (shard \(defect.smallest.shard), size "
                    + "\(defect.smallest.size), \(defect.smallest.shrink_state)) from \(defect.smallest.file)")
            lines.append("  replay: \(defect.smallest.replay)")
        }
        return lines.joined(separator: "\n")
    }

    public static func json(_ merged: FuzzMerged) -> String { JSONText.render(merged) }
}

extension FuzzMerged {
    /// Whether some defect is unexplained: the merge's exit status is 1 then, as a campaign's is.
    public var exitCode: Int32 { unexplained_defects == 0 ? 0 : 1 }

    func countingUnexplained() -> FuzzMerged {
        var copy = self
        copy.unexplained_defects = defects.filter(\.unexplained).count
        return copy
    }
}
