// The signalled list's storage: the version-0 sources listed since a pass last took them, in the order they were
// listed (a pass then performs them in their sources' order, rule source.perform-order), kept so that the usual list
// of one source costs no array work.

/// A loop's signalled list (``RefRunLoop/signalledSources``), in order: its first entry in a slot of its own, the
/// others in an array. The usual list holds one source at a time (a wake-up's), which then costs no array work: no
/// uniqueness check and no capacity check when it is pushed and when it is taken. The array keeps its storage between
/// passes. Protected by the list's lock (the owning ``Guarded``).
struct SignalledList: Sendable {
    /// The first entry; nil only when the list is empty (then `rest` is empty too).
    private var first: RefRunLoopSource? = nil
    /// The entries after the first, in order.
    private var rest: [RefRunLoopSource] = []

    var isEmpty: Bool { first == nil }

    /// Appends a source.
    @inline(__always)
    mutating func append(_ source: RefRunLoopSource) {
        if first == nil { first = source } else { rest.append(source) }
    }

    /// Puts a source first.
    mutating func insertAtFront(_ source: RefRunLoopSource) {
        if let old = first.take() { rest.insert(old, at: 0) }
        first = source
    }

    /// Puts sources first, in their order.
    mutating func insertAtFront(contentsOf sources: [RefRunLoopSource]) {
        guard !sources.isEmpty else { return }
        var front = sources
        if let old = first.take() { front.append(old) }
        front.append(contentsOf: rest)
        first = front.removeFirst()
        rest = front
    }

    /// Whether the list has two entries or more.
    var hasTwoOrMore: Bool { !rest.isEmpty }

    /// Empties a list of at most one entry, returning that entry (nil when empty).
    @inline(__always)
    mutating func takeOnly() -> RefRunLoopSource? {
        first.take()
    }

    /// Empties the list, appending its entries in order to `buffer`.
    mutating func takeAll(into buffer: inout [RefRunLoopSource]) {
        guard let head = first.take() else { return }
        buffer.append(head)
        buffer.append(contentsOf: rest)
        rest.removeAll(keepingCapacity: true)
    }

    mutating func removeAll() {
        first = nil
        rest = []
    }
}
