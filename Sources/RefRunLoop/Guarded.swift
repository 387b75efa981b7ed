// A named, non-recursive mutex that holds the state it protects: the state is reachable only through
// `withLocked { state in ... }`, so nothing can read or write it without the lock, and every access inside is to a
// local `inout` value, which Swift checks for exclusivity at compile time. A class's stored `var` is checked at run
// time on every access (a thread-local access-set insertion and removal) in every build that keeps the checks on, as
// this library's builds do; state gathered here costs no such check.

#if DEBUG && canImport(Glibc)
import Glibc
import Synchronization
#else
import Synchronization
#endif

/// A lock and the state it protects, as one non-copyable value stored in its owner (a source, a timer, an observer).
/// The same two implementations as ``Lock`` (see there): a ``FutexLock`` beside the state in release builds, a
/// pthread mutex that records its owner thread in debug builds, so that `assertHeld()` and a second
/// acquisition by the owner stop the process with a message, and ThreadSanitizer sees the lock.
///
/// `State` is `Sendable` because the lock hands it to whichever thread holds it; a state holding unretained references
/// says why they stay valid.
struct Guarded<State: Sendable>: ~Copyable, @unchecked Sendable {
    #if DEBUG && canImport(Glibc)
    let name: StaticString
    // At stable addresses, as a pthread mutex must be; only pthread functions touch the mutex, and only the lock's
    // holder the state.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let state: UnsafeMutablePointer<State>
    /// The thread holding the mutex (its pthread_t), 0 when none (as ``Lock``'s).
    private let owner = Atomic<UInt>(0)

    init(_ name: StaticString, _ initial: State) {
        self.name = name
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed for \(name)")
        state = .allocate(capacity: 1)
        state.initialize(to: initial)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Runs `body` with the state, the lock held.
    @inline(__always)
    borrowing func withLocked<T>(_ body: (inout State) throws -> T) rethrows -> T {
        let me = UInt(pthread_self())
        if owner.load(ordering: .relaxed) == me {
            fatalError("internal bug: \(name) acquired again by the thread holding it (it is not recursive)")
        }
        let locked = pthread_mutex_lock(mutex)
        if locked != 0 { fatalError("internal bug: pthread_mutex_lock(\(name)) returned \(locked)") }
        owner.store(me, ordering: .relaxed)
        defer {
            owner.store(0, ordering: .relaxed)
            let unlocked = pthread_mutex_unlock(mutex)
            if unlocked != 0 { fatalError("internal bug: pthread_mutex_unlock(\(name)) returned \(unlocked)") }
        }
        return try body(&state.pointee)
    }

    /// Stops the process unless the calling thread holds the lock. Debug builds only; nothing in release builds.
    @inline(__always)
    borrowing func assertHeld(_ file: StaticString = #fileID, line: UInt = #line) {
        if owner.load(ordering: .relaxed) != UInt(pthread_self()) {
            fatalError("internal bug: assertHeld: \(name) is not held by this thread", file: file, line: line)
        }
    }

    /// Stops the process if the calling thread holds the lock. Debug builds only; nothing in release builds.
    @inline(__always)
    borrowing func assertNotHeld(_ file: StaticString = #fileID, line: UInt = #line) {
        if owner.load(ordering: .relaxed) == UInt(pthread_self()) {
            fatalError("internal bug: assertNotHeld: \(name) is held by this thread", file: file, line: line)
        }
    }
    #else
    private let mutex = FutexLock()
    /// The state, at a stable address inline in the owner: Synchronization's raw-layout cell `_Cell` (public since
    /// Swift 6.0, underscored), in which its `Mutex` keeps its value too; a raw-layout type of this library's own
    /// would need an experimental feature. Reached through its pointer, so an access costs no exclusivity check; only
    /// the lock's holder touches it.
    private let state: _Cell<State>

    /// The name is for the reader and for the debug build's crash messages (not stored here, as in ``Lock``).
    init(_ name: StaticString, _ initial: State) {
        state = _Cell(initial)
    }

    /// Runs `body` with the state, the lock held.
    @inline(__always)
    borrowing func withLocked<T>(_ body: (inout State) throws -> T) rethrows -> T {
        mutex.lock()
        defer { mutex.unlock() }
        return try body(&state._address.pointee)
    }

    /// Checked in debug builds only (see ``Lock/assertHeld()``).
    @_transparent
    borrowing func assertHeld() {}

    /// Checked in debug builds only.
    @_transparent
    borrowing func assertNotHeld() {}
    #endif
}
