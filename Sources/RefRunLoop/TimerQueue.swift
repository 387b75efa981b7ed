// The timers of one mode: indexed binary min-heaps keyed by (deadline, sequence), one for the timers without tolerance
// and one for those with, and a third keyed by each tolerant timer's latest coalesced wake-up (its cap), for the
// mode's wake-up time in O(1).
//
// CF keeps each mode's timers in an array sorted by fire time, stable for equal times (rule timer.date-order), and
// inserts with a binary search and a memmove: O(n) per add. The heap gives the same order — the sequence number is
// taken at every insertion or reposition, so a timer moved to an equal deadline goes after the ones already there,
// exactly like CF's insertion index — at O(log n) per add, remove and reposition. Each entry knows its index, so
// removal needs no search.
//
// Timers without tolerance that arrive in deadline order (the usual case: a fixed delay from now, so each new deadline
// is the latest) skip the heap: they are appended to a sorted run, and the earliest timer is the earlier of the run's
// first and the heap's root. Appending, and removing the run's first (the timer that fires or is cancelled first), are
// O(1); an entry removed from the middle of the run leaves a hole, squeezed out once holes outnumber entries.

/// Timer entries in (deadline, sequence) order, with O(log n) removal through the entry itself, and the mode's
/// wake-up time: the earliest cap of the armable entries, where the cap is the latest time a wake-up may come for the
/// entry, its hard deadline less ``TimerCoalescing/margin(_:)``. The earliest cap is the wake-up that fires the most
/// timers at once with none late: every entry whose deadline has come by then fires, and no schedule of wake-ups could
/// fire the same timers in fewer (the greedy solution of interval stabbing). An entry stops counting for the wake-up
/// time while its timer fires (``suspend(_:)``), as CF's arming skips firing timers.
///
/// An entry with an empty window (no tolerance, the usual timer and every timer CF on Linux has) has its deadline for
/// cap, so it needs one heap, `exact`, whose root is its earliest cap; the tolerant entries are in `tolerant`, ordered
/// by deadline, and in `caps`, by cap, while armable. Adding and removing a timer without tolerance thus sifts one
/// heap, not two, and one that follows every entry of the sorted run (`run`) goes at its end instead, sifting nothing.
/// A suspended entry stays where it is (at most one timer per nested run fires at a time), and the earliest armable
/// one is found past it (``earliestArmableExactDeadline()``, ``Run/earliestArmableDeadline``).
///
/// The entries are their payloads' own objects (``TimerQueueNode``: the loop's are its timers): a node stores its place
/// in the queue that holds it (``TimerQueuePlace``), so inserting allocates nothing and a sift moves references only.
/// A node is in at most one queue at a time; the loop gives a timer in a second mode a second node for it (a shadow,
/// RefRunLoopTimer's `shadowOwner`), whose ``TimerQueueNode/payload`` is the timer.
///
/// Not thread-safe: the owning loop's lock protects it, and the places of the nodes it holds.
struct TimerQueue<Node: TimerQueueNode> {
    /// An element: the node itself.
    typealias Entry = Node

    /// The entries with an empty window that are not in `run`, by (deadline, sequence).
    private var exact = HeapSlots<Entry>()
    /// Entries with an empty window appended in (deadline, sequence) order.
    private var run = Run()
    /// The entries with a window, by (deadline, sequence).
    private var tolerant = HeapSlots<Entry>()
    /// The armable entries of `tolerant`, by (cap, sequence).
    private var caps = HeapSlots<Entry>()
    private var nextSequence: UInt64 = 0
    /// Whether the wake-up time is still the one the owner read at its last ``settle()``: set there (when the queue
    /// has no tolerant entry), cleared by every change that may move it. An insertion or a removal that cannot move it
    /// (``keepsWakeUpTime(_:)``) leaves it set, so the owner can tell without reading the wake-up time again.
    private(set) var isSettled = false
    init() {}

