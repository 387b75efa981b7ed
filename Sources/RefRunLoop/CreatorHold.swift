// The one counted reference that stands for an item's places in modes and for its C creator's hold: sources
// (SourceBinding.swift) and observers (SharedLoopBinding in LoopBinding.swift). A mode's list holds its items
// unretained; the item's binding word says whether some mode holds it or its creator does, and the item holds one
// reference to itself exactly while the word says either.

import Synchronization

/// An item whose binding word carries its creator's mark and says whether the one reference is needed.
protocol HeldByPlaces: AnyObject {
    /// Whether a binding word needs the one reference: a mode of some loop holds the item, or its creator does.
    static func isHeld(_ word: UInt) -> Bool
    /// Clears the creator's mark in the binding word; returns the word before and after. The creator's thread, once.
    func clearCreatorMark() -> (before: UInt, after: UInt)
    /// Whether the C caller that made the item still holds the reference its create function returned. Stable for that
    /// caller (only it clears the mark).
    var creatorStillHolds: Bool { get }
}

extension HeldByPlaces {
    /// Takes or lets go of the one reference after the binding word changed from `change.before` to `change.after`.
    /// Letting go never ends the item here: the caller holds a reference of its own.
    @inline(__always)
    func adjustHold(_ change: (before: UInt, after: UInt)) {
        let (was, now) = (Self.isHeld(change.before), Self.isHeld(change.after))
        guard was != now else { return }
        if now { Unmanaged.passUnretained(self).retain() } else { Unmanaged.passUnretained(self).release() }
    }

    /// The C ABI's release: gives back the reference the item's create function returned. While a mode holds the item,
    /// the modes keep that reference as their one reference; otherwise it goes, and with it the item unless something
    /// else holds it. The creator's thread, once.
    static func releaseCreatorsReference(_ item: Unmanaged<Self>) {
        let change = item._withUnsafeGuaranteedRef { $0.clearCreatorMark() }
        if !isHeld(change.after) { item.release() }
    }

    /// Calls `body`, with `item` held for the call when its creator has given its reference back: the item may then
    /// live by its places' reference alone, which the call may let go (the C ABI's removal of its last place). While
    /// the creator holds it, nothing is counted.
    @inline(__always)
    static func holdingIfGivenBack<R>(_ item: Unmanaged<Self>, _ body: () -> R) -> R {
        let held = !item._withUnsafeGuaranteedRef { $0.creatorStillHolds }
        if held { _ = item.retain() }
        defer { if held { item.release() } }
        return body()
    }
}

/// Clears `mark` in `word` (the creator's release); returns the word before and after. Stops the process when the mark
/// was clear already: the C caller gave `what` back more often than it was created.
@inline(__always)
func clearCreatorMark(_ mark: UInt, in word: borrowing Atomic<UInt>, of what: StaticString) -> (
    before: UInt, after: UInt
) {
    let before = word.bitwiseAnd(~mark, ordering: .sequentiallyConsistent).oldValue
    precondition(before & mark != 0, "\(what) was released more often than it was created")
    return (before, before & ~mark)
}
