// How a source is bound to the loops whose modes hold it, with no lock of its own: one atomic word holds its marks
// (valid, signalled), a mode of its home loop, and a count of the signals and invalidations in flight. Adding a source
// to a mode and removing it change the word with one read-modify-write each, under the loop's lock alone; a signal and
// an invalidation find the loop to tell without taking any loop's lock; a pass takes the signal of a source in its one
// mode with one compare-exchange and no lock.

import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A source's word (``RefRunLoopSource/binding``).
///
/// **Home and other loops.** A source is almost always in the modes of one loop: its home. The word names one of the
/// home's modes that holds the source, with `severalHomeModes` set when more than one does; the source's places in
/// the home's modes (``RefRunLoopSource/homePlaces``) are protected by the home's lock, as a timer's or an observer's
/// are. A loop becomes the home by a compare-exchange from no mode, made with its lock held, and stops being it (no
/// mode again) with its lock held when the source leaves its last mode there; so a thread holding a loop's lock that
/// finds the source at home there knows it stays so until the lock is released. A source added to a loop while another
/// is its home is held there through ``RefRunLoopSource/otherMemberships``, protected by the process-wide
/// ``RefRunLoopSource/otherLoopsLock`` and flagged by `inOtherLoops` (the rare case: CF allows it, few programs do it).
///
/// **One word.** Every change is a read-modify-write of the one word, so each sees every other in one order: an add
/// that binds the home reads the signal and the validity it binds against, a signal reads the home it marks against,
/// and a pass that finds its mode in the word takes the signal only if the word still names that mode alone.
///
/// **Lifetime of the home loop.** A signal or an invalidation holds no lock when it reads the home, so nothing it holds
/// keeps that loop from being let go meanwhile. It counts itself in flight in the read-modify-write that sets its
/// mark, and out once it is done with the loop; an unbinding, whose read-modify-write comes after that mark in the
/// word's order, sees the count and waits until it is zero (``unbindHome(from:)``). The unbinding is made with the
/// loop's lock held by a thread that holds the loop, and a loop is let go only after its teardown, which unbinds every
/// source still at home there the same way; so the loop outlives every use in flight. Nothing in flight waits for any
/// lock but a loop's signalled list, a leaf lock that no waiter holds, so the wait ends.
///
/// **The one reference for the places.** A mode's source list holds its sources unretained. One counted reference
/// stands for all of a source's places and for its creator's hold, taken when the word goes from neither to either
/// and let go when it goes back (``isHeld(_:)``; ``HeldByPlaces``, CreatorHold.swift). A source made through
/// the C ABI starts with `creatorHolds` set, and the reference its create function returned is that one reference:
/// adding it to modes and removing it count no reference, and its release (``releaseCreator()``) lets the reference
/// go only when no mode holds the source; otherwise the modes keep it, as CF's modes keep theirs. A source made in
/// Swift never has the mark (Swift lets its references go without telling the source), so its first place retains
/// it and its last releases it.
///
/// Layout: bits 0-3 the marks, bits 4-47 the mode's address (an object is 16-byte aligned, and a user-space address on
/// the 64-bit Linux targets fits 48 bits: ``LoopMode`` checks its own when it is made), bit 48 `creatorHolds`, bits
/// 49-63 the count in flight (each is a thread inside a signal or an invalidation of this source).
struct SourceBinding: ~Copyable, @unchecked Sendable {
    /// Set by an invalidation; never cleared.
    static let invalid: UInt = 1
    /// Set by a signal, cleared when performed or invalidated.
    static let signalled: UInt = 2
    /// Set while ``RefRunLoopSource/otherMemberships`` is not empty. Changed with ``RefRunLoopSource/otherLoopsLock``
    /// held.
    static let inOtherLoops: UInt = 4
    /// Set while more than one mode of the home holds the source.
    static let severalHomeModes: UInt = 8
    /// The bits naming a mode of the home.
    static let modeBits: UInt = 0x0000_FFFF_FFFF_FFF0
    /// Set while the C caller that made the source holds the reference its create function returned; cleared by
    /// ``releaseCreator()``.
    static let creatorHolds: UInt = 1 << 48
    /// One signal or invalidation in flight.
    static let inFlightUnit: UInt = 1 << 49
    /// The bits of the count in flight.
    static let inFlightBits: UInt = ~(inFlightUnit - 1)

    /// The marks, the home's mode, the creator's hold and the count in flight.
    private let word: Atomic<UInt>
    /// A process-wide sequence number taken by the first signal since the last perform: CF's `_signaledTime`, which
    /// breaks ties in `order` (rule source.perform-order). It belongs to the source, not to a loop, so a signal made
    /// before the source was added to a mode still counts from when it was made. Stored before the signal's mark (two
    /// signals racing may each store theirs; either is a time of the first signal), read after it.
    private let stamp = Atomic<UInt64>(0)

