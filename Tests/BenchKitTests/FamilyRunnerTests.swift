// The family strategies against a harness stand-in (no benchmark runs): which processes run in which order, what a
// hang, a crash or a hung engine leaves in the rows, and the merge of those rows.
import Foundation
import ResultsKit
import Testing

@testable import BenchKit

/// SplitMix64: a seeded generator, so that an order drawn in a test is the same every time.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A harness stand-in: runs the selected benchmarks in the plan's order; a benchmark whose engine is in `hanging`
/// hangs (the watchdog's CSV: the rows so far and an error row, exit 3); one named in `crashing` crashes the process
/// (no CSV, exit 134).
final class FakeHarness: @unchecked Sendable {
    let benchmarks: [String]
    let hanging: Set<String>
    let crashing: Set<String>
    /// The benchmarks each process was asked for (their base names), in order.
    var processes: [[String]] = []

    init(benchmarks: [String], hanging: Set<String> = [], crashing: Set<String> = []) {
        self.benchmarks = benchmarks
        self.hanging = hanging
        self.crashing = crashing
    }

    func invoke(_ invocation: HarnessInvocation) -> ChildEnd {
        let filters = invocation.arguments.filter { $0.hasPrefix("--benchmark_filter=") }
        let pattern = filters.last.map { String($0.dropFirst("--benchmark_filter=".count)) }
        let regex = pattern.flatMap { try? NSRegularExpression(pattern: $0) }
        let selected = benchmarks.filter { name in
            guard let regex else { return true }
            return regex.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
        }
        let repetitions =
            invocation.arguments.first { $0.hasPrefix("--benchmark_repetitions=") }
            .flatMap { Int($0.dropFirst("--benchmark_repetitions=".count)) } ?? 1
        processes.append(selected.map(BenchmarkName.base))
        var lines = [ResultsMerge.header(counters: ["c"])]
        for name in selected {
            if crashing.contains(BenchmarkName.base(name)) { return .exited(134) }
            if let engine = BenchmarkName.engine(name), hanging.contains(engine) {
                lines.append("\"\(BenchmarkName.base(name))\",,,,,,,,true,\"error: no result after 2 s\"")
                write(lines, invocation.csv)
                return .exited(3)
            }
            for _ in 0..<repetitions { lines.append("\"\(name)\",10,1.5,1.5,ns,,,,,,7") }
        }
        write(lines, invocation.csv)
        return .exited(0)
    }

    func write(_ lines: [String], _ path: String) {
        try? (lines.map { $0 + "\n" }.joined()).write(toFile: path, atomically: true, encoding: .utf8)
    }
}

@Suite struct FamilyRunnerTests {
    static func work() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bench-kit-tests-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func runner(_ plan: FamilyPlan, _ fake: FakeHarness, work: String, lines: Output) -> FamilyRunner {
        FamilyRunner(
            plan: plan, common: ["--rl_profile=smoke"], selection: [], limit: 300, work: work,
            invoke: fake.invoke, progress: Progress(terminal: false, write: { lines.text += $0 }),
            interruption: nil)
    }

    final class Output: @unchecked Sendable {
        var text = ""
    }

    static func plan(_ benchmarks: [String], repetitions: Int, isolated: Bool) -> FamilyPlan {
        FamilyPlan(
            index: 1, count: 6, family: HarnessFamily(name: "observers", title: "observer dispatch"),
            benchmarks: benchmarks, repetitions: repetitions, isolated: isolated)
    }