    /// Notes that the owner has just read the wake-up time (``wakeUpTimes(withFirst:)``) and acted on it. Only a queue
    /// without tolerant entries settles: its wake-up time is then the earliest armable deadline, whatever the clock
    /// and whether the timers were changed (``wakeUpTimes(withFirst:)``), so an unchanged time means an unchanged
    /// answer. With tolerant entries, the loop's answer also depends on the clock (a due timer is armed at once).
    @inline(__always)
    mutating func settle() { isSettled = tolerant.isEmpty }

    /// Whether `entry`, queued, is neither the exact heap's root nor the run's first, neither of those is suspended,
    /// and no entry has a window. Then the wake-up time is the earlier of those two firsts' deadlines, and queuing or
    /// taking out `entry` changes neither first: a heap's root precedes every entry that can fill a hole below it, and
    /// the run's first stays first when a later entry is appended or removed. O(1).
    @inline(__always)
    private func keepsWakeUpTime(_ entry: Entry) -> Bool {
        guard tolerant.isEmpty else { return false }
        if entry.inRun ? entry.index == run.firstPosition : entry.index == 0 { return false }
        if !exact.isEmpty, exact[0].suspended { return false }
        return run.count == 0 || !run.firstIsSuspended
    }

    /// The number of queued entries. O(1).
    var count: Int { exact.count + run.count + tolerant.count }
    /// Whether the queue is empty. O(1).
    var isEmpty: Bool { exact.isEmpty && run.count == 0 && tolerant.isEmpty }
    /// The entry with the smallest (deadline, sequence). O(1).
    var first: Entry? {
        switch firstPlace {
        case nil: return nil
        case .exact: return exact[0]
        case .run: return run.first
        case .tolerant: return tolerant[0]
        }
    }
    /// The deadline of ``first`` when that entry is armable, else nil. O(1).
    @inline(__always)
    var firstArmableDeadline: UInt64? {
        // Element reads in place, not through an optional entry: no reference counting.
        switch firstPlace {
        case nil: return nil
        case .exact: return exact[0].suspended ? nil : exact[0].deadline
        case .run: return run.firstIsSuspended ? nil : run.firstDeadline
        case .tolerant: return tolerant[0].suspended ? nil : tolerant[0].deadline
        }
    }

    /// Where an entry is: the root of `exact`, the first of `run`, the root of `tolerant`.
    private enum Place { case exact, run, tolerant }

    /// Which of the three firsts is ``first``, nil when the queue is empty.
    @inline(__always)
    private var firstPlace: Place? {
        var place: Place? = exact.isEmpty ? nil : .exact
        if run.count > 0, place == nil || run.firstPrecedes(exact[0]) { place = .run }
        guard !tolerant.isEmpty else { return place }
        switch place {
        case nil: return .tolerant
        case .exact: return exact[0].precedes(tolerant[0]) ? .exact : .tolerant
        case .run: return run.firstPrecedes(tolerant[0]) ? .run : .tolerant
        case .tolerant: return .tolerant
        }
    }

    /// ``earliestCap`` and, when `withFirst`, ``firstArmableDeadline``, read with the queue accessed in place. Changes
    /// nothing: `mutating` only because a read of a queue stored in a class (a mode's) through a call the compiler does
    /// not inline copies the whole queue first, a retain and a release per array it holds, and a mutating call never
    /// copies.
    ///
    /// A queue without tolerant entries (every timer CF on Linux has, and the usual one here) has no cap heap, and each
    /// entry's cap is its deadline: when neither the run's first entry nor the exact heap's root is suspended, the
    /// earlier of their deadlines is both answers, read in place without the three-way comparison of the roots (every
    /// add and remove of such timers re-arms through here). A queue holding only its run answers from the run's first
    /// entry alone.
    @inline(__always)
    mutating func wakeUpTimes(withFirst: Bool) -> (cap: UInt64?, first: UInt64?) {
        guard tolerant.isEmpty else { return (earliestCap, withFirst ? firstArmableDeadline : nil) }
        guard exact.isEmpty else {
            let root = exact[0].queuePlace
            guard !root.suspended, run.count == 0 || !run.firstIsSuspended else {
                return (earliestCap, withFirst ? firstArmableDeadline : nil)
            }
            let deadline = run.count == 0 ? root.deadline : min(root.deadline, run.firstDeadline)
            return (deadline, withFirst ? deadline : nil)
        }
        // No tolerant entry, so no cap heap either: the earliest cap is the run's first armable deadline.
        guard run.count > 0 else { return (nil, nil) }
        guard !run.firstIsSuspended else { return (run.earliestArmableDeadline, nil) }
        let deadline = run.firstDeadline
        return (deadline, withFirst ? deadline : nil)
    }

