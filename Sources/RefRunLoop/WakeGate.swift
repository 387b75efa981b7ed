// Whether a wake-up would be taken now, and whether one is in flight: the state CFRunLoopWakeUp decides on, in one
// atomic word so that waking a loop takes no lock.

import Synchronization

/// The loop's wake-up state (rules wakeup.ignored-outside-wait, wakeup.coalesce).
///
/// Seven bits and a count:
/// - `accepting` mirrors "the loop is running and its innermost run is not ignoring wake-ups"; set and cleared only by
///   the loop's thread.
/// - `pending` means a wake-up was claimed that no wait has reported yet. Any thread sets it (only while `accepting`,
///   and only if it is clear: the one that sets it makes the write, or defers it); the loop's thread clears it when a
///   wait reports the wake-up.
/// - `deferred` (with `pending`) means the claim's eventfd write was not made: the loop was awake and could not be
///   waiting without first looking at this word (``beginWait()``), so it reports the wake-up at its next wait without
///   a system call on either side, as libevent's loop finds a callback activated from another thread on its active
///   queue. Only while `deferrable` and not `waiting`.
/// - `early` (with `deferred`): the deferred claim is known to have been made before the deferral horizon
///   (`horizon`), so its edge, had it been written, would precede any other edge the wait sets can get; the next wait
///   reports it first. A deferred claim without it is settled by its claimer before its ``claim()`` returns (early, or
///   made a written one), or by the loop at its wait, whichever comes first.
/// - `deferrable`: until `horizon`, the loop's wait sets can queue nothing but the wake-up eventfd's edge (one mode,
///   no descriptor, no timerfd expiry queued, the timerfd disarmed or armed at `horizon` or later;
///   ``RefRunLoop/updateDeferralLocked()``), so an unwritten wake-up made before then would be reported first wherever
///   it sat. Set and cleared with the loop's lock held; cleared before any change that could queue another port's
///   edge earlier, and a deferred claim is written then (``disallowDeferral()``), so its edge still precedes that
///   port's, as CF's write would.
/// - `unbounded` (with `deferrable`): no timerfd is armed (`horizon` is the end of time), so every deferred claim is
///   early as it is made, in the claim's one atomic step.
/// - `waiting`: the loop's thread is in (or entering) its wait: a claim must write.
///
/// The count is of claims, the wake-ups ever decided, taken in the same atomic step as `pending`, so claims are
/// numbered in the order they happen and a claim cannot be made while another is pending. The loop's thread uses the
/// numbers to know which wake-up edges a mode's ready list may hold (``WaitSet/ModeSet/wakeEdgesClearedAt``).
///
/// Ordering: every operation is sequentially consistent, so a thread that changes loop state and then calls
/// ``claim()`` and a loop that opens the gate and then reads that state cannot both miss each other.
///
/// Why a deferred claim is never reported out of order with an armed timerfd, nor lost. The timerfd runs on
/// CLOCK_MONOTONIC, the clock ``RefClock`` reads, and never expires before the time it is armed at, so its edge is
/// queued at a moment whose clock reading is `horizon` or later. A claim is one compare-and-exchange; a clock reading
/// below `horizon` taken after it, by its claimer or by the loop, proves that the claim came before any expiry of the
/// timerfd, so its write, had it been made at the claim, would be the first edge on the list: the next wait may
/// report it without a system call, and the timer's edge, if it has come since, stays on the list for the wait after
/// (as CF reports a timer that expires after a wake-up was written on the pass after the wake-up's). The horizon
/// that reading is compared with is the claim's own: it changes only while deferral is disallowed
/// (``allowDeferral(before:)``), and disallowing takes `deferred` off every claim (which its caller then writes), so a
/// claim still `deferred` at a compare-and-exchange made after the horizon was loaded was made under that horizon. A
/// claim whose clock reading is not below it is made a written one: the kernel then orders its edge and the timer's,
/// as it orders CF's. Three parties may settle a deferred claim (its claimer, the loop's ``beginWait()``, a
/// ``disallowDeferral()``) and each does it with one compare-and-exchange that requires `deferred`, so exactly one of
/// them does: whoever takes `deferred` away writes the eventfd; a consumed claim is reported at once. When the
/// loop writes a claim its claimer had not settled, that claimer is still inside its ``claim()`` (its own settling
/// would have set `early` or taken `deferred`) at a moment the loop's clock had reached `horizon`, so CF could have
/// made that write at that moment of the WakeUp call, after the timer's expiry.
struct WakeGate: ~Copyable {
    private static let accepting: UInt64 = 1
    private static let pending: UInt64 = 2
    private static let deferred: UInt64 = 4
    private static let deferrable: UInt64 = 8
    private static let waiting: UInt64 = 16
    private static let unbounded: UInt64 = 32
    private static let early: UInt64 = 64
    /// The flags' bits; the count takes the bits above them.
    private static let flagBits: UInt64 = 7
    /// One claim in the count.
    private static let oneClaim: UInt64 = 1 << flagBits
    /// The bits of a count of writes that a claim count can be compared with (claim counts wrap at 2^57).
    private static let countMask: UInt64 = .max >> flagBits

