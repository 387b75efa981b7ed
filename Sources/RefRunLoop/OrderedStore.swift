// The observers of one mode, in CF's call order: ascending `order`, equal orders in insertion order (rule
// observer.order). CF keeps a sorted array and inserts by a backwards linear scan (O(n)). Here the observers of each
// distinct order form a group, an array in insertion order, and the groups sit in a treap keyed by order
// (OrderTreap.swift). Observers of one loop almost always share a handful of orders, so adding (to an order already
// present) and removing are O(1) amortised; only a new order, or the last observer of one leaving, costs the treap's
// O(log g) expected for g distinct orders. An in-order snapshot is cached until the next change, so that every
// activity of every pass reads a ready array.
//
// A group's array keeps a removed element's slot as a hole, so that no other element moves and no handle changes:
// adding and removing allocate nothing per element (a linked node per element cost an allocation, a free and their
// reference counting on every add and remove, a third of an observer's churn). Holes at the end are dropped at once;
// those at the front are skipped, and dropped together by moving the elements down and the base up (which leaves every
// handle valid) once they are half the group; holes in the middle are squeezed out when they outnumber the elements,
// the one change that gives elements new handles, which the caller is told.

/// A set of elements ordered by (order, insertion), with O(1) amortised insert into an order already present and
/// removal by handle, O(log g) expected for a new order among g, and a cached in-order snapshot.
///
/// Not thread-safe: the owning loop's lock protects it.
struct OrderedStore<Element> {
    /// Where a stored element is: its group, unretained (a group with elements is held by the treap), and its
    /// position there, counted from the group's creation (the base moves as holes leave the front). Valid until the
    /// element is removed or a removal reports it relocated.
    struct Handle {
        fileprivate let group: Unmanaged<Group>
        fileprivate let position: Int
    }

    /// The elements of one order, in insertion order, with holes where elements were removed. Held by its node in
    /// the treap while it has elements. (`@exclusivity(unchecked)`: the store's owner serialises every access, and each
    /// insert and remove would otherwise pay a dynamic check per field.)
    final class Group {
        /// Set when the group is made or reused (``OrderedStore/spare``).
        @exclusivity(unchecked) fileprivate(set) var order: Int
        /// `slots[i]` is at position `base + i`. The elements are in `start..<end`, whose first and last slots are
        /// not holes; every slot outside it is nil. The array only grows: the slots past `end` are kept for the next
        /// inserts, as an array keeps its capacity.
        @exclusivity(unchecked) fileprivate var slots: [Element?] = []
        @exclusivity(unchecked) fileprivate var base = 0
        @exclusivity(unchecked) fileprivate var start = 0
        @exclusivity(unchecked) fileprivate var end = 0
        /// The elements (slots in `start..<end` that are not holes).
        @exclusivity(unchecked) fileprivate var count = 0
        /// The group's node in the treap, unretained (that node holds the group).
        @exclusivity(unchecked) fileprivate var place: Unmanaged<OrderTreap<Group>.Node>?

        fileprivate init(order: Int) {
            self.order = order
        }

        /// Holes between the first and the last element.
        fileprivate var holes: Int { end - start - count }
    }

    /// Middle holes are squeezed out once there are more of them than elements and at least this many, and the holes
    /// at the front dropped once they are at least this many and half the array: fewer would make a small group move
    /// its elements at almost every removal.
    static var minimumHolesToDrop: Int { 16 }

    private var groups = OrderTreap<Group>()
    /// The last group emptied, kept with its array's capacity for the next new order: a mode whose observers all leave
    /// and come back (the usual churn) would otherwise grow a new array from nothing each time, and every growth past
    /// glibc's small sizes consolidates its fast bins, which slows every small allocation after it. Like an array's
    /// capacity, what it keeps is at most the largest the group has been.
    private var spare: Group?
    /// The group the last insert used, unretained (cleared when that group leaves the treap): consecutive inserts
    /// almost always share an order, and then need no search.
    private var lastGroup: Unmanaged<Group>?
    private(set) var count = 0
    /// The in-order elements, rebuilt lazily after a change.
    private var cache: [Element]?

    init() {}

    var isEmpty: Bool { count == 0 }

    /// Adds an element after every element with the same order. O(1) amortised when that order is present already
    /// (found at once when the last insert had it), O(log g) expected otherwise.
    @discardableResult
    mutating func insert(_ element: Element, order: Int) -> Handle {
        let group = group(for: order)
        let position: Int = group._withUnsafeGuaranteedRef { group in
            if group.end == group.slots.count { group.slots.append(element) } else { group.slots[group.end] = element }
            group.end += 1
            group.count += 1
            return group.base + group.end - 1
        }
        count += 1
        cache = nil
        return Handle(group: group, position: position)
    }

