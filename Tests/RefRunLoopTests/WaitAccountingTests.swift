// The reference loop's own accounting of its waits, which no CF behaviour shows (so no spec case can check it) and
// which the benchmarks read: a pass counts once; a wake-up made while the loop is awake is deferred (the next wait
// reports it without an eventfd write: the deferred counter moves with the wake-up counter) as long as its one mode
// can queue no other edge, and is written while a descriptor is in the mode; the spin governor learns when a wait
// began only when the policy spins, and never from a poll. Each is set up in callouts of one run (the wake-up is made
// in BeforeWaiting or in a source's callout, the run stopped in AfterWaiting): no sleeps, no timing.

import Foundation
import Testing

@testable import RefRunLoop

/// What a loop's waits did: passes, returns from the wait, wake-ups reported without a write, and writes as the wait
/// set counts them (eventfd writes, and deferred claims consumed, which count as written: WakeGate.allWritten).
private struct Accounting: Equatable, CustomStringConvertible {
    var passes: UInt64 = 0
    var wakeUps: UInt64 = 0
    var deferred: UInt64 = 0
    var writes: UInt64 = 0

    init(passes: UInt64, wakeUps: UInt64, deferred: UInt64, writes: UInt64) {
        (self.passes, self.wakeUps, self.deferred, self.writes) = (passes, wakeUps, deferred, writes)
    }

    init(_ loop: RefRunLoop) {
        passes = loop.passCount
        wakeUps = loop.wakeUpCount
        deferred = loop.deferredWakeUpCounter.load(ordering: .relaxed)
        writes = loop.waitSet.writes.load(ordering: .relaxed)
    }

    static func - (after: Accounting, before: Accounting) -> Accounting {
        Accounting(
            passes: after.passes - before.passes, wakeUps: after.wakeUps - before.wakeUps,
            deferred: after.deferred - before.deferred, writes: after.writes - before.writes)
    }

    var description: String { "passes \(passes), wake-ups \(wakeUps), deferred \(deferred), writes \(writes)" }
}

/// Runs `loop` in the default mode (which must hold an item) for `rounds` passes, each of whose waits is ended by a
/// wake-up made in its BeforeWaiting observer, while the loop is awake, right after `change` and right before
/// `laterChange`; the last AfterWaiting stops the run. Returns what the run's waits did and its result.
private func wakeUpsMadeBeforeWaiting(
    _ loop: RefRunLoop, rounds: Int, after change: @escaping @Sendable () -> Void = {},
    before laterChange: @escaping @Sendable () -> Void = {}
) -> (Accounting, RefRunLoopResult) {
    let woken = Counter()
    let observer = RefRunLoopObserver(activities: [.beforeWaiting, .afterWaiting]) { _, activity in
        if activity == .beforeWaiting {
            change()
            loop.wakeUp()
            laterChange()
        } else {
            woken.increment()
            if woken.current == rounds { loop.stop() }
        }
    }
    loop.add(observer, mode: .default)
    defer { loop.remove(observer, mode: .default) }
    let before = Accounting(loop)
    // The limit only turns a lost wake-up into a failure instead of a hang: the observer stops the run.
    let result = loop.run(mode: .default, seconds: testHangLimit, returnAfterSourceHandled: false)
    return (Accounting(loop) - before, result)
}

/// A poll (a run of 0 s) whose wait finds a wake-up made by a source's callout in the same pass (a poll has no
/// BeforeWaiting); returns what it did.
private func pollWithAWakeUpMadeInASource(_ loop: RefRunLoop) -> (Accounting, RefRunLoopResult) {
    let source = RefRunLoopSource(perform: { loop.wakeUp() })
    loop.add(source, mode: .default)
    defer { loop.remove(source, mode: .default) }
    source.signal()
    let before = Accounting(loop)
    let result = loop.run(mode: .default, seconds: 0, returnAfterSourceHandled: false)
    return (Accounting(loop) - before, result)
}

