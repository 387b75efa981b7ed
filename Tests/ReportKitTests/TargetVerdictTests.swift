// The targets never say "met" on missing data: doctored copies of the report fixture (ReportTests) with the subject's
// repetitions all errors, a figure of 0, a peer missing, a counter the harness does not write, a quick run, and the
// verdict each must get, in the report and in its text.
import BenchTestSupport
import Foundation
import Testing

@testable import ReportKit
@testable import ResultsKit

@Suite struct TargetVerdictTests {
    typealias Mutation = (inout [FixtureBenchmark]) -> Void

    static func report(profile: String = "full", filter: String = "(all)", _ mutate: Mutation = { _ in }) throws
        -> BenchReport
    {
        var benchmarks = ReportTests.benchmarks()
        mutate(&benchmarks)
        return try ReportTests.report(profile: profile, benchmarks, filter: filter)
    }

    static func result(_ report: BenchReport, _ id: String) throws -> TargetResult {
        try #require(report.targets.first { $0.target.id == id })
    }

    static func outcome(_ report: BenchReport, _ id: String, _ variant: String) throws -> TargetOutcome {
        try #require(try result(report, id).outcomes.first { $0.variant == variant })
    }

    /// The benchmark named `prefix` (without its run-type segments) of `benchmarks`.
    static func index(_ benchmarks: [FixtureBenchmark], _ prefix: String) throws -> Int {
        try #require(benchmarks.firstIndex { $0.name.hasPrefix(prefix + "/") || $0.name == prefix })
    }

    /// The target's line in the text (its first line: status, id, ...).
    static func line(_ text: String, _ id: String) -> String? {
        text.split(separator: "\n").map(String.init).first { $0.contains("  \(id) ") }
    }

    static let refSameNone = "BM_WakeLatency/engine:ref/pin:same/load:none"

    @Test func theUndoctoredFixtureMeetsTheWakeTargets() throws {
        // The control for the cases below: the same fixture with nothing removed meets what they miss.
        let report = try Self.report()
        for id in ["wake.same.epoll", "wake.cf", "wake.peers", "coalescing.1000.cf", "coalescing.no-missed"] {
            #expect(try Self.result(report, id).status == .met, "\(id)")
        }
    }

