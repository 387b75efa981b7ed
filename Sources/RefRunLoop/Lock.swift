// A named, non-recursive mutex. Every mutable property in this library says which lock protects it (or that it is
// confined to the loop's thread). The properties a wake-up or a pass touches are marked `@exclusivity(unchecked)`:
// their lock or confinement already makes every access exclusive, and Swift's dynamic exclusivity check (a
// thread-local access-set insertion per access) cost about 3 % of a same-CPU wake-up round trip.

#if DEBUG && canImport(Glibc)
import Glibc
#else
import Synchronization
#endif

/// A mutex with a name for crash messages and for the comments that say what it protects. Non-recursive: the loop
/// never calls out while holding one, so no callout can re-enter it. A non-copyable struct stored in its owner (a
/// loop, a source, a timer, an observer), so a lock is never duplicated and costs its owner no object of its own.
///
/// Two implementations behind one `withLock`, so every caller takes and releases it the same way in both:
/// - release builds: the standard library's `Mutex`, a futex word stored inline; creating an item allocates no
///   mutex and an uncontended acquisition is one compare-exchange. This took a third off adding and removing a
///   source (callgrind, BM_Scale at N = 10,000);
/// - debug builds, which the tests, the spec runs, the mutation and coverage scripts and the ThreadSanitizer stress
///   runs use: a pthread mutex. ThreadSanitizer sees pthread mutexes but not `Mutex` (Swift 6.3.1 on Linux: a counter
///   guarded by a `Mutex` is reported as a race), so the sanitizer checks the lock protocol on this implementation.
struct Lock: ~Copyable, @unchecked Sendable {
    #if DEBUG && canImport(Glibc)
    let name: StaticString
    // At a stable address, as a pthread mutex must be; only pthread functions touch it.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

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
        let locked = pthread_mutex_lock(mutex)
        if locked != 0 { fatalError("internal bug: pthread_mutex_lock(\(name)) returned \(locked)") }
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            if unlocked != 0 { fatalError("internal bug: pthread_mutex_unlock(\(name)) returned \(unlocked)") }
        }
        return try body()
    }
    #else
    private let mutex = Mutex<Void>(())

    /// The name is for the reader and for the debug build's crash messages: not stored here, where the lock is its
    /// 4-byte futex word (the 17 bytes of a StaticString, padded, took every source, timer and observer past 120
    /// bytes, the largest allocation glibc keeps in its fast bins).
    init(_ name: StaticString) {}

    @inline(__always)
    borrowing func withLock<T>(_ body: () throws -> T) rethrows -> T {
        try mutex.withLock { _ in try body() }
    }
    #endif
}