    private let state = Atomic<UInt64>(0)
    /// The deferral horizon: the earliest time at which a port other than the wake-up eventfd could queue an edge
    /// (the armed timerfd's time; `.max` with `unbounded`). Written with the loop's lock held, only while
    /// `deferrable` is clear (``allowDeferral(before:)``); read by claimers and by the loop's thread after they have
    /// seen a deferred claim.
    private let horizon = Atomic<UInt64>(.max)

    /// What a claim obliges its caller to do.
    enum Claim {
        /// Nothing: the loop ignores wake-ups now, or one is in flight already.
        case none
        /// Write the wake-up eventfd (then count the write, ``WaitSet/writes``).
        case write
        /// Nothing now: the loop reports the wake-up at its next wait (or has already).
        case deferred
    }

    /// Any thread: takes the right to wake the loop, and says whether the eventfd must be written for it. A claim
    /// deferred under a horizon (a timerfd armed) is settled before this returns: a clock reading below the horizon
    /// makes it early, any other makes it a written one (see the type's comment).
    func claim() -> Claim {
        var current = state.load(ordering: .sequentiallyConsistent)
        while current & (Self.accepting | Self.pending) == Self.accepting {
            let deferring = current & (Self.deferrable | Self.waiting) == Self.deferrable
            let unbounded = current & Self.unbounded != 0
            var desired = (current | Self.pending) &+ Self.oneClaim
            if deferring { desired |= unbounded ? Self.deferred | Self.early : Self.deferred }
            interleavingPoint("WakeGate.claim.exchanging")
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: desired, ordering: .sequentiallyConsistent)
            if exchanged {
                if !deferring { return .write }
                return unbounded ? .deferred : settle(claim: desired >> Self.flagBits)
            }
            current = original
        }
        return .none
    }

    /// The claimer of a claim deferred under a horizon, right after its claim: early if the clock, read now (after
    /// the claim), is still before the horizon; otherwise a written one, unless the loop settled it first.
    private func settle(claim: UInt64) -> Claim {
        let madeBeforeHorizon = clockBeforeHorizon()
        var current = state.load(ordering: .sequentiallyConsistent)
        // Only this claim's `deferred` counts: once it is gone (consumed, or written by the loop) the count moves on
        // with the next claim.
        while current & Self.deferred != 0 && current >> Self.flagBits == claim {
            let desired = madeBeforeHorizon ? current | Self.early : current & ~Self.deferred
            interleavingPoint("WakeGate.settle.exchanging")
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: desired, ordering: .sequentiallyConsistent)
            if exchanged { return madeBeforeHorizon ? .deferred : .write }
            current = original
        }
        // The loop's wait consumed it, or a disallowing or the loop's wait took `deferred` and wrote the eventfd.
        return .deferred
    }

    /// Loop thread: the number of claims so far (modulo 2^57) and whether the last one is pending a report, in one
    /// load.
    func snapshot() -> (claims: UInt64, pending: Bool) {
        let current = state.load(ordering: .sequentiallyConsistent)
        return (current >> Self.flagBits, current & Self.pending != 0)
    }

    /// Loop thread, spinning before its wait (``WaitSet/spin(_:until:)``): whether a claim is pending that a wait
    /// would report at once: a deferred one (``beginWait()`` consumes it, or writes it and the wait
    /// reports it), or a written one whose write has been made and counted (`writes`, loaded before this call:
    /// ``allWritten(claims:writes:)``).
    func reportable(writes: UInt64) -> Bool {
        let current = state.load(ordering: .sequentiallyConsistent)
        guard current & Self.pending != 0 else { return false }
        return current & Self.deferred != 0 || Self.allWritten(claims: current >> Self.flagBits, writes: writes)
    }

    /// Whether `claims`, from a snapshot, equals `writes`, a count of writes made (``WaitSet/writes``) loaded
    /// before that snapshot. Then every claim had been written and counted at the snapshot: the count only grows and
    /// never passes the claims, so it was equal to them then too.
    static func allWritten(claims: UInt64, writes: UInt64) -> Bool { claims == writes & countMask }

    /// Loop thread: wake-ups count from now (step a of a pass, or a run starting).
    func open() {
        state.bitwiseOr(Self.accepting, ordering: .sequentiallyConsistent)
    }

    /// Loop thread: wake-ups are ignored from now (the wait returned, or no run is active). A claim in flight stays
    /// pending: a later wait reports it as a wake-up.
    func close() {
        state.bitwiseAnd(~Self.accepting, ordering: .sequentiallyConsistent)
    }

    /// How a wait begins (``beginWait()``).
    enum WaitStart: Equatable {
        /// A deferred claim, this number, was consumed and the gate closed: the wait reports the wake-up at once,
        /// without a system call.
        case consumed(UInt64)
        /// The loop is marked waiting: every claim from now on writes.
        case waiting
        /// A deferred claim made at or after the horizon as far as the loop can tell (its claimer has not settled it)
        /// is a written one now, and the loop is marked waiting: the caller writes the eventfd (and counts the write)
        /// before its wait, whose system call orders the edge against the timer's.
        case waitingAfterWrite
    }

    /// Loop thread, before its wait: a deferred claim pending is consumed (closing the gate in the same step) if it
    /// is early, or if the clock, read after this has seen the claim, is still before the horizon; otherwise it is
    /// made a written one. Without a deferred claim the loop is marked waiting. End with ``endWait()`` unless a claim
    /// was consumed.
    @inline(__always)
    func beginWait() -> WaitStart {
        var current = state.load(ordering: .sequentiallyConsistent)
        while true {
            let desired: UInt64
            let start: WaitStart
            if current & Self.deferred == 0 {
                desired = current | Self.waiting
                start = .waiting
            } else if current & Self.early != 0 || clockBeforeHorizon() {
                desired = current & ~(Self.accepting | Self.pending | Self.deferred | Self.early)
                start = .consumed(current >> Self.flagBits)
            } else {
                desired = (current & ~Self.deferred) | Self.waiting
                start = .waitingAfterWrite
            }
            interleavingPoint("WakeGate.beginWait.exchanging")
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: desired, ordering: .sequentiallyConsistent)
            if exchanged { return start }
            current = original
        }
    }

    /// Whether the clock, read now, is before the horizon, loaded now: after the caller has seen the claim it judges.
    private func clockBeforeHorizon() -> Bool {
        RefClock.nanoseconds < horizon.load(ordering: .sequentiallyConsistent)
    }

    /// Loop thread: the wait is over (claims may be deferred again while `deferrable`).
    func endWait() {
        state.bitwiseAnd(~Self.waiting, ordering: .sequentiallyConsistent)
    }

    /// Loop thread: ``close()`` and ``endWait()`` in one atomic step (a poll that ends without its system call). A
    /// claim between the two steps would have found the gate closed and taken nothing, as it does after both, so
    /// the one step allows no outcome the two did not.
    func closeAndEndWait() {
        state.bitwiseAnd(~(Self.accepting | Self.waiting), ordering: .sequentiallyConsistent)
    }

    /// Loop thread, when a wait reports the wake-up eventfd: true if that is the write in flight, which is then
    /// consumed and the gate closed in one step; false for an edge with no write pending (one another mode's wait set
    /// kept), which the caller absorbs, leaving the gate as it was.
    func consumeReport() -> Bool {
        var current = state.load(ordering: .sequentiallyConsistent)
        while current & Self.pending != 0 {
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: current & ~(Self.accepting | Self.pending),
                ordering: .sequentiallyConsistent)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// With the loop's lock held: whether claims may be deferred now, under `horizon`. Reads the horizon relaxed: only
    /// holders of the lock write it.
    func allowsDeferral(before horizon: UInt64) -> Bool {
        let current = state.load(ordering: .sequentiallyConsistent)
        return current & Self.deferrable != 0 && self.horizon.load(ordering: .relaxed) == horizon
    }

    /// With the loop's lock held, deferral disallowed (``disallowDeferral()``): claims may be deferred from now, until
    /// `horizon` (`.max`: unbounded), the earliest time another port of the loop's wait sets could queue an edge.
    func allowDeferral(before horizon: UInt64) {
        // The horizon first: a claim that sees `deferrable` then sees this horizon.
        self.horizon.store(horizon, ordering: .sequentiallyConsistent)
        let allowed = horizon == .max ? Self.deferrable | Self.unbounded : Self.deferrable
        state.bitwiseOr(allowed, ordering: .sequentiallyConsistent)
    }

    /// With the loop's lock held, before a change that could queue an edge other than the wake-up's before the
    /// horizon, or a change of the horizon: claims write from now. Returns true if a deferred claim was pending: it is
    /// a written one from now, and the caller must write the eventfd (and count the write) before making its change.
    func disallowDeferral() -> Bool {
        let cleared = Self.deferrable | Self.unbounded | Self.deferred | Self.early
        let old = state.bitwiseAnd(~cleared, ordering: .sequentiallyConsistent).oldValue
        return old & Self.deferred != 0
    }
}
