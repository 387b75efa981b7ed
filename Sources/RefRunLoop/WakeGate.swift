// Whether a wake-up would be taken now, and whether one is in flight: the state CFRunLoopWakeUp decides on, in one
// atomic word so that waking a loop takes no lock.

import Synchronization

/// The loop's wake-up state (rules wakeup.ignored-outside-wait, wakeup.coalesce).
///
/// Five bits and a count:
/// - `accepting` mirrors "the loop is running and its innermost run is not ignoring wake-ups"; set and cleared only by
///   the loop's thread.
/// - `pending` means a wake-up was claimed that no wait has reported yet. Any thread sets it (only while `accepting`,
///   and only if it is clear: the one that sets it makes the write, or defers it); the loop's thread clears it when a
///   wait reports the wake-up.
/// - `deferred` (with `pending`) means the claim's eventfd write was not made: the loop was awake and could not be
///   waiting without first looking at this word (``beginWait()``), so it reports the wake-up at its next wait without
///   a system call on either side, as libevent's loop finds a callback activated from another thread on its active
///   queue. Only while `deferrable` and not `waiting`.
/// - `deferrable`: the loop's wait sets can hold nothing but the wake-up eventfd's edge (one mode, no descriptor, no
///   timerfd armed or expired unreported; ``RefRunLoop/updateDeferralLocked()``), so where an unwritten wake-up would
///   sit among other ready ports cannot matter. Set and cleared with the loop's lock held; cleared before any change
///   that could queue another port's edge, and a deferred claim is written then (``disallowDeferral()``), so its edge
///   still precedes that port's, as CF's write would.
/// - `waiting`: the loop's thread is in (or entering) its wait: a claim must write.
///
/// The count is of claims, the wake-ups ever decided, taken in the same atomic step as `pending`, so claims are
/// numbered in the order they happen and a claim cannot be made while another is pending. The loop's thread uses the
/// numbers to know which wake-up edges a mode's ready list may hold (``WaitSet/ModeSet/wakeEdgesClearedAt``).
///
/// Ordering: every operation is sequentially consistent, so a thread that changes loop state and then calls
/// ``claim()`` and a loop that opens the gate and then reads that state cannot both miss each other.
struct WakeGate: ~Copyable {
    private static let accepting: UInt64 = 1
    private static let pending: UInt64 = 2
    private static let deferred: UInt64 = 4
    private static let deferrable: UInt64 = 8
    private static let waiting: UInt64 = 16
    /// One claim in the count, which takes the bits above the five flags.
    private static let oneClaim: UInt64 = 32
    /// The bits of a count of writes that a claim count can be compared with (claim counts wrap at 2^59).
    private static let countMask: UInt64 = .max >> 5

    private let state = Atomic<UInt64>(0)

    /// What a claim obliges its caller to do.
    enum Claim {
        /// Nothing: the loop ignores wake-ups now, or one is in flight already.
        case none
        /// Write the wake-up eventfd (then count the write, ``WaitSet/writes``).
        case write
        /// Nothing now: the loop reports the wake-up at its next wait.
        case deferred
    }

    /// Any thread: takes the right to wake the loop, and says whether the eventfd must be written for it.
    func claim() -> Claim {
        var current = state.load(ordering: .sequentiallyConsistent)
        while current & (Self.accepting | Self.pending) == Self.accepting {
            let deferring = current & (Self.deferrable | Self.waiting) == Self.deferrable
            let desired = (current | Self.pending | (deferring ? Self.deferred : 0)) &+ Self.oneClaim
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: desired, ordering: .sequentiallyConsistent)
            if exchanged { return deferring ? .deferred : .write }
            current = original
        }
        return .none
    }

    /// Loop thread: the number of claims so far (modulo 2^59) and whether the last one is pending a report, in one
    /// load.
    func snapshot() -> (claims: UInt64, pending: Bool) {
        let current = state.load(ordering: .sequentiallyConsistent)
        return (current >> 5, current & Self.pending != 0)
    }

    /// Loop thread, spinning before its wait (``WaitSet/spin(_:until:)``): whether a claim is pending that a wait
    /// would report at once: a deferred one (``beginWait()`` consumes it), or a written one whose write has been made
    /// and counted (`writes`, loaded before this call: ``allWritten(claims:writes:)``).
    func reportable(writes: UInt64) -> Bool {
        let current = state.load(ordering: .sequentiallyConsistent)
        guard current & Self.pending != 0 else { return false }
        return current & Self.deferred != 0 || Self.allWritten(claims: current >> 5, writes: writes)
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

    /// Loop thread, before its wait: if a deferred claim is pending, consumes it and closes the gate in one step, and
    /// returns its number (the wait is to report the wake-up at once, without a system call); otherwise marks the loop
    /// waiting, so that every claim from now on writes, and returns nil. End with ``endWait()`` either way.
    func beginWait() -> UInt64? {
        var current = state.load(ordering: .sequentiallyConsistent)
        while true {
            let consuming = current & Self.deferred != 0
            let desired = consuming ? current & ~(Self.accepting | Self.pending | Self.deferred) : current | Self.waiting
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: desired, ordering: .sequentiallyConsistent)
            if exchanged { return consuming ? current >> 5 : nil }
            current = original
        }
    }

    /// Loop thread: the wait is over (claims may be deferred again while `deferrable`).
    func endWait() {
        state.bitwiseAnd(~Self.waiting, ordering: .sequentiallyConsistent)
    }

    /// Loop thread, when a wait reports the wake-up eventfd: true if that is the write in flight, which is then
    /// consumed and the gate closed in one step; false for an edge with no write pending (one another mode's wait set
    /// kept), which the caller absorbs, leaving the gate as it was.
    func consumeReport() -> Bool {
        var current = state.load(ordering: .sequentiallyConsistent)
        while current & Self.pending != 0 {
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: current & ~(Self.accepting | Self.pending), ordering: .sequentiallyConsistent)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// With the loop's lock held: claims may be deferred from now (the loop's wait sets can hold no other edge).
    func allowDeferral() {
        state.bitwiseOr(Self.deferrable, ordering: .sequentiallyConsistent)
    }

    /// With the loop's lock held, before a change that could queue an edge other than the wake-up's: claims write
    /// from now. Returns true if a deferred claim was pending: it is a written one from now, and the caller must write
    /// the eventfd (and count the write) before making its change.
    func disallowDeferral() -> Bool {
        let old = state.bitwiseAnd(~(Self.deferrable | Self.deferred), ordering: .sequentiallyConsistent).oldValue
        return old & Self.deferred != 0
    }
}
