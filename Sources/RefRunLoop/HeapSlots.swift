// The array behind each heap of a TimerQueue: its entries in a buffer only the queue that stores it changes.

/// A heap's entries, in a buffer its storage object owns, each slot holding a strong reference: indexed reads,
/// appending, taking the last out and swapping, plus the buffer itself (``base``) for the sifts. Unlike a standard
/// array, no change checks whether the buffer is shared (a copy-on-write check on every append, removal and sift):
/// a copy of the value shares the buffer, so only the one ``TimerQueue`` that stores it may change it, in place (each
/// mode stores its one queue in place, LoopMode's tables); copies are only read (the queue's checks and snapshots).
/// Debug builds check, at every change, that the buffer is not shared.
///
/// Not thread-safe: what protects its queue protects it.
struct HeapSlots<Entry: AnyObject>: RandomAccessCollection {
    /// The buffer: `count` initialized slots, then `capacity - count` uninitialized ones.
    private final class Storage {
        var base: UnsafeMutablePointer<Entry>
        var capacity: Int
        var count = 0

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(capacity: capacity)
        }

        deinit {
            base.deinitialize(count: count)
            base.deallocate()
        }
    }

    private var storage = Storage(capacity: 0)

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { storage.count }
    /// The number of entries. O(1).
    var count: Int { storage.count }
    /// Whether there is no entry. O(1).
    var isEmpty: Bool { storage.count == 0 }

    /// The entry at `position`, read in place (no reference counting for a field read through it).
    subscript(position: Int) -> Entry {
        unsafeAddress {
            precondition(position >= 0 && position < storage.count, "internal bug: a heap slot out of range")
            return UnsafePointer(storage.base + position)
        }
    }

    /// Calls `body` with the first slot and the count (the entries are at `base[0..<count]`), for the sifts, which
    /// move entries between initialized slots and leave every slot below `count` initialized.
    @inline(__always)
    mutating func withSlots<R>(_ body: (UnsafeMutablePointer<Entry>, Int) -> R) -> R {
        checkUnshared()
        return body(storage.base, storage.count)
    }

    /// Appends `entry` (retained). O(1) amortised.
    @inline(__always)
    mutating func append(_ entry: Entry) {
        checkUnshared()
        if storage.count == storage.capacity { grow() }
        let storage = storage  // the grown one
        (storage.base + storage.count).initialize(to: entry)
        storage.count += 1
    }

    /// Takes the last entry out (released). O(1).
    mutating func removeLast() {
        checkUnshared()
        let storage = storage
        precondition(storage.count > 0, "internal bug: removeLast on an empty heap")
        storage.count -= 1
        (storage.base + storage.count).deinitialize(count: 1)
    }

    /// Exchanges two entries, both in range. O(1).
    mutating func swapAt(_ i: Int, _ j: Int) {
        checkUnshared()
        let storage = storage
        precondition(
            i >= 0 && i < storage.count && j >= 0 && j < storage.count, "internal bug: a heap swap out of range")
        let moved = (storage.base + i).move()
        (storage.base + i).initialize(to: (storage.base + j).move())
        (storage.base + j).initialize(to: moved)
    }

    /// Moves the entries to a buffer twice as large (16 slots at least).
    private mutating func grow() {
        let old = storage
        let larger = Storage(capacity: Swift.max(16, 2 * old.capacity))
        larger.base.moveInitialize(from: old.base, count: old.count)
        larger.count = old.count
        old.count = 0
        storage = larger
    }

    /// Debug builds: stops the process if the buffer is shared with a copy (see above). Nothing in release builds.
    @inline(__always)
    private mutating func checkUnshared() {
        #if DEBUG
        precondition(isKnownUniquelyReferenced(&storage), "internal bug: a heap's buffer changed through a copy")
        #endif
    }
}