    @Test func aSubjectVariantWhoseRepetitionsAreAllErrorsIsMissed() throws {
        let report = try Self.report { benchmarks in
            let at = try! Self.index(benchmarks, Self.refSameNone)
            benchmarks[at].times = []
            benchmarks[at].counters = [:]
            benchmarks[at].error = "error: no result after 60 s"
            // Google Benchmark writes one error row per repetition.
            for _ in 0..<8 { benchmarks.insert(benchmarks[at], at: at) }
        }
        for id in ["wake.same.epoll", "wake.cf", "wake.peers"] {
            let outcome = try Self.outcome(report, id, "pin:same/load:none")
            #expect(outcome.status == .missed, "\(id)")
            #expect(outcome.note?.contains("no data: 9 error rows (error: no result after 60 s)") == true)
            #expect(try Self.result(report, id).status == .missed)
        }
        let text = report.text()
        #expect(Self.line(text, "wake.same.epoll")?.hasPrefix("  MISSED") == true)
        #expect(!text.contains("met             pin:same/load:none"))
        // The table shows the failure, not a blank.
        #expect(
            report.tables.contains { table in
                table.rows.contains {
                    $0.variant == "pin:same/load:none"
                        && $0.cells.contains { if case .errored = $0 { true } else { false } }
                }
            })
    }

    @Test func oneFailedRepetitionOfTheSubjectIsAMiss() throws {
        let report = try Self.report { benchmarks in
            let at = try! Self.index(benchmarks, Self.refSameNone)
            benchmarks.insert(
                FixtureBenchmark(
                    name: Self.refSameNone + "/manual_time", times: [],
                    error: "error: the loop did not answer"), at: at + 1)
        }
        let outcome = try Self.outcome(report, "wake.same.epoll", "pin:same/load:none")
        #expect(outcome.status == .missed)
        #expect(outcome.note?.contains("1 of 10 repetitions failed") == true)
    }

    @Test func aSubjectVariantAbsentWhereOtherEnginesHaveItIsMissedUnlessTheRunWasFiltered() throws {
        let remove: Mutation = { benchmarks in benchmarks.removeAll { $0.name.hasPrefix(Self.refSameNone + "/") } }
        let report = try Self.report(remove)
        let outcome = try Self.outcome(report, "wake.same.epoll", "pin:same/load:none")
        #expect(outcome.status == .missed)
        #expect(outcome.note?.hasPrefix("no data") == true)
        #expect(try Self.result(report, "wake.cf").status == .missed)
        let filtered = try Self.report(filter: "WakeLatency.*engine:(cf|epoll)", remove)
        #expect(try Self.outcome(filtered, "wake.same.epoll", "pin:same/load:none").status == .notMeasured)
        #expect(try Self.result(filtered, "wake.same.epoll").status == .notMeasured)
    }

    @Test func aVariantOfTheSubjectAloneIsLeftOutOfTargetsThatCompareEngines() throws {
        // ref's spin:on rows: an option of ref's own, which no other engine has.
        let report = try Self.report { benchmarks in
            let own = benchmarks.filter { $0.name.hasPrefix(Self.refSameNone + "/") }.map { benchmark in
                var copy = benchmark
                copy.name = copy.name.replacingOccurrences(of: "load:none/", with: "load:none/spin:on/")
                return copy
            }
            benchmarks.append(contentsOf: own)
        }
        #expect(report.tables.contains { table in table.rows.contains { $0.variant == "pin:same/load:none/spin:on" } })
        for id in ["wake.same.epoll", "wake.cf", "wake.peers"] {
            #expect(try Self.result(report, id).status == .met, "\(id)")
            #expect(try Self.result(report, id).outcomes.allSatisfy { !$0.variant.contains("spin:on") }, "\(id)")
        }
        // In a run of the subject alone nothing is compared, and its variants stay not measured.
        let alone = try Self.report(filter: "engine:ref") { benchmarks in
            benchmarks.removeAll { !$0.name.contains("engine:ref/") }
        }
        #expect(try Self.result(alone, "wake.same.epoll").status == .notMeasured)
    }

    @Test func aSubjectSkipOfAVariantItsTargetNamesIsMissed() throws {
        // `runloop bench` skips the rest of an engine's family after it hung twice: for the subject that is no data.
        let report = try Self.report { benchmarks in
            let at = try! Self.index(benchmarks, "BM_WakeLatency/engine:ref/pin:diff/load:idle1000")
            benchmarks[at] = FixtureBenchmark(
                name: "BM_WakeLatency/engine:ref/pin:diff/load:idle1000", times: [],
                error: "skipped: engine hung twice in this family (watchdog)")
        }
        let outcome = try Self.outcome(report, "wake.diff.epoll", "pin:diff/load:idle1000")
        #expect(outcome.status == .missed)
        #expect(outcome.note == "no data: skipped: engine hung twice in this family (watchdog)")
        #expect(try Self.result(report, "wake.diff.peers").status == .missed)
        // A peer's skip is not the subject's failure.
        let peer = try Self.report { benchmarks in
            let at = try! Self.index(benchmarks, "BM_WakeLatency/engine:glib/pin:diff/load:idle1000")
            benchmarks[at] = FixtureBenchmark(name: benchmarks[at].name, times: [], error: "skipped: no wake-up")
        }
        #expect(try Self.outcome(peer, "wake.diff.peers", "pin:diff/load:idle1000").status == .notMeasured)
        #expect(try Self.result(peer, "wake.diff.peers").status == .notMeasured)
    }

    @Test func churnIsJudgedInRandomOrderToo() throws {
        // Timers at N = 10,000 on every engine the scale targets name, in order; random order only where given.
        func scale(random: [String]) -> Mutation {
            { benchmarks in
                let costs = [
                    "ref": 100.0, "cf": 400, "libuv": 90, "glib": 120, "libevent": 80, "dispatch": 300,
                    "nio": 500,
                ]
                for (engine, cost) in costs {
                    for suffix in [""] + (random.contains(engine) ? ["/order:random"] : []) {
                        benchmarks.append(
                            FixtureBenchmark(
                                name: "BM_Scale/engine:\(engine)/item:timer/n:10000\(suffix)/real_time",
                                times: Fixtures.noisy(1e6),
                                counters: [
                                    "ns_per_add": Fixtures.noisy(cost / 2), "ns_per_remove": Fixtures.noisy(cost / 2),
                                ]))
                    }
                }
            }
        }
        let ordered = try Self.report(scale(random: []))
        #expect(try Self.outcome(ordered, "scale.peers", "item:timer/n:10000").status == .met)  // 100 / 80
        #expect(try Self.result(ordered, "scale.random.peers").status == .notMeasured)
        #expect(try Self.result(ordered, "scale.random.cf").status == .notMeasured)
        let all = ["ref", "cf", "libuv", "glib", "libevent", "dispatch", "nio"]
        let both = try Self.report(scale(random: all))
        #expect(try Self.result(both, "scale.random.peers").status == .met)
        #expect(try Self.result(both, "scale.random.cf").status == .met)
        // The targets without `order` judge both variants.
        #expect(try Self.result(both, "scale.cf").outcomes.map(\.variant).contains("item:timer/n:10000/order:random"))
        // ref without the random-order row that its peers have: missed.
        let lacking = try Self.report(scale(random: all.filter { $0 != "ref" }))
        #expect(try Self.result(lacking, "scale.random.peers").status == .missed)
    }

    @Test func aSubjectValueOfZeroIsDegenerateNotMet() throws {
        // A loop that fired nothing: 0 wake-ups per fire, 9,000 timers missed.
        let report = try Self.report { benchmarks in
            let at = try! Self.index(benchmarks, "BM_TimerCoalescing/engine:ref/timers:1000/tolerance:10pct/burn:no")
            benchmarks[at].counters["wakeups_per_fire"] = Array(repeating: 0, count: 9)
            benchmarks[at].counters["missed_fires"] = Array(repeating: 9000, count: 9)
        }
        let cf = try Self.result(report, "coalescing.1000.cf")
        #expect(cf.status == .notMeasured)
        #expect(cf.outcomes.first?.note?.contains("degenerate value (0 of wakeups_per_fire)") == true)
        #expect(cf.outcomes.first?.value == nil)
        let optimal = try Self.outcome(report, "coalescing.optimal", "timers:1000/tolerance:10pct/burn:no")
        #expect(optimal.status == .notMeasured)
        #expect(try Self.result(report, "coalescing.optimal").status == .notMeasured)
        let missed = try Self.outcome(report, "coalescing.no-missed", "timers:1000/tolerance:10pct/burn:no")
        #expect(missed.status == .missed && missed.value == 9000)
        let text = report.text()
        let line = try #require(Self.line(text, "coalescing.1000.cf"))
        #expect(line.hasPrefix("  not measured") && line.contains(" -  ") && !line.contains("0x"), "\(line)")
        #expect(Self.line(text, "coalescing.no-missed")?.hasPrefix("  MISSED") == true)
    }

    @Test func aZeroCountMeetsABoundOfZero() throws {
        // 0 late fires is the figure itself, not a sign that nothing was measured.
        let report = try Self.report()
        let late = try Self.result(report, "coalescing.no-late")
        #expect(late.status == .met)
        #expect(late.outcomes.allSatisfy { $0.value == 0 })
    }

    /// The fixture with timer-coalescing rows under the burner for ref and the epoll floor, with these late fires.
    static func withBurnerRows(ref: [Double?], epoll: [Double?]?) throws -> BenchReport {
        try Self.report { benchmarks in
            for (engine, late) in [("ref", ref), ("epoll", epoll)] {
                guard let late else { continue }
                benchmarks.append(
                    FixtureBenchmark(
                        name:
                            "BM_TimerCoalescing/engine:\(engine)/timers:1000/tolerance:10pct/burn:yes/iterations:1/manual_time",
                        times: Fixtures.noisy(1e8),
                        counters: [
                            "late_fires": late, "early_fires": Array(repeating: 0, count: 9),
                            "missed_fires": Array(repeating: 0, count: 9),
                            "loop_saturated": Array(repeating: 1, count: 9),
                            "wakeups_per_fire": Fixtures.noisy(0.01), "optimal_wakeups_per_fire": Fixtures.noisy(0.01),
                            "lateness_max_ns": Fixtures.noisy(2e6), "lateness_p99_ns": Fixtures.noisy(1e6),
                        ]))
            }
        }
    }

    @Test func aDifferenceToAnEngineReadsZeroAsAFigure() throws {
        let variant = "timers:1000/tolerance:10pct/burn:yes"
        // No late fire where the floor has 3 in its worst repetition: met, by -3.
        let fewer = try Self.outcome(
            try Self.withBurnerRows(
                ref: Array(repeating: 0, count: 9),
                epoll: [0, 3, 0, 1, 0, 0, 0, 0, 0]),
            "coalescing.burn.late.epoll", variant)
        #expect(fewer.status == .met && fewer.value == -3 && fewer.subject == 0)
        #expect(fewer.note?.hasPrefix("epoll 3") == true)
        // Both 0: met (0 is a count, not a sign of nothing measured).
        let none = try Self.outcome(
            try Self.withBurnerRows(
                ref: Array(repeating: 0, count: 9),
                epoll: Array(repeating: 0, count: 9)),
            "coalescing.burn.late.epoll", variant)
        #expect(none.status == .met && none.value == 0)
        // Two more than the floor's worst: missed, shown with its sign.
        let more = try Self.withBurnerRows(ref: [5, 0, 0, 0, 0, 0, 0, 0, 0], epoll: [3, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(try Self.outcome(more, "coalescing.burn.late.epoll", variant).status == .missed)
        #expect(Self.line(more.text(), "coalescing.burn.late.epoll")?.contains("+2") == true)
        // The floor absent, or its repetitions all errors: not measured, never met.
        let absent = try Self.outcome(
            try Self.withBurnerRows(ref: Array(repeating: 0, count: 9), epoll: nil),
            "coalescing.burn.late.epoll", variant)
        #expect(absent.status == .notMeasured && absent.note?.contains("no epoll row") == true)
        let unread = try Self.outcome(
            try Self.withBurnerRows(
                ref: Array(repeating: 0, count: 9),
                epoll: Array(repeating: nil, count: 9)),
            "coalescing.burn.late.epoll", variant)
        #expect(unread.status == .notMeasured)
        // The base fixture has no rows under the burner: not measured.
        #expect(try Self.result(try Self.report(), "coalescing.burn.late.epoll").status == .notMeasured)
    }

    @Test func aTradeOffIsLostOnlyToAnEngineBetterOnEveryFigure() throws {
        let base = try Self.result(try Self.report(), "resident.not-dominated")
        #expect(base.status == .met && base.outcomes.count == 3)
        #expect(base.outcomes.allSatisfy { $0.value == 0 && $0.note?.hasPrefix("none of cf, libuv") == true })
        // libuv's hand-off p99 made better than ref's: more items, a lower p99 and less CPU: dominated.
        let beaten = try Self.report { benchmarks in
            for at in benchmarks.indices where benchmarks[at].name.hasPrefix("BM_ResidentThroughput/engine:libuv/") {
                benchmarks[at].counters["handoff_p99_ns"] = Fixtures.noisy(8000)
            }
        }
        let outcome = try Self.outcome(beaten, "resident.not-dominated", "producers:4")
        #expect(outcome.status == .missed && outcome.value == 1)
        #expect(outcome.note?.contains("by libuv") == true)
        #expect(beaten.text().range(of: #"producers:4 +1 beats it"#, options: .regularExpression) != nil)
        // A tie on one figure is not a defeat: each figure must be strictly better.
        let tied = try Self.report { benchmarks in
            for at in benchmarks.indices where benchmarks[at].name.hasPrefix("BM_ResidentThroughput/engine:libuv/") {
                benchmarks[at].counters["handoff_p99_ns"] = Fixtures.noisy(9000)
            }
        }
        #expect(try Self.result(tied, "resident.not-dominated").status == .met)
        // A peer missing, or a CPU counter the file does not have: not measured, never "not dominated".
        let noNIO = try Self.report { benchmarks in
            benchmarks.removeAll { $0.name.hasPrefix("BM_ResidentThroughput/engine:nio/") }
        }
        let missingPeer = try Self.outcome(noNIO, "resident.not-dominated", "producers:1")
        #expect(missingPeer.status == .notMeasured && missingPeer.note?.contains("no nio row") == true)
        let noCPU = try Self.report { benchmarks in
            for at in benchmarks.indices { benchmarks[at].counters["post_cpu_ns_per_item"] = nil }
        }
        let unread = try Self.result(noCPU, "resident.not-dominated")
        #expect(unread.status == .notMeasured)
        #expect(
            unread.outcomes.allSatisfy {
                $0.note?.contains("no value for loop_cpu_ns_per_item + post_cpu_ns_per_item") == true
            })
        // The subject's repetitions all errors: missed.
        let failed = try Self.report { benchmarks in
            let at = try! Self.index(benchmarks, "BM_ResidentThroughput/engine:ref/producers:2")
            benchmarks[at] = FixtureBenchmark(
                name: benchmarks[at].name, times: [], error: "error: no result after 60 s")
        }
        #expect(try Self.outcome(failed, "resident.not-dominated", "producers:2").status == .missed)
    }

    @Test func theTradeOffTableAndItsTargetJudgeOneCPUFigure() throws {
        // ref's loop and producer CPU move against each other across repetitions: the sum of the two medians is 40 ns,
        // the median of the per-repetition sums 210 ns. libuv (140 ns, more items, a lower p99) beats ref only on the
        // second; the table and the target must both read that one.
        let report = try Self.report { benchmarks in
            let ref = try! Self.index(benchmarks, "BM_ResidentThroughput/engine:ref/producers:4")
            benchmarks[ref].counters["loop_cpu_ns_per_item"] = [10, 10, 10, 10, 20, 200, 200, 200, 200]
            benchmarks[ref].counters["post_cpu_ns_per_item"] = [200, 200, 200, 200, 20, 10, 10, 10, 10]
            let libuv = try! Self.index(benchmarks, "BM_ResidentThroughput/engine:libuv/producers:4")
            benchmarks[libuv].counters["handoff_p99_ns"] = Fixtures.noisy(8000)
        }
        let outcome = try Self.outcome(report, "resident.not-dominated", "producers:4")
        #expect(outcome.status == .missed && outcome.note?.contains("by libuv") == true)
        let row = try #require(CostReport(report.index).resident.first { $0.engine == "ref" && $0.producers == "4" })
        #expect(abs((row.cpuNs ?? 0) - 210) < 0.5)
        #expect(row.dominatedBy == ["libuv"])
    }

    @Test func aSaturatedLoopCPUHasNoWakeUpFigure() throws {
        let report = try Self.report { benchmarks in
            let at = try! Self.index(benchmarks, "BM_TimerCoalescing/engine:ref/timers:1000/tolerance:10pct/burn:no")
            benchmarks[at].counters["loop_saturated"] = Array(repeating: 1, count: 9)
        }
        let outcome = try #require(try Self.result(report, "coalescing.1000.cf").outcomes.first)
        #expect(outcome.status == .notMeasured)
        #expect(outcome.note?.contains("loop_saturated is set in every repetition") == true)
        // Some saturated repetitions are left out, and the rest judged.
        let some = try Self.report { benchmarks in
            let at = try! Self.index(benchmarks, "BM_TimerCoalescing/engine:ref/timers:1000/tolerance:10pct/burn:no")
            benchmarks[at].counters["loop_saturated"] = [1, 1, 0, 0, 0, 0, 0, 0, 0]
        }
        let judged = try #require(try Self.result(some, "coalescing.1000.cf").outcomes.first)
        #expect(judged.status == .met)
        #expect(judged.note?.contains("2 of 9 repetitions left out (loop_saturated set)") == true)
    }

    @Test func aPeerTheTargetNamesMustBePresent() throws {
        // libevent's wake rows gone: the best of libuv, glib and libevent is not the best of libuv and glib.
        let report = try Self.report { benchmarks in
            benchmarks.removeAll { $0.name.hasPrefix("BM_WakeLatency/engine:libevent/") }
        }
        let peers = try Self.result(report, "wake.peers")
        #expect(peers.status == .notMeasured)
        #expect(peers.outcomes.allSatisfy { $0.status == .notMeasured && $0.note?.contains("no libevent row") == true })
        #expect(Self.line(report.text(), "wake.peers")?.hasPrefix("  not measured") == true)
        // A peer whose repetitions all failed, or whose figure is 0, is no reference either.
        let failed = try Self.report { benchmarks in
            let at = try! Self.index(benchmarks, "BM_WakeLatency/engine:epoll/pin:same/load:none")
            benchmarks[at] = FixtureBenchmark(name: benchmarks[at].name, times: [], error: "error: crashed")
        }
        let epoll = try Self.outcome(failed, "wake.same.epoll", "pin:same/load:none")
        #expect(epoll.status == .notMeasured && epoll.note?.contains("epoll: no data") == true)
        let zero = try Self.report { benchmarks in
            let at = try! Self.index(benchmarks, "BM_WakeLatency/engine:cf/pin:diff/load:none")
            benchmarks[at].counters["latency_mean_ns"] = Array(repeating: 0, count: 9)
        }
        let cf = try Self.outcome(zero, "wake.diff.cf", "pin:diff/load:none")
        #expect(cf.status == .notMeasured && cf.note?.contains("cf: degenerate value") == true)
    }

    @Test func aCounterTheFileDoesNotHaveIsNotMeasured() throws {
        // A results file from a harness that does not write latency_mean_ns yet.
        let report = try Self.report { benchmarks in
            for at in benchmarks.indices { benchmarks[at].counters["latency_mean_ns"] = nil }
        }
        for id in ["wake.same.epoll", "wake.diff.epoll", "wake.cf", "wake.peers"] {
            let result = try Self.result(report, id)
            #expect(result.status == .notMeasured, "\(id)")
            #expect(result.outcomes.allSatisfy { $0.note == "no value for latency_mean_ns" })
        }
        // A variant the target names that no engine ran.
        let noIdle = try Self.report { benchmarks in benchmarks.removeAll { $0.name.contains("load:idle1000") } }
        let outcome = try Self.outcome(noIdle, "wake.same.epoll", "pin:same/load:idle1000")
        #expect(outcome.status == .notMeasured && outcome.note == "no rows of this variant on any engine")
        #expect(try Self.result(noIdle, "wake.same.epoll").status == .notMeasured)
    }

    @Test func aQuickRunIsJudgedOnlyAgainstQuickBounds() throws {
        let report = try Self.report(profile: "quick")
        // Ratios of quick figures are reported, with their value, not judged against the full run's bounds.
        for id in ["wake.same.epoll", "wake.cf", "observers.libuv", "resident.not-dominated", "coalescing.optimal"] {
            let result = try Self.result(report, id)
            #expect(result.status == .reported, "\(id)")
            #expect(result.bound == nil)
            #expect(result.outcomes.allSatisfy { $0.value != nil })
        }
        // Counts of misbehaviour have a quick bound.
        for id in ["coalescing.no-missed", "coalescing.no-late", "lag.false-positives", "lag.delay"] {
            #expect(try Self.result(report, id).status == .met, "\(id)")
        }
        let text = report.text()
        #expect(!text.contains(" met           wake."))
        #expect(Self.line(text, "wake.cf")?.contains("(full: <= 0.85x)") == true)
        let counts = report.targetCounts
        #expect(
            text.contains(
                "a quick run: judged only where a target has a quick bound): \(counts[.met] ?? 0) met, "
                    + "\(counts[.missed] ?? 0) missed, \(counts[.notMeasured] ?? 0) not measured, "
                    + "\(counts[.reported] ?? 0) reported, not judged"))
        // A quick miss is still a miss.
        let missed = try Self.report(profile: "quick") { benchmarks in
            let at = try! Self.index(benchmarks, "BM_TimerCoalescing/engine:ref/timers:100/tolerance:10pct/burn:no")
            benchmarks[at].counters["missed_fires"] = [0, 0, 0, 4, 0, 0, 0, 0, 0]
        }
        #expect(try Self.result(missed, "coalescing.no-missed").status == .missed)
    }

    @Test func aFamilyLostWithItsProcessIsNotMeasuredAndSaysWhy() throws {
        // The wake family's process crashed: `runloop bench` writes one error row for it, naming no engine.
        var benchmarks = ReportTests.benchmarks().filter { !$0.name.hasPrefix("BM_WakeLatency/") }
        benchmarks.append(
            FixtureBenchmark(
                name: "harness/family:wake", times: [],
                error: "error: the harness exited with status 134"))
        let report = try ReportTests.report(benchmarks)
        let wake = try Self.result(report, "wake.same.epoll")
        #expect(wake.status == .notMeasured)
        #expect(
            wake.outcomes.first?.note?.contains("harness/family:wake: error: the harness exited with status 134")
                == true)
        #expect(report.errors.count == 1)
        #expect(!report.index.families.contains("harness"))
    }

    @Test func theTargetsLineCountsEachStatusApart() throws {
        let report = try Self.report { benchmarks in
            benchmarks.removeAll { $0.name.hasPrefix("BM_WakeLatency/engine:libevent/") }
        }
        let counts = report.targetCounts
        #expect((counts[.met] ?? 0) > 0 && (counts[.missed] ?? 0) > 0 && (counts[.notMeasured] ?? 0) > 0)
        #expect(counts.values.reduce(0, +) == report.targets.count)
        #expect(
            report.text().contains(
                "\(counts[.met]!) met, \(counts[.missed]!) missed, "
                    + "\(counts[.notMeasured]!) not measured\n"))
        let page = BenchPage.html(report)
        #expect(page.contains("\(counts[.met]!) met</span>"))
        #expect(xmlProblem(page) == nil)
    }
}
