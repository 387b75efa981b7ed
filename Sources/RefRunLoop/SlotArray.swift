// An array whose elements keep their positions while others come and go: the storage behind an order's observers
// (OrderedStore.swift), the run of timers added in date order (TimerQueue.swift) and a mode's sources (LoopMode.swift).
// Each of those items knows its position, so removing it needs no search; swap-removal would move another item and
// make its owner touch that item (and take its lock, for a source) on every removal, and a linked list would cost a
// node per item.

/// Elements in insertion order at stable positions: appending is O(1) amortised, and removing by position leaves a
/// hole, so no other element moves. Holes at the end go at once; those at the front are skipped, and dropped together
/// by moving the elements down and the base up (which leaves every position valid) when an append finds the storage
/// full and they are at least half of it (instead of growing it); holes in the middle are squeezed out once they
/// outnumber the elements, the one change that gives elements new positions, which the caller is told. Every
/// operation is O(1) amortised.
///
/// The slots are in memory the array's storage object owns (``SlotStorage``), not in a standard array: changing a slot
/// then needs no uniqueness check and no bounds check, and appending writes a vacant slot without releasing the nil it
/// held. The price is that a copy of the array shares its slots: an array is never copied to be changed apart (each
/// owner stores its one array in place), and debug builds check that every change is made to the only reference.
///
/// Not thread-safe: its owner's lock protects it.
struct SlotArray<Element> {
    /// `slots[i]` is at position `base + i`. The elements are in `start..<end`, whose first and last slots are not
    /// holes; every slot outside it is nil. The array only grows: the slots past `end` are kept for the next appends,
    /// as an array keeps its capacity.
    private var storage = SlotStorage<Element>(capacity: 0)
    private var base = 0
    private var start = 0
    private var end = 0
    /// The elements (slots in `start..<end` that are not holes).
    private(set) var count = 0

    /// The slots, every one initialized (nil when vacant).
    @inline(__always)
    private var slots: UnsafeMutablePointer<Element?> { storage.slots }

    /// Holes are dropped or squeezed out in batches of at least this many, so that a short array does not move its
    /// elements at almost every removal.
    static var minimumHolesToDrop: Int { 16 }

    init() {}

    var isEmpty: Bool { count == 0 }

    /// The slots the storage has (tests: how much room the holes take).
    var capacity: Int { storage.capacity }

    /// The first element. The array must not be empty.
    @inline(__always)
    var first: Element { slots[start].unsafelyUnwrapped }

    /// The last element. The array must not be empty.
    @inline(__always)
    var last: Element { slots[end - 1].unsafelyUnwrapped }

    /// Appends `element` and returns its position. O(1) amortised. The arithmetic wraps, as in ``remove(at:relocated:)``.
    @inline(__always)
    mutating func append(_ element: Element) -> Int {
        checkUnshared()
        if end == storage.capacity { makeRoom() }
        // The slot is vacant, so it holds nil, which owns nothing: initialized over, not assigned (an assignment
        // releases the nil it replaces, a call on every append).
        (slots + end).initialize(to: element)
        let position = base &+ end
        end &+= 1
        count &+= 1
        return position
    }

    /// The element at `position`, nil for a hole or a position outside the array.
    func element(at position: Int) -> Element? {
        let index = position - base
        return index >= start && index < end ? slots[index] : nil
    }

    /// Removes the element at `position`, which must hold one. When the removal squeezes the holes out, `relocated` is
    /// called, before this returns, with each element that moved and its new position (its old one is invalid from
    /// then on). O(1) amortised.
    ///
    /// The arithmetic wraps (`&-`, `&+`) rather than trapping: every index is in `0...capacity` and every position
    /// within `base...base + capacity`, far from overflow, and the overflow checks were a test and a branch on each step.
    ///
    /// Inlined: out of line, its call cost a six-register frame per removal; the rare batches (``squeezeHoles``,
    /// ``dropLeadingHoles``) stay out of line.
    @inline(__always)
    mutating func remove(at position: Int, relocated: (Element, Int) -> Void) {
        checkUnshared()
        let index = position &- base
        precondition(index >= start && index < end, "internal bug: no element at position \(position)")
        let slots = self.slots
        // Moved out, and released last, once the array is consistent again: no bookkeeping waits on the call, so the
        // function saves fewer registers (74 instructions per removal to 59 under callgrind, with the wrapping
        // arithmetic). A last reference's deinit still runs within this call, as before.
        let removed = (slots + index).move()
        (slots + index).initialize(to: nil)
        precondition(removed != nil, "internal bug: no element at position \(position)")
        closeGap(at: index, relocated: relocated)
        _ = consume removed
    }

