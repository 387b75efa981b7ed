// Whether a wake-up would be taken now, and whether one is in flight: the state CFRunLoopWakeUp decides on, in one
// atomic byte so that waking a loop takes no lock.

import Synchronization

/// The loop's wake-up state (rules wakeup.ignored-outside-wait, wakeup.coalesce).
///
/// Two bits. `accepting` mirrors "the loop is running and its innermost run is not ignoring wake-ups" and is set
/// and cleared only by the loop's thread. `pending` means an eventfd write was made that no wait has reported yet;
/// any thread sets it (only while `accepting`, and only if it is clear: the one that sets it makes the write), and
/// the loop's thread clears it when a wait reports the write. The loop's thread therefore sees only these changes
/// from other threads: `accepting` to `accepting | pending`.
///
/// Ordering: every operation is sequentially consistent, so a thread that changes loop state and then calls
/// ``claim()`` and a loop that opens the gate and then reads that state cannot both miss each other.
struct WakeGate: ~Copyable {
    private static let accepting: UInt8 = 1
    private static let pending: UInt8 = 2

    private let state = Atomic<UInt8>(0)

    /// Any thread: takes the right to write the wake-up eventfd. False when the loop ignores wake-ups now or a write
    /// is in flight already (the caller then writes nothing).
    func claim() -> Bool {
        var current = state.load(ordering: .sequentiallyConsistent)
        while current == Self.accepting {
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: current | Self.pending, ordering: .sequentiallyConsistent)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Loop thread: whether a write is in flight (claimed, not yet reported by a wait).
    var hasPending: Bool { state.load(ordering: .sequentiallyConsistent) & Self.pending != 0 }

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
                expected: current, desired: 0, ordering: .sequentiallyConsistent)
            if exchanged { return true }
            current = original
        }
        return false
    }
}
