// A list whose first element is stored inline: the per-item lists of the modes that hold an item (a source's
// places, a timer's queue entries, an observer's store handles) almost always have one element, and an array
// allocated one buffer for it on every add and freed it on every remove. The rest is an optional array, nil while
// empty: an empty array is still a reference (to the shared empty storage), and every item's deinit released it, which
// cost more than releasing nil.

/// An ordered list that stores its first element inline and the rest in an array. Order is kept by every change.
/// Not thread-safe: its owner's lock protects it.
struct InlineList<Element>: RandomAccessCollection, ExpressibleByArrayLiteral {
    private var head: Element?
    /// The elements after the first: nil or non-empty, never an empty array.
    private var tail: [Element]?

    init() {}

    init(arrayLiteral elements: Element...) {
        for element in elements { append(element) }
    }

    @inline(__always)
    var startIndex: Int { 0 }
    @inline(__always)
    var endIndex: Int { head == nil ? 0 : 1 + (tail?.count ?? 0) }

    @inline(__always)
    subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < endIndex, "InlineList index \(position) out of range")
            return position == 0 ? head! : tail.unsafelyUnwrapped[position - 1]
        }
        set {
            precondition(position >= 0 && position < endIndex, "InlineList index \(position) out of range")
            if position == 0 { head = newValue } else { tail![position - 1] = newValue }
        }
    }

    // The searches a pass, an add or a remove makes, written out: Collection's defaults go through an iterator and
    // copied each element (retaining the references it holds), which cost more than the allocation the inline head
    // saves.

    @inline(__always)
    func firstIndex(where predicate: (Element) throws -> Bool) rethrows -> Int? {
        guard head != nil else { return nil }
        if try predicate(head!) { return 0 }
        guard let tail else { return nil }
        for index in tail.indices where try predicate(tail[index]) { return index + 1 }
        return nil
    }

    @inline(__always)
    func contains(where predicate: (Element) throws -> Bool) rethrows -> Bool {
        try firstIndex(where: predicate) != nil
    }

    /// Appends `element`: inline into the head when the list is empty (the usual case), through an out-of-line call
    /// otherwise, so that the array's code does not weigh on every caller's inlining and frame (a source's add went
    /// through a closure call for its size).
    @inline(__always)
    mutating func append(_ element: Element) {
        if head == nil {
            head = element
        } else {
            appendToTail(element)
        }
    }

    /// ``append(_:)`` past the head.
    @inline(never)
    private mutating func appendToTail(_ element: Element) {
        if tail == nil {
            tail = [element]
        } else {
            tail!.append(element)
        }
    }

    /// Removes and returns the element at `position`, keeping the others' order. O(count).
    @discardableResult
    @inline(__always)
    mutating func remove(at position: Int) -> Element {
        precondition(position >= 0 && position < endIndex, "InlineList index \(position) out of range")
        if position > 0 {
            let removed = tail!.remove(at: position - 1)
            if tail!.isEmpty { tail = nil }
            return removed
        }
        // Moved out of the head, not copied (a copy retained what the element holds, and the overwrite released it).
        let removed = head.take().unsafelyUnwrapped
        if var rest = tail.take() {
            head = rest.removeFirst()
            if !rest.isEmpty { tail = rest }
        }
        return removed
    }

    /// Removes and returns the only element when the list holds exactly one and it satisfies `predicate`; otherwise
    /// returns nil and changes nothing. O(1): the usual removal from a one-element list, without the general path.
    @inline(__always)
    mutating func removeSole(where predicate: (Element) -> Bool) -> Element? {
        guard tail == nil, let element = head, predicate(element) else { return nil }
        head = nil
        return element
    }

    /// Removes every element that satisfies `shouldRemove`, keeping the others' order. O(count).
    @inline(__always)
    mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        var kept = InlineList()
        for element in self where !shouldRemove(element) { kept.append(element) }
        self = kept
    }
}