    /// A binding with no home; `creatorHolds` for a source made through the C ABI (see above).
    init(creatorHolds: Bool) {
        word = Atomic(creatorHolds ? Self.creatorHolds : 0)
    }

    /// Whether `word` needs the one reference that stands for the source's places and its creator's hold: a mode of
    /// any loop holds the source, or its creator does.
    @inline(__always)
    static func isHeld(_ word: UInt) -> Bool { word & (modeBits | inOtherLoops | creatorHolds) != 0 }

    /// Whether `address` can be stored in the word's mode bits.
    static func canName(_ address: UInt) -> Bool { address & ~modeBits == 0 && address != 0 }

    /// The word now. Any thread.
    @inline(__always)
    var current: UInt { word.load(ordering: .sequentiallyConsistent) }

    /// CFRunLoopSourceIsValid. Any thread.
    @inline(__always)
    var isValid: Bool { current & Self.invalid == 0 }

    /// CFRunLoopSourceIsSignalled. Any thread.
    @inline(__always)
    var isSignalled: Bool { current & Self.signalled != 0 }

    /// The signal's sequence number. Read after the word showed the signal.
    @inline(__always)
    var signalStamp: UInt64 { stamp.load(ordering: .relaxed) }

    /// Changes the word by `change` until the compare-exchange holds; returns the word before and after. `change`
    /// returns nil to change nothing (the result is then the word seen, twice).
    @inline(__always)
    private func update(_ change: (UInt) -> UInt?) -> (before: UInt, after: UInt) {
        var seen = word.load(ordering: .relaxed)
        while true {
            guard let desired = change(seen) else { return (seen, seen) }
            let (exchanged, original) = word.compareExchange(
                expected: seen, desired: desired, ordering: .sequentiallyConsistent)
            if exchanged { return (seen, desired) }
            seen = original
        }
    }

    // MARK: Marks

    /// Marks a valid, unsignalled source signalled; returns the word it set, nil when it did nothing (invalid or
    /// signalled already). With `inFlight`, it counts itself in flight too: the caller reads the loops to tell and then
    /// calls ``leaveFlight()``. Any thread.
    @inline(__always)
    func signal(inFlight: Bool) -> UInt? {
        guard word.load(ordering: .relaxed) & (Self.invalid | Self.signalled) == 0 else { return nil }
        stamp.store(SequenceNumber.next(), ordering: .relaxed)
        let added = Self.signalled | (inFlight ? Self.inFlightUnit : 0)
        let (before, after) = update { $0 & (Self.invalid | Self.signalled) == 0 ? $0 &+ added : nil }
        return before == after ? nil : after
    }

    /// Marks the source invalid and not signalled, and counts the caller in flight; returns the word before, nil when
    /// it was invalid already (and then counts nothing). Any thread; the caller then calls ``leaveFlight()``.
    func invalidate() -> UInt? {
        let (before, after) = update {
            $0 & Self.invalid == 0 ? (($0 | Self.invalid) & ~Self.signalled) &+ Self.inFlightUnit : nil
        }
        return before == after ? nil : before
    }

    /// Ends a signal's or an invalidation's flight: it no longer uses the loop it read. Any thread.
    @inline(__always)
    func leaveFlight() {
        word.wrappingSubtract(Self.inFlightUnit, ordering: .releasing)
    }

    /// Clears the signal (a perform); returns whether the source was signalled and valid. Any thread.
    @inline(__always)
    func takeSignal() -> Bool {
        let before = word.bitwiseAnd(~Self.signalled, ordering: .sequentiallyConsistent).oldValue
        return before & (Self.signalled | Self.invalid) == Self.signalled
    }

    /// For a pass in `mode`: when the word names `mode` as the one mode of the home holding the source, clears the
    /// signal and returns whether the source was signalled and valid then; nil when it names anything else (the pass
    /// then asks under its loop's lock). Any thread (the pass's, without its loop's lock).
    @inline(__always)
    func takeSignal(ifOnlyIn mode: LoopMode) -> Bool? {
        let named = wordAddress(of: mode)
        var result: Bool? = nil
        _ = update { seen in
            guard seen & (Self.modeBits | Self.severalHomeModes | Self.inOtherLoops) == named else {
                result = nil
                return nil
            }
            result = seen & (Self.signalled | Self.invalid) == Self.signalled
            return result! ? seen & ~Self.signalled : nil
        }
        return result
    }

    /// Sets `inOtherLoops`; returns the word before and after. Caller holds ``RefRunLoopSource/otherLoopsLock``.
    func markInOtherLoops() -> (before: UInt, after: UInt) {
        let before = word.bitwiseOr(Self.inOtherLoops, ordering: .sequentiallyConsistent).oldValue
        return (before, before | Self.inOtherLoops)
    }

