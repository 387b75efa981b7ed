// A treap keyed by order: the ordered index of the observer store's groups (OrderedStore.swift), one per distinct
// order. O(log n) expected insert, search and removal by handle, and an in-order snapshot cached until the next change.

/// A set of elements with distinct orders, in ascending order, with O(log n) expected insert, search by order and
/// removal by handle, and a cached in-order snapshot.
///
/// Not thread-safe: its owner's lock protects it.
struct OrderTreap<Element> {
    /// A stored element; the handle to remove it with.
    final class Node {
        let order: Int
        let element: Element
        fileprivate let priority: UInt64
        fileprivate var left: Node?
        fileprivate var right: Node?
        /// Whether the node is still in its treap.
        fileprivate(set) var isStored = true

        fileprivate init(order: Int, element: Element, priority: UInt64) {
            self.order = order
            self.element = element
            self.priority = priority
        }

        @inline(__always)
        fileprivate func precedes(_ other: Node) -> Bool {
            order < other.order
        }
    }

    private var root: Node?
    private var randomState: UInt64 = 0x9E37_79B9_7F4A_7C15
    private(set) var count = 0
    /// The in-order elements, rebuilt lazily after a change.
    private var cache: [Element]?

    init() {}

    /// Adds an element whose order no stored element has (the caller looks it up first: ``node(withOrder:)``).
    /// O(log n) expected.
    @discardableResult
    mutating func insert(_ element: Element, order: Int) -> Node {
        let node = Node(order: order, element: element, priority: nextPriority())
        root = Self.insert(node, into: root)
        count += 1
        cache = nil
        return node
    }

    /// A node whose order is `order`, or nil when there is none. O(log n) expected.
    func node(withOrder order: Int) -> Node? {
        var current = Self.link(root)
        while let here = current {
            let step: Int = here._withUnsafeGuaranteedRef { order < $0.order ? -1 : order > $0.order ? 1 : 0 }
            if step == 0 { return here.takeUnretainedValue() }
            current = here._withUnsafeGuaranteedRef { Self.link(step < 0 ? $0.left : $0.right) }
        }
        return nil
    }

    /// Removes a node of this treap. O(log n) expected. A node already removed is ignored.
    mutating func remove(_ node: Node) {
        guard node.isStored else { return }
        var removed = false
        root = Self.remove(node, from: root, removed: &removed)
        precondition(removed, "internal bug: a treap node from another treap")
        node.isStored = false
        node.left = nil
        node.right = nil
        count -= 1
        cache = nil
    }

    /// The elements in order. O(1) when nothing changed since the last call, O(n) otherwise.
    mutating func elementsInOrder() -> [Element] {
        if let cache { return cache }
        var result: [Element] = []
        result.reserveCapacity(count)
        var stack: [Node] = []
        var current = root
        while current != nil || !stack.isEmpty {
            while let node = current {
                stack.append(node)
                current = node.left
            }
            let node = stack.removeLast()
            result.append(node.element)
            current = node.right
        }
        cache = result
        return result
    }

    /// Checks the search-tree and heap properties and the count. O(n); for tests and debug builds.
    func checkInvariants() -> String? {
        var seen = 0
        var previous: Node?
        var stack: [Node] = []
        var current = root
        while current != nil || !stack.isEmpty {
            while let node = current {
                if let left = node.left, left.priority > node.priority {
                    return "heap order broken at order \(node.order)"
                }
                if let right = node.right, right.priority > node.priority {
                    return "heap order broken at order \(node.order)"
                }
                if !node.isStored { return "a removed node is still linked" }
                stack.append(node)
                current = node.left
            }
            let node = stack.removeLast()
            if let previous, !previous.precedes(node) { return "orders not strictly ascending at order \(node.order)" }
            previous = node
            seen += 1
            current = node.right
        }
        return seen == count ? nil : "count is \(count) but \(seen) nodes are linked"
    }

    // MARK: Treap mechanics
    //
    // Iterative, walking the tree through unretained references (`Link`, read with `_withUnsafeGuaranteedRef`): the
    // tree's own links keep every node alive while the treap is changed (the owning loop's lock is held; a node being
    // removed holds its two subtrees until they are merged), except where a relink drops a node's last link before it
    // is linked again: merge holds its two fronts strongly for that (nodes have no owner but the tree). A walk that reassigned each link on its path
    // (`tree.left = insert(node, into: tree.left)`) retained and released every node it passed, and so did a walk
    // through `unowned(unsafe)` variables, which Swift binds to strong references at each step, and so retained and
    // released a node at every step of every add and remove.

    /// A node the walk does not retain.
    private typealias Link = Unmanaged<Node>

    @inline(__always)
    private static func link(_ node: Node?) -> Link? {
        guard let node else { return nil }
        return Unmanaged.passUnretained(node)
    }

    /// Sets `parent`'s left or right child (the link retains the child, as every tree link does).
    @inline(__always)
    private static func setChild(of parent: Link, left: Bool, to child: Link?) {
        parent._withUnsafeGuaranteedRef { parent in
            let strong = child?.takeUnretainedValue()
            if left { parent.left = strong } else { parent.right = strong }
        }
    }