private let threeDeferred = Accounting(passes: 3, wakeUps: 3, deferred: 3, writes: 3)
private let oneDeferredPoll = Accounting(passes: 1, wakeUps: 1, deferred: 1, writes: 1)

@Test func aPassCountsOnceAndAWakeUpMadeWhileTheLoopIsAwakeIsDeferred() {
    let (accounting, result) = onFreshLoopThread { loop -> (Accounting, RefRunLoopResult) in
        loop.add(RefRunLoopSource(perform: {}), mode: .default)
        return wakeUpsMadeBeforeWaiting(loop, rounds: 3)
    }
    #expect(result == .stopped)
    // One pass per wait, each wait ended by its wake-up, reported without a write.
    #expect(accounting == threeDeferred, "\(accounting)")
}

@Test func aPassIsCountedBeforeItsFirstObserver() {
    let seen = onFreshLoopThread { loop -> [UInt64] in
        loop.add(RefRunLoopSource(perform: {}), mode: .default)
        let counts = Recorder<UInt64>()
        let observer = RefRunLoopObserver(activities: .beforeTimers) { _, _ in counts.append(loop.passCount) }
        loop.add(observer, mode: .default)
        let before = loop.passCount
        let (accounting, _) = wakeUpsMadeBeforeWaiting(loop, rounds: 2)
        #expect(accounting.passes == 2)
        return counts.all.map { $0 - before }
    }
    // BeforeTimers is step b of a pass; the pass was counted at its top (step a).
    #expect(seen == [1, 2])
}

@Test func aWakeUpIsStillDeferredAfterAPollAndWithAFarTimerArmed() {
    let results = onFreshLoopThread { loop -> [String] in
        loop.add(RefRunLoopSource(perform: {}), mode: .default)
        var results: [String] = []
        // A poll's wait ends (WakeGate.endWait) like any other; a later wake-up made while awake is deferred again.
        let (poll, pollResult) = pollWithAWakeUpMadeInASource(loop)
        results.append("poll \(pollResult): \(poll)")
        results.append("after the poll: \(wakeUpsMadeBeforeWaiting(loop, rounds: 3).0)")
        // Arming the timerfd disallows deferral first (its expiry is another edge); once armed, claims are deferred
        // again until its time, an hour away.
        let far = RefRunLoopTimer(fireDate: RefClock.now + 3_600) { _ in }
        loop.add(far, mode: .default)
        results.append("with a far timer: \(wakeUpsMadeBeforeWaiting(loop, rounds: 3).0)")
        loop.remove(far, mode: .default)
        results.append("after its removal: \(wakeUpsMadeBeforeWaiting(loop, rounds: 3).0)")
        return results
    }
    #expect(
        results == [
            "poll timedOut: \(oneDeferredPoll)",
            "after the poll: \(threeDeferred)",
            "with a far timer: \(threeDeferred)",
            "after its removal: \(threeDeferred)",
        ])
}

@Test func aWakeUpIsWrittenWhileADescriptorIsInTheModeAndDeferredAgainOnceItIsRemoved() {
    let results = onFreshLoopThread { loop -> [String] in
        loop.add(RefRunLoopSource(perform: {}), mode: .default)
        let fd = EventFD.create()  // never written: its source never fires
        defer { Descriptor.close(fd) }
        let port = RefRunLoopSource(fileDescriptor: fd, perform: {})
        loop.add(port, mode: .default)
        var results = ["with a descriptor: \(wakeUpsMadeBeforeWaiting(loop, rounds: 3).0)"]
        loop.remove(port, mode: .default)
        results.append("after its removal: \(wakeUpsMadeBeforeWaiting(loop, rounds: 3).0)")
        return results
    }
    #expect(
        results == [
            "with a descriptor: \(Accounting(passes: 3, wakeUps: 3, deferred: 0, writes: 3))",
            "after its removal: \(threeDeferred)",
        ])
}