    /// The bookkeeping of ``remove(at:relocated:)`` once slot `index`, which held an element, is nil.
    @inline(__always)
    private mutating func closeGap(at index: Int, relocated: (Element, Int) -> Void) {
        let remaining = count &- 1
        count = remaining
        var (start, end) = (self.start, self.end)
        let slots = self.slots
        if remaining == 0 {
            (start, end) = (0, 0)
        } else if index == end &- 1 {
            repeat { end &-= 1 } while slots[end &- 1] == nil
        } else if index == start {
            repeat { start &+= 1 } while slots[start] == nil
        }
        (self.start, self.end) = (start, end)
        guard remaining > 0 else { return }
        let holes = end &- start &- remaining
        if holes > remaining && holes >= Self.minimumHolesToDrop {
            squeezeHoles(relocated: relocated)
        }
        // The leading holes are dropped by an append that needs their room (``makeRoom()``), not here: a run of
        // removals from the front (first in, first out) then moves nothing, and an array emptied by them starts again
        // from its first slot.
    }

    /// Calls `body` with each element in order until it returns false. O(k + the holes among the k visited).
    @inline(__always)
    func forEach(while body: (Element) throws -> Bool) rethrows {
        for index in start..<end {
            guard let element = slots[index] else { continue }
            guard try body(element) else { return }
        }
    }

    /// The elements in order. O(n + holes).
    var elements: [Element] {
        var result: [Element] = []
        result.reserveCapacity(count)
        forEach {
            result.append($0)
            return true
        }
        return result
    }

    /// Moves the elements, holes and all, down to slot 0 and the base up as much: every position stays right. Swaps,
    /// not copies: no reference counting, and the holes end up past `end`.
    private mutating func dropLeadingHoles() {
        let dropped = start
        let end = self.end
        let slots = self.slots
        for index in dropped..<end { swap(&slots[index - dropped], &slots[index]) }
        base += dropped
        start = 0
        self.end = end - dropped
    }

    /// Moves the elements together, in order, down to slot 0 (by swaps, so the holes end up past `end`), and reports
    /// each one that moved with its new position.
    private mutating func squeezeHoles(relocated: (Element, Int) -> Void) {
        var kept = 0
        let base = self.base
        let (start, end) = (self.start, self.end)
        let slots = self.slots
        for index in start..<end where slots[index] != nil {
            if kept != index {
                swap(&slots[kept], &slots[index])
                relocated(slots[kept].unsafelyUnwrapped, base + kept)
            }
            kept += 1
        }
        self.start = 0
        self.end = kept
    }

    /// Makes room for an append when the slots are full: drops the leading holes when they are at least half the slots
    /// (and at least ``minimumHolesToDrop``), otherwise grows the storage. Either way appends stay O(1) amortised: a drop
    /// moves at most as many elements as the appends since the last one, at least half the slots.
    @inline(never)
    private mutating func makeRoom() {
        if start >= Self.minimumHolesToDrop && start &+ start >= end {
            dropLeadingHoles()
        } else {
            grow()
        }
    }

    /// Moves the slots to a storage of twice the capacity (at least 16 slots). The array's slots are full.
    private mutating func grow() {
        let larger = SlotStorage<Element>(capacity: max(16, 2 * storage.capacity))
        let capacity = storage.capacity
        // Moved, then the old slots set to nil, so that each storage frees initialized slots (nil owns nothing).
        larger.slots.moveUpdate(from: storage.slots, count: capacity)
        storage.slots.initialize(repeating: nil, count: capacity)
        storage = larger
    }

    /// Stops the process when the storage is shared with a copy of the array (see above). Debug builds only.
    @inline(__always)
    private mutating func checkUnshared() {
        #if DEBUG
        precondition(
            isKnownUniquelyReferenced(&storage), "internal bug: a SlotArray changed while a copy shares its slots")
        #endif
    }

    /// Checks the range, the count and the holes: nil when they hold. `position` checks each element's own record of
    /// its position. O(n + holes); for tests and debug builds.
    func checkInvariants(position: (Element) -> Int?) -> String? {
        let slots = UnsafeMutableBufferPointer(start: self.slots, count: storage.capacity)
        if slots[..<start].contains(where: { $0 != nil }) || slots[end...].contains(where: { $0 != nil }) {
            return "an element outside start..<end"
        }
        let stored = slots[start..<end].reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        if stored != count { return "counts \(count) but holds \(stored)" }
        guard count > 0 else { return start == 0 && end == 0 ? nil : "empty but its range is \(start)..<\(end)" }
        if slots[start] == nil || slots[end - 1] == nil { return "a hole at its start or its end" }
        let holes = end - start - count
        if holes > count && holes >= Self.minimumHolesToDrop { return "\(holes) holes for \(count) elements" }
        for index in start..<end {
            guard let element = slots[index], let recorded = position(element) else { continue }
            if recorded != base + index { return "the element at \(base + index) believes it is at \(recorded)" }
        }
        return nil
    }
}

/// The slots of a ``SlotArray``: a fixed number, every one initialized (nil when vacant), freed with the object. An
/// array grows by moving its slots to a larger storage.
final class SlotStorage<Element> {
    let slots: UnsafeMutablePointer<Element?>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: nil, count: capacity)
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }
}