    private mutating func nextPriority() -> UInt64 {
        // xorshift64*: deterministic, so runs are reproducible.
        randomState ^= randomState >> 12
        randomState ^= randomState << 25
        randomState ^= randomState >> 27
        return randomState &* 0x2545_F491_4F6C_DD1D
    }

    /// Inserts `node`: walks down while the nodes on its path have a higher priority, then splits the subtree found
    /// there by `node`'s key into its left and right children and puts `node` in its place.
    private static func insert(_ node: Node, into root: Node?) -> Node {
        var parent: Link? = nil
        var current = link(root)
        while let here = current {
            let next: Link?? = here._withUnsafeGuaranteedRef { here in
                guard here.priority > node.priority else { return .none }
                return .some(link(node.precedes(here) ? here.left : here.right))
            }
            guard let next else { break }
            parent = here
            current = next
        }
        split(current, around: node)
        guard let parent else { return node }
        setChild(of: parent, left: parent._withUnsafeGuaranteedRef { node.precedes($0) }, to: link(node))
        return root!
    }

    /// Makes `node.left` the nodes of `tree` that precede `node` and `node.right` the others, keeping their order
    /// and heap shape.
    private static func split(_ tree: Link?, around node: Node) {
        // The last node put on each side: the next node of that side becomes its right (left) child; nil while the
        // side is empty, when it becomes `node`'s own child. Every node passed stays linked from the subtree's
        // parent, or from `node` or a node placed before it, while it is relinked.
        var lastLeft: Link? = nil
        var lastRight: Link? = nil
        var current = tree
        node.left = nil
        node.right = nil
        while let here = current {
            if here._withUnsafeGuaranteedRef({ $0.precedes(node) }) {
                if let lastLeft {
                    setChild(of: lastLeft, left: false, to: here)
                } else {
                    node.left = here.takeUnretainedValue()
                }
                lastLeft = here
                current = here._withUnsafeGuaranteedRef { link($0.right) }
            } else {
                if let lastRight {
                    setChild(of: lastRight, left: true, to: here)
                } else {
                    node.right = here.takeUnretainedValue()
                }
                lastRight = here
                current = here._withUnsafeGuaranteedRef { link($0.left) }
            }
        }
        if let lastLeft { setChild(of: lastLeft, left: false, to: nil) }
        if let lastRight { setChild(of: lastRight, left: true, to: nil) }
    }

    /// Takes `node` out of the tree under `root` and returns the new root, or nil and `removed` false when `node` is
    /// not in it.
    private static func remove(_ node: Node, from root: Node?, removed: inout Bool) -> Node? {
        let target = Unmanaged.passUnretained(node).toOpaque()
        var parent: Link? = nil
        var current = link(root)
        while let here = current, here.toOpaque() != target {
            parent = here
            current = here._withUnsafeGuaranteedRef { link(node.precedes($0) ? $0.left : $0.right) }
        }
        guard current != nil else { return root }
        removed = true
        let replacement = merge(node.left, node.right)
        guard let parent else { return replacement }
        setChild(of: parent, left: parent._withUnsafeGuaranteedRef { $0.left === node }, to: link(replacement))
        return root
    }

    /// Joins two treaps, every node of `left` preceding every node of `right`, into one.
    ///
    /// The two fronts are strong references: linking one front under the last node placed replaces that node's link
    /// to the other front, which would otherwise be its last reference (the treap's nodes have no other owner). Only
    /// a removal merges, and the store removes a node only when the last element of its order leaves.
    private static func merge(_ left: Node?, _ right: Node?) -> Node? {
        guard let left else { return right }
        guard let right else { return left }
        let root = left.priority > right.priority ? left : right
        // Walk down the right spine of the left part and the left spine of the right part, linking the higher
        // priority of the two fronts under the last node placed.
        var lastPlaced = Unmanaged.passUnretained(root)
        var placedFromLeft = root === left
        var leftFront: Node? = placedFromLeft ? left.right : left
        var rightFront: Node? = placedFromLeft ? right : right.left
        while true {
            guard let leftNode = leftFront else {
                setChild(of: lastPlaced, left: !placedFromLeft, to: link(rightFront))
                return root
            }
            guard let rightNode = rightFront else {
                setChild(of: lastPlaced, left: !placedFromLeft, to: link(leftNode))
                return root
            }
            if leftNode.priority > rightNode.priority {
                setChild(of: lastPlaced, left: !placedFromLeft, to: link(leftNode))
                lastPlaced = Unmanaged.passUnretained(leftNode)
                placedFromLeft = true
                leftFront = leftNode.right
            } else {
                setChild(of: lastPlaced, left: !placedFromLeft, to: link(rightNode))
                lastPlaced = Unmanaged.passUnretained(rightNode)
                placedFromLeft = false
                rightFront = rightNode.left
            }
        }
    }
}