@Test func aWakeUpMadeRightAfterAFarTimerIsArmedOrADescriptorIsRemovedIsDeferred() {
    // Within one pass: the change itself makes deferral possible again, not the next pass or run.
    let results = onFreshLoopThread { loop -> [String] in
        loop.add(RefRunLoopSource(perform: {}), mode: .default)
        let far = RefRunLoopTimer(fireDate: RefClock.now + 3_600) { _ in }
        let arming = wakeUpsMadeBeforeWaiting(loop, rounds: 1) { loop.add(far, mode: .default) }.0
        let fd = EventFD.create()  // never written: its source never fires
        defer { Descriptor.close(fd) }
        let port = RefRunLoopSource(fileDescriptor: fd, perform: {})
        loop.add(port, mode: .default)
        let removal = wakeUpsMadeBeforeWaiting(loop, rounds: 1) { loop.remove(port, mode: .default) }.0
        return ["after the arming: \(arming)", "after the removal: \(removal)"]
    }
    let one = Accounting(passes: 1, wakeUps: 1, deferred: 1, writes: 1)
    #expect(results == ["after the arming: \(one)", "after the removal: \(one)"])
}

@Test func aWakeUpDeferredBeforeASecondModeIsCreatedIsWrittenThen() {
    let accounting = onFreshLoopThread { loop -> Accounting in
        loop.add(RefRunLoopSource(perform: {}), mode: .default)
        // stop(mode:) creates the mode (and sets only that mode's stop request, which this run in the default mode
        // never checks).
        return wakeUpsMadeBeforeWaiting(loop, rounds: 2, before: { loop.stop(mode: "wait-accounting.second") }).0
    }
    // The first wake-up was deferred while the loop had one mode; creating the second, whose set may then queue the
    // eventfd's edge, wrote it (as CF writes at once), and its wait reported the write. With two modes, the second
    // wake-up is written as it is made.
    #expect(accounting == Accounting(passes: 2, wakeUps: 2, deferred: 0, writes: 2), "\(accounting)")
}

@Test func aWakeUpIsDeferredAgainOnceAPollHasTakenAnExpiryOffTheList() {
    let accounting = onFreshLoopThread { loop -> Accounting in
        loop.add(RefRunLoopSource(perform: {}), mode: .default)
        // A timer due already: its arming queues the timerfd's expiry, and deferral is off while it may be queued.
        let due = RefRunLoopTimer(fireDate: RefClock.now - 1) { _ in }
        loop.add(due, mode: .default)
        // The first pass's source removes it before it fires (the timerfd is disarmed, its expiry may still be
        // queued); that pass then polls (a source was handled), which finds nothing and takes the expiry's entry off
        // the list. Its exit check (the removal changed the mode) allows deferral again.
        let remover = RefRunLoopSource(perform: { loop.remove(due, mode: .default) })
        loop.add(remover, mode: .default)
        defer { loop.remove(remover, mode: .default) }
        remover.signal()
        return wakeUpsMadeBeforeWaiting(loop, rounds: 1).0
    }
    // Two passes, each returning from its OS wait once: the poll, then a wait ended by the wake-up made in its
    // BeforeWaiting, deferred.
    #expect(accounting == Accounting(passes: 2, wakeUps: 2, deferred: 1, writes: 1), "\(accounting)")
}

@Test func aWakeUpIsDeferredAfterATimerFiredInAPollLeftTheTimerfdExpiredAndReported() {
    let (poll, accounting) = onFreshLoopThread { loop -> (Accounting, Accounting) in
        loop.add(RefRunLoopSource(perform: {}), mode: .default)
        // Due already: a poll reports its timerfd and fires it; the mode has no timer left, and the expired timerfd,
        // its expiry reported, queues nothing more.
        let fired = Counter()
        let due = RefRunLoopTimer(fireDate: RefClock.now - 1) { _ in fired.increment() }
        loop.add(due, mode: .default)
        let before = Accounting(loop)
        _ = loop.run(mode: .default, seconds: 0, returnAfterSourceHandled: false)
        #expect(fired.current == 1)
        let poll = Accounting(loop) - before
        return (poll, wakeUpsMadeBeforeWaiting(loop, rounds: 1).0)
    }
    #expect(poll == Accounting(passes: 1, wakeUps: 1, deferred: 0, writes: 0), "\(poll)")
    #expect(accounting == Accounting(passes: 1, wakeUps: 1, deferred: 1, writes: 1), "\(accounting)")
}

