// Several threads signal, wake, add and remove items while the loop runs. Every signal is performed exactly once, no
// wake-up is lost (each sender waits for its previous signal to be performed before the next, so a lost wake-up
// would hang), nothing crashes. Synchronised on loop state only.

import Foundation
import Testing

@testable import RefRunLoop

/// Tokens one sender hands to its source (the stress tests here and SpinPolicyTests'). Protected by `lock`.
final class Mailbox: @unchecked Sendable {
    let lock = NSLock()
    /// Protected by `lock`.
    var pending: [Int] = []
    /// Protected by `lock`.
    var delivered: [Int] = []

    func post(_ token: Int) { lock.withLock { pending.append(token) } }
    func drain() {
        lock.withLock {
            delivered.append(contentsOf: pending)
            pending.removeAll()
        }
    }
    func hasDelivered(_ token: Int) -> Bool { lock.withLock { delivered.last == token } }
}

/// One thread per source: posts tokens 0..<tokens to the source's mailbox one at a time, signalling the source and
/// waking every loop of `wake` for each, and waits for each token to be delivered before the next (a lost wake-up
/// would leave it waiting until its deadline). Counts itself in `finished` at the end.
private func senderThreads(
    _ sources: [RefRunLoopSource], _ mailboxes: [Mailbox], tokens: Int, wake: [RefRunLoop],
    finished: Counter
) -> [Thread] {
    zip(sources, mailboxes).map { source, box in
        Thread {
            for token in 0..<tokens {
                box.post(token)
                source.signal()
                for loop in wake { loop.wakeUp() }
                // No sleep: wait for the loop to perform it.
                guard waitUntil("token \(token) to be delivered", { box.hasDelivered(token) }) else { break }
            }
            finished.increment()
        }
    }
}

/// Runs `loop` (on the calling thread, its own) until every one of `senders` senders has finished and another
/// thread, started here, has stopped it; a failure message if `progress` (a count the senders' work raises: tokens
/// delivered, timers fired) stood still for testHangLimit seconds first. Used here and by SpinPolicyTests.
///
/// The deadline is on progress, not on the whole run: thousands of hand-offs, each costing a few time slices when
/// every CPU is busy (a loaded machine, ThreadSanitizer, the other tests running alongside), can take longer than
/// testHangLimit in all while each one is prompt. A deadline on the whole run would stop the loop in the middle of
/// such a run, and the senders, their loop no longer running, would wait out their own deadlines as if a wake-up had
/// been lost. A sender still gives up on a token that does not come within testHangLimit (and then finishes), so a
/// stall ends the run and fails the test.
func runUntilSendersFinish(
    _ loop: RefRunLoop, senders: Int, finished: Counter, progress: @escaping @Sendable () -> Int
) -> String? {
    let stalled = Counter()
    let stopper = Thread {
        var watch = ProgressDeadline()
        while finished.current < senders {
            if watch.passed(progress: progress()) {
                stalled.increment()
                break
            }
            sched_yield()
        }
        loop.stop()
    }
    stopper.start()
    // Only the stopper stops the loop; the look at progress here is the last resort should its stop be lost.
    var watch = ProgressDeadline()
    var result = RefRunLoopResult.finished
    repeat {
        result = loop.run(mode: .default, seconds: testHangLimit, returnAfterSourceHandled: false)
    } while result != .stopped && !watch.passed(progress: progress())
    if result != .stopped { return "the loop was not stopped (\(result)) within \(Int(testHangLimit)) s: a lost stop" }
    guard stalled.current == 0 else {
        return "no progress for \(Int(testHangLimit)) s (\(progress()) so far), \(senders - finished.current) of "
            + "\(senders) senders unfinished: a lost wake-up or a stalled loop"
    }
    return nil
}

/// How many tokens the mailboxes have delivered so far, in all. Used here and by SpinPolicyTests.
func deliveredCount(_ mailboxes: [Mailbox]) -> Int {
    mailboxes.reduce(0) { total, box in total + box.lock.withLock { box.delivered.count } }
}

/// Whether every mailbox got exactly tokens 0..<tokens, in order: nil, or what went wrong.
private func deliveryFailure(_ mailboxes: [Mailbox], tokens: Int) -> String? {
    for (index, box) in mailboxes.enumerated() {
        let delivered = box.lock.withLock { box.delivered }
        if delivered != Array(0..<tokens) {
            return
                "sender \(index): delivered \(delivered.count) tokens, first wrong at \(delivered.indices.first { delivered[$0] != $0 } ?? -1)"
        }
    }
    return nil
}

