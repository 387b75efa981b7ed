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

    // MARK: Treap mechanics (recursion depth is O(log n) expected)

    private mutating func nextPriority() -> UInt64 {
        // xorshift64*: deterministic, so runs are reproducible.
        randomState ^= randomState >> 12
        randomState ^= randomState << 25
        randomState ^= randomState >> 27
        return randomState &* 0x2545_F491_4F6C_DD1D
    }

    private static func insert(_ node: Node, into tree: Node?) -> Node {
        guard let tree else { return node }
        if node.precedes(tree) {
            tree.left = insert(node, into: tree.left)
            if tree.left!.priority > tree.priority { return rotateRight(tree) }
        } else {
            tree.right = insert(node, into: tree.right)
            if tree.right!.priority > tree.priority { return rotateLeft(tree) }
        }
        return tree
    }

    private static func remove(_ node: Node, from tree: Node?, removed: inout Bool) -> Node? {
        guard let tree else { return nil }
        if tree === node {
            removed = true
            return merge(tree.left, tree.right)
        }
        if node.precedes(tree) {
            tree.left = remove(node, from: tree.left, removed: &removed)
        } else {
            tree.right = remove(node, from: tree.right, removed: &removed)
        }
        return tree
    }

    private static func merge(_ left: Node?, _ right: Node?) -> Node? {
        guard let left else { return right }
        guard let right else { return left }
        if left.priority > right.priority {
            left.right = merge(left.right, right)
            return left
        }
        right.left = merge(left, right.left)
        return right
    }

    private static func rotateRight(_ tree: Node) -> Node {
        let pivot = tree.left!
        tree.left = pivot.right
        pivot.right = tree
        return pivot
    }

    private static func rotateLeft(_ tree: Node) -> Node {
        let pivot = tree.right!
        tree.right = pivot.left
        pivot.left = tree
        return pivot
    }
}
