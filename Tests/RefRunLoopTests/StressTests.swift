// Several threads signal, wake, add and remove items while the loop runs. Every signal is performed exactly once, no
// wake-up is lost (each sender waits for its previous signal to be performed before the next, so a lost wake-up
// would hang), nothing crashes. Synchronised on loop state only.

import Foundation
import Testing
@testable import RefRunLoop

/// Tokens one sender hands to its source. Protected by `lock`.
private final class Mailbox: @unchecked Sendable {
    let lock = NSLock()
    /// Protected by `lock`.
    var pending: [Int] = []
    /// Protected by `lock`.
    var delivered: [Int] = []

    func post(_ token: Int) { lock.withLock { pending.append(token) } }
    func drain() { lock.withLock { delivered.append(contentsOf: pending); pending.removeAll() } }
    func hasDelivered(_ token: Int) -> Bool { lock.withLock { delivered.last == token } }
}

@Test func signallingWakingAddingAndRemovingFromManyThreads() {
    let senders = 4
    let tokensPerSender = 600
    let report = onFreshLoopThread { loop -> String? in
        let mailboxes = (0..<senders).map { _ in Mailbox() }
        let sources = mailboxes.map { box in RefRunLoopSource(order: 0, perform: { box.drain() }) }
        for source in sources { loop.add(source, mode: .default) }
        let finishedSenders = Counter()
        let churn = Counter()
        let timerFires = Counter()
        let blocks = Counter()
        var threads: [Thread] = []
        for (index, source) in sources.enumerated() {
            let box = mailboxes[index]
            threads.append(Thread {
                for token in 0..<tokensPerSender {
                    box.post(token)
                    source.signal()
                    loop.wakeUp()
                    // No sleep: wait for the loop to perform it. A lost wake-up would leave this thread here.
                    guard waitUntil("token \(token) to be delivered", { box.hasDelivered(token) }) else { break }
                }
                finishedSenders.increment()
            })
        }
        // Churn: items added and removed, blocks queued, extra wake-ups, timers that fire and timers that never do.
        threads.append(Thread {
            var round = 0
            let deadline = TestDeadline()
            while finishedSenders.current < senders && !deadline.passed {
                // Paced by the loop: the previous round's due timer must have fired (a timer lost would stop the
                // churn, not the test; the senders are the check).
                waitUntil { timerFires.current >= round || finishedSenders.current == senders }
                round += 1
                let extra = RefRunLoopSource(perform: {})
                loop.add(extra, mode: round.isMultiple(of: 3) ? .common : .default)
                extra.signal()
                let due = RefRunLoopTimer(fireDate: RefClock.now) { _ in timerFires.increment() }
                due.tolerance = 0.001
                loop.add(due, mode: .default)
                let far = RefRunLoopTimer(fireDate: RefClock.now + 3_600, interval: 1) { _ in }
                loop.add(far, mode: .common)
                let observer = RefRunLoopObserver(activities: [.beforeSources, .afterWaiting], repeats: round.isMultiple(of: 2)) { _, _ in }
                loop.add(observer, mode: .default)
                loop.perform(modes: .one(.default)) { blocks.increment() }
                loop.wakeUp()
                loop.remove(far, mode: .common)
                if round.isMultiple(of: 2) { extra.invalidate() } else { loop.remove(extra, mode: .default) }
                observer.invalidate()
                far.nextFireDate = RefClock.now + 7_200
                churn.increment()
            }
        })
        for thread in threads { thread.start() }
        // Once every sender has finished, another thread stops the loop.
        let stopper = Thread {
            waitUntil { finishedSenders.current == senders }
            loop.stop()
        }
        stopper.start()
        var result = RefRunLoopResult.finished
        let deadline = TestDeadline()
        repeat {
            result = loop.run(mode: .default, seconds: testHangLimit, returnAfterSourceHandled: false)
        } while (result != .stopped || finishedSenders.current < senders) && !deadline.passed
        if deadline.passed { return "the senders did not finish within \(Int(testHangLimit)) s: a lost wake-up" }
        for (index, box) in mailboxes.enumerated() {
            let delivered = box.lock.withLock { box.delivered }
            if delivered != Array(0..<tokensPerSender) {
                return "sender \(index): delivered \(delivered.count) tokens, first wrong at \(delivered.indices.first { delivered[$0] != $0 } ?? -1)"
            }
        }
        return churn.current > 0 ? nil : "the churn thread never ran"
    }
    #expect(report == nil, "\(report ?? "")")
}

/// Another thread stops each of 1,000 runs at whatever point the loop has reached (its Entry observers, a pass, the
/// wait), and in the second half of the runs a third keeps changing the exit epoch (stops for another mode). Every
/// stop must end its run: a stop slept through would leave the stopping thread waiting forever. This is the race
/// the lock-free exit check (exitEpoch) and wake-up gate (WakeGate) are ordered against; nothing else wakes the
/// loop, so nothing hides a lost stop. Every wait in it yields rather than sleeps, so on a machine whose CPUs are all
/// busy it takes as many time slices as it has waits, which is why its deadline is generous.
@Test func everyStopFromAnotherThreadEndsItsRun() {
    let runs = 1_000
    let report = onFreshLoopThread { loop -> String? in
        loop.add(RefRunLoopSource(perform: {}), mode: .default)  // keeps the mode from finishing
        let entered = Counter()
        let stoppedRuns = Counter()
        loop.add(RefRunLoopObserver(activities: .entry, repeats: true) { _, _ in entered.increment() }, mode: .default)
        let stopper = Thread {
            for run in 0..<runs {
                guard waitUntil("run \(run) to start", { entered.current > run }) else { return }
                // Spread the stops over the run: at once, after some spinning, or once the loop sleeps.
                switch run % 3 {
                case 0: break
                case 1: for _ in 0..<(run % 200) { sched_yield() }
                default: waitUntil { loop.isWaiting }
                }
                loop.stop()
                guard waitUntil("run \(run) to stop", { stoppedRuns.current > run }) else { return }
            }
        }
        let noise = Thread {
            waitUntil { stoppedRuns.current >= runs / 2 }
            let deadline = TestDeadline()
            while stoppedRuns.current < runs && !deadline.passed {
                loop.stop(mode: "elsewhere")
                sched_yield()
            }
        }
        stopper.start()
        noise.start()
        for run in 0..<runs {
            let result = loop.run(mode: .default, seconds: testHangLimit, returnAfterSourceHandled: false)
            guard result == .stopped else { return "run \(run) ended with \(result), not stopped" }
            stoppedRuns.increment()
        }
        return nil
    }
    #expect(report == nil, "\(report ?? "")")
}
