// When a mode's timerfd is re-armed (RefRunLoop+TimerArming.swift, rearmTimerLocked): a move to a later time made on
// the loop's thread is deferred to the loop's next wait in the mode (the timerfd stays armed at the earlier time, so a
// burst of adds and removes costs no system call each), while a move to an earlier time, and any change made from
// another thread, is made at once and leaves nothing pending. No CF behaviour shows when a timerfd is set (a timer
// fires on time either way), so no spec case can check it; the test reads what the mode's set records: the time it
// armed its timerfd at, and whether a re-arming is pending. Timers far in the future: none fires, nothing waits.

import Foundation
import Testing

@testable import RefRunLoop

/// The default mode's timerfd arming: the time it is armed at (nil: disarmed) and whether a later one is pending.
private struct Arming: Equatable, CustomStringConvertible {
    var armedAt: UInt64?
    var pending: Bool

    init(_ loop: RefRunLoop) {
        let set = loop.defaultMode.waitSet
        (armedAt, pending) = loop.lock.withLock { (set.armedDeadline, set.rearmPending.load(ordering: .relaxed)) }
    }

    init(armedAt: UInt64?, pending: Bool) {
        (self.armedAt, self.pending) = (armedAt, pending)
    }

    var description: String {
        "armed at \(armedAt.map(String.init) ?? "none"), \(pending ? "" : "no ")re-arming pending"
    }
}

@Test func aLaterArmingOnTheLoopThreadWaitsForTheNextWaitAndAnEarlierOrForeignOneIsMadeAtOnce() {
    onFreshLoopThread { loop in
        let start = RefClock.now
        let timers = [1000.0, 2000, 500, 3000].map { offset in RefRunLoopTimer(fireDate: start + offset) { _ in } }
        defer { timers.forEach { $0.invalidate() } }
        let (at1000, at2000, at500, at3000) = (timers[0], timers[1], timers[2], timers[3])

        loop.add(at1000, mode: .default)
        let first = Arming(loop)
        #expect(first.armedAt != nil && !first.pending, "the first timer arms the timerfd at once: \(first)")

        // Later (the earliest timer is now the one at 2000 s): deferred, the timerfd still armed for 1000 s.
        loop.add(at2000, mode: .default)
        loop.remove(at1000, mode: .default)
        #expect(Arming(loop) == Arming(armedAt: first.armedAt, pending: true))

        // Earlier (500 s): made at once, and the deferred one is dropped.
        loop.add(at500, mode: .default)
        let earlier = Arming(loop)
        #expect(!earlier.pending, "an earlier arming leaves a re-arming pending: \(earlier)")
        #expect(earlier.armedAt.map { $0 < first.armedAt! } == true, "not armed earlier: \(earlier) after \(first)")

        // Later again (back to 2000 s), deferred; the next wait in the mode (a poll here) makes it.
        loop.remove(at500, mode: .default)
        #expect(Arming(loop) == Arming(armedAt: earlier.armedAt, pending: true))
        _ = loop.run(mode: .default, seconds: 0, returnAfterSourceHandled: false)
        let made = Arming(loop)
        #expect(!made.pending, "the wait left the re-arming pending: \(made)")
        #expect(made.armedAt.map { $0 > first.armedAt! } == true, "not armed for the timer at 2000 s: \(made)")

        // From another thread, a later arming is made at once (the loop may be asleep in the mode).
        let done = DispatchSemaphore(value: 0)
        Thread {
            loop.add(at3000, mode: .default)
            loop.remove(at2000, mode: .default)
            done.signal()
        }.start()
        if done.wait(timeout: .now() + testHangLimit) == .timedOut {
            recordHang("the other thread's changes", sourceLocation: #_sourceLocation)
            return
        }
        let foreign = Arming(loop)
        #expect(!foreign.pending, "another thread's change left a re-arming pending: \(foreign)")
        #expect(foreign.armedAt.map { $0 > made.armedAt! } == true, "not armed for the timer at 3000 s: \(foreign)")
    }
}

// A timer added during another timer's callout, behind the firing timer (the root of the mode's heap) but before every
// other timer, moves the mode's wake-up time earlier: the firing timer does not count for it (rule
// timer.firing-skipped-by-nested-run). The change is not one that leaves the wake-up time alone, though it leaves the
// heap's root in place (TimerQueue.isSettled), so the timerfd is armed for the new timer at once; left at the later
// timer's time, a nested run in the callout would sleep past the new one. The firing timer is due when added: the
// poll fires it; the others are far in the future.
@Test func aTimerAddedBehindAFiringRootButBeforeTheOthersIsArmedAtOnce() {
    onFreshLoopThread { loop in
        let start = RefClock.now
        let far = RefRunLoopTimer(fireDate: start + 2000) { _ in }
        let middle = RefRunLoopTimer(fireDate: start + 1000) { _ in }
        defer { [far, middle].forEach { $0.invalidate() } }
        let seen = Recorder<(before: Arming, after: Arming)>()  // the callout runs on this thread
        let due = RefRunLoopTimer(fireDate: start - 1) { _ in
            let before = Arming(loop)
            loop.add(middle, mode: .default)
            seen.append((before, Arming(loop)))
        }
        defer { due.invalidate() }
        loop.add(far, mode: .default)  // the mode's sorted run
        loop.add(due, mode: .default)  // earlier than the run's last: the heap's root
        for _ in 0..<100 where seen.count == 0 {
            _ = loop.run(mode: .default, seconds: 0.01, returnAfterSourceHandled: false)
        }
        guard let (before, after) = seen.all.first else {
            Issue.record("the due timer did not fire in 100 runs of 10 ms")
            return
        }
        #expect(!after.pending, "the earlier arming was left pending: \(after)")
        #expect(
            after.armedAt.map { time in before.armedAt.map { time < $0 } ?? false } == true,
            "not armed for the timer added in the callout: \(after) after \(before)")
    }
}

// The second timer of a batch of due timers leaves the mode's arming when it starts firing (it does not count for the
// wake-up time while it fires, rule timer.firing-skipped-by-nested-run): the move to the next timer, a later one, is
// deferred to the loop's next wait like any later arming on the loop's thread. Kept at the firing timer's own (past)
// time, a nested run in its callout would wake once for nothing. Both timers are due when added; the third is far in
// the future.
@Test func theSecondTimerOfABatchDefersTheArmingToTheNextTimerWhileItFires() {
    onFreshLoopThread { loop in
        let start = RefClock.now
        let far = RefRunLoopTimer(fireDate: start + 2000) { _ in }
        let seen = Recorder<Arming>()  // the callouts run on this thread
        let first = RefRunLoopTimer(fireDate: start - 2) { _ in }
        let second = RefRunLoopTimer(fireDate: start - 1) { _ in seen.append(Arming(loop)) }
        defer { [far, first, second].forEach { $0.invalidate() } }
        loop.add(far, mode: .default)  // the mode's sorted run
        loop.add(first, mode: .default)  // earlier than the run's last: the heap's root
        loop.add(second, mode: .default)  // behind the root
        for _ in 0..<100 where seen.count == 0 {
            _ = loop.run(mode: .default, seconds: 0.01, returnAfterSourceHandled: false)
        }
        guard let during = seen.all.first else {
            Issue.record("the second due timer did not fire in 100 runs of 10 ms")
            return
        }
        #expect(during.pending, "the move past the firing timer was not deferred: \(during)")
    }
}