    /// The earliest cap among the entries not suspended: the coalesced wake-up time, nil when there is none. O(1)
    /// (O(k) for k suspended entries, see ``earliestArmableExactDeadline()``).
    @inline(__always)
    var earliestCap: UInt64? {
        let tolerantCap: UInt64? = caps.isEmpty ? nil : caps[0].cap
        var exactCap: UInt64? =
            exact.isEmpty ? nil : exact[0].suspended ? earliestArmableExactDeadline() : exact[0].deadline
        if run.count > 0, let runCap = run.firstIsSuspended ? run.earliestArmableDeadline : run.firstDeadline {
            exactCap = min(exactCap ?? .max, runCap)
        }
        guard let exactCap else { return tolerantCap }
        guard let tolerantCap else { return exactCap }
        return min(exactCap, tolerantCap)
    }

    /// The deadline of the earliest entry of `exact` that is not suspended (nil for none), when the root is: the
    /// search goes past suspended entries only (a subtree whose root is armable has that root for its earliest), so it
    /// visits O(k) entries for k suspended ones, and k is at most the depth of nested runs firing timers.
    private func earliestArmableExactDeadline() -> UInt64? {
        var best: Int?
        var stack = [0]
        while let index = stack.popLast() {
            if let best, !exact[index].precedes(exact[best]) { continue }
            if !exact[index].suspended {
                best = index
                continue
            }
            let left = 2 * index + 1
            if left < exact.count { stack.append(left) }
            if left + 1 < exact.count { stack.append(left + 1) }
        }
        return best.map { exact[$0].deadline }
    }

    /// Adds `node`, which is in no queue, with these deadlines. O(log n); O(1) amortised for an entry without
    /// tolerance whose deadline is the latest.
    @discardableResult @inline(__always)
    mutating func insert(_ node: Node, deadline: UInt64, hardDeadline: UInt64) -> Entry {
        precondition(!node.isQueued, "internal bug: a timer queue node inserted while it is queued")
        node.queuePlace = TimerQueuePlace(deadline: deadline, hardDeadline: hardDeadline, sequence: takeSequence())
        enqueue(node)
        if isSettled { isSettled = keepsWakeUpTime(node) }
        return node
    }

    /// Leaves the entry out of the wake-up time (its timer is firing): ``earliestCap`` ignores it until
    /// ``resume(_:)``. O(log n); nothing if it is suspended already or not queued.
    mutating func suspend(_ entry: Entry) {
        guard entry.isQueued, !entry.suspended else { return }
        isSettled = false
        entry.suspended = true
        if !entry.inExact { leaveCaps(entry) }
    }

    /// Counts a queued entry for the wake-up time again. O(log n); nothing if it is not suspended or not queued.
    mutating func resume(_ entry: Entry) {
        guard entry.isQueued, entry.suspended else { return }
        isSettled = false
        entry.suspended = false
        if !entry.inExact { Self.append(entry, to: &caps, precedes: Self.capPrecedes, setIndex: Self.setCapIndex) }
    }

