// Contracts of the wait path that only an exact clock value or a count of what a thread did shows, checked with a
// thread probe (ThreadProbes.swift in Sources/RefRunLoop, debug builds only): a clock of the test's own on the loop's
// thread, in which a wait that times out lasts exactly its timeout (the run deadlines and the spin's quiet time are
// compared with one exact nanosecond), and the yields, spin hints and lock acquisitions the loop's thread made. No
// timing: every reading of the test's clock is one the test chose.

import CRunLoopSystem
import Foundation
import Synchronization
import Testing

@testable import RefRunLoop

/// A run timeout whose nanoseconds are exact in a Double: 2^-9 s is 1,953,125 ns.
private let outerSeconds = 1.0 / 512
private let outerNanoseconds: UInt64 = 1_953_125
/// 2^-10 s is 976,562.5 ns, rounded up (a deadline is never earlier than the date it stands for).
private let innerSeconds = 1.0 / 1024
private let innerNanoseconds: UInt64 = 976_563

/// An hour, for a timer that keeps a mode from being empty and never fires during a test.
private let anHour = 3600.0

/// Runs `body` with a probe on the calling thread whose clock starts at the monotonic clock's reading, and removes it.
private func withProbe<T>(_ body: (ThreadProbe, UInt64) -> T) -> T {
    let start = csystem_monotonic_ns()
    let probe = ThreadProbe.install()
    defer { probe.remove() }
    probe.clock = start
    return body(probe, start)
}

// MARK: Run deadlines (RefRunLoop+Wait.swift: waitTimeout, markTimeoutsDeliveredLocked)

/// The exit check is strict (a run times out once its deadline is behind the clock: rule timeout.end-of-pass-only),
/// so a run's wait lasts until one nanosecond past the deadline: the run then ends after that one wait. A wait that
/// ended at the deadline itself would leave the run going, and the next wait would have no time left to wait for.
@Test func aRunsWaitLastsUntilOneNanosecondPastItsDeadlineAndTheRunTimesOutAfterIt() {
    let (result, waits, end, start) = onFreshLoopThread { loop -> (RefRunLoopResult, Int, UInt64?, UInt64) in
        withProbe { probe, start in
            let keepAlive = RefRunLoopTimer(fireDate: RefClock.now + anHour) { _ in }
            loop.add(keepAlive, mode: .named("probe"))
            let waits = Recorder<Int>()
            // Bounds a run that would not end: its fourth wait stops it.
            let observer = RefRunLoopObserver(activities: .beforeWaiting) { _, _ in
                waits.append(1)
                if waits.count > 3 { loop.stop() }
            }
            loop.add(observer, mode: .named("probe"))
            let result = loop.run(mode: .named("probe"), seconds: innerSeconds, returnAfterSourceHandled: false)
            loop.remove(observer, mode: .named("probe"))
            loop.remove(keepAlive, mode: .named("probe"))
            return (result, waits.count, probe.clock, start)
        }
    }
    #expect(result == .timedOut)
    #expect(waits == 1)
    #expect(end == start + innerNanoseconds + 1)
}

