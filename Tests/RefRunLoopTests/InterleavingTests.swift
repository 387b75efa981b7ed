// The wait path's race windows, driven in a chosen order by interleaving points (InterleavingPoints.swift in
// Sources/RefRunLoop): one thread is held at a named point until another has reached another, so that a waker acts
// inside a window of a few instructions of the loop's thread (or the other way round) on every run, not by chance.
// Every hold and every wait here has a deadline: an ordering that cannot happen fails the test, it never hangs it.

import Foundation
import Testing

@testable import RefRunLoop

/// How long a schedule's holds and waits last at most, in seconds. Not a timing threshold: each awaited point is a
/// few instructions away, so only an ordering that cannot happen (a broken loop) reaches it.
private let holdLimit: UInt64 = 10

/// A thread of a test whose identity the test knows before it acts: `body` gets it (to install its own holds) and
/// its result is handed back by ``join()``.
private final class TestThread<T: Sendable>: @unchecked Sendable {
    /// Written by the thread before `started` is signalled; read by the test after it.
    private(set) var id: InterleavingThread = 0
    /// Written by the thread before `done` is signalled; read by the test after it.
    private var result: T?
    private let started = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable (InterleavingThread) -> T) {
        let thread = Thread { [self] in
            id = InterleavingSchedule.currentThread
            started.signal()
            result = body(id)
            done.signal()
        }
        thread.start()
        if started.wait(timeout: .now() + testHangLimit) == .timedOut { fatalError("a test thread did not start") }
    }

    /// The thread's result, or nil if it has not returned after twice the hold limit (every hold has ended by
    /// then, so it is stuck in the code under test).
    func join() -> T? {
        if done.wait(timeout: .now() + .seconds(Int(2 * holdLimit))) == .timedOut { return nil }
        return result
    }
}

/// The wait set under test, in an object (`#expect` copies its operands; a wait set cannot be copied).
private final class Fixture: @unchecked Sendable {
    let waitSet = WaitSet()
}

/// A gate in an object, for the same reason.
private final class GateFixture: @unchecked Sendable {
    let gate = WakeGate()
    func claim() -> WakeGate.Claim { gate.claim() }
}

// MARK: A poll and a write in flight (WaitSet.awaitWriteInFlight)

@Test func aPollWaitsForTheWriteOfAClaimMadeBeforeItAndReportsIt() {
    let f = Fixture()
    let set = f.waitSet.makeModeSet()
    defer { set.close() }
    let schedule = InterleavingSchedule(deadlineSeconds: holdLimit)
    let me = InterleavingSchedule.currentThread
    f.waitSet.gate.open()
    let notConsumed = !f.waitSet.beginWait(set)
    #expect(notConsumed)
    // The waker claims (the loop is waiting: a claim writes) and stops between its claim and its write until the
    // poll is waiting for that write.
    let waker = TestThread { id in
        schedule.hold("WaitSet.wake.claimed", on: id, until: "WaitSet.awaitWriteInFlight.waiting", on: me)
        f.waitSet.wake()
    }
    #expect(schedule.waitUntilReached("WaitSet.wake.claimed", on: waker.id))
    f.waitSet.awaitWriteInFlight()
    let report = f.waitSet.waitForOne(set, timeoutNanoseconds: 0)
    f.waitSet.endWait()
    #expect(waker.join() != nil)
    #expect(schedule.end() == [])
    #expect(report == .wakeUp)
    let noneLeftPending = !f.waitSet.gate.snapshot().pending
    #expect(noneLeftPending)
}