    /// Removes an entry of this queue. O(log n). Removing an entry that is no longer queued does nothing.
    mutating func remove(_ entry: Entry) {
        guard entry.isQueued else { return }
        if isSettled { isSettled = keepsWakeUpTime(entry) }
        dequeue(entry)
    }

    /// Moves an entry to a new deadline. It goes after the entries that already have that deadline, as a re-insert
    /// into CF's sorted array does. O(log n).
    mutating func reschedule(_ entry: Entry, deadline: UInt64, hardDeadline: UInt64) {
        precondition(entry.isQueued, "internal bug: rescheduling an entry that is not queued")
        let sequence = takeSequence()
        change(entry) {
            $0.deadline = deadline
            $0.hardDeadline = max(hardDeadline, deadline)
            $0.sequence = sequence
        }
    }

    /// Changes only the hard deadline (a tolerance change). O(log n).
    mutating func setHardDeadline(_ entry: Entry, _ hardDeadline: UInt64) {
        precondition(entry.isQueued, "internal bug: changing the tolerance of an entry that is not queued")
        change(entry) { $0.hardDeadline = max(hardDeadline, $0.deadline) }
    }

    /// Changes an entry's keys with `update` and puts it back in order: in place when it stays in the same heap,
    /// otherwise out of one heap and into the other (a tolerance given or taken away), or out of the run and in again.
    private mutating func change(_ entry: Entry, _ update: (inout TimerQueuePlace) -> Void) {
        isSettled = false
        let wasExact = entry.inExact
        update(&entry.queuePlace)
        entry.queuePlace.updateCap()
        guard entry.hasEmptyWindow == wasExact, !entry.inRun else {
            dequeue(entry)
            enqueue(entry)
            return
        }
        if wasExact {
            Self.restore(at: entry.index, in: &exact, precedes: Self.precedes, setIndex: Self.setIndex)
        } else {
            Self.restore(at: entry.index, in: &tolerant, precedes: Self.precedes, setIndex: Self.setIndex)
            if entry.capIndex >= 0 {
                Self.restore(at: entry.capIndex, in: &caps, precedes: Self.capPrecedes, setIndex: Self.setCapIndex)
            }
        }
    }

    /// Puts an entry that is in no heap into the heaps its window and its suspension call for: one without tolerance
    /// at the end of the run when it follows the run's last entry.
    private mutating func enqueue(_ entry: Entry) {
        entry.inExact = entry.hasEmptyWindow
        if entry.inExact {
            if run.accepts(entry) {
                run.append(entry)
                return
            }
            Self.append(entry, to: &exact, precedes: Self.precedes, setIndex: Self.setIndex)
        } else {
            Self.append(entry, to: &tolerant, precedes: Self.precedes, setIndex: Self.setIndex)
            if !entry.suspended {
                Self.append(entry, to: &caps, precedes: Self.capPrecedes, setIndex: Self.setCapIndex)
            }
        }
    }

    /// Takes a queued entry out of every heap it is in, leaving it unqueued (its suspension is kept).
    private mutating func dequeue(_ entry: Entry) {
        if entry.inRun {
            run.remove(entry)
            return
        }
        let index = entry.index
        entry.index = -1
        if entry.inExact {
            precondition(
                index < exact.count && exact[index] === entry, "internal bug: a timer entry from another queue")
            Self.takeOut(at: index, from: &exact, precedes: Self.precedes, setIndex: Self.setIndex)
        } else {
            precondition(
                index < tolerant.count && tolerant[index] === entry, "internal bug: a timer entry from another queue")
            leaveCaps(entry)
            Self.takeOut(at: index, from: &tolerant, precedes: Self.precedes, setIndex: Self.setIndex)
        }
    }

    /// Takes an entry out of the cap heap, if it is there.
    private mutating func leaveCaps(_ entry: Entry) {
        let index = entry.capIndex
        guard index >= 0 else { return }
        entry.capIndex = -1
        Self.takeOut(at: index, from: &caps, precedes: Self.capPrecedes, setIndex: Self.setCapIndex)
    }

