// The benchmark report (`runloop report`): the targets file, the targets' arithmetic, "not measured", the text, and
// the HTML page as well-formed XML, from fixtures and from the checked-in results file.
import BenchTestSupport
import Foundation
import MarkupKit
import Testing

@testable import ReportKit
@testable import ResultsKit

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite struct ReportTests {
    /// Eight engines' worth of a small run: every family the page draws, with rows chosen so that each kind of
    /// comparison meets or misses on purpose, and every counter the shipped targets read.
    static func benchmarks() -> [FixtureBenchmark] {
        var benchmarks: [FixtureBenchmark] = []
        let wake: [(String, Double)] = [
            ("ref", 4000), ("cf", 6000), ("glib", 5000), ("libuv", 5300),
            ("libevent", 4500), ("dispatch", 4700), ("nio", 4900), ("epoll", 3950),
        ]
        for (engine, mean) in wake {
            for pin in ["same", "diff"] {
                for load in ["none", "idle1000"] {
                    benchmarks.append(
                        FixtureBenchmark(
                            name: "BM_WakeLatency/engine:\(engine)/pin:\(pin)/load:\(load)/manual_time",
                            times: Fixtures.noisy(mean),
                            counters: [
                                "latency_mean_ns": Fixtures.noisy(mean),
                                "latency_p50_ns": Fixtures.noisy(mean * 0.9),
                                "latency_p99_ns": Fixtures.noisy(mean * 2), "latency_modes": Fixtures.noisy(2),
                                "latency_low_share": Fixtures.noisy(0.7),
                                "latency_low_p50_ns": Fixtures.noisy(mean * 0.8),
                                "latency_high_share": Fixtures.noisy(0.3),
                                "latency_high_p50_ns": Fixtures.noisy(mean * 1.5),
                            ]))
                }
            }
        }
        for engine in ["ref", "cf", "libuv"] {
            for n in [1, 64, 512] {
                // ns per observer per pass; CF and ref make 4 callouts per observer per pass, libuv's analogue 2.
                let cost: Double = engine == "ref" ? 40 : engine == "cf" ? 160 : 10
                let callouts: Double = engine == "libuv" ? 2 : 4
                benchmarks.append(
                    FixtureBenchmark(
                        name: "BM_ObserverDispatch/engine:\(engine)/observers:\(n)/real_time",
                        times: Fixtures.noisy(100),
                        counters: [
                            "ns_per_observer_pass": Fixtures.noisy(cost),
                            "callouts_per_observer_pass": Array(repeating: callouts, count: 9),
                            "ns_per_callout": Fixtures.noisy(cost / callouts),
                            "ns_per_pass": Fixtures.noisy(cost * Double(n)),
                        ]))
            }
        }
        for k in [100, 1000, 10000] {
            for engine in ["ref", "cf", "dispatch"] {
                let optimal = 10.0 / Double(k)
                benchmarks.append(
                    FixtureBenchmark(
                        name:
                            "BM_TimerCoalescing/engine:\(engine)/timers:\(k)/tolerance:10pct/burn:no/iterations:1/manual_time",
                        times: Fixtures.noisy(1e8),
                        counters: [
                            "wakeups_per_fire": Fixtures.noisy(
                                engine == "ref"
                                    ? optimal * 1.05
                                    : engine == "dispatch" ? optimal * 2 : 1),
                            "optimal_wakeups_per_fire": Fixtures.noisy(optimal),
                            "loop_saturated": Array(repeating: 0, count: 9),
                            "early_fires": [0, 0, engine == "cf" ? 3 : 0, 0, 0, 0, 0, 0, 0],
                            "late_fires": Array(repeating: 0, count: 9),
                            "missed_fires": Array(repeating: 0, count: 9),
                            "lateness_max_ns": Fixtures.noisy(engine == "dispatch" ? 3e6 : 2e6),
                            "lateness_p99_ns": Fixtures.noisy(1e6),
                        ]))
            }
        }
        for producers in [1, 2, 4] {
            // libuv serves more items for less CPU than ref, with a worse hand-off p99: it does not dominate ref.
            for (engine, rate, p99, loopCPU) in [
                ("ref", 2e6, 9000.0, 100.0), ("cf", 1e6, 9000, 80), ("libuv", 2.5e6, 12000, 90),
                ("glib", 0.5e6, 9000, 900), ("libevent", 1.5e6, 9000, 30),
                ("dispatch", 1.8e6, 9000, 150), ("nio", 1.2e6, 9000, 250),
            ] {
                benchmarks.append(
                    FixtureBenchmark(
                        name: "BM_ResidentThroughput/engine:\(engine)/producers:\(producers)/real_time",
                        times: Fixtures.noisy(1e6),
                        counters: [
                            "items_per_second": Fixtures.noisy(rate * Double(producers)),
                            "wakeups_per_item": Fixtures.noisy(0.1), "handoff_p50_ns": Fixtures.noisy(3000),
                            "handoff_p99_ns": Fixtures.noisy(p99), "loop_cpu_ns_per_item": Fixtures.noisy(loopCPU),
                            "post_cpu_ns_per_item": Fixtures.noisy(50),
                        ]))
            }
        }
        for stall in [50, 100, 250] {
            let expected: Double = stall > 80 ? 3 : 0
            benchmarks.append(
                FixtureBenchmark(
                    name: "BM_LagMonitor/engine:ref/stall:\(stall)ms/iterations:3/real_time",
                    times: Fixtures.noisy(1e8),
                    counters: [
                        "detection_delay_ns": stall > 80 ? Fixtures.noisy(30e6) : Array(repeating: nil, count: 9),
                        "stalls_expected": Array(repeating: expected, count: 9),
                        "stalls_detected": Array(repeating: expected, count: 9),
                        "false_positives": Array(repeating: 0, count: 9), "overhead_ns_per_pass": Fixtures.noisy(40),
                    ]))
        }
        benchmarks.append(
            FixtureBenchmark(
                name: "BM_ObserverDispatch/engine:libevent/observers:64/real_time", times: [],
                error: "skipped: no observers <here> & there"))
        return benchmarks
    }

    /// The fixture's CSV, with the context `runloop bench` writes (`extra` lines added to it).
    static func results(
        profile: String = "full", _ benchmarks: [FixtureBenchmark] = benchmarks(),
        filter: String = "(all)", extra: [String] = []
    ) -> String {
        let context =
            [
                "# label: fixture <&>", "# profile: \(profile) (repetitions 9)", "# filter: \(filter)",
                "# engine_ref: the reference", "# engine_cf: CoreFoundation", "# cpus: 2",
                "# gb: Run on (2 X 2100 MHz CPU s)",
            ] + extra
        return Fixtures.csv(benchmarks, context: context)
    }

    static func targets() throws -> TargetsFile {
        try TargetsFile.load(path: repositoryRoot.appendingPathComponent("Benchmarks/targets.yaml").path)
    }

    static func report(
        profile: String = "full", _ benchmarks: [FixtureBenchmark] = benchmarks(),
        filter: String = "(all)", extra: [String] = []
    ) throws -> BenchReport {
        BenchReport(
            file: try ResultsReader.parse(
                text: results(profile: profile, benchmarks, filter: filter, extra: extra),
                file: "fixture.csv"),
            targets: try targets())
    }

    static func status(_ report: BenchReport, _ id: String) -> TargetStatus? {
        report.targets.first { $0.target.id == id }?.status
    }

    @Test func theShippedTargetsFileLoadsWithEveryTarget() throws {
        let targets = try Self.targets().targets
        let ids = Set(targets.map(\.id))
        for id in [
            "wake.same.epoll", "wake.diff.epoll", "wake.cf", "wake.diff.cf", "wake.peers", "wake.diff.peers",
            "wake.diff.spin-limit", "observers.64.cf", "observers.libuv",
            "coalescing.1000.cf", "coalescing.optimal", "coalescing.1000.lateness", "coalescing.no-early",
            "coalescing.no-late", "coalescing.burn.late.epoll", "coalescing.no-missed", "coalescing.dispatch",
            "coalescing.dispatch.lateness",
            "scale.peers", "scale.observer.peers", "scale.cf",
            "scale.random.peers", "scale.random.cf", "resident.not-dominated",
            "lag.detected", "lag.delay", "lag.false-positives",
        ] {
            #expect(ids.contains(id), "missing target \(id)")
        }
        // The wake targets read the mean round trip under no load and 1,000 idle items, but the spinning reply's
        // (no load: its thread's mean takes in every preemption), which reads the p50 of ref's spin:on against the
        // spin limit; coalescing's wake-ups leave out the repetitions whose loop CPU was saturated.
        for target in targets where target.selection.family == "BM_WakeLatency" {
            if target.selection.parameters.contains(where: { $0.key == "reply" }) {
                #expect(target.selection.parameters.first { $0.key == "reply" }?.values == ["spin"])
                #expect(target.selection.parameters.first { $0.key == "spin" }?.values == ["on"])
                #expect(target.metric.description == "latency_p50_ns")
                #expect(target.comparison == .limit("spin"))
                continue
            }
            #expect(target.metric.description == "latency_mean_ns")
            #expect(target.selection.parameters.first { $0.key == "load" }?.values == ["none", "idle1000"])
        }
        for target in targets where target.metric.description == "wakeups_per_fire" {
            #expect(target.invalidIf?.description == "loop_saturated")
        }
        // Every target says what it is for, in words (no reference numbers a reader cannot follow).
        for target in targets {
            let why = try #require(target.why, "\(target.id) has no why")
            #expect(why.range(of: #"(issue|#) ?[0-9]"#, options: .regularExpression) == nil, "\(target.id): \(why)")
        }
    }

    @Test func ratiosAgainstAnEngineABestOfSetAndACounter() throws {
        let report = try Self.report()
        #expect(Self.status(report, "wake.cf") == .met)  // 4000 / 6000, every load
        #expect(Self.status(report, "wake.diff.cf") == .met)
        #expect(Self.status(report, "wake.peers") == .met)  // 4000 / libevent's 4500
        #expect(Self.status(report, "wake.same.epoll") == .met)  // 4000 / 3950 = 1.013
        #expect(Self.status(report, "observers.libuv") == .missed)  // 40 / 10 per observer per pass
        #expect(Self.status(report, "observers.64.cf") == .met)
        #expect(Self.status(report, "coalescing.optimal") == .met)  // 1.05 of the optimum at every K
        #expect(Self.status(report, "coalescing.no-missed") == .met)
        #expect(Self.status(report, "coalescing.dispatch") == .met)  // 1.05 of the optimum / dispatch's 2
        #expect(Self.status(report, "coalescing.dispatch.lateness") == .met)  // 2 ms / dispatch's 3 ms
        #expect(Self.status(report, "resident.not-dominated") == .met)  // libuv: more items, less CPU, a worse p99
        #expect(Self.status(report, "lag.detected") == .met)
        #expect(Self.status(report, "lag.delay") == .met)
        #expect(Self.status(report, "lag.false-positives") == .met)
        let peers = try #require(report.targets.first { $0.target.id == "wake.peers" })
        #expect(peers.outcomes.count == 2)  // one CPU: no load and 1,000 idle items (wake.diff.peers: two CPUs)
        let first = try #require(peers.outcomes.first)
        #expect(first.reference?.label.hasPrefix("libevent") == true)
        #expect(abs((first.value ?? 0) - 4000.0 / 4500) < 1e-3)
        let optimal = try #require(report.targets.first { $0.target.id == "coalescing.optimal" })
        #expect(
            optimal.outcomes.map(\.variant) == [
                "timers:100/tolerance:10pct/burn:no",
                "timers:1000/tolerance:10pct/burn:no",
                "timers:10000/tolerance:10pct/burn:no",
            ])
    }

    @Test func absentRowsAreNotMeasuredNotMissed() throws {
        let report = try Self.report()
        // No BM_Scale rows at all: not measured.
        #expect(Self.status(report, "scale.peers") == .notMeasured)
        let text = report.text()
        #expect(text.contains("not measured  scale.peers"))
        #expect(text.contains("scale, add + remove at N = 10,000 (median over repetitions):\n  not measured"))
    }

    @Test func earlyFiresAreFindingsAndSkipsAreCounted() throws {
        let report = try Self.report()
        #expect(report.findings.map(\.engine) == ["cf", "cf", "cf"])
        #expect(report.findings.first?.repetitions == 1 && report.findings.first?.measured == 9)
        #expect(report.skippedRows == 1 && report.errors.isEmpty)
        #expect(report.text().contains("FINDING cf: BM_TimerCoalescing/engine:cf/timers:100/"))
    }

    @Test func aSmokeRunIsNotHeldToTargets() throws {
        let report = try Self.report(profile: "smoke")
        #expect(report.targets.isEmpty)
        #expect(report.text().contains("targets: not evaluated"))
    }

    @Test func theTextShowsUnitsAndVariantsInOrder() throws {
        let text = try Self.report().text()
        #expect(text.contains("observers:1 "))
        let one = try #require(text.range(of: "observers:1 "))
        let many = try #require(text.range(of: "observers:512"))
        #expect(one.lowerBound < many.lowerBound)
        #expect(text.contains("4.000 us"))  // wake latency in microseconds
        #expect(text.contains("M/s") || text.contains("4000000"))
        // What every median stands on: the fixtures' nine repetitions per benchmark, family by family.
        let repetitions = try #require(
            text.split(separator: "\n").first { $0.hasPrefix("repetitions per benchmark: ") })
        #expect(repetitions.contains("BM_WakeLatency 9"), "\(repetitions)")
    }

    @Test func badTargetsFilesNameTheLineAndField() {
        let cases: [(String, String)] = [
            (
                "format: 1\nengine: ref\ntargets:\n  - id: a\n    description: d\n    family: F\n    metric: m\n    bound: \"<= 2\"\n    ratio_to: cf\n",
                "t.yaml:8: error: invalid argument: field 'targets[0].bound'"
            ),
            (
                "format: 1\nengine: ref\ntargets:\n  - id: a\n    description: d\n    family: F\n    metric: m\n    bound: \"<= 2\"\n    colour: red\n",
                "t.yaml:9: error: invalid argument: field 'targets[0].colour': unknown field 'colour'"
            ),
            ("format: 2\nengine: ref\n", "field 'format'"),
            ("format: 1\nengine: ref\nsummary:\n  - title: t\n    family: F\n", "the field 'metric' is missing"),
            ("format: 1\nengine: [ref\n", "t.yaml:3: error: invalid argument: YAML syntax error"),
            (
                "format: 1\nengine: ref\ntargets:\n  - id: a\n    description: d\n    family: F\n    metric: m\n    ratio_to: cf\n    bound: <= 2x\n    quick_bound: \"<= 2\"\n",
                "t.yaml:10: error: invalid argument: field 'targets[0].quick_bound'"
            ),
            (
                "format: 1\nengine: ref\ntargets:\n  - id: a\n    description: d\n    family: F\n    where: {load: []}\n    metric: m\n    bound: \"<= 2\"\n",
                "field 'targets[0].where.load': name at least one value"
            ),
            (
                "format: 1\nengine: ref\ntargets:\n  - id: a\n    description: d\n    family: F\n    metric: m\n    statistic: mean\n    bound: \"<= 2\"\n",
                "expected median, max or min"
            ),
            (
                "format: 1\nengine: ref\npage:\n  - family: F\n    charts:\n      - metric: m\n        axis: a\n",
                "t.yaml:6: error: invalid argument: field 'page[0].charts[0]': give one of 'dots: TITLE' and 'lines: TITLE'"
            ),
            (
                "format: 1\nengine: ref\npage:\n  - family: F\n    charts:\n      - lines: t\n        metric: m\n        axis: a\n",
                "the field 'x' is missing"
            ),
            (
                "format: 1\nengine: ref\npage:\n  - family: F\n    charts:\n      - dots: t\n        metric: m\n        name: n\n"
                    + "        tail: m\n        tail_name: w\n        axis: a\n        optimum: o\n",
                "t.yaml:12: error: invalid argument: field 'page[0].charts[0].optimum': unknown field 'optimum'"
            ),
            (
                "format: 1\nengine: ref\npage:\n  - family: F\n  - family: F\n",
                "t.yaml:5: error: invalid argument: field 'page[1]': the family F has an entry already, on line 4"
            ),
            (
                "format: 1\nengine: ref\ntargets:\n  - id: a\n    description: d\n    family: F\n    metric: m\n    bound: <= 0\n    not_dominated_by: [cf]\n",
                "t.yaml:9: error: invalid argument: field 'targets[0].not_dominated_by': not_dominated_by needs 'trade_off_with'"
            ),
            (
                "format: 1\nengine: ref\ntargets:\n  - id: a\n    description: d\n    family: F\n    metric: m\n    bound: <= 0\n    trade_off_with: [n]\n",
                "field 'targets[0]': 'trade_off_with' goes with 'not_dominated_by'"
            ),
            (
                "format: 1\nengine: ref\nsummary:\n  - title: t\n    family: F\n    metric: m\n    run: counted\n",
                "t.yaml:7: error: invalid argument: field 'summary[0].run': expected timed or instructions or syscalls"
            ),
            (
                "format: 1\nengine: ref\ntargets:\n  - id: a\n    description: d\n    family: F\n    metric: m\n    bound: <= 0\n    difference_to: epoll\n    ratio_to: cf\n",
                "give at most one of ratio_to, ratio_to_best_of, ratio_to_counter, ratio_to_limit, difference_to, not_dominated_by"
            ),
        ]
        for (text, message) in cases {
            #expect(throws: InputError.self) { try TargetsFile.parse(text, file: "t.yaml") }
            do {
                _ = try TargetsFile.parse(text, file: "t.yaml")
            } catch {
                #expect("\(error)".contains(message), "\(error)")
            }
        }
    }

    /// A file of `runloop bench --instructions --family scale`: every engine's count per item, marked untimed.
    static func instructionCounts(_ counts: [String: [String: Int]]) -> String {
        var lines = [
            "# label: kvm-2cpu-instructions", "# profile: callgrind (family scale)", "# filter: family scale",
            "# timing: none", "# exact_metrics: instructions_per_item",
            "name,iterations,real_time,cpu_time,time_unit,instructions_per_item",
        ]
        for (engine, items) in counts.sorted(by: { $0.key < $1.key }) {
            for (item, count) in items.sorted(by: { $0.key < $1.key }) {
                let name =
                    item == "timer-random"
                    ? "BM_Scale/engine:\(engine)/item:timer/n:10000/order:random"
                    : "BM_Scale/engine:\(engine)/item:\(item)/n:10000"
                lines.append("\"\(name)\",20000,,,,\(count)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func instructionCountsAreJudgedOnlyByTheInstructionTargets() throws {
        let targets = try TargetsFile.load(
            path: repositoryRoot.appendingPathComponent("Benchmarks/targets.yaml").path)
        var counts: [String: [String: Int]] = [
            "ref": ["source": 1100, "timer": 1900, "timer-random": 1500, "observer": 1000]
        ]
        for peer in ["libuv", "glib", "libevent", "dispatch", "nio"] {
            counts[peer] = ["source": 700, "timer": 1600, "timer-random": 1200]
        }
        counts["libuv"]?["observer"] = 834
        counts["glib"]?["observer"] = 2000
        let file = try ResultsReader.parse(text: Self.instructionCounts(counts), file: "counts.csv")
        let report = BenchReport(file: file, targets: targets)
        #expect(report.targets.map(\.target.id) == ["scale.instructions.peers", "scale.instructions.observer.peers"])
        #expect(report.tables.allSatisfy { $0.table.run == .instructions })
        #expect(report.pages.isEmpty)
        let peers = try #require(report.targets.first)
        // source 1100 / 700 = 1.57x misses; timer 1900 / 1600 = 1.19x and 1500 / 1200 = 1.25x meet.
        #expect(peers.outcomes.map(\.status) == [.missed, .met, .met])
        #expect(report.targets.last?.status == .met)  // 1000 / 834 = 1.20x
        // Without every peer counted the peers' target is not measured, never met.
        counts["nio"] = nil
        let partial = try ResultsReader.parse(text: Self.instructionCounts(counts), file: "partial.csv")
        #expect(BenchReport(file: partial, targets: targets).targets.first?.status == .notMeasured)
        // A timed run is never judged by an instruction target.
        let timed = try Self.report()
        #expect(!timed.targets.contains { $0.target.run == .instructions })
        #expect(!timed.tables.contains { $0.table.run == .instructions })
    }

    /// A file of `runloop bench --syscalls`: system calls per round trip by variant and engine, marked untimed.
    static func syscallCounts(_ counts: [String: [String: Double]]) -> String {
        var lines = [
            "# label: kvm-2cpu-syscalls", "# profile: perf (system calls per wake-up round trip)",
            "# filter: family wake", "# timing: none",
            "name,iterations,real_time,cpu_time,time_unit,write_per_round_trip,syscalls_per_round_trip",
        ]
        for (engine, variants) in counts.sorted(by: { $0.key < $1.key }) {
            for (variant, count) in variants.sorted(by: { $0.key < $1.key }) {
                lines.append("\"BM_WakeLatency/engine:\(engine)/\(variant)\",20000,,,,1.000,\(count)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func syscallCountsFillOnlyTheSyscallTables() throws {
        let targets = try TargetsFile.load(
            path: repositoryRoot.appendingPathComponent("Benchmarks/targets.yaml").path)
        let counts: [String: [String: Double]] = [
            "ref": ["pin:same/load:none": 4.5, "pin:diff/load:none": 5],
            "epoll": ["pin:same/load:none": 4, "pin:diff/load:none": 4.25],
        ]
        let file = try ResultsReader.parse(text: Self.syscallCounts(counts), file: "syscalls.csv")
        #expect(RunMeasure(file) == .syscalls)
        let report = BenchReport(file: file, targets: targets)
        #expect(!report.tables.isEmpty)
        #expect(report.tables.allSatisfy { $0.table.run == .syscalls })
        #expect(report.targets.isEmpty && report.pages.isEmpty)
        let table = try #require(report.tables.first)
        #expect(Set(table.engines) == ["epoll", "ref"])
        let sameNone = try #require(table.rows.first { $0.variant == "pin:same/load:none" })
        let ref = try #require(table.engines.firstIndex(of: "ref"))
        guard case .values(let values) = sameNone.cells[ref] else {
            Issue.record("ref's cell has no value")
            return
        }
        #expect(values == [4.5])
        // An instruction count is not a syscalls file, nor the reverse.
        let instructions = try ResultsReader.parse(
            text: Self.instructionCounts(["ref": ["source": 1]]), file: "counts.csv")
        #expect(RunMeasure(instructions) == .instructions)
        #expect(!(try Self.report()).tables.contains { $0.table.run == .syscalls })
    }

    @Test func theToolExitsTwoOnABrokenCSVAndZeroWithMissedTargets() throws {
        let targets = repositoryRoot.appendingPathComponent("Benchmarks/targets.yaml").path
        let good = try Fixtures.write(Self.results())
        let fine = ReportTool.run(ReportOptions(file: good, targetsPath: targets))
        #expect(fine.exitCode == 0 && fine.output.contains("MISSED"))
        let broken = try Fixtures.write(String(Self.results().prefix(900)) + "\n\"BM_X\",1\n")
        let outcome = ReportTool.run(ReportOptions(file: broken, targetsPath: targets))
        #expect(outcome.exitCode == 2)
        #expect(outcome.diagnostics.first?.contains(broken + ":") == true)
    }

    @Test func thePageIsWellFormedAndDrawsEveryFamily() throws {
        let page = BenchPage.html(try Self.report())
        // The wake-up distribution's modes, and the figure each target uses.
        #expect(page.contains("low 70 % at 3.200 us; high 30 % at 6.000 us"))
        #expect(
            page.contains("mean (the targets&apos; figure) and p99")
                || page.contains("mean (the targets' figure) and p99"))
        let single = ReportTests.benchmarks().map { benchmark -> FixtureBenchmark in
            var one = benchmark
            if one.counters["latency_high_share"] != nil {
                one.counters["latency_low_share"] = Array(repeating: 1, count: 9)
                one.counters["latency_high_share"] = Array(repeating: 0, count: 9)
                one.counters["latency_high_p50_ns"] = Array(repeating: 0, count: 9)
            }
            return one
        }
        #expect(BenchPage.html(try Self.report(single)).contains("one mode at 3.200 us"))
        #expect(
            page.contains("median over repetitions of latency_mean_ns, divided by epoll&apos;s")
                || page.contains("median over repetitions of latency_mean_ns, divided by epoll's"))
        #expect(xmlProblem(page) == nil, "\(xmlProblem(page) ?? "")")
        for family in [
            "BM_WakeLatency", "BM_ObserverDispatch", "BM_TimerCoalescing", "BM_ResidentThroughput",
            "BM_LagMonitor",
        ] {
            #expect(page.contains("<h3 id=\"\(family)\">"))
        }
        #expect(page.contains("optimum"))  // the dashed optimum of the coalescing chart
        #expect(page.contains("target &lt;= 80 ms"))  // the lag monitor's bound drawn on its chart
        #expect(page.contains("fixture &lt;&amp;&gt;"))
        #expect(!page.contains("<script"))
        #expect(!page.contains("src=") && !page.contains("href=\"http"))  // nothing loaded from anywhere
        let smoke = BenchPage.html(try Self.report(profile: "smoke"))
        #expect(xmlProblem(smoke) == nil)
    }

    @Test func thePageOfTheCheckedInResultsIsWellFormed() throws {
        let directory = repositoryRoot.appendingPathComponent("results")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".csv") }
        #expect(!files.isEmpty)
        for name in files {
            let file = try ResultsReader.read(path: directory.appendingPathComponent(name).path)
            let page = BenchPage.html(BenchReport(file: file, targets: try Self.targets()))
            #expect(xmlProblem(page) == nil, "\(name): \(xmlProblem(page) ?? "")")
        }
    }

    @Test func escapingMakesAnyTextWellFormed() {
        let nasty = "a<b>&c\"d'e\u{0}\u{1}\u{1B}[K\u{FFFE}"
        let document = "<r a=\"\(Markup.escape(nasty))\">\(Markup.escape(nasty))</r>"
        #expect(xmlProblem(document) == nil)
        #expect(Markup.escape("<&>") == "&lt;&amp;&gt;")
    }
}
