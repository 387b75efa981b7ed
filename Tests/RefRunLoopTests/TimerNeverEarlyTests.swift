// The reference loop never fires a timer before its fire date (a timer fires within [fire date, fire date +
// tolerance]: RefRunLoopTimer.tolerance). CF on Linux does, preempted between its two clock reads (a finding of the
// benchmarks, journal/2026-11-21-first-baseline.md); this is where ref's guarantee is checked, deterministically:
// every fire is compared with its date on the loop's own clock, whatever the scheduling.

import Foundation
import Testing

@testable import RefRunLoop

/// One timer's plan: the date it must not fire before, in CLOCK_MONOTONIC nanoseconds, and how many fires are left.
/// Touched on the loop's thread only (creation happens there too).
private final class Plan: @unchecked Sendable {
    var due: UInt64
    var remaining: Int
    let interval: UInt64
    init(due: UInt64, remaining: Int, interval: UInt64) {
        self.due = due
        self.remaining = remaining
        self.interval = interval
    }
}

/// 400 timers: one-shot and repeating, without and with tolerance, dated from 5 ms in the past to 45 ms ahead, 125 us
/// apart (so tolerance windows overlap and the loop coalesces). Repeating timers are re-dated from their own callout
/// (date + interval, phase kept), as the benchmark harness does, and fire 5 times. Each callout reads the loop's clock
/// (RefClock.nanoseconds, CLOCK_MONOTONIC) and checks it against the date in nanoseconds; the loop converts a date in
/// seconds back to nanoseconds rounding up (RefClock.nanoseconds(fromSeconds:)), so the check is exact.
@Test func noTimerFiresBeforeItsFireDateWithOrWithoutTolerance() {
    let count = 400
    let repeats = 5
    let (early, fired, expected, result) = onFreshLoopThread { loop -> ([String], Int, Int, RefRunLoopResult) in
        let early = Recorder<String>()
        let fires = Counter()
        let expected = count / 2 + count / 2 * repeats  // half one-shot, half repeating
        let start = RefClock.nanoseconds
        for index in 0..<count {
            let repeating = index % 4 >= 2
            let tolerant = index % 2 == 1
            let due = start - 5_000_000 + UInt64(index) * 125_000
            let interval: UInt64 = repeating ? 1_000_000 + UInt64(index % 7) * 100_000 : 0
            let plan = Plan(due: due, remaining: repeating ? repeats : 1, interval: interval)
            let timer = RefRunLoopTimer(fireDate: Double(due) / 1e9, interval: Double(interval) / 1e9) { timer in
                let now = RefClock.nanoseconds
                if now < plan.due {
                    early.append(
                        "timer \(index) (\(repeating ? "repeating" : "one-shot"), tolerance \(tolerant)): "
                            + "fired \(plan.due - now) ns before its date")
                }
                fires.increment()
                plan.remaining -= 1
                if plan.remaining == 0 {
                    timer.invalidate()
                } else {
                    plan.due += plan.interval
                    timer.nextFireDate = Double(plan.due) / 1e9
                }
                if fires.current == expected { loop.stop() }
            }
            if tolerant { timer.tolerance = repeating ? Double(interval) / 1e10 : 0.005 }
            loop.add(timer, mode: .default)
        }
        // Stopped by the last fire; the limit only turns a timer that never fires into a failure instead of a hang.
        let result = loop.run(mode: .default, seconds: testHangLimit, returnAfterSourceHandled: false)
        return (early.all, fires.current, expected, result)
    }
    #expect(result == .stopped, "the run ended with \(result) after \(fired) of \(expected) fires")
    #expect(fired == expected)
    #expect(early.count == 0, "\(early.count) early fires:\n\(early.prefix(10).joined(separator: "\n"))")
}
