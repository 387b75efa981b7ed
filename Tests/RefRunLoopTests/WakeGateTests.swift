// The wake-up gate (WakeGate.swift) on its own, one thread, step by step: what each claim obliges its caller to do
// in each state of the gate (closed, open, waiting, deferrable with and without a horizon, a horizon already passed),
// and how a wait consumes or reports it. The loop reaches most of these states only between two callouts, and the
// outcome of a claim (a write or none) is seen by no CF behaviour, so no spec case can check them.

import Testing

@testable import RefRunLoop

/// A gate behind forwarding methods: Swift Testing's expectations take their subject by copy, and the gate is not
/// copyable.
private final class Gate {
    private let gate = WakeGate()

    func claim() -> WakeGate.Claim { gate.claim() }
    func snapshot() -> (claims: UInt64, pending: Bool) { gate.snapshot() }
    func reportable(writes: UInt64) -> Bool { gate.reportable(writes: writes) }
    func open() { gate.open() }
    func close() { gate.close() }
    func beginWait() -> WakeGate.WaitStart { gate.beginWait() }
    func endWait() { gate.endWait() }
    func consumeReport() -> Bool { gate.consumeReport() }
    func allowsDeferral(before horizon: UInt64) -> Bool { gate.allowsDeferral(before: horizon) }
    func allowDeferral(before horizon: UInt64) { gate.allowDeferral(before: horizon) }
    func disallowDeferral() -> Bool { gate.disallowDeferral() }
}

@Test func aClosedGateTakesNoWakeUpAndAnOpenOneTakesOneUntilItIsReported() {
    let gate = Gate()
    #expect(gate.claim() == .none)
    #expect(gate.snapshot() == (0, false))
    #expect(gate.reportable(writes: 0) == false, "nothing is pending")
    gate.open()
    gate.close()
    #expect(gate.claim() == .none, "closed again")
    gate.open()
    #expect(gate.claim() == .write)
    #expect(gate.snapshot() == (1, true))
    // One in flight already: the next needs no write of its own.
    #expect(gate.claim() == .none)
    #expect(gate.reportable(writes: 0) == false, "the write is not made yet")
    #expect(gate.reportable(writes: 1))
    // The wait reports it: consumed, and the gate closed.
    #expect(gate.consumeReport())
    #expect(gate.snapshot() == (1, false))
    #expect(gate.reportable(writes: 1) == false, "nothing is pending")
    #expect(gate.claim() == .none)
    #expect(gate.consumeReport() == false, "an edge with no claim pending is a stale one")
    gate.open()
    #expect(gate.claim() == .write)
    #expect(gate.snapshot() == (2, true))
}

@Test func aClaimIsDeferredOnlyWhileTheLoopIsAwakeAndDeferrable() {
    let gate = Gate()
    gate.open()
    gate.allowDeferral(before: .max)
    #expect(gate.allowsDeferral(before: .max))
    #expect(gate.allowsDeferral(before: 1) == false, "allowed under another horizon")
    // Unbounded (no timerfd armed): deferred, and the next wait consumes it without a system call.
    #expect(gate.claim() == .deferred)
    #expect(gate.reportable(writes: 0), "a deferred claim is reportable without a write")
    #expect(gate.beginWait() == .consumed(1))
    #expect(gate.snapshot() == (1, false))
    // Waiting: a claim must write, deferrable or not.
    gate.open()
    #expect(gate.beginWait() == .waiting)
    #expect(gate.claim() == .write)
    gate.endWait()
    #expect(gate.consumeReport())
    // Awake again and still deferrable: deferred again.
    gate.open()
    #expect(gate.claim() == .deferred)
    // Disallowed with that claim pending: the caller must write it now; later claims are none until it is reported.
    #expect(gate.disallowDeferral())
    #expect(gate.allowsDeferral(before: .max) == false)
    #expect(gate.claim() == .none)
    #expect(gate.consumeReport())
    gate.open()
    #expect(gate.claim() == .write, "deferral stays off once disallowed")
    #expect(gate.disallowDeferral() == false, "the written claim is not a deferred one")
}

@Test func aClaimUnderAHorizonIsDeferredBeforeItAndWrittenOnceItHasPassed() {
    let gate = Gate()
    gate.open()
    // A horizon an hour away (a timerfd armed then): the claim, made before it, is deferred and consumed.
    let later = RefClock.nanoseconds + 3_600_000_000_000
    gate.allowDeferral(before: later)
    #expect(gate.allowsDeferral(before: later))
    #expect(gate.claim() == .deferred)
    #expect(gate.beginWait() == .consumed(1))
    // A horizon passed already (the timerfd may have expired): the claim is a written one, so the kernel orders its
    // edge and the timer's.
    gate.open()
    #expect(gate.disallowDeferral() == false)
    gate.allowDeferral(before: 1)
    #expect(gate.allowsDeferral(before: 1))
    #expect(gate.claim() == .write)
    #expect(gate.snapshot() == (2, true))
    #expect(gate.beginWait() == .waiting, "a written claim is left to the wait's system call")
    gate.endWait()
    #expect(gate.consumeReport())
}
