// Scale: 100,000 timers and 10,000 observers added and removed; the structures stay consistent. No timing assertion:
// each operation is O(log n) (see the doc comments), and the test only checks that the work completes.

import Testing

@testable import RefRunLoop

@Test func hundredThousandTimersAndTenThousandObservers() {
    let failure = onFreshLoopThread { loop -> String? in
        let timerCount = 100_000
        let observerCount = 10_000
        let base = RefClock.now + 1_000
        var timers: [RefRunLoopTimer] = []
        timers.reserveCapacity(timerCount)
        for index in 0..<timerCount {
            // Deadlines in a scrambled order with many ties, so the heap does real work.
            let timer = RefRunLoopTimer(fireDate: base + Double((index * 7_919) % 1_000)) { _ in }
            timers.append(timer)
            loop.add(timer, mode: .default)
        }
        var observers: [RefRunLoopObserver] = []
        for index in 0..<observerCount {
            let observer = RefRunLoopObserver(activities: .allActivities, order: (index * 31) % 97) { _, _ in }
            observers.append(observer)
            loop.add(observer, mode: .default)
        }
        func check(_ stage: String) -> String? {
            loop.lock.withLock {
                guard let mode = loop.modes[RefRunLoopMode.defaultModeName] else { return "\(stage): no default mode" }
                if let broken = mode.timers.checkInvariants() { return "\(stage): timers: \(broken)" }
                if let broken = mode.observers.checkInvariants() { return "\(stage): observers: \(broken)" }
                return nil
            }
        }
        if let broken = check("after adding") { return broken }
        if loop.nextTimerFireDate(mode: .default) != base { return "earliest fire date is not the smallest" }
        // A run wakes once for... nothing: none of these is due. Poll once to exercise arming with a full queue.
        _ = loop.run(mode: .default, seconds: 0, returnAfterSourceHandled: false)
        // Remove every other timer by hand, invalidate the rest; remove half the observers, invalidate the others.
        for (index, timer) in timers.enumerated() {
            if index.isMultiple(of: 2) { loop.remove(timer, mode: .default) } else { timer.invalidate() }
            if index == timerCount / 2, let broken = check("halfway through the timers") { return broken }
        }
        for (index, observer) in observers.enumerated() {
            if index.isMultiple(of: 2) { loop.remove(observer, mode: .default) } else { observer.invalidate() }
        }
        if let broken = check("after removing") { return broken }
        return loop.lock.withLock {
            let mode = loop.modes[RefRunLoopMode.defaultModeName]!
            return mode.timers.isEmpty && mode.observers.isEmpty
                ? nil : "items left: \(mode.timers.count) timers, \(mode.observers.count) observers"
        }
    }
    #expect(failure == nil, "\(failure ?? "")")
}
