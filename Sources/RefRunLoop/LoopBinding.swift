// The loop a timer or an observer belongs to (each belongs to at most one at a time, rules loop.timer-one-loop and
// loop.observer-one-loop), held unretained.

/// Which loop's modes hold a timer or an observer, unretained: binding, unbinding and comparing cost no reference
/// counting (a strong reference cost an atomic retain or release of the loop on every add, every remove and every
/// comparison). Protected by the item's lock.
///
/// Safe because a loop outlives every binding to it: LoopRegistry holds each thread's loop until that thread's
/// teardown (``RefRunLoop/tearDown()``) has taken every timer and observer out of its modes and unbound each under
/// the item's lock, and never lets the main loop go; an item is bound only while some mode of the loop holds it. A
/// thread that wants the loop itself (``loop``) takes its strong reference while it holds the item's lock, so the
/// teardown cannot unbind the item and the registry let the loop go in between.
struct LoopBinding {
    private var reference: Unmanaged<RefRunLoop>?

    init() {}

    /// Whether the item is in no loop.
    @inline(__always)
    var isUnbound: Bool { reference == nil }

    /// Whether the item is in `loop`'s modes.
    @inline(__always)
    func isBound(to loop: RefRunLoop) -> Bool {
        reference?.toOpaque() == Unmanaged.passUnretained(loop).toOpaque()
    }

    /// Whether the item may join `loop`: it is in no loop, or in that one.
    @inline(__always)
    func admits(_ loop: RefRunLoop) -> Bool { reference == nil || isBound(to: loop) }

    /// The loop, as a strong reference, nil when there is none. Caller holds the item's lock (see above).
    var loop: RefRunLoop? { reference?.takeUnretainedValue() }

    @inline(__always)
    mutating func bind(_ loop: RefRunLoop) { reference = Unmanaged.passUnretained(loop) }

    @inline(__always)
    mutating func unbind() { reference = nil }
}
