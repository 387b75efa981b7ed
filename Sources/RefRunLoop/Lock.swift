// A named, non-recursive mutex. Every mutable property in this library says which lock protects it (or that it is
// confined to the loop's thread). The properties a wake-up or a pass touches are marked `@exclusivity(unchecked)`:
// their lock or confinement already makes every access exclusive, and Swift's dynamic exclusivity check (a
// thread-local access-set insertion per access) cost about 3 % of a same-CPU wake-up round trip.

#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex with a name for crash messages. Non-recursive: the loop never calls out while holding it, so no
/// callout can re-enter it.
final class Lock: @unchecked Sendable {
    // The mutex lives at a stable address (a pthread_mutex_t must not move); only pthread functions touch it.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    let name: StaticString

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
    func lock() {
        let result = pthread_mutex_lock(mutex)
        if result != 0 { fatalError("internal bug: pthread_mutex_lock(\(name)) returned \(result)") }
    }

    @inline(__always)
    func unlock() {
        let result = pthread_mutex_unlock(mutex)
        if result != 0 { fatalError("internal bug: pthread_mutex_unlock(\(name)) returned \(result)") }
    }

    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