/// An outer run's deadline that a nested run's wait reached exactly (the clock reads the deadline itself) has not
/// passed yet (the exit check is strict): it stays pending, so that it wakes the next nested run once when it does
/// pass, as CF's timeout timer fires once it is due. Here run B, nested in run A, ends one nanosecond before A's
/// deadline: its wait ends at A's deadline exactly; run C, nested in A after it, with a later deadline of its own, is
/// then woken once by A's deadline (its first wait) before its own deadline ends it (its second).
@Test func anOuterDeadlineReachedExactlyStaysPendingAndWakesTheNextNestedRunOnce() {
    let outcome = onFreshLoopThread { loop -> [String] in
        withProbe { probe, start in
            let log = Recorder<String>()
            let keepAlive = RefRunLoopTimer(fireDate: RefClock.now + anHour) { _ in }
            loop.add(keepAlive, mode: .named("inner"))
            let observer = RefRunLoopObserver(activities: [.beforeWaiting, .afterWaiting]) { _, activity in
                log.append(
                    activity == .beforeWaiting ? "wait at \(probe.clock! - start)" : "woke at \(probe.clock! - start)")
                // Bounds a run that would not end.
                if log.count > 12 { loop.stop() }
            }
            loop.add(observer, mode: .named("inner"))
            // Outer run A waits only when a run that should not go on does: bounded too.
            loop.add(observer, mode: .named("outer"))
            let nested = RefRunLoopSource(perform: {
                // B's deadline one nanosecond before A's (A started at `start`).
                probe.clock = start + outerNanoseconds - 1 - innerNanoseconds
                let b = loop.run(mode: .named("inner"), seconds: innerSeconds, returnAfterSourceHandled: false)
                log.append("B \(b)")
                let c = loop.run(mode: .named("inner"), seconds: innerSeconds, returnAfterSourceHandled: false)
                log.append("C \(c)")
            })
            loop.add(nested, mode: .named("outer"))
            nested.signal()
            let a = loop.run(mode: .named("outer"), seconds: outerSeconds, returnAfterSourceHandled: false)
            log.append("A \(a)")
            loop.remove(nested, mode: .named("outer"))
            loop.remove(observer, mode: .named("inner"))
            loop.remove(observer, mode: .named("outer"))
            loop.remove(keepAlive, mode: .named("inner"))
            return log.all
        }
    }
    let a = outerNanoseconds
    let b = outerNanoseconds - 1 - innerNanoseconds
    #expect(
        outcome == [
            // B waits until one nanosecond past its deadline: A's deadline exactly.
            "wait at \(b)", "woke at \(a)", "B timedOut",
            // C's first wait ends one nanosecond past A's deadline, its second one past its own.
            "wait at \(a)", "woke at \(a + 1)", "wait at \(a + 1)", "woke at \(a + innerNanoseconds + 1)", "C timedOut",
            "A timedOut",
        ])
}

// MARK: The exit check's lock (RefRunLoop+Run.swift: exitCheck)

/// A pass that performs a version-0 source and then polls, in a run whose stop flags and mode nothing changed, takes
/// the loop's lock not once: the source's signal is taken from its word, the poll skips its system call without the
/// loop's, and the exit check sees from the exit epoch that nothing it looks at under the lock changed. (The
/// loop's lock is the one every other thread's change of the loop contends for: a run loop busy with sources must
/// not take it on every pass.)
@Test func aPassThatChangesNothingTakesTheLoopsLockNotOnce() {
    let perPass = onFreshLoopThread { loop -> [UInt64] in
        let readings = Recorder<UInt64>()
        let sourceBox = ResultBox<RefRunLoopSource>()
        let source = RefRunLoopSource(perform: {
            readings.append(loop.lock.acquisitions)
            // Signalled again for the next pass four times; the fifth perform stops the run.
            if readings.count < 5 { sourceBox.value!.signal() } else { loop.stop() }
        })
        sourceBox.value = source
        loop.add(source, mode: .named("probe"))
        source.signal()
        let result = loop.run(mode: .named("probe"), seconds: anHour, returnAfterSourceHandled: false)
        #expect(result == .stopped)
        loop.remove(source, mode: .named("probe"))
        let all = readings.all
        return zip(all.dropFirst(), all).map { $0 - $1 }
    }
    // From each perform to the next: the rest of a pass and the start of the next.
    #expect(perPass == [0, 0, 0, 0])
}

// MARK: A poll awaiting a write in flight (WaitSet.awaitWriteInFlight)

/// The wait set under test, in an object (`#expect` copies its operands; a wait set cannot be copied).
private final class Fixture: @unchecked Sendable {
    let waitSet = WaitSet()
}

/// A poll of `f`'s wait set that finds a write in flight: a writer thread claims a wake-up and is held between its
/// claim and its write until the test's thread reaches `awaited` (or `schedule` ends). `poll` runs on the test's
/// thread once the claim is pending, inside a wait; then the wake-up is taken and the wait ended. Returns `poll`'s
/// result and the report of the wait that took the wake-up.
private func pollWithAWriteInFlight<T>(
    _ f: Fixture, _ schedule: InterleavingSchedule, writerHeldUntil awaited: StaticString, poll: () -> T
) -> (T, WaitSet.Report) {
    let set = f.waitSet.makeModeSet()
    defer { set.close() }
    let me = InterleavingSchedule.currentThread
    f.waitSet.gate.open()
    let notConsumed = !f.waitSet.beginWait(set)
    #expect(notConsumed)
    let done = DispatchSemaphore(value: 0)
    let writer = Thread {
        schedule.hold("WaitSet.wake.claimed", on: InterleavingSchedule.currentThread, until: awaited, on: me)
        f.waitSet.wake()
        done.signal()
    }
    writer.start()
    #expect(waitUntil { f.waitSet.gate.snapshot().pending })
    let result = poll()
    // The writer goes on: its hold ends when the poll reached its point or with the schedule, not at its deadline
    // (which would be a failure listed).
    #expect(schedule.end() == [])
    #expect(done.wait(timeout: .now() + 20) == .success)
    let report = f.waitSet.waitForOne(set, timeoutNanoseconds: 0)
    f.waitSet.endWait()
    return (result, report)
}

