// Sharded campaigns and their merge: the shards of a campaign partition its scenarios exactly; merged shards report
// each defect once with every shard's seeds and the smallest case; every bad input of a merge is refused by name.

import ConformanceTestSupport
import Foundation
import Testing

@testable import ConformanceFuzzer
@testable import ConformanceKit

@Suite("Sharded fuzzing")
struct FuzzShardTests {
    // MARK: The partition

    /// For several N and counts: the shards' seeds are pairwise disjoint, their union is the unsharded campaign's
    /// seeds, and each shard makes as many as `scenarios(ofTotal:)` says.
    @Test func theShardsPartitionTheCampaignExactly() throws {
        let first: UInt64 = 1000
        for count in [1, 2, 3, 4, 5, 7, 8, 13, 64] {
            for total in [0, 1, 2, 3, 7, 8, 9, 100, 101] {
                let unsharded = Set((0..<total).map { first + UInt64($0) })
                var union = Set<UInt64>()
                var made = 0
                for index in 1...count {
                    let shard = try FuzzShard(index: index, count: count)
                    let seeds = (0..<shard.scenarios(ofTotal: total)).map { shard.seed(first: first, position: $0) }
                    #expect(Set(seeds).count == seeds.count)
                    #expect(union.isDisjoint(with: seeds), "shard \(shard) of \(total) overlaps an earlier one")
                    union.formUnion(seeds)
                    made += seeds.count
                }
                #expect(union == unsharded, "N = \(count), \(total) scenarios: the shards' union differs")
                #expect(made == total)
            }
        }
    }

    /// The seeds wrap at 2^64 as an unsharded campaign's do.
    @Test func shardSeedsWrapAsTheCampaignsDo() throws {
        let shard = try FuzzShard(index: 2, count: 3)
        #expect(shard.seed(first: .max, position: 0) == 0)
        #expect(shard.seed(first: .max, position: 1) == 3)
    }

    @Test func badShardsAreRefused() {
        for text in ["0/4", "5/4", "x", "1/0", "2/", "/4", "1/4/2", "-1/4"] {
            #expect(throws: FuzzShardError.self, "\(text)") { try FuzzShard(parsing: text) }
        }
        #expect((try? FuzzShard(parsing: "4/4")) == (try? FuzzShard(index: 4, count: 4)))
    }

    // MARK: Merging reports

    static let campaign = FuzzReport.Campaign(
        engines: ["ref", "planted"], first_seed: 10, count: 8, max_steps: 16, areas: ["observer"],
        timeout_seconds: 3, known: [])

    static func finding(seed: UInt64, size: Int, defect: String = "planted: missing observer beforeSources")
        -> FuzzReport.Finding
    {
        FuzzReport.Finding(
            seed: seed, explained_by: nil, may_be_explained_by: [], rechecked: true, stable: true,
            original_size: size + 10, shrunk_size: size, shrunk_case: "case of seed \(seed)\n", file: nil,
            signature: "s\(seed)", replay: "runloop fuzz --seed \(seed) --count 1", found_after_seconds: 0,
            shrink_seconds: 0, shrink_state: "minimal", same_defect_as: nil, shrink_stopped_at_time_limit: false,
            defect: defect, statuses: [:], traces: [:])
    }

    static func report(shard index: Int, of count: Int = 2, scenarios: Int, findings: [FuzzReport.Finding])
        -> FuzzReport
    {
        FuzzReport(
            campaign: campaign, shard: .init(index: index, count: count), engines: ["ref", "planted"],
            first_seed: campaign.first_seed, scenarios: scenarios, batches: 1, seconds: 1, time_limit_seconds: nil,
            reached_time_limit: false, interrupted_by: nil,
            timing_seconds: .init(total: 1, running: 1, rechecking: 0, shrinking: 0, writing: 0, other: 0),
            unexplained: findings.count, explained: 0, may_be_explained: 0, nondeterministic: 0,
            nondeterministic_seeds: [], skipped: 0, hung: 0, hung_seeds: [], failed_everywhere: 0,
            failed_everywhere_seeds: [], shrink_seconds: 0, shrink_budget_seconds: 60, dead_kinds: [:], defects: [],
            findings: findings)
    }