@Test func signallingWakingAddingAndRemovingFromManyThreads() {
    let senders = 4
    let tokensPerSender = 600
    let report = onFreshLoopThread { loop -> String? in
        loop.checkInvariantsAfterEveryChange(true)  // debug builds: every change checks the loop's tables
        let mailboxes = (0..<senders).map { _ in Mailbox() }
        let sources = mailboxes.map { box in RefRunLoopSource(order: 0, perform: { box.drain() }) }
        for source in sources { loop.add(source, mode: .default) }
        let finishedSenders = Counter()
        let churn = Counter()
        let timerFires = Counter()
        let blocks = Counter()
        var threads = senderThreads(
            sources, mailboxes, tokens: tokensPerSender, wake: [loop], finished: finishedSenders)
        // Churn: items added and removed, blocks queued, extra wake-ups, timers that fire and timers that never do.
        threads.append(
            Thread {
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
                    let observer = RefRunLoopObserver(
                        activities: [.beforeSources, .afterWaiting], repeats: round.isMultiple(of: 2)
                    ) { _, _ in }
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
        let progress: @Sendable () -> Int = { deliveredCount(mailboxes) }
        if let failure = runUntilSendersFinish(loop, senders: senders, finished: finishedSenders, progress: progress) {
            return failure
        }
        if let failure = deliveryFailure(mailboxes, tokens: tokensPerSender) { return failure }
        return churn.current > 0 ? nil : "the churn thread never ran"
    }
    #expect(report == nil, "\(report ?? "")")
}

/// One source per mailbox that drains it, busy now and then (every fourth perform yields the CPU for 300 us, past a
/// 200 us timer's horizon), so that wake-ups claimed meanwhile find the loop awake (and, with a timer armed, the
/// horizon may pass). Bounded by the clock, not by a count of yields: with every CPU busy each yield can give a whole
/// time slice to another process, so a count of them makes the test's length grow with the machine's load.
private func busyDrainingSources(_ mailboxes: [Mailbox]) -> [RefRunLoopSource] {
    let performed = Counter()
    return mailboxes.map { box in
        RefRunLoopSource(
            order: 0,
            perform: {
                box.drain()
                performed.increment()
                guard performed.current % 4 == 0 else { return }
                let busyUntil = RefClock.nanoseconds + 300_000
                repeat { sched_yield() } while RefClock.nanoseconds < busyUntil
            })
    }
}

/// Wake-ups claimed while the loop is awake are deferred (no eventfd write) while its one mode has no descriptor and
/// no armed timerfd; senders claim them at every point of a pass, the source's callout sometimes spins so that claims
/// land while the loop is busy, and another thread keeps arming and disarming the timerfd and adding and removing a
/// descriptor, each of which must write a deferred claim before it changes the wait set. Every token is delivered
/// (a wake-up lost would leave its sender waiting until its deadline), and the deferred path did run. Synchronised on
/// loop state only.
@Test func wakeUpsDeferredWhileTheLoopIsAwakeAreNeverLost() {
    let senders = 3
    let tokensPerSender = 800
    let report = onFreshLoopThread { loop -> String? in
        loop.checkInvariantsAfterEveryChange(true)
        let mailboxes = (0..<senders).map { _ in Mailbox() }
        let sources = busyDrainingSources(mailboxes)
        for source in sources { loop.add(source, mode: .default) }
        let finishedSenders = Counter()
        var threads = senderThreads(
            sources, mailboxes, tokens: tokensPerSender, wake: [loop], finished: finishedSenders)
        let changes = Counter()
        threads.append(
            Thread {
                let fd = EventFD.create()  // never written: the source never fires
                defer { Descriptor.close(fd) }
                let deadline = TestDeadline()
                while finishedSenders.current < senders && !deadline.passed {
                    let far = RefRunLoopTimer(fireDate: RefClock.now + 3_600) { _ in }
                    loop.add(far, mode: .default)
                    sched_yield()
                    loop.remove(far, mode: .default)
                    let port = RefRunLoopSource(fileDescriptor: fd, perform: {})
                    loop.add(port, mode: .default)
                    sched_yield()
                    loop.remove(port, mode: .default)
                    changes.increment()
                    for _ in 0..<20 { sched_yield() }
                }
            })
        for thread in threads { thread.start() }
        let progress: @Sendable () -> Int = { deliveredCount(mailboxes) }
        if let failure = runUntilSendersFinish(loop, senders: senders, finished: finishedSenders, progress: progress) {
            return failure
        }
        if let failure = deliveryFailure(mailboxes, tokens: tokensPerSender) { return failure }
        guard changes.current > 0 else { return "the thread changing the wait set never ran" }
        let deferred = loop.deferredWakeUpCounter.load(ordering: .relaxed)
        return deferred > 0 ? nil : "no wake-up was deferred: the deferred path did not run"
    }
    #expect(report == nil, "\(report ?? "")")
}

/// The same with a timer armed all along, so that claims are deferred under a horizon (the armed timerfd's time,
/// WakeGate): a far timer keeps the timerfd armed, a repeating timer every 200 us keeps the horizon close, so that
/// claims land before it, across it and after it (settled early by their claimer, made written ones by it or by the
/// loop's wait), and another thread adds 300 one-shot timers due within a millisecond, one at a time, waiting for each
/// to fire, and re-dates the far timer after each (each arming writes a deferred claim first). Every token is
/// delivered and every one-shot timer fires (a fire lost, or a loop that stops passing, would leave a thread waiting
/// until its deadline), and wake-ups were deferred with the timerfd armed. A wake-up lost here alone would not hang a
/// sender: the 200 us timer's next pass performs its source; wakeUpsDeferredWhileTheLoopIsAwakeAreNeverLost, which
/// has no timer to hide one, checks that. Synchronised on loop state only.
@Test func wakeUpsDeferredWhileATimerIsArmedAreNeverLostNorTheTimersFires() {
    let senders = 3
    let tokensPerSender = 800
    let report = onFreshLoopThread { loop -> String? in
        loop.checkInvariantsAfterEveryChange(true)
        let mailboxes = (0..<senders).map { _ in Mailbox() }
        let sources = busyDrainingSources(mailboxes)
        for source in sources { loop.add(source, mode: .default) }
        let far = RefRunLoopTimer(fireDate: RefClock.now + 3_600) { _ in }
        loop.add(far, mode: .default)
        let ticks = Counter()
        let ticker = RefRunLoopTimer(fireDate: RefClock.now + 0.0002, interval: 0.0002) { _ in ticks.increment() }
        loop.add(ticker, mode: .default)
        let deferredBefore = loop.deferredWakeUpCounter.load(ordering: .relaxed)
        let finishedSenders = Counter()
        var threads = senderThreads(
            sources, mailboxes, tokens: tokensPerSender, wake: [loop], finished: finishedSenders)
        let fired = Counter()
        let lostFires = Counter()
        let oneShots = 300
        threads.append(
            Thread {
                for shot in 0..<oneShots {
                    let due = RefRunLoopTimer(fireDate: RefClock.now + Double(shot % 5) * 0.0002) { _ in
                        fired.increment()
                    }
                    loop.add(due, mode: .default)
                    guard waitUntil("one-shot timer \(shot) to fire", { fired.current > shot }) else {
                        lostFires.increment()
                        break
                    }
                    far.nextFireDate = RefClock.now + 3_600 + Double(shot % 7)
                }
                finishedSenders.increment()  // the loop is stopped once this thread is done too
            })
        for thread in threads { thread.start() }
        let progress: @Sendable () -> Int = { deliveredCount(mailboxes) + fired.current }
        if let failure = runUntilSendersFinish(
            loop, senders: senders + 1, finished: finishedSenders, progress: progress)
        {
            return failure
        }
        if lostFires.current > 0 { return "a one-shot timer did not fire: a lost timer fire" }
        if let failure = deliveryFailure(mailboxes, tokens: tokensPerSender) { return failure }
        guard fired.current == oneShots, ticks.current > 0 else { return "the timers did not all fire" }
        let deferred = loop.deferredWakeUpCounter.load(ordering: .relaxed) &- deferredBefore
        return deferred > 0 ? nil : "no wake-up was deferred with the timerfd armed: the bounded deferral did not run"
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

/// Sources shared by two loops while other threads churn both loops' source lists: every removal moves the last
/// source of its mode into the gap and updates that source's recorded place under the loop's lock, and senders signal
/// the shared sources meanwhile. Every signal is performed exactly once (by whichever loop's pass comes first: the
/// signal belongs to the source), no wake-up is lost, and afterwards every mode's list and every source's recorded
/// places agree. Synchronised on loop state only.
@Test func sourcesSharedByTwoLoopsWhileBothListsChurn() {
    let senders = 3
    let tokensPerSender = 400
    let report = onFreshLoopThread { first -> String? in
        // The second loop runs on a thread of its own until stopped.
        let secondBox = ResultBox<RefRunLoop>()
        let secondReady = DispatchSemaphore(value: 0)
        let secondDone = DispatchSemaphore(value: 0)
        let stopSecond = Counter()
        // The second thread stays alive until the checks are done: a thread's exit tears its loop down.
        let secondMayExit = DispatchSemaphore(value: 0)
        defer { secondMayExit.signal() }
        let secondThread = Thread {
            let loop = RefRunLoop.current
            loop.checkInvariantsAfterEveryChange(true)
            loop.add(RefRunLoopSource(perform: {}), mode: .default)  // never empty
            secondBox.value = loop
            secondReady.signal()
            let deadline = TestDeadline()
            while stopSecond.current == 0 && !deadline.passed {
                _ = loop.run(mode: .default, seconds: testHangLimit, returnAfterSourceHandled: false)
            }
            secondDone.signal()
            _ = secondMayExit.wait(timeout: .now() + testHangLimit)
        }
        secondThread.start()
        guard secondReady.wait(timeout: .now() + testHangLimit) == .success, let second = secondBox.value else {
            return "the second loop did not start"
        }
        first.checkInvariantsAfterEveryChange(true)
        let loops = [first, second]
        let mailboxes = (0..<senders).map { _ in Mailbox() }
        let shared = mailboxes.map { box in RefRunLoopSource(order: 0, perform: { box.drain() }) }
        for source in shared {
            first.add(source, mode: .default)
            first.add(source, mode: .named("side"))
            second.add(source, mode: .common)
        }
        let finishedSenders = Counter()
        var threads = senderThreads(shared, mailboxes, tokens: tokensPerSender, wake: loops, finished: finishedSenders)
        let churned = ResultBox<[RefRunLoopSource]>()
        churned.value = []
        let churnLock = NSLock()
        let churnersDone = Counter()
        for churner in 0..<2 {
            threads.append(
                Thread {
                    var round = 0
                    let deadline = TestDeadline()
                    var mine: [RefRunLoopSource] = []
                    while finishedSenders.current < senders && !deadline.passed {
                        round += 1
                        let batch = (0..<4).map { _ in RefRunLoopSource(perform: {}) }
                        for source in batch {
                            first.add(source, mode: .default)
                            second.add(source, mode: round.isMultiple(of: 2) ? .common : .default)
                            first.add(source, mode: .named("side"))
                        }
                        batch[round % 4].signal()
                        // Out of the lists in an order that moves the shared sources' places.
                        for (position, source) in batch.enumerated().reversed() {
                            switch (position + round + churner) % 3 {
                            case 0: source.invalidate()
                            case 1:
                                first.remove(source, mode: .default)
                                second.remove(source, mode: round.isMultiple(of: 2) ? .common : .default)
                                first.remove(source, mode: .named("side"))
                            default:
                                first.remove(source, mode: .named("side"))
                                second.remove(source, mode: .common)
                                second.remove(source, mode: .default)
                                first.remove(source, mode: .default)
                            }
                        }
                        // A shared source leaves one of its modes and joins it again.
                        let moved = shared[round % senders]
                        first.remove(moved, mode: .named("side"))
                        first.add(moved, mode: .named("side"))
                        mine.append(contentsOf: batch)
                        if mine.count > 64 { mine.removeFirst(32) }
                    }
                    churnLock.withLock { churned.value!.append(contentsOf: mine) }
                    churnersDone.increment()
                })
        }
        for thread in threads { thread.start() }
        let runFailure = runUntilSendersFinish(
            first, senders: senders, finished: finishedSenders, progress: { deliveredCount(mailboxes) })
        stopSecond.increment()
        second.stop()
        second.wakeUp()
        guard secondDone.wait(timeout: .now() + testHangLimit) == .success else {
            return "the second loop did not stop"
        }
        if let failure = runFailure ?? deliveryFailure(mailboxes, tokens: tokensPerSender) { return failure }
        // Let the churners finish their last round before reading the lists.
        guard waitUntil("the churners to finish", { churnersDone.current == 2 }) else {
            return "the churners did not finish"
        }
        let all = shared + churnLock.withLock { churned.value! }
        for loop in loops {
            if let broken = loop.checkInvariants(sources: all) { return broken }
        }
        for (index, source) in shared.enumerated() {
            if !first.contains(source, mode: .named("side")) {
                return "shared source \(index) left the first loop's side mode"
            }
            if !first.contains(source, mode: .default) {
                return "shared source \(index) left the first loop's default mode"
            }
            if !second.contains(source, mode: .common) {
                return "shared source \(index) left the second loop's common modes"
            }
        }
        return nil
    }
    #expect(report == nil, "\(report ?? "")")
}