    /// The entries whose deadline is at or before `limit`, in (deadline, sequence) order: the snapshot CF's
    /// __CFRunLoopDoTimers takes. O(k log k) for k results: subtrees whose root is later than `limit` are skipped.
    func due(atOrBefore limit: UInt64) -> [Entry] {
        var result: [Entry] = []
        Self.collect(atOrBefore: limit, from: exact, into: &result)
        run.collect(atOrBefore: limit, into: &result)
        Self.collect(atOrBefore: limit, from: tolerant, into: &result)
        if result.count > 1 { result.sort { $0.precedes($1) } }
        return result
    }

    /// Appends the entries of `heap` whose deadline is at or before `limit`, in no order.
    private static func collect(atOrBefore limit: UInt64, from heap: HeapSlots<Entry>, into result: inout [Entry]) {
        guard let root = heap.first, root.deadline <= limit else { return }
        var stack = [0]
        while let index = stack.popLast() {
            let entry = heap[index]
            guard entry.deadline <= limit else { continue }
            result.append(entry)
            let left = 2 * index + 1
            if left < heap.count { stack.append(left) }
            if left + 1 < heap.count { stack.append(left + 1) }
        }
    }

    /// All entries, in no order. O(n).
    var unorderedEntries: [Entry] { Array(exact) + run.entries + tolerant }

    /// Takes every entry out, each left in no queue (so its node may join a queue again), and returns them in no
    /// order. O(n).
    mutating func removeAll() -> [Entry] {
        let entries = unorderedEntries
        for entry in entries { entry.queuePlace = TimerQueuePlace() }
        self = TimerQueue()
        return entries
    }

    /// Checks the heap property and every entry's index. O(n); for tests and debug builds.
    func checkInvariants() -> String? {
        for (name, heap, isExact) in [("exact", exact, true), ("tolerant", tolerant, false)] {
            for (index, entry) in heap.enumerated() {
                if entry.index != index { return "\(name) entry at \(index) believes it is at \(entry.index)" }
                if index > 0 && entry.precedes(heap[(index - 1) / 2]) {
                    return "\(name) entry at \(index) precedes its parent"
                }
                if entry.hardDeadline < entry.deadline {
                    return "\(name) entry at \(index) has a hard deadline before its deadline"
                }
                if entry.inExact != isExact || entry.hasEmptyWindow != isExact {
                    return "\(name) entry at \(index) is in the wrong heap for its window"
                }
                if isExact && entry.capIndex >= 0 { return "exact entry at \(index) has a cap index" }
                if !isExact && (entry.capIndex >= 0) == entry.suspended {
                    return
                        "tolerant entry at \(index) is \(entry.suspended ? "suspended and in" : "armable and not in") the cap heap"
                }
            }
        }
        for (index, entry) in caps.enumerated() {
            if entry.capIndex != index || !entry.isQueued || entry.inExact {
                return "cap entry at \(index) is misplaced"
            }
            if index > 0 && entry.capPrecedes(caps[(index - 1) / 2]) {
                return "cap entry at \(index) precedes its parent"
            }
        }
        if exact.contains(where: { $0.inRun }) || tolerant.contains(where: { $0.inRun }) {
            return "a heap entry is marked in the run"
        }
        if let broken = run.checkInvariants() { return "run: \(broken)" }
        return nil
    }

    // MARK: Heap mechanics

    private mutating func takeSequence() -> UInt64 {
        nextSequence &+= 1
        return nextSequence
    }

    // The two heaps share these mechanics, specialised by the key (`precedes`) and the index field each keeps
    // (`setIndex`). Entries are moved in the buffer, never copied: a sift step costs no reference counting. A sift
    // carries one entry along a path of holes, moving each entry it passes by one slot, instead of swapping pairs (one
    // load and one store per step: `moveInitialize(from:count:)` would test the two ranges for overlap each time).