    /// Removes the element at `handle`, which must be stored. O(1) amortised, plus O(log g) expected when it was the
    /// last of its order. When the removal squeezes the holes out of its group, `relocated` is called, before this
    /// returns, with each element of the group that moved and its new handle (the old one is invalid from then on).
    mutating func remove(_ handle: Handle, relocated: (Element, Handle) -> Void) {
        let emptied: Bool = handle.group._withUnsafeGuaranteedRef { group in
            let index = handle.position - group.base
            precondition(index >= group.start && index < group.end && group.slots[index] != nil,
                         "internal bug: an observer store handle that is not stored")
            group.slots[index] = nil
            group.count -= 1
            if group.count == 0 {
                group.start = 0
                group.end = 0
                return true
            }
            if index == group.end - 1 {
                while group.slots[group.end - 1] == nil { group.end -= 1 }
            } else if index == group.start {
                while group.slots[group.start] == nil { group.start += 1 }
            }
            if group.holes > group.count && group.holes >= Self.minimumHolesToDrop {
                Self.compact(group, handle.group, relocated: relocated)
            } else if group.start >= Self.minimumHolesToDrop && 2 * group.start >= group.end {
                Self.dropLeadingHoles(group)
            }
            return false
        }
        count -= 1
        cache = nil
        guard emptied else { return }
        // The group leaves the treap, which held it: a strong reference keeps it until its node is gone.
        let leaving = handle.group.takeUnretainedValue()
        if lastGroup?.toOpaque() == handle.group.toOpaque() { lastGroup = nil }
        if let place = leaving.place {
            // The treap's link is the node's last reference: held here until the treap is done with it.
            let treapNode = place.takeUnretainedValue()
            withExtendedLifetime(treapNode) { groups.remove(treapNode) }
        }
        leaving.place = nil
        spare = leaving
    }

    /// Moves the elements of `group`, holes and all, down to slot 0 and its base up as much: every handle stays valid.
    /// Swaps, not copies: an element moves with no reference counting, and the holes end up past `end`.
    private static func dropLeadingHoles(_ group: Group) {
        let dropped = group.start
        let end = group.end
        group.slots.withUnsafeMutableBufferPointer { slots in
            for index in dropped..<end { slots.swapAt(index - dropped, index) }
        }
        group.base += dropped
        group.start = 0
        group.end = end - dropped
    }

    /// Moves the elements of `group` together, in order, down to slot 0 (by swaps, so the holes end up past `end`),
    /// and reports each one that moved with its new handle.
    private static func compact(_ group: Group, _ reference: Unmanaged<Group>, relocated: (Element, Handle) -> Void) {
        var kept = 0
        let base = group.base
        group.slots.withUnsafeMutableBufferPointer { slots in
            for index in group.start..<group.end where slots[index] != nil {
                if kept != index {
                    slots.swapAt(kept, index)
                    relocated(slots[kept]!, Handle(group: reference, position: base + kept))
                }
                kept += 1
            }
        }
        group.start = 0
        group.end = kept
    }

    /// The elements in order. O(1) when nothing changed since the last call, O(n + holes) otherwise.
    mutating func elementsInOrder() -> [Element] {
        if let cache { return cache }
        var result: [Element] = []
        result.reserveCapacity(count)
        for group in groups.elementsInOrder() {
            for case let element? in group.slots[group.start..<group.end] { result.append(element) }
        }
        cache = result
        return result
    }

    /// The element at `handle`, or nil when that slot is a hole or outside its group. For tests.
    func element(at handle: Handle) -> Element? {
        handle.group._withUnsafeGuaranteedRef { group in
            let index = handle.position - group.base
            return index >= group.start && index < group.end ? group.slots[index] : nil
        }
    }

    /// Checks the treap, the groups' orders and slots, and the count. O(n + holes); for tests and debug builds.
    func checkInvariants() -> String? {
        if let broken = groups.checkInvariants() { return "group treap: \(broken)" }
        var groupsCopy = groups
        var seen = 0
        var previousOrder: Int?
        for group in groupsCopy.elementsInOrder() {
            if let previousOrder, previousOrder >= group.order { return "groups out of order at order \(group.order)" }
            previousOrder = group.order
            guard group.place != nil else { return "group \(group.order) does not know its treap node" }
            let listed = group.slots[group.start..<group.end].reduce(0) { $0 + ($1 == nil ? 0 : 1) }
            if listed == 0 { return "group \(group.order) is empty but still stored" }
            if listed != group.count { return "group \(group.order) counts \(group.count) but holds \(listed)" }
            if group.slots[..<group.start].contains(where: { $0 != nil }) || group.slots[group.end...].contains(where: { $0 != nil }) {
                return "group \(group.order) has an element outside its range"
            }
            if group.slots[group.start] == nil || group.slots[group.end - 1] == nil {
                return "group \(group.order) has a hole at its start or its end"
            }
            if group.holes > group.count && group.holes >= Self.minimumHolesToDrop {
                return "group \(group.order) has \(group.holes) holes for \(group.count) elements"
            }
            if group.start >= Self.minimumHolesToDrop && 2 * group.start >= group.end {
                return "group \(group.order) keeps \(group.start) holes at its front"
            }
            seen += listed
        }
        if let lastGroup, lastGroup.takeUnretainedValue().place == nil { return "the last insert's group has left" }
        return seen == count ? nil : "count is \(count) but \(seen) elements are stored"
    }

    /// The group for `order`, created and put in the treap when there is none.
    private mutating func group(for order: Int) -> Unmanaged<Group> {
        if let lastGroup, lastGroup._withUnsafeGuaranteedRef({ $0.order == order }) { return lastGroup }
        let group: Group
        if let existing = groups.node(withOrder: order) {
            group = existing.element
        } else {
            if let spare {
                group = spare
                group.order = order
                self.spare = nil
            } else {
                group = Group(order: order)
            }
            group.place = Unmanaged.passUnretained(groups.insert(group, order: order))
        }
        let reference = Unmanaged.passUnretained(group)
        lastGroup = reference
        return reference
    }
}
