// The wait set on its own (WaitSet.swift), with real epoll sets, eventfds and timerfds and no loop: which reports a
// mode's set gives and in which order, and the accounting that lets a poll skip its system call. Single-threaded:
// every wait is a poll (timeout 0), so nothing waits.

import CRunLoopSystem
import Testing

@testable import RefRunLoop

/// The wait set under test, in an object: `#expect` captures its operands, which a non-copyable value cannot be.
private final class Fixture {
    let waitSet = WaitSet()
}

/// One poll of `set`, as a pass makes it: begin the wait (a deferred wake-up is reported without a system call),
/// wait, end it.
private func poll(_ f: Fixture, _ set: WaitSet.ModeSet) -> WaitSet.Report {
    if f.waitSet.beginWait(set) { return .wakeUp }
    defer { f.waitSet.endWait() }
    return f.waitSet.waitForOne(set, timeoutNanoseconds: 0)
}

private func writes(_ f: Fixture) -> UInt64 { f.waitSet.writes.load(ordering: .relaxed) }
private func skippable(_ f: Fixture, _ set: WaitSet.ModeSet) -> Bool { f.waitSet.pollWouldReportNothing(set) }
private func beginWait(_ f: Fixture, _ set: WaitSet.ModeSet) -> Bool { f.waitSet.beginWait(set) }

@Test func aWakeUpWhileTheGateIsClosedIsNeitherWrittenNorReported() {
    let f = Fixture()
    let set = f.waitSet.makeModeSet()
    defer { set.close() }
    f.waitSet.wake()
    #expect(writes(f) == 0)
    #expect(poll(f, set) == .timeout)
}

@Test func wakeUpsCoalesceUntilReportedAndTheReportClosesTheGate() {
    let f = Fixture()
    let set = f.waitSet.makeModeSet()
    defer { set.close() }
    f.waitSet.gate.open()
    f.waitSet.wake()
    f.waitSet.wake()
    #expect(writes(f) == 1)
    #expect(poll(f, set) == .wakeUp)
    #expect(poll(f, set) == .timeout)
    // Closed by the report until the loop opens it again.
    f.waitSet.wake()
    #expect(writes(f) == 1)
    f.waitSet.gate.open()
    f.waitSet.wake()
    #expect(writes(f) == 2)
    #expect(poll(f, set) == .wakeUp)
}

@Test func anotherModesSetReportsTheSameWriteAsAStaleEdgeOnce() {
    let f = Fixture()
    let first = f.waitSet.makeModeSet()
    let second = f.waitSet.makeModeSet()
    defer {
        first.close()
        second.close()
    }
    f.waitSet.gate.open()
    f.waitSet.wake()
    #expect(poll(f, first) == .wakeUp)
    #expect(poll(f, second) == .staleWakeUp)
    #expect(poll(f, second) == .timeout)
}

@Test func aPollCanBeSkippedOnlyWhenNothingButAWakeUpCouldBeReported() {
    let f = Fixture()
    let set = f.waitSet.makeModeSet()
    defer { set.close() }
    // A new set may hold an edge of a write made before it existed: not skippable until a wait has looked.
    #expect(!skippable(f, set))
    #expect(poll(f, set) == .timeout)
    #expect(skippable(f, set))
    // A wake-up in flight, or its edge still queued, must go through the system call.
    f.waitSet.gate.open()
    f.waitSet.wake()
    #expect(!skippable(f, set))
    #expect(poll(f, set) == .wakeUp)
    // Reported with the claim pending at the wait's start, so only the next wait, which scans the whole list,
    // proves its edge gone.
    #expect(poll(f, set) == .timeout)
    #expect(skippable(f, set))
    // An armed timerfd: skippable until its time; a descriptor: never.
    f.waitSet.arm(set, at: RefClock.nanoseconds + 3_600_000_000_000, now: RefClock.nanoseconds)
    #expect(skippable(f, set))
    set.hasDescriptors = true
    #expect(!skippable(f, set))
    set.hasDescriptors = false
    f.waitSet.arm(set, at: nil, now: RefClock.nanoseconds)
    #expect(set.quietUntil.load(ordering: .relaxed) == .max)
    #expect(skippable(f, set))
}

@Test func aDueTimerfdIsReportedOnceAndItsExpiryAccounted() {
    let f = Fixture()
    let set = f.waitSet.makeModeSet()
    defer { set.close() }
    let now = RefClock.nanoseconds
    f.waitSet.arm(set, at: now, now: now)
    #expect(set.timerEdges.load(ordering: .relaxed) & 1 == 1)
    #expect(set.deferralHorizon == nil)
    #expect(poll(f, set) == .timer)
    set.noteExpiryReported()
    #expect(set.timerEdges.load(ordering: .relaxed) & 1 == 0)
    #expect(poll(f, set) == .timeout)
    #expect(set.deferralHorizon == UInt64.max)
}

