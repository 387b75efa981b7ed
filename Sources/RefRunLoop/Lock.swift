// A named, non-recursive mutex. Every mutable property in this library says which lock protects it (or that it is
// confined to the loop's thread); in debug builds the lock knows its owner, so a function documented "caller holds
// `lock`" checks it (`assertHeld()`).

#if DEBUG && canImport(Glibc)
import Glibc
import Synchronization
#else
import Synchronization
#endif

/// A mutex with a name for crash messages and for the comments that say what it protects. Non-recursive: the loop
/// never calls out while holding one, so no callout can re-enter it. A non-copyable struct stored in its owner (a
/// loop, a source, a timer, an observer), so a lock is never duplicated and costs its owner no object of its own.
///
/// Two implementations behind one `withLock`, so every caller takes and releases it the same way in both:
/// - release builds: a ``FutexLock``, a futex word stored inline; creating an item allocates no mutex, an
///   uncontended acquisition is one compare-exchange and a release one exchange, with no thread id read (the
///   standard library's `Mutex` reads one from thread-local storage on both: journal/2026-12-07-futex-lock.md).
///   `assertHeld()` and `assertNotHeld()` compile to nothing;
/// - debug builds, which the tests, the spec runs, the mutation and coverage scripts and the ThreadSanitizer stress
///   runs use: a pthread mutex that records its owner thread, so that `assertHeld()` stops the process when the
///   calling thread does not hold the lock (a "...Locked" function called without `withLock`), and a second
///   acquisition by the owner (which would deadlock) stops it with a message too. ThreadSanitizer sees pthread
///   mutexes, so the sanitizer checks the lock protocol on this implementation (and the futex lock on its own, in
///   FutexLockTests).
struct Lock: ~Copyable, @unchecked Sendable {
    #if DEBUG && canImport(Glibc)
    let name: StaticString
    // At a stable address, as a pthread mutex must be; only pthread functions touch it.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The thread holding the mutex (its pthread_t), 0 when none. Written by the owner just after it acquires the
    /// mutex and just before it releases it; read by any thread (relaxed: a thread compares it with itself, and only
    /// it can have written its own id there).
    private let owner = Atomic<UInt>(0)
    /// How many times the lock was acquired, for tests of how often a path takes it (any thread adds, relaxed).
    private let acquisitionCount = Atomic<UInt64>(0)

    init(_ name: StaticString) {
        self.name = name
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed for \(name)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    borrowing func withLock<T>(_ body: () throws -> T) rethrows -> T {
        let me = UInt(pthread_self())
        if owner.load(ordering: .relaxed) == me {
            fatalError("internal bug: \(name) acquired again by the thread holding it (it is not recursive)")
        }
        let locked = pthread_mutex_lock(mutex)
        if locked != 0 { fatalError("internal bug: pthread_mutex_lock(\(name)) returned \(locked)") }
        owner.store(me, ordering: .relaxed)
        acquisitionCount.wrappingAdd(1, ordering: .relaxed)
        defer {
            owner.store(0, ordering: .relaxed)
            let unlocked = pthread_mutex_unlock(mutex)
            if unlocked != 0 { fatalError("internal bug: pthread_mutex_unlock(\(name)) returned \(unlocked)") }
        }
        return try body()
    }

    /// How many times the lock has been acquired so far. Debug builds only (tests of how often a path takes a lock).
    var acquisitions: UInt64 { acquisitionCount.load(ordering: .relaxed) }

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

    /// The name is for the reader and for the debug build's crash messages: not stored here, where the lock is its
    /// 4-byte futex word (the 17 bytes of a StaticString, padded, took every source, timer and observer past 120
    /// bytes, the largest allocation glibc keeps in its fast bins).
    init(_ name: StaticString) {}

    @inline(__always)
    borrowing func withLock<T>(_ body: () throws -> T) rethrows -> T {
        mutex.lock()
        defer { mutex.unlock() }
        return try body()
    }

    /// Checked in debug builds only (see above). Transparent, and without the debug build's parameters, so that the
    /// call is gone before the optimizer weighs its callers for inlining: an empty `@inline(__always)` function with
    /// default arguments still changed those decisions (journal/2026-11-27-reference-loop-history.md).
    @_transparent
    borrowing func assertHeld() {}

    /// Checked in debug builds only (see above).
    @_transparent
    borrowing func assertNotHeld() {}
    #endif
}