    @Test func roundsAreSeededPermutations() {
        let names = (0..<8).map { "BM_S/engine:ref/n:\($0)" }
        let plan = Self.plan(names, repetitions: 5, isolated: true)
        var first = SeededGenerator(state: 42)
        var second = SeededGenerator(state: 42)
        var other = SeededGenerator(state: 7)
        let rounds = plan.rounds(using: &first)
        #expect(rounds.count == 5)
        for round in rounds { #expect(round.sorted() == names.sorted()) }
        #expect(rounds == plan.rounds(using: &second))
        #expect(rounds != plan.rounds(using: &other))
        // A new random order per round, not one order five times.
        #expect(Set(rounds).count > 1)
    }

    @Test func groupedRerunsWhatAHangLeftAndSkipsAnEngineThatHungTwice() throws {
        let names = [
            "BM_O/engine:epoll/observers:0", "BM_O/engine:ref/observers:0", "BM_O/engine:epoll/observers:8",
            "BM_O/engine:ref/observers:8", "BM_O/engine:epoll/observers:64", "BM_O/engine:ref/observers:64",
        ]
        let fake = FakeHarness(benchmarks: names, hanging: ["epoll"])
        let lines = Output()
        var generator = SeededGenerator(state: 1)
        let outcome = Self.runner(
            Self.plan(names, repetitions: 1, isolated: false), fake, work: try Self.work(),
            lines: lines
        ).run(using: &generator)
        // Everything (epoll's first hangs at once), then all but that one (ref's first runs, epoll's second hangs),
        // then ref's other two: epoll's third is skipped.
        #expect(fake.processes.count == 3)
        #expect(fake.processes[0].count == 6)
        #expect(fake.processes[1] == Array(names.dropFirst()))
        #expect(fake.processes[2] == ["BM_O/engine:ref/observers:8", "BM_O/engine:ref/observers:64"])
        #expect(outcome.count(.measured) == 3)
        #expect(outcome.count(.error) == 2)
        #expect(outcome.count(.skipped) == 1)
        let skipped = outcome.parts.flatMap(\.rows).filter { $0.status == .skipped }
        #expect(skipped.map(\.name) == ["BM_O/engine:epoll/observers:64"])
        #expect(skipped.first?.message == HangBook.skipMessage)
        #expect(outcome.failed)
        #expect(lines.text.contains("bench: [2/6] observer dispatch: engine epoll hung twice"))
        #expect(lines.text.contains("running the 5 benchmarks not yet done"))
    }

    @Test func groupedCrashGetsTheFamilysErrorRow() throws {
        let names = ["BM_O/engine:ref/observers:0", "BM_O/engine:ref/observers:8"]
        let fake = FakeHarness(benchmarks: names, crashing: ["BM_O/engine:ref/observers:8"])
        var generator = SeededGenerator(state: 1)
        let outcome = Self.runner(
            Self.plan(names, repetitions: 5, isolated: false), fake, work: try Self.work(),
            lines: Output()
        ).run(using: &generator)
        let errors = outcome.parts.flatMap(\.rows).filter { $0.status == .error }
        #expect(errors.map(\.name) == ["harness/family:observers"])
        #expect(errors.first?.message == "error: the harness exited with status 134")
        #expect(outcome.failed)
    }

    @Test func isolatedRunsEachRepetitionAloneAndBoundsAHungEngine() throws {
        let names = [
            "BM_S/engine:ref/n:100/real_time", "BM_S/engine:epoll/n:100/real_time",
            "BM_S/engine:epoll/n:1000/real_time", "BM_S/engine:epoll/n:10000/real_time",
            "BM_S/engine:libuv/n:100/real_time",
        ]
        let fake = FakeHarness(benchmarks: names, hanging: ["epoll"], crashing: ["BM_S/engine:libuv/n:100"])
        var generator = SeededGenerator(state: 3)
        let plan = Self.plan(names, repetitions: 3, isolated: true)
        let outcome = Self.runner(plan, fake, work: try Self.work(), lines: Output()).run(using: &generator)
        // One benchmark per process; epoll's two hangs, then none of its benchmarks again.
        #expect(fake.processes.allSatisfy { $0.count == 1 })
        let epollProcesses = fake.processes.filter { $0.first!.contains("engine:epoll") }
        #expect(epollProcesses.count == 2)
        #expect(fake.processes.filter { $0 == ["BM_S/engine:ref/n:100"] }.count == 3)
        #expect(outcome.count(.measured) == 3)
        // Two hangs and three crashes of libuv (an error row each, named as listed); epoll's third benchmark skipped
        // once.
        let rows = outcome.parts.flatMap(\.rows)
        #expect(rows.filter { $0.message.hasPrefix("error: no result after") }.count == 2)
        #expect(rows.filter { $0.name == "BM_S/engine:libuv/n:100/real_time" && $0.status == .error }.count == 3)
        #expect(rows.filter { $0.status == .skipped }.count == 1)
        #expect(outcome.failed)
    }

    @Test func theMergeOfMeasuredSkipAndErrorRowsReadsAsResults() throws {
        let names = [
            "BM_O/engine:epoll/observers:0", "BM_O/engine:epoll/observers:8", "BM_O/engine:epoll/observers:9",
            "BM_O/engine:ref/observers:0",
        ]
        let fake = FakeHarness(benchmarks: names, hanging: ["epoll"])
        var generator = SeededGenerator(state: 1)
        let work = try Self.work()
        let outcome = Self.runner(
            Self.plan(names, repetitions: 2, isolated: false), fake, work: work,
            lines: Output()
        ).run(using: &generator)
        let merged =
            RunContext.closingLines(seconds: 5, loadAverage: "0.1 0.2 0.3", interruptedAfter: nil)
            .map { $0 + "\n" }.joined() + ResultsMerge.merge(outcome.parts)
        let path = work + "/merged.csv"
        try merged.write(toFile: path, atomically: true, encoding: .utf8)
        let file = try ResultsReader.read(path: path)
        #expect(file.erroredRows.count == 3)
        #expect(file.erroredRows.map(\.message).filter { $0.hasPrefix("skipped: engine hung twice") }.count == 1)
        #expect(file.rows.filter { $0.kind == .repetition }.count == 2)
        #expect(file.contextValue("duration_s") == "5")
    }
}
