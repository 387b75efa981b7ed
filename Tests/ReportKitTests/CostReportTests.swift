// The report's cost sections (CostReport): the machine limits, wake latency as a multiple of the nearest limit with
// CPU per wake-up, the resident thread's trade-off and its dominated engines, and targets against a limit; from
// doctored CSVs, no timing.
import BenchTestSupport
import Foundation
import Testing

@testable import ReportKit
@testable import ResultsKit

@Suite struct CostReportTests {
    /// The limits of one run: same CPU spin 1 us, futex 2 us, eventfd 3 us; different CPUs 10 times each.
    static func limits(eventfdSame: Double = 3000) -> [FixtureBenchmark] {
        var benchmarks: [FixtureBenchmark] = []
        for (pin, scale) in [("same", 1.0), ("diff", 10.0)] {
            for (handoff, mean) in [("spin", 1000.0), ("futex", 2000.0), ("eventfd", eventfdSame)] {
                let figure = mean * scale
                benchmarks.append(
                    FixtureBenchmark(
                        name: "BM_Limits/handoff:\(handoff)/pin:\(pin)/manual_time", times: Fixtures.noisy(figure),
                        counters: [
                            "latency_mean_ns": Fixtures.noisy(figure), "latency_p50_ns": Fixtures.noisy(figure),
                            "latency_p99_ns": Fixtures.noisy(figure * 2),
                            "loop_cpu_ns_per_wake": Fixtures.noisy(figure / 2),
                            "post_cpu_ns_per_wake": Fixtures.noisy(figure / 2),
                        ]))
            }
        }
        return benchmarks
    }

    /// Wake rows: ref at 3.6 us on one CPU (1.2x eventfd), epoll at 2.2 us (between futex and eventfd, nearer futex:
    /// 1.1x futex), dispatch at 0.8 us (below every limit: 0.8x spin); on two CPUs ten times as much.
    static func wake(cpu: Bool = true) -> [FixtureBenchmark] {
        var benchmarks: [FixtureBenchmark] = []
        for (engine, mean) in [("ref", 3600.0), ("epoll", 2200.0), ("dispatch", 800.0)] {
            for (pin, scale) in [("same", 1.0), ("diff", 10.0)] {
                var counters: [String: [Double?]] = [
                    "latency_mean_ns": Fixtures.noisy(mean * scale),
                    "latency_p99_ns": Fixtures.noisy(mean * scale * 3),
                ]
                // ref's median round trip 0.9 of its mean; the others have none.
                if engine == "ref" { counters["latency_p50_ns"] = Fixtures.noisy(mean * scale * 0.9) }
                if cpu {
                    counters["loop_cpu_ns_per_wake"] = Fixtures.noisy(1500)
                    counters["post_cpu_ns_per_wake"] = Fixtures.noisy(1200)
                    counters["process_cpu_ns_per_wake"] = Fixtures.noisy(2800)
                }
                benchmarks.append(
                    FixtureBenchmark(
                        name: "BM_WakeLatency/engine:\(engine)/pin:\(pin)/load:none/manual_time",
                        times: Fixtures.noisy(mean * scale), counters: counters))
            }
        }
        return benchmarks
    }

    /// Resident rows at P = 4: ref is beaten on all three by libevent; cf has more items per second than ref but a
    /// worse p99, so neither dominates the other; glib failed. Without CPU counters nothing can be dominated.
    static func resident(cpu: Bool = true) -> [FixtureBenchmark] {
        let figures: [(String, Double, Double, Double, Double)] = [
            // engine, items/s, p99 ns, loop CPU ns/item, post CPU ns/item
            ("ref", 30e6, 20_000, 20, 25), ("cf", 40e6, 30_000, 15, 20), ("libevent", 44e6, 15_000, 10, 20),
        ]
        var benchmarks = figures.map { engine, items, p99, loop, post -> FixtureBenchmark in
            var counters: [String: [Double?]] = [
                "items_per_second": Fixtures.noisy(items),
                "handoff_p99_ns": Fixtures.noisy(p99),
            ]
            if cpu {
                counters["loop_cpu_ns_per_item"] = Fixtures.noisy(loop)
                counters["post_cpu_ns_per_item"] = Fixtures.noisy(post)
            }
            return FixtureBenchmark(
                name: "BM_ResidentThroughput/engine:\(engine)/producers:4/manual_time",
                unit: "us", times: Fixtures.noisy(1000), counters: counters)
        }
        benchmarks.append(
            FixtureBenchmark(
                name: "BM_ResidentThroughput/engine:glib/producers:4/manual_time", times: [],
                error: "error: the loop thread served 3 of 4 items"))
        return benchmarks
    }

