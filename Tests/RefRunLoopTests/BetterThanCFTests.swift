// Where the reference loop does better than CoreFoundation on Linux without breaking the spec: tolerance honoured,
// overlapping timers coalesced into one wake-up, no stale wake-up after the last timer is removed.

import Foundation
import Testing

@testable import RefRunLoop

@Test func overlappingTolerancesShareOneWakeUp() {
    let (wakes, fires) = onFreshLoopThread { loop -> (UInt64, [String]) in
        let fired = Recorder<String>()
        let start = RefClock.now
        let a = RefRunLoopTimer(fireDate: start + 0.05) { _ in fired.append("a \(RefClock.now >= start + 0.05)") }
        let b = RefRunLoopTimer(fireDate: start + 0.07) { _ in fired.append("b \(RefClock.now >= start + 0.07)") }
        a.tolerance = 0.05
        b.tolerance = 0.05
        loop.add(a, mode: .default)
        loop.add(b, mode: .default)
        let before = loop.wakeUpCount
        let result = loop.run(mode: .default, seconds: 10, returnAfterSourceHandled: false)
        #expect(result == .finished)
        return (loop.wakeUpCount - before, fired.all)
    }
    // Both fire in one wake-up, neither early (each callout checks its own fire date).
    #expect(fires == ["a true", "b true"])
    #expect(wakes == 1)
}

@Test func theTimerfdIsArmedAtTheCoalescedWakeUpTime() {
    // The arming decision itself, without depending on how fast this machine runs the loop.
    let (withTolerance, withoutTolerance, base) = onFreshLoopThread { loop -> (UInt64?, UInt64?, UInt64) in
        let start = RefClock.now + 100
        let a = RefRunLoopTimer(fireDate: start) { _ in }
        let b = RefRunLoopTimer(fireDate: start + 0.02) { _ in }
        loop.add(a, mode: .named("plain"))
        loop.add(b, mode: .named("plain"))
        let c = RefRunLoopTimer(fireDate: start) { _ in }
        let d = RefRunLoopTimer(fireDate: start + 0.02) { _ in }
        c.tolerance = 0.05
        loop.add(c, mode: .named("tolerant"))
        loop.add(d, mode: .named("tolerant"))
        return loop.lock.withLock {
            (
                loop.wakeTimeLocked(for: loop.modes["tolerant"]!), loop.wakeTimeLocked(for: loop.modes["plain"]!),
                RefClock.deadline(forFireDate: start)
            )
        }
    }
    // Without tolerance the first timer's date; with it, the second's, which fires both in one wake-up.
    #expect(withoutTolerance.map { $0 >= base && $0 < base + 1_000_000 } == true)
    #expect(withTolerance.map { $0 >= base + 19_000_000 && $0 <= base + 21_000_000 } == true)
}

@Test func toleranceGetterReturnsDarwinsClamp() {
    let repeating = RefRunLoopTimer(fireDate: RefClock.now + 100, interval: 1) { _ in }
    repeating.tolerance = 0.8
    #expect(repeating.tolerance == 0.5)
    let oneShot = RefRunLoopTimer(fireDate: RefClock.now + 100) { _ in }
    oneShot.tolerance = -3
    #expect(oneShot.tolerance == 0)
}

@Test func removingTheLastTimerLeavesNoStaleWakeUp() {
    let (wakes, activities) = onFreshLoopThread { loop -> (UInt64, [String]) in
        let seen = Recorder<String>()
        let keepAlive = RefRunLoopSource(perform: {})
        loop.add(keepAlive, mode: .default)
        let timer = RefRunLoopTimer(fireDate: RefClock.now + 0.02) { _ in seen.append("fired") }
        loop.add(timer, mode: .default)
        let observer = RefRunLoopObserver(activities: [.beforeWaiting, .afterWaiting]) { _, activity in
            seen.append(activity.description)
            // Remove the timer just before the first sleep: CF would keep its timerfd armed and wake for nothing.
            if activity == .beforeWaiting { loop.remove(timer, mode: .default) }
        }
        loop.add(observer, mode: .default)
        let before = loop.wakeUpCount
        let result = loop.run(mode: .default, seconds: 0.1, returnAfterSourceHandled: false)
        #expect(result == .timedOut)
        return (loop.wakeUpCount - before, seen.all)
    }
    // One sleep, ended by the run's timeout only.
    #expect(activities == ["beforeWaiting", "afterWaiting"])
    #expect(wakes == 1)
}

@Test func aWakeUpCostsOneWaitReturn() {
    let wakes = onFreshLoopThread { loop -> UInt64 in
        let source = RefRunLoopSource(perform: {})
        loop.add(source, mode: .default)
        let rounds = 50
        let remaining = Counter()
        let observer = RefRunLoopObserver(activities: .afterWaiting) { _, _ in
            remaining.increment()
            if remaining.current == rounds { loop.stop() }
        }
        loop.add(observer, mode: .default)
        let helper = Thread {
            for round in 0..<rounds {
                // Wait for the loop to sleep, then wake it: each round trip is one wait return.
                let slept = waitUntil("the loop's sleep in round \(round)") {
                    loop.isWaiting && remaining.current == round
                }
                guard slept else { return }
                loop.wakeUp()
            }
        }
        helper.start()
        let before = loop.wakeUpCount
        // Stopped by the observer; the limit only turns a lost wake-up into a failure instead of a hang.
        #expect(loop.run(mode: .default, seconds: testHangLimit, returnAfterSourceHandled: false) == .stopped)
        return loop.wakeUpCount - before
    }
    #expect(wakes == 50)
}

@Test func anOuterRunDoesNotSleepPastItsTimeoutAfterANestedRun() {
    // CF arms one timeout wake-up per run; when a nested run (here in a block, before the outer run's first sleep)
    // outlasts the outer run's deadline, that wake-up is spent inside the nested run and CF's outer run then sleeps
    // forever. The reference loop's own deadline always bounds its wait.
    let result = onFreshLoopThread { loop -> RefRunLoopResult in
        loop.add(RefRunLoopSource(perform: {}), mode: .default)
        loop.perform(modes: .one(.default)) {
            _ = loop.run(mode: .default, seconds: 0.05, returnAfterSourceHandled: false)
        }
        // Safety net only (so a regression fails instead of hanging): stop the loop if the run is still going once
        // a generous watchdog expires. The assertion is on the result, not on time.
        let finished = DispatchSemaphore(value: 0)
        let watchdog = Thread {
            if finished.wait(timeout: .now() + 10) == .timedOut { loop.stop() }
        }
        watchdog.start()
        let result = loop.run(mode: .default, seconds: 0.01, returnAfterSourceHandled: false)
        finished.signal()
        return result
    }
    #expect(result == .timedOut)
}