@Test func aPollAfterACalloutReportsAWakeUpWhoseWriteWasInFlight() {
    let (pending, failures) = onFreshLoopThread { loop -> (Bool, [String]) in
        // Two modes: no claim is deferred, every one is written.
        loop.stop(mode: "interleaving.second")
        let schedule = InterleavingSchedule(deadlineSeconds: holdLimit)
        let me = InterleavingSchedule.currentThread
        let wakers = Recorder<TestThread<Void>>()
        // The callout starts a waker and returns once it has claimed the wake-up; the waker then waits before its
        // write until the loop's poll (a source was handled: the wait polls) waits for the write.
        let source = RefRunLoopSource(perform: {
            let waker = TestThread { id in
                schedule.hold("WaitSet.wake.claimed", on: id, until: "WaitSet.awaitWriteInFlight.waiting", on: me)
                loop.wakeUp()
            }
            wakers.append(waker)
            _ = schedule.waitUntilReached("WaitSet.wake.claimed", on: waker.id)
        })
        loop.add(source, mode: .default)
        defer { loop.remove(source, mode: .default) }
        source.signal()
        _ = loop.run(mode: .default, seconds: 0, returnAfterSourceHandled: false)
        for waker in wakers.all { _ = waker.join() }
        // The poll reported the wake-up: none is pending any more.
        return (loop.waitSet.gate.snapshot().pending, schedule.end())
    }
    #expect(failures == [])
    #expect(!pending)
}

// MARK: A compare-and-exchange that lost to another thread's (WakeGate)

@Test func aClaimWhoseExchangeLostToAnotherClaimTakesNone() {
    let f = GateFixture()
    f.gate.open()
    let schedule = InterleavingSchedule(deadlineSeconds: holdLimit)
    let me = InterleavingSchedule.currentThread
    // The first claimer loads the gate and stops before its exchange until another claim has been made.
    let first = TestThread { id -> WakeGate.Claim in
        schedule.hold("WakeGate.claim.exchanging", on: id, until: "InterleavingTests.claimed", on: me)
        return f.claim()
    }
    #expect(schedule.waitUntilReached("WakeGate.claim.exchanging", on: first.id))
    let second = f.claim()
    interleavingPoint("InterleavingTests.claimed")
    let firstClaim = first.join()
    #expect(schedule.end() == [])
    // One wake-up, one write: the claim that lost finds the wake-up pending and takes none.
    #expect(second == .write)
    #expect(firstClaim == WakeGate.Claim.none)
    let oneClaim = f.gate.snapshot().claims == 1
    #expect(oneClaim)
}

@Test func aSettleWhoseExchangeLostRetriesWithTheGatesNewState() {
    let f = GateFixture()
    // Deferrable under a horizon an hour away: a claim is deferred and settled by its claimer as early.
    f.gate.allowDeferral(before: RefClock.nanoseconds &+ 3_600_000_000_000)
    f.gate.open()
    let schedule = InterleavingSchedule(deadlineSeconds: holdLimit)
    let me = InterleavingSchedule.currentThread
    // The claimer stops before its settling exchange until the loop has changed the gate (closed it).
    let claimer = TestThread { id -> WakeGate.Claim in
        schedule.hold("WakeGate.settle.exchanging", on: id, until: "InterleavingTests.closed", on: me)
        return f.claim()
    }
    #expect(schedule.waitUntilReached("WakeGate.settle.exchanging", on: claimer.id))
    f.gate.close()
    interleavingPoint("InterleavingTests.closed")
    let claim = claimer.join()
    #expect(schedule.end() == [])
    #expect(claim == .deferred)
    // Settled as early: the loop's next wait consumes it without a system call.
    let consumedByTheWait = f.gate.beginWait() == .consumed(1)
    #expect(consumedByTheWait)
}

@Test func aBeginWaitWhoseExchangeLostToAClaimRetriesWithTheGatesNewState() {
    let f = GateFixture()
    f.gate.open()
    let schedule = InterleavingSchedule(deadlineSeconds: holdLimit)
    let me = InterleavingSchedule.currentThread
    // The loop's thread loads the gate and stops before its exchange until a waker has claimed.
    let loopThread = TestThread { id -> WakeGate.WaitStart in
        schedule.hold("WakeGate.beginWait.exchanging", on: id, until: "InterleavingTests.claimed", on: me)
        return f.gate.beginWait()
    }
    #expect(schedule.waitUntilReached("WakeGate.beginWait.exchanging", on: loopThread.id))
    let claim = f.claim()
    interleavingPoint("InterleavingTests.claimed")
    let start = loopThread.join()
    #expect(schedule.end() == [])
    #expect(claim == .write)
    #expect(start == .waiting)
    // The claim stays pending for the wait to report.
    let stillPending = f.gate.snapshot().pending
    #expect(stillPending)
}

