// Numbers that order events across threads and loops.

import Synchronization

/// Process-wide sequence numbers: the order in which items were added to the common modes (a new common mode
/// receives them in that order) and the order of sources' first signals (rule source.perform-order), which must be
/// comparable across the loops a source is in. Timers' tie-breaks have their own per-queue counter.
enum SequenceNumber {
    private static let counter = Atomic<UInt64>(0)

    /// A number larger than every number returned before, on any thread.
    @inline(__always)
    static func next() -> UInt64 {
        counter.wrappingAdd(1, ordering: .relaxed).newValue
    }
}
