// `runloop bench --instructions` without valgrind: how a callgrind run's output is read, the figure's arithmetic,
// the benchmarks and filters counted, the options' checks, and the CSV the results reader must take as untimed.
import Foundation
import ResultsKit
import Testing

@testable import BenchKit

@Suite struct InstructionCountTests {
    /// What `valgrind --tool=callgrind runloop-bench ... --rl_iterations=N` prints, for a benchmark that finished.
    static func output(iterations: Int, total: String = "123,456", error: String? = nil) -> String {
        var lines = [
            "==4242== Callgrind, a call-graph generating cache profiler",
            "==4242== Command: /tmp/runloop-bench --rl_engines=ref",
            "BM_Scale/engine:ref/item:source/n:10000/iterations:\(iterations)   1000 ns   990 ns   \(iterations)",
        ]
        if let error { lines.append("BM_Scale/engine:ref/item:source/n:10000 ERROR OCCURRED: '\(error)'") }
        lines += ["==4242== Events    : Ir", "==4242== Collected : \(total.replacingOccurrences(of: ",", with: ""))"]
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func aFinishedRunGivesItsTotal() {
        #expect(CallgrindCount.read(Self.output(iterations: 2), iterations: 2) == .collected(123_456))
    }

    @Test func theLastTotalCounts() {
        let text = "==1== Collected : 5\n" + Self.output(iterations: 2, total: "99")
        #expect(CallgrindCount.read(text, iterations: 2) == .collected(99))
    }

    @Test func aSkipIsNoFailure() {
        let text = Self.output(iterations: 2, error: "skipped: libevent has no observers")
        #expect(CallgrindCount.read(text, iterations: 2) == .skipped("libevent has no observers"))
    }

    @Test func anErrorRowAWrongIterationCountOrNoTotalGiveNoCount() {
        guard case .missing(let error) = CallgrindCount.read(Self.output(iterations: 2, error: "hung"), iterations: 2)
        else {
            Issue.record("an error row was counted")
            return
        }
        #expect(error.contains("ERROR OCCURRED: 'hung'"))
        guard case .missing(let unfinished) = CallgrindCount.read(Self.output(iterations: 2), iterations: 4) else {
            Issue.record("a run of other iterations was counted")
            return
        }
        #expect(unfinished.contains("no result line for 4 iterations"))
        let noTotal = Self.output(iterations: 2).replacingOccurrences(of: "Collected", with: "Elapsed")
        #expect(CallgrindCount.read(noTotal, iterations: 2) == .missing("callgrind printed no 'Collected' total"))
    }

    @Test func theFigureIsTheDifferencePerUnit() {
        #expect(instructionsPerUnit(short: 1_000_000, long: 3_000_000, iterations: 2, unitsPerIteration: 10_000) == 100)
        #expect(instructionsPerUnit(short: 500, long: 4_500, iterations: 4000, unitsPerIteration: 1) == 1)
        #expect(instructionsPerUnit(short: 3, long: 2, iterations: 1, unitsPerIteration: 1) == nil)
        // The wake family's figure is the nearest whole number: a round trip of 400 instructions whose longer run
        // happened to start 200 instructions cheaper is still 400, and one 200 dearer too.
        #expect(instructionsPerUnit(short: 1_000_200, long: 2_600_000, iterations: 4000, unitsPerIteration: 1) == 399)
        #expect(
            instructionsPerUnit(
                short: 1_000_200, long: 2_600_000, iterations: 4000, unitsPerIteration: 1, nearest: true)
                == 400)
        #expect(
            instructionsPerUnit(
                short: 1_000_000, long: 2_600_200, iterations: 4000, unitsPerIteration: 1, nearest: true)
                == 400)
        #expect(
            instructionsPerUnit(short: 0, long: 4_002_000, iterations: 4000, unitsPerIteration: 1, nearest: true)
                == 1001)
        #expect(InstructionFamily.wake.roundsToNearest && !InstructionFamily.scale.roundsToNearest)
        // The wake family's totals hold only the timed round trips: no symbol is looked up in one run and not another.
        #expect(InstructionFamily.wake.environment == ["LD_BIND_NOW": "1"])
        #expect(InstructionFamily.scale.environment == nil)
    }

    @Test func anExactFamilyRepeatsTheShorterRunAndAgreesWithinOneInstructionPerUnit() {
        #expect(InstructionFamily.scale.runIterations(short: 2) == [2, 4, 2])
        // One varied count of an engine makes all of that engine's not exact; other engines keep theirs.
        var counting = InstructionOptions()
        counting.family = .scale
        let judged = InstructionFigure.withEnginesJudged(
            CountedBenchmark.all(engine: "nio", options: counting).enumerated().map {
                InstructionFigure(benchmark: $0.element, perUnit: 700, repeatDifference: $0.offset == 1 ? 500 : nil)
            }
                + CountedBenchmark.all(engine: "ref", options: counting).map {
                    InstructionFigure(benchmark: $0, perUnit: 900)
                })
        #expect(judged.filter(\.isInexact).map(\.benchmark.engine) == ["nio", "nio", "nio", "nio"])
        #expect(judged.filter(\.engineVaried).count == 4)
        let table = InstructionText.table(judged, family: .scale)
        #expect(table.contains("700  -  not exact: another count of this engine was not\n"))
        #expect(table.contains("700  -  not exact: the repeated run differed by 500 per unit\n"))
        #expect(InstructionFamily.wake.runIterations(short: 4000) == [4000, 8000, 4000])
        // 2 iterations of 10,000 items: totals within 19,999 of each other give the same figure.
        #expect(repeatAgrees(first: 5_000_000, repeated: 5_000_000, iterations: 2, unitsPerIteration: 10_000))
        #expect(repeatAgrees(first: 5_000_000, repeated: 5_019_999, iterations: 2, unitsPerIteration: 10_000))
        #expect(!repeatAgrees(first: 5_000_000, repeated: 5_020_000, iterations: 2, unitsPerIteration: 10_000))
        #expect(!repeatAgrees(first: 5_020_000, repeated: 5_000_000, iterations: 2, unitsPerIteration: 10_000))
        #expect(
            repeatDifferencePerUnit(first: 5_000_000, repeated: 5_020_001, iterations: 2, unitsPerIteration: 10_000)
                == 2)
        #expect(
            repeatDifferencePerUnit(first: 9_000_000, repeated: 5_000_000, iterations: 2, unitsPerIteration: 10_000)
                == 200)
    }

    @Test func theScaleFamilyCountsFourItemsWithEscapedFilters() {
        var options = InstructionOptions()
        options.family = .scale
        let counted = CountedBenchmark.all(engine: "cf:/a/lib.so", options: options)
        #expect(counted.map(\.item) == ["source", "timer", "timer-random", "observer"])
        #expect(counted[2].name == "BM_Scale/engine:cf:/a/lib.so/item:timer/n:10000/order:random")
        #expect(counted[0].filter == #"^BM_Scale\/engine:cf:\/a\/lib\.so\/item:source\/n:10000\/iterations:"#)
        #expect(counted.allSatisfy { $0.unitsPerIteration == 10_000 })
    }

    @Test func theWakeFamilyCountsEachPathOfTheRoundTripAtItsLoad() throws {
        var options = InstructionOptions()
        options.givenLoad = "idle1000"
        let counted = CountedBenchmark.all(engine: "cf:/a/lib.so", options: options)
        #expect(
            counted.map(\.name) == [
                "BM_WakePath/engine:cf:/a/lib.so/load:idle1000/path:awake",
                "BM_WakePath/engine:cf:/a/lib.so/load:idle1000/path:asleep",
            ])
        #expect(counted.map(\.item) == ["awake", "asleep"])
        #expect(counted.allSatisfy { $0.unitsPerIteration == 1 })
        let awake = try Regex(counted[0].filter)
        #expect("BM_WakePath/engine:cf:/a/lib.so/load:idle1000/path:awake/iterations:4000/real_time".contains(awake))
        #expect(!"BM_WakePath/engine:cf:/a/lib.so/load:idle1000/path:asleep/iterations:4000".contains(awake))
        #expect(!"BM_WakePath/engine:cf:/a/lib.so/load:none/path:awake/iterations:4000".contains(awake))
        #expect(!"BM_WakeLatency/engine:cf:/a/lib.so/pin:same/load:idle1000/iterations:4000".contains(awake))
    }

    @Test func anotherIterationCountIsAProfileOfItsOwn() {
        var options = InstructionOptions()
        options.family = .scale
        #expect(options.profileName == "callgrind")
        options.iterations = 2
        #expect(options.profileName == "callgrind")
        options.iterations = 3
        #expect(options.profileName == "callgrind-3")
        #expect(InstructionText.profileValue(options).hasPrefix("callgrind-3 (family scale: 3 and 6 iterations"))
    }

    static func rejection(_ change: (inout BenchOptions) -> Void) -> BenchInputError? {
        OptionTests.error(change)
    }

    @Test func theCountsOptionsAreCheckedAsBadInput() {
        #expect(Self.rejection { $0.counting.givenLoad = "none" }?.field == "--load")
        #expect(
            Self.rejection { $0.counting.iterations = 3 }?.description
                == "bench: --iterations: only with --instructions or --syscalls")
        let counting: (inout BenchOptions) -> Void = { $0.countInstructions = true }
        #expect(Self.rejection(counting) == nil)
        #expect(
            Self.rejection {
                counting(&$0)
                $0.families = ["scale"]
            } == nil)
        #expect(
            Self.rejection {
                counting(&$0)
                $0.families = ["coalescing"]
            }?.field == "--family")
        #expect(
            Self.rejection {
                counting(&$0)
                $0.families = ["wake", "scale"]
            }?.field == "--family")
        #expect(
            Self.rejection {
                counting(&$0)
                $0.profile = .full
            }?.field == "--quick, --full or --smoke")
        #expect(
            Self.rejection {
                counting(&$0)
                $0.filter = "BM_"
            }?.field == "--filter")
        #expect(
            Self.rejection {
                counting(&$0)
                $0.repetitions = 9
            }?.field == "--repetitions")
        #expect(
            Self.rejection {
                counting(&$0)
                $0.counting.givenLoad = "idle5"
            }?.field == "--load")
        #expect(
            Self.rejection {
                counting(&$0)
                $0.families = ["scale"]
                $0.counting.givenLoad = "idle1000"
            }?.detail
                == "only for the wake family")
        #expect(
            Self.rejection {
                counting(&$0)
                $0.counting.iterations = 0
            }?.field == "--iterations")
        #expect(
            Self.rejection {
                counting(&$0)
                $0.counting.tree = "/nonexistent"
            }?.field == "--tree")
        #expect(
            Self.rejection {
                counting(&$0)
                $0.counting.tree = "/nonexistent"
                $0.harness = "/bin/true"
            }?.detail
                == "not with --harness (--tree builds that checkout's harness)")
    }

    @Test func theCSVIsReadAsUntimedExactCounts() throws {
        var options = BenchOptions()
        options.countInstructions = true
        options.families = ["scale"]
        options.arguments = ["--instructions", "--family", "scale"]
        var counting = InstructionOptions()
        counting.family = .scale
        // The timer's repeated run differed: listed as not exact.
        let figures = CountedBenchmark.all(engine: "ref", options: counting).enumerated().map {
            InstructionFigure(
                benchmark: $0.element, perUnit: 1000 + $0.offset, repeatDifference: $0.offset == 1 ? 317 : nil)
        }
        let context = RunContext.instructionLines(
            options: options, instructions: counting, label: "kvm-2cpu-instructions",
            date: Date(timeIntervalSince1970: 1_764_260_562), facts: ContextTests.facts,
            valgrind: "valgrind-3.19.0", describe: ["# engine_ref: RefRunLoop"],
            inexact: figures.filter(\.isInexact).map(\.benchmark.name))
        #expect(context.contains("# command: runloop bench --instructions --family scale"))
        #expect(context.contains("# timing: none"))
        #expect(context.contains("# exact_metrics: instructions_per_item"))
        #expect(context.contains("# inexact: BM_Scale/engine:ref/item:timer/n:10000"))
        let closing = RunContext.closingLines(seconds: 60, loadAverage: "1 1 1", interruptedAfter: nil)
        let text = (context + closing + InstructionText.rows(figures, options: counting)).joined(separator: "\n")
        let file = try ResultsReader.parse(text: text, file: "counts.csv")
        #expect(file.isUntimed)
        #expect(file.exactMetrics == ["instructions_per_item"])
        #expect(file.inexactBenchmarks == ["BM_Scale/engine:ref/item:timer/n:10000"])
        #expect(file.rows.count == 4)
        #expect(file.rows.first?.benchmark == "BM_Scale/engine:ref/item:source/n:10000")
        #expect(file.rows.first?.counters["instructions_per_item"] == 1000)
        #expect(file.rows.last?.counters["instructions_per_item"] == 1003)
        var wake = InstructionOptions()
        wake.family = .wake
        let wakeContext = RunContext.instructionLines(
            options: BenchOptions(), instructions: wake, label: "x", date: Date(), facts: ContextTests.facts,
            valgrind: "valgrind-3.19.0", describe: [])
        #expect(wakeContext.contains("# timing: none"))
        #expect(wakeContext.contains("# exact_metrics: instructions_per_round_trip"))
        #expect(wakeContext.contains { $0.hasPrefix("# profile: callgrind (family wake: 4000 and 8000 iterations") })
        let table = InstructionText.table(figures, family: .scale)
        #expect(table.contains("ref                      timer-random            1,002  -\n"))
        #expect(table.contains("1,001  -  not exact: the repeated run differed by 317 per unit\n"))
    }
}

@Suite struct CountingErrorRowTests {
    @Test func aBenchmarkThatWasNotCountedIsAnErrorRowTheReaderKeeps() throws {
        let rows = [
            "name,iterations,real_time,cpu_time,time_unit,instructions_per_item",
            "\"BM_Scale/engine:ref/item:source/n:10000\",20000,,,,1047",
        ]
        let written = ResultsMerge.withErrorRows(
            rows, errors: [("BM_Scale/engine:cf/item:observer/n:10000", "did not finish, \"watchdog\"")])
        #expect(written.count == 3)
        let text = (["# timing: none", "# exact_metrics: instructions_per_item"] + written).joined(separator: "\n")
        let file = try ResultsReader.parse(text: text, file: "counts.csv")
        #expect(file.rows.first?.counters["instructions_per_item"] == 1047)
        #expect(file.erroredRows.map(\.benchmark) == ["BM_Scale/engine:cf/item:observer/n:10000"])
        #expect(file.erroredRows.first?.message == "did not finish, \"watchdog\"")
        #expect(ResultsMerge.withErrorRows(rows, errors: []) == rows)
    }
}