// MARK: An arming that expired while the timerfd was set again (WaitSet.arm)

@Test func anOldArmingThatExpiredAfterTheCallersClockReadingIsNotedQueued() {
    let f = Fixture()
    let set = f.waitSet.makeModeSet()
    defer { set.close() }
    // The caller's clock reading `now` was taken before the old arming's time, which has passed by the time the
    // timerfd is set again: its expiry is queued on the list, and the new arming does not take it off.
    // A poll that finds nothing: the list holds no wake-up edge, so only the timerfd's entry could stop a skip.
    let notConsumed = !f.waitSet.beginWait(set)
    #expect(notConsumed)
    let foundNothing = f.waitSet.waitForOne(set, timeoutNanoseconds: 0) == .timeout
    #expect(foundNothing)
    f.waitSet.endWait()
    let old = RefClock.nanoseconds &+ 1
    f.waitSet.arm(set, at: old, now: old &- 1)
    while RefClock.nanoseconds <= old { sched_yield() }
    f.waitSet.arm(set, at: old &+ 3_600_000_000_000, now: old &- 1)
    #expect(set.timerEdges.load(ordering: .relaxed) & 1 != 0)
    // So the next poll makes its system call, which drops that entry (the timerfd is no longer expired) instead of
    // leaving it ahead of ports that become ready later.
    let pollIsMade = !f.waitSet.pollWouldReportNothing(set)
    #expect(pollIsMade)
}

// MARK: A descriptor added from another thread while a wake-up is made (RefRunLoop.registerDescriptorLocked)

@Test func aWakeUpMadeWhileAReadyDescriptorIsAddedIsReportedAfterIt() {
    let (performed, failures) = onFreshLoopThread { loop -> (Int, [String]) in
        let fd = EventFD.create()
        defer { Descriptor.close(fd) }
        EventFD.signal(fd)  // readable before it is added
        let fired = Counter()
        let port = RefRunLoopSource(fileDescriptor: fd, perform: { fired.increment() })
        let schedule = InterleavingSchedule(deadlineSeconds: holdLimit)
        let me = InterleavingSchedule.currentThread
        // In a callout (the loop awake, one mode, no descriptor: a wake-up made now could be deferred), another
        // thread adds the ready descriptor and is held once the mode's set counts it as having descriptors, until
        // this thread has made a wake-up. The descriptor is in the set by then, and a claim cannot be deferred any
        // more: the write's edge comes after the descriptor's, as when CF inserts the port and then writes.
        let adders = Recorder<TestThread<Void>>()
        let source = RefRunLoopSource(perform: {
            let adder = TestThread { id in
                schedule.hold(
                    "WaitSet.ModeSet.quietUntilUpdated", on: id, until: "InterleavingTests.wokenUp", on: me)
                loop.add(port, mode: .default)
            }
            adders.append(adder)
            _ = schedule.waitUntilReached("WaitSet.ModeSet.quietUntilUpdated", on: adder.id)
            loop.wakeUp()
            interleavingPoint("InterleavingTests.wokenUp")
            _ = adder.join()
        })
        loop.add(source, mode: .default)
        defer {
            loop.remove(source, mode: .default)
            loop.remove(port, mode: .default)
        }
        source.signal()
        // The pass handled a source, so its wait polls: it reports the descriptor, whose edge came first.
        _ = loop.run(mode: .default, seconds: 0, returnAfterSourceHandled: false)
        return (fired.current, schedule.end())
    }
    #expect(failures == [])
    #expect(performed == 1)
}
