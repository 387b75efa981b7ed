// The loop a timer or an observer belongs to (each belongs to at most one at a time, rules loop.timer-one-loop and
// loop.observer-one-loop), held unretained.

import Synchronization

/// Which loop's modes hold a timer, unretained: binding, unbinding and comparing cost no reference counting (a strong
/// reference cost an atomic retain or release of the loop on every add, every remove and every comparison). Protected
/// by the timer's lock. (An observer's binding is a ``SharedLoopBinding``, below.)
///
/// Safe because a loop outlives every binding to it: LoopRegistry holds each thread's loop until that thread's
/// teardown (``RefRunLoop/tearDown()``) has taken every timer out of its modes and unbound each under the timer's
/// lock, and never lets the main loop go; a timer is bound only while some mode of the loop holds it. A thread that
/// wants the loop itself (``loop``) takes its strong reference while it holds the timer's lock, so the teardown cannot
/// unbind the timer and the registry let the loop go in between.
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

/// Which loop's modes hold an observer, unretained, readable by any thread without the observer taking a lock of its
/// own: adding and removing an observer take the loop's lock only. Written only with the lock of the loop it names held
/// (binding from no loop, unbinding to no loop), so a thread holding a loop's lock that finds the observer bound to
/// that loop knows it stays bound until the lock is released, and may then read and change what that lock protects (the
/// observer's ``RefRunLoopObserver/places``). Binding is a compare-exchange from no loop, so two loops binding at once
/// cannot both win.
///
/// Lifetime: a thread that holds no lock of the loop and wants the loop itself (an invalidation from any thread) reads
/// the binding and retains the loop under ``LoopRegistry``'s retirement lock (``retainedLoop()``). A loop binds an
/// observer only while it is open, its teardown unbinds every observer it holds (under its lock) before the thread's
/// registry reference is let go, and between the two the exiting thread acquires and releases the retirement lock
/// (``LoopRegistry``'s thread-exit destructor). So a reader that found the loop in the binding read it before that
/// unbinding, hence before the teardown acquired the retirement lock, and retains the loop before the registry lets it
/// go; a reader after that sees the unbinding (or a later binding, to a loop the same argument covers). The main loop
/// is never let go.
///
/// Ordering: every access is sequentially consistent. ``RefRunLoopObserver/invalidate()`` sets the observer's mark and
/// then reads the binding; an add binds and then reads the mark (``RefRunLoop/joinLocked(_:_:)`` for an observer). One
/// of the two sees the other's write: either the add sees the mark and does not join, or the invalidation sees the
/// binding and removes the observer from that loop once the add has released the loop's lock. (An item's own lock
/// serialised the two before; an unbinding followed by another loop's binding also hands that loop, through the
/// binding, what the first one wrote under its lock.)
///
/// The word also holds the mark `creatorHolds` (bit 0; a loop is 16-byte aligned): set while the C caller that made the
/// observer holds the reference its create function returned. The observer store of a mode holds its observers
/// unretained, and one counted reference stands for the observer's places and that hold, as a source's does
/// (SourceBinding.swift): taken when the word goes from neither to either, let go when it goes back (``isHeld(_:)``).
struct SharedLoopBinding: ~Copyable, @unchecked Sendable {
    /// Set while the C caller that made the observer holds the reference its create function returned.
    static let creatorHolds: UInt = 1

    /// The loop's address (0 for none) and `creatorHolds`.
    private let word: Atomic<UInt>

    /// An unbound binding; `creatorHolds` for an observer made through the C ABI.
    init(creatorHolds: Bool) {
        word = Atomic(creatorHolds ? Self.creatorHolds : 0)
    }

    /// The bound loop's address in the word, 0 for none.
    @inline(__always)
    private var address: UInt { word.load(ordering: .sequentiallyConsistent) & ~Self.creatorHolds }

    /// Whether `word` needs the one reference for the observer's places and its creator's hold.
    @inline(__always)
    static func isHeld(_ word: UInt) -> Bool { word != 0 }

    /// Whether the observer is in no loop. Any thread (an answer that may be stale at once, unless the caller holds the
    /// lock of a loop and asks about that loop, as ``isBound(to:)``).
    @inline(__always)
    var isUnbound: Bool { address == 0 }

    /// Whether the observer is in `loop`'s modes. Stable while the caller holds `loop`'s lock.
    @inline(__always)
    func isBound(to loop: RefRunLoop) -> Bool { address == wordAddress(of: loop) }

    /// Whether the observer may join `loop`: in no loop, or in that one. Any thread (a hint: joining checks again).
    @inline(__always)
    func admits(_ loop: RefRunLoop) -> Bool {
        let current = address
        return current == 0 || current == wordAddress(of: loop)
    }

    /// Binds the observer to `loop` if it is in no loop; returns the word before and after, nil when it is in another
    /// loop. Caller holds `loop`'s lock.
    @inline(__always)
    func bindIfUnbound(_ loop: RefRunLoop) -> (before: UInt, after: UInt)? {
        loop.lock.assertHeld()
        var seen = word.load(ordering: .relaxed)
        // Meanwhile the creator's release may clear its mark (once: one retry), or another loop may bind (this returns).
        while seen & ~Self.creatorHolds == 0 {
            let desired = seen | wordAddress(of: loop)
            let (exchanged, original) = word.compareExchange(
                expected: seen, desired: desired, ordering: .sequentiallyConsistent)
            if exchanged { return (seen, desired) }
            seen = original
        }
        return nil
    }

    /// Unbinds the observer from `loop`, which it is bound to; returns the word before and after. Caller holds
    /// `loop`'s lock.
    @inline(__always)
    func unbind(from loop: RefRunLoop) -> (before: UInt, after: UInt) {
        loop.lock.assertHeld()
        assert(isBound(to: loop), "internal bug: an observer unbound from a loop it is not bound to")
        let before = word.bitwiseAnd(Self.creatorHolds, ordering: .sequentiallyConsistent).oldValue
        return (before, before & Self.creatorHolds)
    }

    /// Clears `creatorHolds` (the C ABI's release); returns the word before and after. The creator's thread, once.
    func releaseCreator() -> (before: UInt, after: UInt) {
        clearCreatorMark(Self.creatorHolds, in: word, of: "an observer")
    }

    /// Whether the C caller that made the observer still holds the reference its create function returned. Stable for
    /// that caller (only it clears the mark).
    @inline(__always)
    var creatorStillHolds: Bool { word.load(ordering: .relaxed) & Self.creatorHolds != 0 }

    /// The bound loop, retained, nil when there is none. Takes ``LoopRegistry``'s retirement lock (see above); the
    /// caller holds no lock.
    func retainedLoop() -> RefRunLoop? {
        LoopRegistry.retirement.withLock {
            guard let pointer = UnsafeRawPointer(bitPattern: address) else { return nil }
            return Unmanaged<RefRunLoop>.fromOpaque(pointer).takeUnretainedValue()
        }
    }

    /// Checks that the caller holds the lock of the bound loop, and that there is one: the condition for reading or
    /// changing what that lock protects in the observer. Debug builds only; nothing in release builds.
    @inline(__always)
    func assertBoundLoopHeld() {
        #if DEBUG
        guard let pointer = UnsafeRawPointer(bitPattern: address) else {
            fatalError("internal bug: an observer's places were reached while it is in no loop")
        }
        Unmanaged<RefRunLoop>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.lock.assertHeld() }
        #endif
    }
}