    /// A defect two shards found is reported once, with both shards' seeds, and the smaller of their cases.
    @Test func mergeDedupesADefectOfTwoShardsAndKeepsTheSmallestCase() throws {
        let one = Self.report(shard: 1, scenarios: 4, findings: [Self.finding(seed: 10, size: 9)])
        let two = Self.report(
            shard: 2, scenarios: 4,
            findings: [Self.finding(seed: 13, size: 5), Self.finding(seed: 15, size: 5, defect: "planted: other")])
        let merged = try FuzzMerge.merge([one, two], files: ["a.json", "b.json"])
        #expect(merged.defects.map(\.defect) == ["planted: missing observer beforeSources", "planted: other"])
        let defect = try #require(merged.defects.first)
        #expect(defect.seeds == [10, 13])
        #expect(defect.scenarios == 2)
        #expect(defect.shards == ["1/2", "2/2"])
        #expect(defect.smallest.seed == 13)
        #expect(defect.smallest.size == 5)
        #expect(defect.smallest.file == "b.json")
        #expect(defect.smallest.shrunk_case == "case of seed 13\n")
        #expect(merged.unexplained_defects == 2)
        #expect(merged.exitCode == 1)
        // Both shards ran all their scenarios: the whole count is covered.
        #expect(merged.coverage.map(\.complete) == [true])
        #expect(merged.coverage.first?.contiguous == 8)
        // The text says each defect once.
        let text = FuzzMerge.text(merged)
        #expect(text.components(separatedBy: "DIVERGENCE: planted: missing observer").count == 2)
        #expect(text.contains("every seed 10 to 17 (8 scenarios) = the whole count 8"))
    }

    /// A shard cut short by its time limit leaves a gap: the coverage says how far it is contiguous.
    @Test func coverageStopsAtTheFirstScenarioNotRun() throws {
        let merged = try FuzzMerge.merge(
            [Self.report(shard: 1, scenarios: 4, findings: []), Self.report(shard: 2, scenarios: 1, findings: [])],
            files: ["a.json", "b.json"])
        // Scenarios 0, 2, 4, 6 (shard 1) and 1 (shard 2): 0 to 2 contiguous, 4 and 6 beyond.
        #expect(merged.coverage.first?.contiguous == 3)
        #expect(merged.coverage.first?.beyond == 2)
        #expect(merged.coverage.first?.complete == false)
        let alone = try FuzzMerge.merge([Self.report(shard: 2, scenarios: 4, findings: [])], files: ["b.json"])
        #expect(alone.coverage.first?.shards_missing == [1])
        #expect(alone.coverage.first?.contiguous == 0)
    }