    @inline(__always) private static func precedes(_ a: Entry, _ b: Entry) -> Bool { a.precedes(b) }
    @inline(__always) private static func capPrecedes(_ a: Entry, _ b: Entry) -> Bool { a.capPrecedes(b) }
    @inline(__always) private static func setIndex(_ entry: Entry, _ index: Int) { entry.index = index }
    @inline(__always) private static func setCapIndex(_ entry: Entry, _ index: Int) { entry.capIndex = index }

    /// Appends `entry` and sifts it up. O(log n).
    @inline(__always)
    private static func append(
        _ entry: Entry, to heap: inout HeapSlots<Entry>, precedes: (Entry, Entry) -> Bool,
        setIndex: (Entry, Int) -> Void
    ) {
        heap.append(entry)
        restore(at: heap.count - 1, in: &heap, precedes: precedes, setIndex: setIndex)
    }

    /// Takes the entry at `index` out of the heap (the caller has marked it out already): the last entry fills the
    /// hole and is sifted from there. O(log n).
    @inline(__always)
    private static func takeOut(
        at index: Int, from heap: inout HeapSlots<Entry>, precedes: (Entry, Entry) -> Bool,
        setIndex: (Entry, Int) -> Void
    ) {
        let lastIndex = heap.count - 1
        if index != lastIndex { heap.swapAt(index, lastIndex) }
        heap.removeLast()
        if index != lastIndex { restore(at: index, in: &heap, precedes: precedes, setIndex: setIndex) }
    }

    /// Restores the heap order around the entry at `start`, whose key may have moved either way, and records every
    /// moved entry's new index. Up first; if the entry does not rise, down by Floyd's method: the hole goes to a
    /// leaf along the smaller children (one comparison per level), then the entry rises from there to its place,
    /// which for an entry taken from the last slot is almost always at or near the bottom. O(log n).
    @inline(__always)
    private static func restore(
        at start: Int, in heap: inout HeapSlots<Entry>, precedes: (Entry, Entry) -> Bool,
        setIndex: (Entry, Int) -> Void
    ) {
        heap.withSlots { base, count in
            // The sifted entry leaves its slot (a hole, uninitialised) until its place is found.
            let entry = (base + start).move()
            var hole = start
            while hole > 0 {
                let parent = (hole - 1) / 2
                guard precedes(entry, base[parent]) else { break }
                (base + hole).initialize(to: (base + parent).move())
                setIndex(base[hole], hole)
                hole = parent
            }
            if hole == start {
                while true {
                    let left = 2 * hole + 1
                    guard left < count else { break }
                    let child = left + 1 < count && precedes(base[left + 1], base[left]) ? left + 1 : left
                    (base + hole).initialize(to: (base + child).move())
                    setIndex(base[hole], hole)
                    hole = child
                }
                while hole > start {
                    let parent = (hole - 1) / 2
                    guard precedes(entry, base[parent]) else { break }
                    (base + hole).initialize(to: (base + parent).move())
                    setIndex(base[hole], hole)
                    hole = parent
                }
            }
            setIndex(entry, hole)
            (base + hole).initialize(to: entry)
        }
    }

    // MARK: The sorted run