    /// Clears `inOtherLoops`; returns the word before and after. Caller holds ``RefRunLoopSource/otherLoopsLock``.
    func clearInOtherLoops() -> (before: UInt, after: UInt) {
        let before = word.bitwiseAnd(~Self.inOtherLoops, ordering: .sequentiallyConsistent).oldValue
        return (before, before & ~Self.inOtherLoops)
    }

    /// Clears `creatorHolds` (the C ABI's release); returns the word before and after. The creator's thread, once.
    func releaseCreator() -> (before: UInt, after: UInt) {
        clearCreatorMark(Self.creatorHolds, in: word, of: "a source")
    }

    /// Whether the C caller that made the source still holds the reference its create function returned. Stable for
    /// that caller (only it clears the mark).
    @inline(__always)
    var creatorStillHolds: Bool { word.load(ordering: .relaxed) & Self.creatorHolds != 0 }

    // MARK: The home loop

    /// The home's mode named in `word`, unretained; nil when there is no home.
    @inline(__always)
    private static func mode(in word: UInt) -> Unmanaged<LoopMode>? {
        guard let pointer = UnsafeRawPointer(bitPattern: word & modeBits) else { return nil }
        return Unmanaged<LoopMode>.fromOpaque(pointer)
    }

    /// The home loop, unretained; nil when there is none. Safe to use while the caller holds that loop's lock and
    /// found it home, or is in flight and read it (`word`, from ``signal(inFlight:)`` or a load after
    /// ``invalidate()``). Any thread.
    @inline(__always)
    static func homeLoop(in word: UInt) -> Unmanaged<RefRunLoop>? {
        mode(in: word)?._withUnsafeGuaranteedRef { $0.loopReference }
    }

    /// Whether `loop` is the home. Stable while the caller holds `loop`'s lock. Compares the word's mode with the
    /// loop's own modes by address and never reads the mode: a mode of another loop, which the word may name, can be
    /// let go with that loop meanwhile (it is only once the word no longer names it; and no live mode of this loop,
    /// whose modes are made under its lock, can share the address the word held while that mode was live).
    @inline(__always)
    func isHome(_ loop: RefRunLoop) -> Bool {
        let named = word.load(ordering: .relaxed) & Self.modeBits
        return named != 0 && loop.hasModeLocked(at: named)
    }

    /// Whether no loop is the home. Any thread (an answer that may be stale at once).
    @inline(__always)
    var hasNoHome: Bool { word.load(ordering: .relaxed) & Self.modeBits == 0 }

    /// Checks that the caller holds the home loop's lock, and that there is a home: the condition for reading or
    /// changing the source's places there. Debug builds only; nothing in release builds.
    @inline(__always)
    func assertHomeHeld() {
        #if DEBUG
        guard let loop = Self.homeLoop(in: current) else {
            fatalError("internal bug: a source's home places were reached with no home")
        }
        loop._withUnsafeGuaranteedRef { $0.lock.assertHeld() }
        #endif
    }

    /// Makes `mode`'s loop the home, naming `mode`, if there is no home; returns the word before and the word it set,
    /// nil when another loop is the home. Caller holds the lock of `mode`'s loop.
    @inline(__always)
    func bindHome(_ mode: LoopMode) -> (before: UInt, after: UInt)? {
        let named = wordAddress(of: mode)
        let (before, after) = update { $0 & Self.modeBits == 0 ? $0 | named : nil }
        return before == after ? nil : (before, after)
    }

    /// Names `mode` as the home's mode, with `several` when other modes of the home hold the source too. Caller holds
    /// the home's lock, and `mode` is one of its modes holding the source.
    @inline(__always)
    func rename(_ mode: LoopMode, several: Bool) {
        let named = wordAddress(of: mode) | (several ? Self.severalHomeModes : 0)
        _ = update { ($0 & ~(Self.modeBits | Self.severalHomeModes)) | named }
    }

    /// Stops `loop` being the home, then waits until nothing that may have read it is in flight (see above); returns
    /// the word before and after. Caller holds `loop`'s lock and no signalled list's lock.
    @inline(__always)
    func unbindHome(from loop: RefRunLoop) -> (before: UInt, after: UInt) {
        assert(isHome(loop), "internal bug: a source unbound from a loop that is not its home")
        let change = update { $0 & ~(Self.modeBits | Self.severalHomeModes) }
        if change.before & Self.inFlightBits != 0 { awaitNoneInFlight() }
        return change
    }

    /// Yields until no signal or invalidation is in flight: each is a few dozen instructions and a leaf lock. Debug
    /// builds stop the process after 10 s of waiting, which only a broken protocol would take.
    @inline(never)
    private func awaitNoneInFlight() {
        #if DEBUG
        let limit = RefClock.nanoseconds + 10_000_000_000
        #endif
        while word.load(ordering: .acquiring) & Self.inFlightBits != 0 {
            sched_yield()
            #if DEBUG
            if RefClock.nanoseconds > limit { fatalError("internal bug: a source's signal stayed in flight for 10 s") }
            #endif
        }
    }
}
