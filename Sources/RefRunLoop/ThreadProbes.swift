// Thread probes: what a unit test may set and read on one thread of the library in a debug build, to check contracts
// of ref that only an exact clock value or a count of system calls shows: a clock of the test's own (the wait's
// deadline and the spin's quiet time are compared with one exact nanosecond), the yields and spin hints the thread
// made in the wait set. Release builds have none of it: every hook is inside `#if DEBUG`, and `RefClock.nanoseconds`
// reads the monotonic clock directly.

#if DEBUG
import Glibc
import Synchronization

/// One thread's probe (debug builds only): installed by a test on the thread it probes, with ``install()``, and
/// removed by it with ``remove()``. Confined to that thread: only it installs, reads, writes and removes it (each
/// access checks it, ``assertOwner()``), so none of its properties needs a lock.
final class ThreadProbe: @unchecked Sendable {
    /// The number of probes installed in the process: while it is 0, a hook costs one relaxed load and nothing else.
    static let installed = Atomic<Int>(0)

    /// The thread-specific slot holding the calling thread's probe.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key, nil)
        precondition(created == 0, "pthread_key_create failed")
        return key
    }()

    /// The thread that installed this probe, the only one that may touch it.
    private let owner = pthread_self()

    /// The test's clock: while it is set, ``RefClock/nanoseconds`` on this thread reads it instead of the monotonic
    /// clock. A wait that times out advances it by its whole timeout (``noteWait(timeoutNanoseconds:reportedNothing:)``),
    /// so the wait ends exactly when its timeout says, as the kernel's wait may.
    var clock: UInt64? {
        get {
            assertOwner()
            return storedClock
        }
        set {
            assertOwner()
            storedClock = newValue
        }
    }
    private var storedClock: UInt64? = nil
    /// When set, the readings of this thread's clock, by the number of readings made before (0 for the first):
    /// takes precedence over `clock`.
    var readings: ((Int) -> UInt64)? {
        get {
            assertOwner()
            return storedReadings
        }
        set {
            assertOwner()
            storedReadings = newValue
        }
    }
    private var storedReadings: ((Int) -> UInt64)? = nil
    /// The clock readings this thread made through the test's clock (`clock` or `readings`).
    var clockReadings: Int {
        assertOwner()
        return storedClockReadings
    }
    private var storedClockReadings = 0
    /// The yields of the CPU this thread made in the wait set (sched_yield; WaitSet.swift counts them).
    var yields: Int {
        assertOwner()
        return storedYields
    }
    private var storedYields = 0
    /// The spin hints this thread made in the wait set (csystem_cpu_relax; WaitSet.swift counts them).
    var spinHints: Int {
        assertOwner()
        return storedSpinHints
    }
    private var storedSpinHints = 0

    private init() {}

    /// Installs a probe on the calling thread (which must have none) and returns it.
    static func install() -> ThreadProbe {
        precondition(pthread_getspecific(key) == nil, "a thread probe is installed on this thread already")
        let probe = ThreadProbe()
        pthread_setspecific(key, Unmanaged.passRetained(probe).toOpaque())
        installed.wrappingAdd(1, ordering: .sequentiallyConsistent)
        return probe
    }

    /// Removes this probe from its thread (the calling thread, which installed it).
    func remove() {
        assertOwner()
        pthread_setspecific(Self.key, nil)
        Self.installed.wrappingSubtract(1, ordering: .sequentiallyConsistent)
        Unmanaged.passUnretained(self).release()
    }

    /// The calling thread's probe, if one is installed on it. One relaxed load while none is installed anywhere.
    @inline(__always)
    static var current: ThreadProbe? {
        guard installed.load(ordering: .relaxed) != 0, let slot = pthread_getspecific(key) else { return nil }
        return Unmanaged<ThreadProbe>.fromOpaque(slot).takeUnretainedValue()
    }

    private func assertOwner() {
        precondition(pthread_equal(owner, pthread_self()) != 0, "a thread probe touched by another thread")
    }

    /// A clock reading on this thread: the test's, or nil when it set none.
    func readClock() -> UInt64? {
        assertOwner()
        if let readings = storedReadings {
            defer { storedClockReadings += 1 }
            return readings(storedClockReadings)
        }
        guard let clock = storedClock else { return nil }
        storedClockReadings += 1
        return clock
    }

    /// A wait of this thread returned (`Epoll.waitForOne`): one that reported nothing lasted its whole timeout, by
    /// the test's clock.
    func noteWait(timeoutNanoseconds timeout: UInt64?, reportedNothing: Bool) {
        assertOwner()
        guard reportedNothing, let timeout, let clock = storedClock else { return }
        storedClock = clock &+ timeout
    }

    func noteYield() {
        assertOwner()
        storedYields += 1
    }

    func noteSpinHint() {
        assertOwner()
        storedSpinHints += 1
    }
}
#endif
