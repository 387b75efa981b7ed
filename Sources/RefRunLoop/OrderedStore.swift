// The observers of one mode, in CF's call order: ascending `order`, equal orders in insertion order (rule
// observer.order). CF keeps a sorted array and inserts by a backwards linear scan (O(n)). Here the observers of each
// distinct order form a group, a list in insertion order, and the groups sit in a treap keyed by order
// (OrderTreap.swift). Observers of one loop almost always share a handful of orders, so adding (to an order already
// present) and removing are O(1) list operations; only a new order, or the last observer of one leaving, costs the
// treap's O(log g) expected for g distinct orders. An in-order snapshot is cached until the next change, so that every
// activity of every pass reads a ready array.

/// A set of elements ordered by (order, insertion), with O(1) insert into an order already present, O(1) removal by
/// handle, O(log g) expected for a new order among g, and a cached in-order snapshot.
///
/// Not thread-safe: the owning loop's lock protects it.
struct OrderedStore<Element> {
    /// A stored element; the handle to remove it with. Its group's list holds it through the previous node's `next`
    /// (the first through the group's `head`).
    final class Node {
        let element: Element
        fileprivate var next: Node?
        fileprivate var previous: Unmanaged<Node>?
        /// The group while stored, unretained: a group with nodes is held by the treap.
        fileprivate var group: Unmanaged<Group>?

        fileprivate init(element: Element) {
            self.element = element
        }
    }

    /// The nodes of one order, in insertion order. Held by its node in the treap while it has nodes.
    final class Group {
        let order: Int
        fileprivate var head: Node?
        fileprivate var tail: Unmanaged<Node>?
        fileprivate var count = 0
        /// The group's node in the treap, unretained (that node holds the group).
        fileprivate var place: Unmanaged<OrderTreap<Group>.Node>?

        fileprivate init(order: Int) {
            self.order = order
        }
    }

    private var groups = OrderTreap<Group>()
    /// The group the last insert used, unretained (cleared when that group leaves the treap): consecutive inserts
    /// almost always share an order, and then need no search.
    private var lastGroup: Unmanaged<Group>?
    private(set) var count = 0
    /// The in-order elements, rebuilt lazily after a change.
    private var cache: [Element]?

    init() {}

    var isEmpty: Bool { count == 0 }

    /// Adds an element after every element with the same order. O(1) when that order is present already (found at
    /// once when the last insert had it), O(log g) expected otherwise.
    @discardableResult
    mutating func insert(_ element: Element, order: Int) -> Node {
        let group = group(for: order)
        let node = Node(element: element)
        node.group = group
        group._withUnsafeGuaranteedRef { group in
            if let tail = group.tail {
                node.previous = tail
                tail._withUnsafeGuaranteedRef { $0.next = node }
            } else {
                group.head = node
            }
            group.tail = Unmanaged.passUnretained(node)
            group.count += 1
        }
        count += 1
        cache = nil
        return node
    }

    /// Removes a node of this store. O(1), plus O(log g) expected when it was the last of its order. A node already
    /// removed is ignored.
    mutating func remove(_ node: Node) {
        guard let group = node.group else { return }
        let emptied: Bool = group._withUnsafeGuaranteedRef { group in
            let previous = node.previous
            let next = node.next
            if let next { next.previous = previous } else { group.tail = previous }
            // Unlinking releases the list's reference to the node; the caller's handle keeps it alive.
            if let previous { previous._withUnsafeGuaranteedRef { $0.next = next } } else { group.head = next }
            group.count -= 1
            return group.count == 0
        }
        node.next = nil
        node.previous = nil
        node.group = nil
        count -= 1
        cache = nil
        guard emptied else { return }
        // The group leaves the treap, which held it: a strong reference keeps it until its node is gone.
        let leaving = group.takeUnretainedValue()
        if lastGroup?.toOpaque() == group.toOpaque() { lastGroup = nil }
        if let place = leaving.place {
            // The treap's link is the node's last reference: held here until the treap is done with it.
            let treapNode = place.takeUnretainedValue()
            withExtendedLifetime(treapNode) { groups.remove(treapNode) }
        }
        leaving.place = nil
    }

    /// The elements in order. O(1) when nothing changed since the last call, O(n) otherwise.
    mutating func elementsInOrder() -> [Element] {
        if let cache { return cache }
        var result: [Element] = []
        result.reserveCapacity(count)
        for group in groups.elementsInOrder() {
            var current = group.head
            while let node = current {
                result.append(node.element)
                current = node.next
            }
        }
        cache = result
        return result
    }

    /// Checks the treap, the groups' orders and lists, and the count. O(n); for tests and debug builds.
    func checkInvariants() -> String? {
        if let broken = groups.checkInvariants() { return "group treap: \(broken)" }
        var groupsCopy = groups
        var seen = 0
        var previousOrder: Int?
        for group in groupsCopy.elementsInOrder() {
            if let previousOrder, previousOrder >= group.order { return "groups out of order at order \(group.order)" }
            previousOrder = group.order
            guard group.place != nil else { return "group \(group.order) does not know its treap node" }
            var listed = 0
            var previous: Node?
            var current = group.head
            while let node = current {
                if node.group?.toOpaque() != Unmanaged.passUnretained(group).toOpaque() {
                    return "a node of order \(group.order) belongs to another group"
                }
                if node.previous?.toOpaque() != previous.map({ Unmanaged.passUnretained($0).toOpaque() }) {
                    return "a node of order \(group.order) has a wrong previous link"
                }
                previous = node
                listed += 1
                current = node.next
            }
            if group.tail?.toOpaque() != previous.map({ Unmanaged.passUnretained($0).toOpaque() }) {
                return "group \(group.order) has a wrong tail"
            }
            if listed == 0 { return "group \(group.order) is empty but still stored" }
            if listed != group.count { return "group \(group.order) counts \(group.count) but lists \(listed)" }
            seen += listed
        }
        if let lastGroup, lastGroup.takeUnretainedValue().place == nil { return "the last insert's group has left" }
        return seen == count ? nil : "count is \(count) but \(seen) nodes are linked"
    }

    /// The group for `order`, created and put in the treap when there is none.
    private mutating func group(for order: Int) -> Unmanaged<Group> {
        if let lastGroup, lastGroup._withUnsafeGuaranteedRef({ $0.order == order }) { return lastGroup }
        let group: Group
        if let existing = groups.node(withOrder: order) {
            group = existing.element
        } else {
            group = Group(order: order)
            group.place = Unmanaged.passUnretained(groups.insert(group, order: order))
        }
        let reference = Unmanaged.passUnretained(group)
        lastGroup = reference
        return reference
    }
}