    /// Entries without tolerance in (deadline, sequence) order, appended at the end only, at stable positions (an
    /// entry's `index`; see ``SlotArray``): removing one moves no other, except when the holes are squeezed out, and
    /// then the moved entries get their new indices.
    fileprivate struct Run {
        private var slots = SlotArray<Entry>()

        var count: Int { slots.count }
        /// The first entry. The run must not be empty.
        var first: Entry { slots.first }
        /// The first entry's deadline, read in place. The run must not be empty.
        @inline(__always)
        var firstDeadline: UInt64 { slots.first.deadline }
        /// The first entry's position (its `index`), read in place. The run must not be empty.
        @inline(__always)
        var firstPosition: Int { slots.first.index }
        /// Whether the first entry is suspended, read in place. The run must not be empty.
        @inline(__always)
        var firstIsSuspended: Bool { slots.first.suspended }
        /// Whether the first entry precedes `other`, read in place. The run must not be empty.
        @inline(__always)
        func firstPrecedes(_ other: Entry) -> Bool { slots.first.precedes(other) }

        /// Whether `entry` may go at the end: the run is empty or its last entry precedes `entry`.
        @inline(__always)
        func accepts(_ entry: Entry) -> Bool {
            slots.isEmpty || slots.last.precedes(entry)
        }

        /// Appends `entry`, which ``accepts(_:)`` allowed. O(1) amortised.
        mutating func append(_ entry: Entry) {
            entry.index = slots.append(entry)
            entry.inRun = true
        }

        /// Takes `entry`, which is in the run, out of it and marks it unqueued. O(1) amortised.
        mutating func remove(_ entry: Entry) {
            precondition(slots.element(at: entry.index) === entry, "internal bug: a timer entry from another queue")
            slots.remove(at: entry.index) { moved, position in moved.index = position }
            entry.index = -1
            entry.inRun = false
        }

        /// The deadline of the first entry that is not suspended, nil when every entry is: O(1 + k) for k suspended
        /// entries before it (and holes among them).
        var earliestArmableDeadline: UInt64? {
            var found: UInt64?
            slots.forEach { entry in
                guard entry.suspended else {
                    found = entry.deadline
                    return false
                }
                return true
            }
            return found
        }

        /// Appends the entries whose deadline is at or before `limit`, in order. O(k + holes among them).
        func collect(atOrBefore limit: UInt64, into result: inout [Entry]) {
            slots.forEach { entry in
                guard entry.deadline <= limit else { return false }
                result.append(entry)
                return true
            }
        }

        /// The entries, in order.
        var entries: [Entry] { slots.elements }

        /// Checks the order, the indices, the holes and the slots outside the range. O(n).
        func checkInvariants() -> String? {
            if let broken = slots.checkInvariants(position: { $0.index }) { return broken }
            let stored = slots.elements
            for entry in stored where !entry.inRun || !entry.inExact || !entry.hasEmptyWindow || entry.capIndex >= 0 {
                return "the entry at \(entry.index) is not a run entry"
            }
            for (earlier, later) in zip(stored, stored.dropFirst()) where !earlier.precedes(later) {
                return "out of order at deadline \(later.deadline)"
            }
            return nil
        }
    }
}

/// An object a ``TimerQueue`` holds: it stores its own place in the queue (``TimerQueuePlace``), so the queue needs no
/// entry object of its own. The loop's nodes are its timers (and their shadows, RefRunLoopTimer's `shadowOwner`).
protocol TimerQueueNode: AnyObject, SendableMetatype {
    /// The node's place in the queue that holds it, or an unqueued place. Changed only by ``TimerQueue``, and
    /// protected by what protects that queue (the loop's lock, for the loop's).
    var queuePlace: TimerQueuePlace { get set }
    /// What the node stands for: itself, or the timer whose shadow it is.
    var payload: Self { get }
}