@Test func aDeferredWakeUpIsReportedWithoutAWriteOrWrittenBeforeAnArming() {
    let f = Fixture()
    let set = f.waitSet.makeModeSet()
    defer { set.close() }
    #expect(poll(f, set) == .timeout)
    f.waitSet.gate.open()
    f.waitSet.setDeferral(before: .max, in: set)
    f.waitSet.wake()
    #expect(writes(f) == 0)
    // Reported by the next wait without a system call, and counted as written.
    #expect(beginWait(f, set))
    #expect(writes(f) == 1)
    #expect(skippable(f, set))
    // Deferred again, then a timerfd armed due: the wake-up is written first, so its edge comes first.
    f.waitSet.gate.open()
    f.waitSet.wake()
    #expect(writes(f) == 1)
    let now = RefClock.nanoseconds
    f.waitSet.arm(set, at: now, now: now)
    #expect(writes(f) == 2)
    #expect(poll(f, set) == .wakeUp)
    #expect(poll(f, set) == .timer)
}

@Test func aWakeUpDeferredBeforeTheArmedTimerfdsTimeIsReportedWithoutAWrite() {
    let f = Fixture()
    let set = f.waitSet.makeModeSet()
    defer { set.close() }
    #expect(poll(f, set) == .timeout)
    let far = RefClock.nanoseconds + 3_600_000_000_000
    f.waitSet.arm(set, at: far, now: RefClock.nanoseconds)
    #expect(set.deferralHorizon == far)
    f.waitSet.gate.open()
    f.waitSet.setDeferral(before: far, in: set)
    // Claimed an hour before the timerfd can expire: deferred, and reported by the next wait without a system call.
    f.waitSet.wake()
    #expect(writes(f) == 0)
    #expect(beginWait(f, set))
    #expect(writes(f) == 1)
    // The same horizon again changes nothing; a claim deferred under it stays deferred.
    f.waitSet.gate.open()
    f.waitSet.wake()
    f.waitSet.setDeferral(before: far, in: set)
    #expect(writes(f) == 1)
    // A new horizon is set with deferral disallowed: the deferred claim is written first.
    f.waitSet.setDeferral(before: far + 1, in: set)
    #expect(writes(f) == 2)
    #expect(poll(f, set) == .wakeUp)
    #expect(poll(f, set) == .timeout)
}

@Test func aWakeUpClaimedAtOrAfterTheHorizonIsWrittenAndReportedAfterTheTimer() {
    let f = Fixture()
    let set = f.waitSet.makeModeSet()
    defer { set.close() }
    #expect(poll(f, set) == .timeout)
    // Armed in the past: the timerfd expires at once; deferral under that horizon lets no claim through unwritten.
    let now = RefClock.nanoseconds
    f.waitSet.arm(set, at: now, now: now)
    f.waitSet.gate.open()
    f.waitSet.setDeferral(before: now, in: set)
    f.waitSet.wake()
    #expect(writes(f) == 1)
    // The timer's edge came first, so it is reported first, then the wake-up.
    #expect(poll(f, set) == .timer)
    #expect(poll(f, set) == .wakeUp)
    #expect(poll(f, set) == .timeout)
}

@Test func descriptorsAndTheOneWaitDescriptorAreReportedWithTheirOwnReports() throws {
    let f = Fixture()
    let set = f.waitSet.makeModeSet()
    let source = EventFD.create()
    let extra = EventFD.create()
    defer {
        set.close()
        Descriptor.close(source)
        Descriptor.close(extra)
    }
    f.waitSet.register(source, in: set, modeName: "test")
    EventFD.signal(source)
    #expect(poll(f, set) == .descriptor(source))
    #expect(try EventFD.read(source) == 1)
    set.unregister(source)
    EventFD.signal(source)
    #expect(poll(f, set) == .timeout)
    EventFD.signal(extra)
    set.insertForOneWait(extra)
    #expect(poll(f, set) == .oneWait)
    set.removeAfterWait(extra)
    #expect(poll(f, set) == .timeout)
}

/// A wake-up write that finds the eventfd's counter at its maximum (2^64-2 unread) fails with EAGAIN and is done:
/// the descriptor is readable already (EventFD.signal's failure path, Syscall.call(_:failedWith:_:)).
@Test func aSignalOfAFullEventFDIsDone() throws {
    let fd = EventFD.create()
    defer { Descriptor.close(fd) }
    #expect(csystem_eventfd_write(fd, UInt64.max - 1) == 0)
    EventFD.signal(fd)
    #expect(try EventFD.read(fd) == UInt64.max - 1)
    #expect(try EventFD.read(fd) == nil)
}