/// Polls `loop` (a run of 0 s) and returns what its wait did.
private func poll(_ loop: RefRunLoop) -> Accounting {
    let before = Accounting(loop)
    _ = loop.run(mode: .default, seconds: 0, returnAfterSourceHandled: false)
    return Accounting(loop) - before
}

@Test func aPollSkipsItsSystemCallOnceTheReadyListIsKnownClear() {
    let polls = onFreshLoopThread { loop -> [Accounting] in
        loop.add(RefRunLoopSource(perform: {}), mode: .default)
        // The first poll makes its system call (a new set's list may hold the eventfd's edge), and finds nothing:
        // the list is clear. The next ones skip theirs (no return from the OS wait is counted), also after a
        // wake-up deferred and consumed.
        var polls = [poll(loop), poll(loop)]
        _ = wakeUpsMadeBeforeWaiting(loop, rounds: 1)
        polls.append(poll(loop))
        return polls
    }
    let made = Accounting(passes: 1, wakeUps: 1, deferred: 0, writes: 0)
    let skipped = Accounting(passes: 1, wakeUps: 0, deferred: 0, writes: 0)
    #expect(polls == [made, skipped, skipped], "\(polls)")
}

@Test func aPollAfterATimersDateMakesItsSystemCallAndFiresIt() {
    let (polls, fired) = onFreshLoopThread { loop -> ([Accounting], Int) in
        loop.add(RefRunLoopSource(perform: {}), mode: .default)
        var polls = [poll(loop)]  // the list is known clear from here
        let fired = Counter()
        let date = RefClock.now + 0.2
        let timer = RefRunLoopTimer(fireDate: date) { _ in fired.increment() }
        loop.add(timer, mode: .default)
        // Armed for a time still to come: no expiry is noted, and a poll now may skip its system call.
        let noted = loop.lock.withLock { loop.defaultMode.waitSet.timerEdges.load(ordering: .relaxed) & 1 }
        #expect(noted == 0, "the timer's date passed while it was added (the machine is very busy)")
        polls.append(poll(loop))
        // Once the clock has passed the date, the poll must look.
        let deadline = TestDeadline()
        while RefClock.now <= date && !deadline.passed { sched_yield() }
        // The kernel marks the timerfd expired from its timer interrupt, which can come a little after the clock has
        // passed the date: the test waits for that too (poll(2) only reads the state), so that the loop's poll finds
        // the expiry whenever the interrupt came.
        var timerfd = pollfd(fd: loop.defaultMode.waitSet.timerFD, events: Int16(POLLIN), revents: 0)
        let expired = Glibc.poll(&timerfd, 1, Int32(testHangLimit * 1000))
        #expect(expired == 1, "the timerfd did not expire within \(testHangLimit) s of its date")
        polls.append(poll(loop))
        return (polls, fired.current)
    }
    #expect(fired == 1)
    let made = Accounting(passes: 1, wakeUps: 1, deferred: 0, writes: 0)
    let skipped = Accounting(passes: 1, wakeUps: 0, deferred: 0, writes: 0)
    #expect(polls == [made, skipped, made], "\(polls)")
}

