// Benchmark names, the hang bookkeeping and the progress line.
import Foundation
import Testing

@testable import BenchKit

@Suite struct NameTests {
    @Test func baseNames() {
        #expect(
            BenchmarkName.base("BM_Scale/engine:ref/item:source/n:100/real_time")
                == "BM_Scale/engine:ref/item:source/n:100")
        #expect(
            BenchmarkName.base("BM_WakeLatency/engine:cf/pin:same/manual_time_median")
                == "BM_WakeLatency/engine:cf/pin:same")
        #expect(
            BenchmarkName.base(
                "BM_TimerCoalescing/engine:ref/timers:100/tolerance:0pct/burn:no/iterations:1/"
                    + "manual_time")
                == "BM_TimerCoalescing/engine:ref/timers:100/tolerance:0pct/burn:no")
        #expect(BenchmarkName.base("harness/family:wake") == "harness/family:wake")
    }

    @Test func engines() {
        #expect(BenchmarkName.engine("BM_Scale/engine:libuv/item:timer/n:100") == "libuv")
        #expect(BenchmarkName.engine("BM_X/engine:cf:Foundation/y:1") == "cf:Foundation")
        #expect(BenchmarkName.engine("BM_Limits/handoff:spin/pin:same") == nil)
        #expect(BenchmarkName.engine("harness/family:wake") == nil)
    }

    @Test func theRestFilter() {
        #expect(
            BenchmarkName.filter(selecting: ["BM_A/engine:ref", "BM_A/engine:cf"])
                == "^(BM_A/engine:ref|BM_A/engine:cf)(/|$)")
    }
}

@Suite struct HangBookTests {
    @Test func twoHangsOfOneEngineSkipTheRest() {
        var book = HangBook()
        #expect(book.note("BM_O/engine:epoll/observers:0") == nil)
        #expect(!book.hasHung("BM_O/engine:epoll/observers:8"))
        // Another engine's hang counts for that engine only.
        #expect(book.note("BM_O/engine:ref/observers:0") == nil)
        #expect(book.note("BM_O/engine:epoll/observers:1") == "epoll")
        #expect(book.hasHung("BM_O/engine:epoll/observers:64"))
        #expect(!book.hasHung("BM_O/engine:ref/observers:64"))
        // The third says nothing new.
        #expect(book.note("BM_O/engine:epoll/observers:2") == nil)
        #expect(book.hasHung("BM_O/engine:epoll/observers:2"))
        // A hang without an engine (the machine limits) counts against none.
        #expect(book.note("BM_Limits/handoff:spin") == nil)
        #expect(!book.hasHung("BM_Limits/handoff:spin"))
    }
}

@Suite struct ProgressTests {
    final class Output: @unchecked Sendable {
        var text = ""
    }

    /// A clock the test moves.
    final class Clock: @unchecked Sendable {
        var now = Date(timeIntervalSince1970: 1_000_000)
    }

    @Test func plainLinesWithoutATerminal() {
        let output = Output()
        let progress = Progress(terminal: false, write: { output.text += $0 })
        progress.expect(10)
        progress.running("wake")
        progress.line("bench: [1/2] wake: 2 benchmarks x 5 repetitions ...")
        progress.advance(5)
        progress.finish()
        #expect(output.text == "bench: [1/2] wake: 2 benchmarks x 5 repetitions ...\n")
    }

    @Test func aStatusLineRewrittenOnATerminal() {
        let output = Output()
        let clock = Clock()
        let progress = Progress(terminal: true, start: clock.now, now: { clock.now }, write: { output.text += $0 })
        clock.now += 20  // the build
        #expect(progress.status() == "0:20 elapsed")
        progress.expect(4)
        clock.now += 40
        progress.advance(1)
        // The estimate counts from the benchmarks' start, not the run's: 40 s a unit, three left.
        #expect(progress.status() == "1:00 elapsed, 1/4 runs, about 2:00 left")
        progress.line("bench: done")
        progress.finish()
        // Each redraw starts by going back to the line's start and erasing it; the line itself ends with a newline.
        #expect(output.text.contains("\r\u{1B}[Kbench: done\n"))
        #expect(output.text.hasSuffix("\r\u{1B}[K"))
    }

    @Test func clock() {
        #expect(Progress.clock(0) == "0:00")
        #expect(Progress.clock(485) == "8:05")
    }
}
