// The timers of one mode: an indexed binary min-heap keyed by (deadline, sequence), and a second one keyed by each
// timer's latest coalesced wake-up (its cap), for the mode's wake-up time in O(1).
//
// CF keeps each mode's timers in an array sorted by fire time, stable for equal times (rule timer.date-order), and
// inserts with a binary search and a memmove: O(n) per add. The heap gives the same order — the sequence number is
// taken at every insertion or reposition, so a timer moved to an equal deadline goes after the ones already there,
// exactly like CF's insertion index — at O(log n) per add, remove and reposition. Each entry knows its index, so
// removal needs no search and no lazy tombstones.

/// A min-heap of timer entries ordered by (deadline, sequence), with O(log n) removal through the entry itself, and
/// beside it a min-heap of the armable entries ordered by (cap, sequence), where the cap is the latest time a wake-up
/// may come for the entry: its hard deadline less ``TimerCoalescing/margin(_:)``. The earliest cap is the wake-up
/// that fires the most timers at once with none late: every entry whose deadline has come by then fires, and no
/// schedule of wake-ups could fire the same timers in fewer (the greedy solution of interval stabbing). An entry
/// leaves the cap heap while its timer fires (``suspend(_:)``), as CF's arming skips firing timers.
///
/// Not thread-safe: the owning loop's lock protects it.
struct TimerQueue<Payload> {
    /// One element. The queue owns `index`; `deadline` and `hardDeadline` change only through the queue.
    /// (`@exclusivity(unchecked)`: the queue's owner serialises every access, and a sift step would otherwise pay a
    /// dynamic check per field it reads.)
    final class Entry {
        /// The soft deadline in CLOCK_MONOTONIC nanoseconds: the timer may not fire before it.
        @exclusivity(unchecked) fileprivate(set) var deadline: UInt64
        /// The hard deadline: deadline + tolerance. Coalescing never delays a timer past it.
        @exclusivity(unchecked) fileprivate(set) var hardDeadline: UInt64
        /// Tie-break among equal deadlines: insertion order.
        @exclusivity(unchecked) fileprivate(set) var sequence: UInt64
        /// Position in the heap array, or -1 once removed.
        @exclusivity(unchecked) fileprivate(set) var index: Int
        /// hardDeadline less the coalescing margin: the latest wake-up that fires the entry on time.
        @exclusivity(unchecked) fileprivate(set) var cap: UInt64
        /// Position in the cap heap, or -1 while suspended or removed.
        @exclusivity(unchecked) fileprivate var capIndex: Int
        let payload: Payload

        fileprivate init(payload: Payload, deadline: UInt64, hardDeadline: UInt64, sequence: UInt64) {
            self.payload = payload
            self.deadline = deadline
            self.hardDeadline = max(hardDeadline, deadline)
            self.sequence = sequence
            self.index = -1
            self.cap = 0
            self.capIndex = -1
            updateCap()
        }

        fileprivate func updateCap() {
            cap = hardDeadline - TimerCoalescing.margin(TimerCoalescing.Window(soft: deadline, hard: hardDeadline))
        }

        /// Whether the entry is still in a queue.
        var isQueued: Bool { index >= 0 }
        /// Whether the entry counts for the wake-up time (it is queued and not suspended while its timer fires).
        var isArmable: Bool { capIndex >= 0 }

        @inline(__always)
        fileprivate func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }

        @inline(__always)
        fileprivate func capPrecedes(_ other: Entry) -> Bool {
            cap != other.cap ? cap < other.cap : sequence < other.sequence
        }
    }

    private var heap: [Entry] = []
    private var caps: [Entry] = []
    private var nextSequence: UInt64 = 0

    init() {}

    /// The number of queued entries. O(1).
    var count: Int { heap.count }
    /// Whether the queue is empty. O(1).
    var isEmpty: Bool { heap.isEmpty }
    /// The entry with the smallest (deadline, sequence). O(1).
    var first: Entry? { heap.first }
    /// The earliest cap among the entries not suspended: the coalesced wake-up time, nil when there is none. O(1).
    var earliestCap: UInt64? { caps.first?.cap }

    /// Adds a payload. O(log n).
    @discardableResult
    mutating func insert(_ payload: Payload, deadline: UInt64, hardDeadline: UInt64) -> Entry {
        let entry = Entry(payload: payload, deadline: deadline, hardDeadline: hardDeadline, sequence: takeSequence())
        entry.index = heap.count
        heap.append(entry)
        siftUp(entry.index)
        resume(entry)
        return entry
    }

    /// Takes the entry out of the cap heap (its timer is firing): ``earliestCap`` ignores it until ``resume(_:)``.
    /// O(log n); nothing if it is suspended already.
    mutating func suspend(_ entry: Entry) {
        let index = entry.capIndex
        guard index >= 0 else { return }
        entry.capIndex = -1
        let lastIndex = caps.count - 1
        guard index != lastIndex else {
            caps.removeLast()
            return
        }
        // The last entry moves into the hole by a swap in the buffer (no reference counting), then the entry leaves.
        caps.withUnsafeMutableBufferPointer { slots in
            slots.swapAt(index, lastIndex)
            slots[index].capIndex = index
        }
        caps.removeLast()
        siftCaps(from: index)
    }

    /// Puts a queued entry back into the cap heap. O(log n); nothing if it is there already or not queued.
    mutating func resume(_ entry: Entry) {
        guard entry.isQueued, entry.capIndex < 0 else { return }
        entry.capIndex = caps.count
        caps.append(entry)
        siftCaps(from: entry.capIndex)
    }

    /// Removes an entry of this queue. O(log n). Removing an entry that is no longer queued does nothing.
    mutating func remove(_ entry: Entry) {
        let index = entry.index
        guard index >= 0 else { return }
        precondition(index < heap.count && heap[index] === entry, "internal bug: a timer entry from another queue")
        suspend(entry)
        entry.index = -1
        let lastIndex = heap.count - 1
        guard index != lastIndex else {
            heap.removeLast()
            return
        }
        // As in suspend(_:): the last entry moves into the hole by a swap in the buffer, then the entry leaves.
        heap.withUnsafeMutableBufferPointer { slots in
            slots.swapAt(index, lastIndex)
            slots[index].index = index
        }
        heap.removeLast()
        siftDown(index)
        siftUp(heap[index].index)
    }

    /// Moves an entry to a new deadline. It goes after the entries that already have that deadline, as a re-insert
    /// into CF's sorted array does. O(log n).
    mutating func reschedule(_ entry: Entry, deadline: UInt64, hardDeadline: UInt64) {
        precondition(entry.isQueued && heap[entry.index] === entry, "internal bug: rescheduling an entry that is not queued")
        entry.deadline = deadline
        entry.hardDeadline = max(hardDeadline, deadline)
        entry.sequence = takeSequence()
        entry.updateCap()
        siftDown(entry.index)
        siftUp(entry.index)
        if entry.capIndex >= 0 { siftCaps(from: entry.capIndex) }
    }

    /// Changes only the hard deadline (a tolerance change). The deadline order does not depend on it. O(log n).
    mutating func setHardDeadline(_ entry: Entry, _ hardDeadline: UInt64) {
        entry.hardDeadline = max(hardDeadline, entry.deadline)
        entry.updateCap()
        if entry.capIndex >= 0 { siftCaps(from: entry.capIndex) }
    }

    /// The entries whose deadline is at or before `limit`, in (deadline, sequence) order: the snapshot CF's
    /// __CFRunLoopDoTimers takes. O(k log k) for k results: subtrees whose root is later than `limit` are skipped.
    func due(atOrBefore limit: UInt64) -> [Entry] {
        guard let root = heap.first, root.deadline <= limit else { return [] }
        var result: [Entry] = []
        var stack = [0]
        while let index = stack.popLast() {
            let entry = heap[index]
            guard entry.deadline <= limit else { continue }
            result.append(entry)
            let left = 2 * index + 1
            if left < heap.count { stack.append(left) }
            if left + 1 < heap.count { stack.append(left + 1) }
        }
        result.sort { $0.precedes($1) }
        return result
    }

    /// All entries, in heap order (not sorted). O(1) to obtain.
    var unorderedEntries: [Entry] { heap }

    /// Checks the heap property and every entry's index. O(n); for tests and debug builds.
    func checkInvariants() -> String? {
        for (index, entry) in heap.enumerated() {
            if entry.index != index { return "entry at \(index) believes it is at \(entry.index)" }
            if index > 0 {
                let parent = heap[(index - 1) / 2]
                if entry.precedes(parent) { return "entry at \(index) precedes its parent" }
            }
            if entry.hardDeadline < entry.deadline { return "entry at \(index) has a hard deadline before its deadline" }
        }
        for (index, entry) in caps.enumerated() {
            if entry.capIndex != index || !entry.isQueued { return "cap entry at \(index) is misplaced or not queued" }
            if index > 0 && entry.capPrecedes(caps[(index - 1) / 2]) { return "cap entry at \(index) precedes its parent" }
        }
        return nil
    }

    // MARK: Heap mechanics

    private mutating func takeSequence() -> UInt64 {
        nextSequence &+= 1
        return nextSequence
    }

    // The sifts work on the heap's buffer and move entries with swapAt: no reference is retained or released.

    private mutating func siftUp(_ start: Int) {
        heap.withUnsafeMutableBufferPointer { slots in
            var index = start
            while index > 0 {
                let parentIndex = (index - 1) / 2
                guard slots[index].precedes(slots[parentIndex]) else { break }
                slots.swapAt(index, parentIndex)
                slots[index].index = index
                index = parentIndex
            }
            slots[index].index = index
        }
    }

    private mutating func siftDown(_ start: Int) {
        heap.withUnsafeMutableBufferPointer { slots in
            var index = start
            let count = slots.count
            while true {
                let left = 2 * index + 1
                guard left < count else { break }
                var child = left
                if left + 1 < count && slots[left + 1].precedes(slots[left]) { child = left + 1 }
                guard slots[child].precedes(slots[index]) else { break }
                slots.swapAt(index, child)
                slots[index].index = index
                index = child
            }
            slots[index].index = index
        }
    }

    /// Restores the cap heap's order around `start`, whichever way its key moved.
    private mutating func siftCaps(from start: Int) {
        caps.withUnsafeMutableBufferPointer { slots in
            var index = start
            while index > 0 {
                let parentIndex = (index - 1) / 2
                guard slots[index].capPrecedes(slots[parentIndex]) else { break }
                slots.swapAt(index, parentIndex)
                slots[index].capIndex = index
                index = parentIndex
            }
            let count = slots.count
            while true {
                let left = 2 * index + 1
                guard left < count else { break }
                var child = left
                if left + 1 < count && slots[left + 1].capPrecedes(slots[left]) { child = left + 1 }
                guard slots[child].capPrecedes(slots[index]) else { break }
                slots.swapAt(index, child)
                slots[index].capIndex = index
                index = child
            }
            slots[index].capIndex = index
        }
    }
}