    static func index(_ benchmarks: [FixtureBenchmark], profile: String = "full") throws -> BenchIndex {
        BenchIndex(try ResultsReader.parse(text: ReportTests.results(profile: profile, benchmarks), file: "costs.csv"))
    }

    @Test func limitsAreReadPerHandoffAndPin() throws {
        let costs = CostReport(try Self.index(Self.limits() + Self.wake()))
        #expect(
            costs.limits.map { "\($0.pin)/\($0.handoff)" }
                == ["same/spin", "same/futex", "same/eventfd", "diff/spin", "diff/futex", "diff/eventfd"])
        let eventfd = try #require(costs.limits.first { $0.pin == "diff" && $0.handoff == "eventfd" })
        #expect(abs((eventfd.meanNs ?? 0) - 30000) < 1)
        #expect(abs((eventfd.p99Ns ?? 0) - 60000) < 1)
        #expect(abs((eventfd.loopCPUNs ?? 0) - 15000) < 1)
    }

    @Test func eachWakeLatencyIsAMultipleOfTheNearestLimitOfItsPinning() throws {
        let costs = CostReport(try Self.index(Self.limits() + Self.wake()))
        func row(_ engine: String, _ pin: String) throws -> WakeAgainstLimits {
            try #require(costs.wake.first { $0.engine == engine && $0.pin == pin })
        }
        // Above every limit: the largest (eventfd), 3.6 / 3.0.
        #expect(try row("ref", "same").limit?.handoff == "eventfd")
        #expect(abs((try row("ref", "same").multiple ?? 0) - 1.2) < 1e-9)
        // The p50 against the same limit's p50 (3.24 / 3.0); an engine without a p50 has none.
        #expect(abs((try row("ref", "same").p50Multiple ?? 0) - 1.08) < 1e-9)
        #expect(try row("epoll", "same").p50Multiple == nil)
        // Between futex and eventfd, nearer futex by ratio: 2.2 / 2.0; the same on two CPUs, against the two-CPU
        // limits.
        #expect(try row("epoll", "same").limit?.handoff == "futex")
        #expect(abs((try row("epoll", "same").multiple ?? 0) - 1.1) < 1e-9)
        #expect(try row("epoll", "diff").limit?.pin == "diff")
        #expect(abs((try row("epoll", "diff").multiple ?? 0) - 1.1) < 1e-9)
        // Below every limit: the smallest (spin), a multiple under 1.
        #expect(try row("dispatch", "same").limit?.handoff == "spin")
        #expect(abs((try row("dispatch", "same").multiple ?? 0) - 0.8) < 1e-9)
        #expect(abs((try row("ref", "same").loopCPUNs ?? 0) - 1500) < 1)
        // Same CPU first, then the file's engine order.
        #expect(costs.wake.map(\.engine) == ["ref", "epoll", "dispatch", "ref", "epoll", "dispatch"])
        let text = CostReport(try Self.index(Self.limits() + Self.wake())).text(smoke: false)
        #expect(text.contains("machine limits"))
        #expect(text.contains("1.200x eventfd"))
        #expect(text.contains("1.100x futex"))
        #expect(text.contains("0.800x spin"))
        #expect(text.contains("1.500 us"))  // ref's loop CPU per wake-up beside its latency
    }

    @Test func theNearestLimitIgnoresLimitsWithoutAFigure() {
        let limits = [
            MachineLimit(
                handoff: "spin", pin: "same", meanNs: nil, p50Ns: nil, p99Ns: nil, loopCPUNs: nil,
                postCPUNs: nil),
            MachineLimit(
                handoff: "eventfd", pin: "same", meanNs: 3000, p50Ns: nil, p99Ns: nil,
                loopCPUNs: nil, postCPUNs: nil),
        ]
        #expect(CostReport.nearestLimit(to: 100, among: limits, by: \.meanNs)?.handoff == "eventfd")
        #expect(CostReport.nearestLimit(to: 100, among: [], by: \.meanNs) == nil)
        #expect(CostReport.nearestLimit(to: 100, among: limits, by: \.p50Ns) == nil)
        // Nearest by ratio: 2.9 us is nearer eventfd's 3 us than spin's 1 us, though below it.
        let both =
            [
                MachineLimit(
                    handoff: "spin", pin: "same", meanNs: 1000, p50Ns: nil, p99Ns: nil, loopCPUNs: nil,
                    postCPUNs: nil)
            ] + limits
        #expect(CostReport.nearestLimit(to: 2900, among: both, by: \.meanNs)?.handoff == "eventfd")
        #expect(CostReport.nearestLimit(to: 1500, among: both, by: \.meanNs)?.handoff == "spin")
    }

    @Test func theNearestLimitIsChosenByTheMediansNotTheStalls() throws {
        // A loaded machine: the futex limit's mean inflated by stalls (3.5 us on a p50 of 2 us). By the means, ref's
        // 3.6 us would be read against futex; by the p50s (ref 3.24 us) against eventfd's 3 us.
        var benchmarks = Self.limits()
        for index in benchmarks.indices where benchmarks[index].name.hasPrefix("BM_Limits/handoff:futex/pin:same") {
            benchmarks[index].counters["latency_mean_ns"] = Fixtures.noisy(3500)
        }
        let costs = CostReport(try Self.index(benchmarks + Self.wake()))
        let ref = try #require(costs.wake.first { $0.engine == "ref" && $0.pin == "same" })
        #expect(ref.limit?.handoff == "eventfd")
        // epoll has no p50 in this fixture: its limit is chosen by the means, and its 2.2 us is now nearer eventfd's
        // 3 us than futex's inflated 3.5 us.
        let epoll = try #require(costs.wake.first { $0.engine == "epoll" && $0.pin == "same" })
        #expect(epoll.limit?.handoff == "eventfd")
    }

    @Test func aFileWithoutLimitsOrCPUCountersHasNoWakeSection() throws {
        let old = CostReport(try Self.index(Self.wake(cpu: false) + Self.resident(cpu: false)))
        #expect(old.limits.isEmpty && !old.wakeHasCPU)
        #expect(!old.tables.contains { $0.family == "BM_WakeLatency" })
        // The resident trade-off is still shown, but without CPU per item nothing is dominated.
        #expect(old.resident.allSatisfy { $0.dominatedBy.isEmpty })
        #expect(
            old.tables.first { $0.family == "BM_ResidentThroughput" }?.note
                .contains("This file has no CPU counters: nothing is marked dominated.") == true)
        // CPU counters without limits: the section is there, the multiple is not.
        let cpuOnly = CostReport(try Self.index(Self.wake()))
        #expect(cpuOnly.tables.contains { $0.family == "BM_WakeLatency" })
        #expect(cpuOnly.wake.allSatisfy { $0.multiple == nil })
        let wakeNote = cpuOnly.tables.first { $0.family == "BM_WakeLatency" }?.note ?? ""
        #expect(wakeNote.hasSuffix("This file has no BM_Limits rows."))
    }

    @Test func theResidentTradeoffMarksEnginesBeatenOnAllThree() throws {
        let costs = CostReport(try Self.index(Self.resident()))
        func row(_ engine: String) throws -> ResidentTradeoff {
            try #require(costs.resident.first { $0.engine == engine })
        }
        #expect(try row("ref").dominatedBy == ["libevent"])  // more items, lower p99, less CPU
        #expect(try row("cf").dominatedBy == ["libevent"])
        #expect(try row("libevent").dominatedBy.isEmpty)
        #expect(abs((try row("ref").cpuNs ?? 0) - 45) < 0.5)
        // cf against ref: more items per second and less CPU, but a worse p99: not dominated by ref, nor ref by cf.
        #expect(!(try row("ref")).isDominated(by: try row("cf")))
        #expect(!(try row("cf")).isDominated(by: try row("ref")))
        // A failed engine is listed with its error and judges nobody.
        #expect(try row("glib").problem == "error: the loop thread served 3 of 4 items")
        // Its row keeps the columns: dashes for the figures, the reason last.
        let table = try #require(costs.tables.first { $0.family == "BM_ResidentThroughput" })
        #expect(
            table.rows.last == [
                "4", "glib", "-", "-", "-", "-", "-", "-",
                "error: the loop thread served 3 of 4 items",
            ])
        let text = costs.text(smoke: false)
        #expect(text.contains("resident thread trade-off"))
        #expect(text.contains("libevent"))
    }

    @Test func aTargetAgainstALimitTakesTheLimitOfTheSubjectsPinning() throws {
        let yaml = """
            format: 1
            engine: ref
            targets:
              - id: wake.limit
                description: wake round trip / the eventfd limit
                family: BM_WakeLatency
                where: {pin: [same, diff], load: none}
                metric: latency_mean_ns
                ratio_to_limit: eventfd
                bound: <= 1.25x
            """
        let targets = try TargetsFile.parse(yaml, file: "limits.yaml")
        #expect(targets.targets.first?.comparison == .limit("eventfd"))
        let file = try ResultsReader.parse(text: ReportTests.results(Self.limits() + Self.wake()), file: "costs.csv")
        let met = try #require(BenchReport(file: file, targets: targets).targets.first)
        #expect(met.status == .met)
        #expect(met.outcomes.count == 2)
        #expect(met.outcomes.allSatisfy { abs(($0.value ?? 0) - 1.2) < 1e-9 })
        #expect(met.outcomes.first?.reference?.label == "the eventfd limit")
        // A faster eventfd limit (2.4 us on one CPU, 24 us on two): 1.5x misses on both pinnings.
        let faster = try ResultsReader.parse(
            text: ReportTests.results(Self.limits(eventfdSame: 2400) + Self.wake()),
            file: "costs.csv")
        let missed = try #require(BenchReport(file: faster, targets: targets).targets.first)
        #expect(missed.status == .missed)
        #expect(missed.outcomes.map(\.status) == [.missed, .missed])
        #expect(missed.outcomes.allSatisfy { abs(($0.value ?? 0) - 1.5) < 1e-9 })
        // No limits in the file: not measured, never met.
        let none = try ResultsReader.parse(text: ReportTests.results(Self.wake()), file: "costs.csv")
        let unmeasured = try #require(BenchReport(file: none, targets: targets).targets.first)
        #expect(unmeasured.status == .notMeasured)
        #expect(unmeasured.outcomes.first?.note?.contains("no eventfd limit") == true)
        // Two comparisons at once are refused, naming the file and the line.
        #expect(throws: InputError.self) {
            try TargetsFile.parse(yaml + "\n    ratio_to: epoll\n", file: "limits.yaml")
        }
    }

    /// Rows of the spinning reply (reply:spin, no load parameter) across CPUs: ref spin:on with a p50 of `refSpinOn`,
    /// ref and epoll without the spin far slower (their loops sleep).
    static func spinningReply(refSpinOn: Double) -> [FixtureBenchmark] {
        [
            ("ref/pin:diff/reply:spin/spin:on", refSpinOn), ("ref/pin:diff/reply:spin", 500_000),
            ("epoll/pin:diff/reply:spin", 400_000),
        ].map { variant, p50 in
            FixtureBenchmark(
                name: "BM_WakeLatency/engine:\(variant)/manual_time", times: Fixtures.noisy(p50 * 5),
                counters: [
                    "latency_mean_ns": Fixtures.noisy(p50 * 5), "latency_p50_ns": Fixtures.noisy(p50),
                    "latency_p99_ns": Fixtures.noisy(p50 * 3),
                ])
        }
    }

    @Test func theSpinLimitTargetReadsTheSpinningReplyOfRefSpinOnOnly() throws {
        let targets = try ReportTests.targets()
        // The spin limit's p50 across CPUs is 10 us here: 150 us is 15x, met; 250 us is 25x, missed.
        for (p50, ratio, status) in [(150_000.0, 15.0, TargetStatus.met), (250_000, 25, .missed)] {
            let file = try ResultsReader.parse(
                text: ReportTests.results(Self.limits() + Self.wake() + Self.spinningReply(refSpinOn: p50)),
                file: "costs.csv")
            let report = BenchReport(file: file, targets: targets)
            let result = try #require(report.targets.first { $0.target.id == "wake.diff.spin-limit" })
            #expect(result.status == status)
            #expect(result.outcomes.map(\.variant) == ["pin:diff/reply:spin/spin:on"])
            #expect(result.outcomes.allSatisfy { abs(($0.value ?? 0) - ratio) < 1e-9 })
            #expect(result.outcomes.first?.reference?.label == "the spin limit")
            // The blocking round trips' targets select by load, which these rows do not have.
            for other in report.targets where other.target.selection.family == "BM_WakeLatency" {
                if other.target.id == "wake.diff.spin-limit" { continue }
                #expect(other.outcomes.allSatisfy { !$0.variant.contains("reply") }, "\(other.target.id)")
            }
        }
    }

    @Test func aVariantOfOneEngineIsNamedWithItsExtraParameters() throws {
        // ref's spin:on variant is a row of its own, named so, not a second "ref".
        var benchmarks = Self.limits() + Self.wake()
        let at = try #require(benchmarks.firstIndex { $0.name.hasPrefix("BM_WakeLatency/engine:ref/pin:same/") })
        var spinning = benchmarks[at]
        spinning.name = "BM_WakeLatency/engine:ref/pin:same/load:none/spin:on/manual_time"
        benchmarks.append(spinning)
        let cost = CostReport(try ReportTests.report(benchmarks).index)
        let same = cost.wake.filter { $0.pin == "same" }.map(\.engine)
        #expect(same.contains("ref") && same.contains("ref spin:on"))
        #expect(same.filter { $0 == "ref" }.count == 1)
    }

    @Test func theReportAndThePageShowTheSections() throws {
        let benchmarks = Self.limits() + Self.wake() + Self.resident()
        let report = try ReportTests.report(benchmarks)
        let text = report.text()
        #expect(text.contains("machine limits"))
        #expect(text.contains("wake latency against the machine's limits"))
        #expect(text.contains("resident thread trade-off"))
        let page = BenchPage.html(report)
        #expect(xmlProblem(page) == nil, "\(xmlProblem(page) ?? "")")
        #expect(page.contains("<h3 id=\"BM_Limits\">"))
        #expect(page.contains("1.200x eventfd"))
        // The wake chart draws the limits of each variant's pinning under its engines, and only those.
        #expect(page.contains(">limit: eventfd<") && page.contains(">limit: spin<"))
        let charts = BenchPage.draw(
            try #require(report.pages.first { $0.family == "BM_WakeLatency" }?.charts.first),
            family: "BM_WakeLatency", report: report
        ).0
        #expect(
            charts.components(separatedBy: ">limit: eventfd<").count - 1
                == Set(report.index.benchmarks.filter { $0.family == "BM_WakeLatency" }.map(\.variant)).count)
        #expect(xmlProblem(BenchPage.html(try ReportTests.report(profile: "smoke", benchmarks))) == nil)
    }
}