@Test func theShortestSpinPolicyFeedsTheGovernorAsALongerOne() {
    let (lastWakeUpAt, start) = onFreshLoopThread { loop -> (UInt64, UInt64) in
        // A spin of at most 1 ns (the public initialiser takes any number of nanoseconds) is a spin policy, not park.
        loop.waitPolicy = RefRunLoop.WaitPolicy(maxSpinNanoseconds: 1)
        #expect(loop.waitPolicy == .spinThenPark(maxSpin: .nanoseconds(1)))
        loop.add(RefRunLoopSource(perform: {}), mode: .default)
        let start = RefClock.nanoseconds
        _ = wakeUpsMadeBeforeWaiting(loop, rounds: 1)
        return (loop.spinGovernor.lastWakeUpAt, start)
    }
    #expect(lastWakeUpAt >= start, "the wait's wake-up was not noted: the policy parked")
}

@Test func theParkPolicysGovernorLearnsNothing() {
    let (lastWakeUpAt, gap) = onFreshLoopThread { loop -> (UInt64, UInt64?) in
        loop.waitPolicy = .park
        loop.add(RefRunLoopSource(perform: {}), mode: .default)
        _ = wakeUpsMadeBeforeWaiting(loop, rounds: 3)
        let (poll, _) = pollWithAWakeUpMadeInASource(loop)
        #expect(poll == oneDeferredPoll, "\(poll)")
        return (loop.spinGovernor.lastWakeUpAt, loop.spinGovernor.gap)
    }
    // Parking never spins, so its waits feed the governor nothing (it is fed once the policy spins).
    #expect(lastWakeUpAt == 0)
    #expect(gap == nil)
}

@Test func theParkPolicysGovernorLearnsNothingFromAWrittenWakeUpEither() {
    let (accounting, lastWakeUpAt, gap) = onFreshLoopThread { loop -> (Accounting, UInt64, UInt64?) in
        loop.waitPolicy = .park
        loop.add(RefRunLoopSource(perform: {}), mode: .default)
        // With a descriptor in the mode every wake-up is written, and the wait reports the eventfd.
        let fd = EventFD.create()  // never written: its source never fires
        defer { Descriptor.close(fd) }
        let port = RefRunLoopSource(fileDescriptor: fd, perform: {})
        loop.add(port, mode: .default)
        defer { loop.remove(port, mode: .default) }
        let accounting = wakeUpsMadeBeforeWaiting(loop, rounds: 2).0
        return (accounting, loop.spinGovernor.lastWakeUpAt, loop.spinGovernor.gap)
    }
    #expect(accounting == Accounting(passes: 2, wakeUps: 2, deferred: 0, writes: 2), "\(accounting)")
    #expect(lastWakeUpAt == 0)
    #expect(gap == nil)
}

@Test func theSpinPolicysGovernorLearnsWhenAWaitBeganButNotFromAPoll() {
    let results = onFreshLoopThread { loop -> [String] in
        let policy = RefRunLoop.WaitPolicy.spinThenPark(maxSpin: RefRunLoop.WaitPolicy.defaultMaxSpin)
        loop.waitPolicy = policy
        loop.add(RefRunLoopSource(perform: {}), mode: .default)
        let start = RefClock.nanoseconds
        _ = wakeUpsMadeBeforeWaiting(loop, rounds: 1)
        let afterWait = loop.spinGovernor
        let end = RefClock.nanoseconds
        let (poll, _) = pollWithAWakeUpMadeInASource(loop)
        let afterPoll = loop.spinGovernor
        let cap = SpinGovernor.sampleCap(maxSpin: policy.maxSpinNanoseconds)
        return [
            // The wake-up ended a wait that began within the run: the sample is that wait's length (at most the cap).
            "noted within the run: \(afterWait.lastWakeUpAt >= start && afterWait.lastWakeUpAt <= end)",
            "gap: \(afterWait.gap.map { $0 <= min(cap, end - start) } ?? false)",
            // A poll does not wait, so its wake-up is no hand-off sample.
            "poll: \(poll)",
            "poll noted: \(afterPoll.lastWakeUpAt != afterWait.lastWakeUpAt || afterPoll.gap != afterWait.gap)",
        ]
    }
    #expect(results == ["noted within the run: true", "gap: true", "poll: \(oneDeferredPoll)", "poll noted: false"])
}