/// While a poll waits for another thread's write, it yields the CPU: the writer is one system call away and may be
/// waiting for this thread's CPU (on one CPU, a poll that spun instead would keep the writer off it until its time
/// slice ended).
@Test func aPollAwaitingAWriteInFlightYieldsTheCPU() {
    let f = Fixture()
    // The writer is held until the poll is waiting for its write.
    let (yields, report) = pollWithAWriteInFlight(
        f, InterleavingSchedule(deadlineSeconds: 10), writerHeldUntil: "WaitSet.awaitWriteInFlight.waiting"
    ) {
        let probe = ThreadProbe.install()
        defer { probe.remove() }
        f.waitSet.awaitWriteInFlight()
        return probe.yields
    }
    #expect(report == .wakeUp)
    #expect(yields >= 1)
}

/// A poll gives up waiting for a write in flight one second after it began to wait (a writer stopped between its
/// claim and its write, by a debugger or a descheduled CPU, must not hold the loop longer): it yields until its clock
/// reads that deadline, and no longer. Here the test's clock reads the start, one nanosecond before the deadline, then
/// the deadline: two yields, three readings.
@Test func aPollAwaitingAWriteInFlightGivesUpOneSecondAfterItBegan() {
    let f = Fixture()
    // The writer is held until the poll has given up: it awaits a point no thread reaches, so the schedule's end lets
    // it go; the schedule's deadline is long enough that it is still held when the poll looks, on any machine.
    let ((readings, yields), report) = pollWithAWriteInFlight(
        f, InterleavingSchedule(deadlineSeconds: 60), writerHeldUntil: "WaitPathProbeTests.never"
    ) {
        let base = csystem_monotonic_ns()
        let second: UInt64 = 1_000_000_000
        let probe = ThreadProbe.install()
        defer { probe.remove() }
        // Past the third reading, far beyond any deadline the poll could have set.
        probe.readings = { [base, base + second - 1, base + second].dropFirst($0).first ?? base + 1000 * second }
        f.waitSet.awaitWriteInFlight()
        return (probe.clockReadings, probe.yields)
    }
    #expect(report == .wakeUp)
    #expect(yields == 2)
    #expect(readings == 3)
}

// MARK: The spin's clock (WaitSet.spin)

/// The spin polls the gate eight times for each clock reading (a reading costs more than a poll), and ends at the
/// first reading at or after its deadline or the set's quiet time (the armed timerfd's time): here three readings
/// before both, then one at the deadline, so 32 polls, with the spin hint after each but the last.
@Test func aSpinReadsTheClockOnceInEightPollsAndEndsAtItsDeadline() {
    let f = Fixture()
    let set = f.waitSet.makeModeSet()
    defer { set.close() }
    f.waitSet.gate.open()
    let base = csystem_monotonic_ns()
    let deadline = base + 1_000_000
    let probe = ThreadProbe.install()
    probe.readings = { $0 < 3 ? base : deadline }
    let end = f.waitSet.spin(set, until: deadline)
    let (readings, hints) = (probe.clockReadings, probe.spinHints)
    probe.remove()
    #expect(end == .parked)
    #expect(readings == 4)
    #expect(hints == 31)
}

/// The spin ends at the first clock reading at or after the set's quiet time (from then the timerfd may have
/// expired, and the wait must take over): a reading of the quiet time itself ends it.
@Test func aSpinEndsAtAReadingOfTheQuietTimeItself() {
    let f = Fixture()
    let set = f.waitSet.makeModeSet()
    defer { set.close() }
    f.waitSet.gate.open()
    let now = csystem_monotonic_ns()
    let quiet = now + 3_600_000_000_000
    f.waitSet.arm(set, at: quiet, now: now)
    let probe = ThreadProbe.install()
    // The quiet time, then a nanosecond past it.
    probe.readings = { $0 == 0 ? quiet : quiet + 1 }
    let end = f.waitSet.spin(set, until: quiet + 1_000_000_000)
    let (readings, hints) = (probe.clockReadings, probe.spinHints)
    probe.remove()
    #expect(end == .parked)
    #expect(readings == 1)
    #expect(hints == 7)
}