    @Test func aShardGivenTwiceOrAnotherCampaignIsRefusedByName() throws {
        let one = Self.report(shard: 1, scenarios: 4, findings: [])
        #expect(
            throws: FuzzMergeError(
                file: "c.json", detail: "shard 1/2 of the campaign again (a.json is it too): give each shard once")
        ) {
            try FuzzMerge.merge(
                [one, Self.report(shard: 2, scenarios: 4, findings: []), one], files: ["a.json", "b.json", "c.json"])
        }
        var other = Self.report(shard: 2, scenarios: 4, findings: [])
        other.campaign.first_seed = 11
        do {
            _ = try FuzzMerge.merge([one, other], files: ["a.json", "b.json"])
            Issue.record("a shard of another campaign was merged")
        } catch let error as FuzzMergeError {
            #expect(error.file == "b.json")
            #expect(error.detail.contains("another campaign than a.json's (first_seed 11, not 10)"), "\(error)")
        }
        #expect(throws: FuzzMergeError.self) {
            try FuzzMerge.merge([one, Self.report(shard: 2, of: 4, scenarios: 2, findings: [])], files: ["a", "b"])
        }
        let mixed = try FuzzMerge.merge([one, other], files: ["a.json", "b.json"], allowMixed: true)
        #expect(mixed.campaigns.count == 2)
    }

    /// Each bad input file: refused with its name, never a crash.
    @Test func badInputFilesAreRefusedByName() throws {
        let good = JSONText.render(Self.report(shard: 1, scenarios: 4, findings: [Self.finding(seed: 12, size: 3)]))
        #expect(try FuzzMerge.parse(Data(good.utf8), file: "good.json").findings.count == 1)
        let conformance = ReportFormat.json.render(ConformanceReport(engines: ["ref"], outcomes: [], caseIDs: []))
        let inputs: [(String, String)] = [
            ("", "empty file"),
            ("  \n", "empty file"),
            (String(good.prefix(good.count / 2)), "cut short"),
            ("engine,case,status\nref,a,PASS\n", "not JSON (a CSV file?)"),
            (conformance, "a conformance results file (runloop conform --json-out), not a fuzz report"),
            ("{\"format\": \"runloop fuzz merge\", \"format_version\": 1}", "merge the shards' own reports"),
            ("{\"first_seed\": 1, \"findings\": []}", "a fuzz report of an older runloop"),
            ("{\"tests\": 3}", "not a runloop fuzz report"),
            ("[1, 2]", "its top level is not an object"),
            (
                good.replacingOccurrences(of: "\"format_version\" : 2", with: "\"format_version\" : 9"),
                "field format_version: 9"
            ),
            (good.replacingOccurrences(of: "\"scenarios\" : 4,", with: ""), "field scenarios: missing"),
            (
                good.replacingOccurrences(of: "\"seed\" : 12", with: "\"seed\" : 13"),
                "findings[0].seed: 13 is not a seed of shard 1/2"
            ),
            (good.replacingOccurrences(of: "\"index\" : 1", with: "\"index\" : 3"), "field shard: K must be 1 to N"),
        ]
        for (text, message) in inputs {
            do {
                _ = try FuzzMerge.parse(Data(text.utf8), file: "in.json")
                Issue.record("accepted: \(message)")
            } catch let error as FuzzMergeError {
                #expect(error.file == "in.json")
                #expect(error.detail.contains(message), "\(error)")
            }
        }
        #expect(throws: FuzzMergeError(file: "/nonexistent/x.json", detail: "no such file")) {
            try FuzzMerge.read("/nonexistent/x.json")
        }
    }

    // MARK: A sharded campaign against the unsharded one

    /// Two shards of a campaign on the planted engine make the unsharded campaign's scenarios, and their merge finds
    /// its one defect from the same seeds, once.
    @Test func twoShardsMergedAreTheUnshardedCampaign() throws {
        let engines = [TestWorker.engine("ref"), TestWorker.engine("planted")]
        var options = FuzzOptions(
            engines: engines, seed: 1, count: 8, seconds: nil, shape: FuzzShape(), outDirectory: nil, timeout: 5)
        let whole = FuzzOutput.report(
            try FuzzCampaign(options: options, launcher: TestWorker.launcher()).run(), options: options)
        var shards: [FuzzReport] = []
        for index in 1...2 {
            options.shard = try FuzzShard(index: index, count: 2)
            let summary = try FuzzCampaign(options: options, launcher: TestWorker.launcher()).run()
            let report = FuzzOutput.report(summary, options: options)
            // Written and read back, as the command does.
            shards.append(try FuzzMerge.parse(Data(JSONText.render(report).utf8), file: "shard\(index).json"))
        }
        #expect(shards.map(\.scenarios) == [4, 4])
        #expect(Set(shards.flatMap(\.seeds)) == Set(whole.seeds))
        let merged = try FuzzMerge.merge(shards, files: ["shard1.json", "shard2.json"])
        #expect(merged.scenarios == whole.scenarios)
        #expect(merged.coverage.first?.complete == true)
        #expect(merged.defects.map(\.defect) == whole.defects.map(\.defect))
        #expect(merged.defects.map(\.seeds) == whole.defects.map { $0.seeds.sorted() })
        #expect(Set(merged.defects.flatMap(\.shards)) == ["1/2", "2/2"], "the planted bug was not hit in both shards")
    }
}
