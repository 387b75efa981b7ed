// Which node stands for a timer in a mode's timer queue (RefRunLoop.swift, joinLocked): in the first mode that holds
// it the timer is its own entry, so a timer in one mode (almost every timer) costs no allocation when added; only in
// a further mode, while its own place is taken, does a shadow node stand for it. No CF behaviour shows which node
// the queue holds (the timer fires the same either way), so no spec case can check it; the test reads the timer's
// entries under the loop's lock. Timers far in the future: none fires, nothing waits.

import Testing

@testable import RefRunLoop

@Test func aTimerIsItsOwnQueueEntryInItsFirstModeAndAShadowOnlyInAFurtherOne() {
    onFreshLoopThread { loop in
        let timer = RefRunLoopTimer(fireDate: RefClock.now + 1000) { _ in }
        defer { timer.invalidate() }
        /// For each mode holding the timer, in the order it joined: whether its queue entry is the timer itself.
        func entriesAreTheTimer() -> [Bool] {
            loop.lock.withLock { timer.state.withLocked { state in state.entries.map { $0.node === timer } } }
        }

        loop.add(timer, mode: .default)
        #expect(entriesAreTheTimer() == [true], "the first mode's queue holds a shadow, not the timer")
        #expect(loop.lock.withLock { timer.isQueued }, "the timer is in no queue after its first add")

        loop.add(timer, mode: .named("other"))
        #expect(entriesAreTheTimer() == [true, false], "a further mode's entry is not a shadow")
    }
}
