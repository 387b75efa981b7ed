// The observers of one mode, in CF's call order: ascending `order`, equal orders in insertion order (rule
// observer.order). CF keeps a sorted array and inserts by a backwards linear scan (O(n)); a treap keyed by (order,
// sequence) gives O(log n) expected insert and remove, and an in-order snapshot is cached until the next change so that
// every activity of every pass reads a ready array.

/// A set of elements ordered by (order, insertion sequence), with O(log n) expected insert and removal by handle
/// and a cached in-order snapshot.
///
/// Not thread-safe: the owning loop's lock protects it.
struct OrderedStore<Element> {
    /// A stored element; the handle to remove it with.
    final class Node {
        let order: Int
        let sequence: UInt64
        let element: Element
        fileprivate let priority: UInt64
        fileprivate var left: Node?
        fileprivate var right: Node?
        /// Whether the node is still in its store.
        fileprivate(set) var isStored = true

        fileprivate init(order: Int, sequence: UInt64, element: Element, priority: UInt64) {
            self.order = order
            self.sequence = sequence
            self.element = element
            self.priority = priority
        }

        @inline(__always)
        fileprivate func precedes(_ other: Node) -> Bool {
            order != other.order ? order < other.order : sequence < other.sequence
        }
    }

    private var root: Node?
    private var nextSequence: UInt64 = 0
    private var randomState: UInt64 = 0x9E37_79B9_7F4A_7C15
    private(set) var count = 0
    /// The in-order elements, rebuilt lazily after a change.
    private var cache: [Element]?

    init() {}

    var isEmpty: Bool { count == 0 }

    /// Adds an element after every element with the same order. O(log n) expected.
    @discardableResult
    mutating func insert(_ element: Element, order: Int) -> Node {
        nextSequence &+= 1
        let node = Node(order: order, sequence: nextSequence, element: element, priority: nextPriority())
        root = Self.insert(node, into: root)
        count += 1
        cache = nil
        return node
    }

    /// Removes a node of this store. O(log n) expected. A node already removed is ignored.
    mutating func remove(_ node: Node) {
        guard node.isStored else { return }
        var removed = false
        root = Self.remove(node, from: root, removed: &removed)
        precondition(removed, "internal bug: an observer node from another store")
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
                if let left = node.left, left.priority > node.priority { return "heap order broken at order \(node.order)" }
                if let right = node.right, right.priority > node.priority { return "heap order broken at order \(node.order)" }
                if !node.isStored { return "a removed node is still linked" }
                stack.append(node)
                current = node.left
            }
            let node = stack.removeLast()
            if let previous, !previous.precedes(node) { return "in-order sequence broken at order \(node.order)" }
            previous = node
            seen += 1
            current = node.right
        }
        return seen == count ? nil : "count is \(count) but \(seen) nodes are linked"
    }

    // MARK: Treap mechanics
    //
    // Iterative, walking the tree through unowned(unsafe) references: the tree's own links keep every node alive while
    // the store is changed (the owning loop's lock is held), and a walk that reassigned each link on its path
    // (`tree.left = insert(node, into: tree.left)`) retained and released every node it passed, which was a third of
    // adding and removing an observer.

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
        unowned(unsafe) var parent: Node? = nil
        unowned(unsafe) var current: Node? = root
        while let here = current, here.priority > node.priority {
            parent = here
            current = node.precedes(here) ? here.left : here.right
        }
        split(current, around: node)
        guard let parent else { return node }
        if node.precedes(parent) { parent.left = node } else { parent.right = node }
        return root!
    }

    /// Makes `node.left` the nodes of `tree` that precede `node` and `node.right` the others, keeping their order
    /// and heap shape.
    private static func split(_ tree: Node?, around node: Node) {
        // The last node put on each side: the next node of that side becomes its right (left) child; nil while the
        // side is empty, when it becomes `node`'s own child.
        unowned(unsafe) var lastLeft: Node? = nil
        unowned(unsafe) var lastRight: Node? = nil
        unowned(unsafe) var current: Node? = tree
        node.left = nil
        node.right = nil
        while let here = current {
            if here.precedes(node) {
                if let lastLeft { lastLeft.right = here } else { node.left = here }
                lastLeft = here
                current = here.right
            } else {
                if let lastRight { lastRight.left = here } else { node.right = here }
                lastRight = here
                current = here.left
            }
        }
        if let lastLeft { lastLeft.right = nil }
        if let lastRight { lastRight.left = nil }
    }

    /// Takes `node` out of the tree under `root` and returns the new root, or nil and `removed` false when `node` is
    /// not in it.
    private static func remove(_ node: Node, from root: Node?, removed: inout Bool) -> Node? {
        unowned(unsafe) var parent: Node? = nil
        unowned(unsafe) var current: Node? = root
        while let here = current, here !== node {
            parent = here
            current = node.precedes(here) ? here.left : here.right
        }
        guard current != nil else { return root }
        removed = true
        let replacement = merge(node.left, node.right)
        guard let parent else { return replacement }
        if parent.left === node { parent.left = replacement } else { parent.right = replacement }
        return root
    }

    /// Joins two treaps, every node of `left` preceding every node of `right`, into one.
    private static func merge(_ left: Node?, _ right: Node?) -> Node? {
        guard let left else { return right }
        guard let right else { return left }
        let root = left.priority > right.priority ? left : right
        // Walk down the right spine of the left part and the left spine of the right part, linking the higher
        // priority of the two fronts under the last node placed.
        unowned(unsafe) var lastPlaced: Node = root
        var placedFromLeft = root === left
        unowned(unsafe) var leftFront: Node? = placedFromLeft ? left.right : left
        unowned(unsafe) var rightFront: Node? = placedFromLeft ? right : right.left
        while true {
            guard let leftNode = leftFront else {
                if placedFromLeft { lastPlaced.right = rightFront } else { lastPlaced.left = rightFront }
                return root
            }
            guard let rightNode = rightFront else {
                if placedFromLeft { lastPlaced.right = leftFront } else { lastPlaced.left = leftFront }
                return root
            }
            if leftNode.priority > rightNode.priority {
                if placedFromLeft { lastPlaced.right = leftNode } else { lastPlaced.left = leftNode }
                lastPlaced = leftNode
                placedFromLeft = true
                leftFront = leftNode.right
            } else {
                if placedFromLeft { lastPlaced.right = rightNode } else { lastPlaced.left = rightNode }
                lastPlaced = rightNode
                placedFromLeft = false
                rightFront = rightNode.left
            }
        }
    }
}
