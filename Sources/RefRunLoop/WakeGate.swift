// Whether a wake-up would be taken now, and whether one is in flight: the state CFRunLoopWakeUp decides on, in one
// atomic byte so that waking a loop takes no lock.

import Synchronization

/// The loop's wake-up state (rules wakeup.ignored-outside-wait, wakeup.coalesce).
///
/// Two bits and a count. `accepting` mirrors "the loop is running and its innermost run is not ignoring wake-ups" and
/// is set and cleared only by the loop's thread. `pending` means an eventfd write was made that no wait has reported
/// yet; any thread sets it (only while `accepting`, and only if it is clear: the one that sets it makes the write), and
/// the loop's thread clears it when a wait reports the write. The loop's thread therefore sees only these changes
/// from other threads: `accepting` to `accepting | pending`, with the count one higher.
///
/// The count is of claims, the writes ever decided, taken in the same atomic step as `pending`, so claims are
/// numbered in the order they happen and a claim cannot be made while another is pending. The loop's thread uses the
/// numbers to know which wake-up edges a mode's ready list may hold (``LoopMode/wakeEdgesClearedAt``).
///
/// Ordering: every operation is sequentially consistent, so a thread that changes loop state and then calls
/// ``claim()`` and a loop that opens the gate and then reads that state cannot both miss each other.
struct WakeGate: ~Copyable {
    private static let accepting: UInt64 = 1
    private static let pending: UInt64 = 2
    private static let flags: UInt64 = accepting | pending
    /// One claim in the count, which takes the bits above the two flags.
    private static let oneClaim: UInt64 = 4
    /// The bits of a count of writes that a claim count can be compared with (claim counts wrap at 2^62).
    private static let countMask: UInt64 = .max >> 2

    private let state = Atomic<UInt64>(0)

    /// Any thread: takes the right to write the wake-up eventfd. False when the loop ignores wake-ups now or a write
    /// is in flight already (the caller then writes nothing).
    func claim() -> Bool {
        var current = state.load(ordering: .sequentiallyConsistent)
        while current & Self.flags == Self.accepting {
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: (current | Self.pending) &+ Self.oneClaim, ordering: .sequentiallyConsistent)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Loop thread: the number of claims so far (modulo 2^62) and whether the last one is pending a report, in one
    /// load.
    func snapshot() -> (claims: UInt64, pending: Bool) {
        let current = state.load(ordering: .sequentiallyConsistent)
        return (current >> 2, current & Self.pending != 0)
    }

    /// Whether `claims`, from a snapshot, equals `writes`, a count of writes made (``RefRunLoop/wakeWrites``) loaded
    /// before that snapshot. Then every claim had been written and counted at the snapshot: the count only grows and
    /// never passes the claims, so it was equal to them then too.
    static func allWritten(claims: UInt64, writes: UInt64) -> Bool { claims == writes & countMask }

    /// Loop thread: wake-ups count from now (step a of a pass, or a run starting).
    func open() {
        state.bitwiseOr(Self.accepting, ordering: .sequentiallyConsistent)
    }

    /// Loop thread: wake-ups are ignored from now (the wait returned, or no run is active). A write in flight stays
    /// pending: a later wait reports it as a wake-up.
    func close() {
        state.bitwiseAnd(~Self.accepting, ordering: .sequentiallyConsistent)
    }

    /// Loop thread, when a wait reports the wake-up eventfd: true if that is the write in flight, which is then
    /// consumed and the gate closed in one step; false for an edge with no write pending (one another mode's wait set
    /// kept), which the caller absorbs, leaving the gate as it was.
    func consumeReport() -> Bool {
        var current = state.load(ordering: .sequentiallyConsistent)
        while current & Self.pending != 0 {
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: current & ~Self.flags, ordering: .sequentiallyConsistent)
            if exchanged { return true }
            current = original
        }
        return false
    }
}