/// Where a node is in a ``TimerQueue`` and its keys there. The queue owns `index`, `inRun`, `capIndex`, `inExact`
/// and `suspended`; `deadline` and `hardDeadline` change only through the queue.
struct TimerQueuePlace {
    /// The soft deadline in CLOCK_MONOTONIC nanoseconds: the timer may not fire before it.
    fileprivate(set) var deadline: UInt64 = 0
    /// The hard deadline: deadline + tolerance. Coalescing never delays a timer past it.
    fileprivate(set) var hardDeadline: UInt64 = 0
    /// Tie-break among equal deadlines: insertion order.
    fileprivate var sequence: UInt64 = 0
    /// hardDeadline less the coalescing margin: the latest wake-up that fires the entry on time.
    fileprivate var cap: UInt64 = 0
    /// Position in the heap array (in the run when `inRun`: see ``TimerQueue``'s `Run`), or -1 while in no queue.
    fileprivate var index = -1
    /// Position in the cap heap, or -1 while suspended, removed or exact.
    fileprivate var capIndex = -1
    /// Whether the entry is in the sorted run rather than in a heap.
    fileprivate var inRun = false
    /// Whether the entry is in the `exact` heap (its window is empty) rather than in `tolerant`.
    fileprivate var inExact = false
    /// Whether its timer is firing (``TimerQueue/suspend(_:)``): it does not count for the wake-up time.
    fileprivate var suspended = false

    /// A place in no queue.
    init() {}

    /// A new entry's place, before it is enqueued.
    @inline(__always)
    fileprivate init(deadline: UInt64, hardDeadline: UInt64, sequence: UInt64) {
        self.deadline = deadline
        self.hardDeadline = max(hardDeadline, deadline)
        self.sequence = sequence
        updateCap()
        inExact = hasEmptyWindow
    }

    /// Whether the window is empty: then the cap is the deadline (the margin of an empty window is 0).
    fileprivate var hasEmptyWindow: Bool { hardDeadline == deadline }

    /// An empty window's margin is 0: its cap is its deadline, without the margin's divisions.
    @inline(__always)
    fileprivate mutating func updateCap() {
        guard !hasEmptyWindow else {
            cap = deadline
            return
        }
        cap = hardDeadline - TimerCoalescing.margin(TimerCoalescing.Window(soft: deadline, hard: hardDeadline))
    }
}

// The queue's view of a node: its place's fields, read and written in place (a final class's stored property,
// specialised, is a direct field access).
extension TimerQueueNode {
    /// The soft deadline of the node's place.
    var deadline: UInt64 {
        @inline(__always) get { queuePlace.deadline }
    }
    /// The hard deadline of the node's place.
    var hardDeadline: UInt64 {
        @inline(__always) get { queuePlace.hardDeadline }
    }
    /// Whether the node is in a queue.
    var isQueued: Bool {
        @inline(__always) get { queuePlace.index >= 0 }
    }
    /// Whether the node counts for the wake-up time (it is queued and not suspended while its timer fires).
    var isArmable: Bool {
        @inline(__always) get { queuePlace.index >= 0 && !queuePlace.suspended }
    }
}

extension TimerQueueNode {
    fileprivate var sequence: UInt64 {
        @inline(__always) get { queuePlace.sequence }
    }
    fileprivate var cap: UInt64 {
        @inline(__always) get { queuePlace.cap }
    }
    fileprivate var index: Int {
        @inline(__always) get { queuePlace.index }
        @inline(__always) set { queuePlace.index = newValue }
    }
    fileprivate var capIndex: Int {
        @inline(__always) get { queuePlace.capIndex }
        @inline(__always) set { queuePlace.capIndex = newValue }
    }
    fileprivate var inRun: Bool {
        @inline(__always) get { queuePlace.inRun }
        @inline(__always) set { queuePlace.inRun = newValue }
    }
    fileprivate var inExact: Bool {
        @inline(__always) get { queuePlace.inExact }
        @inline(__always) set { queuePlace.inExact = newValue }
    }
    fileprivate var suspended: Bool {
        @inline(__always) get { queuePlace.suspended }
        @inline(__always) set { queuePlace.suspended = newValue }
    }
    fileprivate var hasEmptyWindow: Bool {
        @inline(__always) get { queuePlace.hasEmptyWindow }
    }

    @inline(__always)
    fileprivate func precedes(_ other: Self) -> Bool {
        deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
    }

    @inline(__always)
    fileprivate func capPrecedes(_ other: Self) -> Bool {
        cap != other.cap ? cap < other.cap : sequence < other.sequence
    }
}
