// The observers of one mode, in CF's call order: ascending `order`, equal orders in insertion order (rule
// observer.order). CF keeps a sorted array and inserts by a backwards linear scan (O(n)). Here the observers of each
// distinct order form a group, an array in insertion order, and the groups sit in a treap keyed by order
// (OrderTreap.swift). Observers of one loop almost always share a handful of orders, so adding (to an order already
// present) and removing are O(1) amortised; only a new order, or the last observer of one leaving, costs the treap's
// O(log g) expected for g distinct orders. An in-order snapshot is cached until the next change, so that every
// activity of every pass reads a ready array.
//
// A group's elements sit at stable positions in a SlotArray (SlotArray.swift): adding and removing allocate nothing
// per element (a linked node per element costs an allocation, a free and their reference counting on every add and
// remove), and the rare change that moves elements reports their new handles.

/// A set of elements ordered by (order, insertion), with O(1) amortised insert into an order already present and
/// removal by handle, O(log g) expected for a new order among g, and a cached in-order snapshot.
///
/// Not thread-safe: the owning loop's lock protects it.
struct OrderedStore<Element> {
    /// Where a stored element is: its group, unretained (a group with elements is held by the treap), and its
    /// position in the group's slots. Valid until the element is removed or a removal reports it relocated.
    struct Handle {
        fileprivate let group: Unmanaged<Group>
        fileprivate let position: Int
    }

    /// The elements of one order, in insertion order. Held by its node in the treap while it has elements.
    final class Group {
        /// Set when the group is made or reused (``OrderedStore/spare``).
        fileprivate(set) var order: Int
        /// The group's node in the treap, unretained (that node holds the group).
        fileprivate var place: Unmanaged<OrderTreap<Group>.Node>?
        /// The group's elements, at a stable address the group allocates once and frees in its deinit: every insert
        /// and remove changes them, and through the accessor below that is a pointer access, which Swift checks for
        /// exclusivity at compile time (as a stored `var` of this class, each change was checked at run time, a
        /// thread-local access-set insertion and removal). A store allocates a group per distinct order, and keeps the
        /// last one emptied for reuse, so the allocation is not per element.
        private let storedSlots: UnsafeMutablePointer<SlotArray<Element>>

        fileprivate var slots: SlotArray<Element> {
            _read { yield storedSlots.pointee }
            _modify { yield &storedSlots.pointee }
        }

        fileprivate init(order: Int) {
            self.order = order
            storedSlots = .allocate(capacity: 1)
            storedSlots.initialize(to: SlotArray())
        }

        deinit {
            storedSlots.deinitialize(count: 1)
            storedSlots.deallocate()
        }
    }

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
        let position = group._withUnsafeGuaranteedRef { $0.slots.append(element) }
        count += 1
        dropCache()
        return Handle(group: group, position: position)
    }

    /// Removes the element at `handle`, which must be stored. O(1) amortised, plus O(log g) expected when it was the
    /// last of its order. When the removal squeezes the holes out of its group, `relocated` is called, before this
    /// returns, with each element of the group that moved and its new handle (the old one is invalid from then on).
    mutating func remove(_ handle: Handle, relocated: (Element, Handle) -> Void) {
        let emptied: Bool = handle.group._withUnsafeGuaranteedRef { group in
            group.slots.remove(at: handle.position) { relocated($0, Handle(group: handle.group, position: $1)) }
            return group.slots.isEmpty
        }
        count -= 1
        dropCache()
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

    /// Forgets the in-order snapshot after a change. Tested first: between two snapshots (the usual churn, many changes
    /// with no pass reading the order) it is nil already, and assigning nil would still release the old value.
    @inline(__always)
    private mutating func dropCache() {
        if cache != nil { cache = nil }
    }

    /// The elements in order. O(1) when nothing changed since the last call, O(n + holes) otherwise.
    mutating func elementsInOrder() -> [Element] {
        if let cache { return cache }
        var result: [Element] = []
        result.reserveCapacity(count)
        for group in groups.elementsInOrder() {
            group.slots.forEach {
                result.append($0)
                return true
            }
        }
        cache = result
        return result
    }

    /// The element at `handle`, or nil when that slot is a hole or outside its group. For tests.
    func element(at handle: Handle) -> Element? {
        handle.group._withUnsafeGuaranteedRef { $0.slots.element(at: handle.position) }
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
            if group.slots.isEmpty { return "group \(group.order) is empty but still stored" }
            if let broken = group.slots.checkInvariants(position: { _ in nil }) {
                return "group \(group.order): \(broken)"
            }
            let listed = group.slots.count
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
