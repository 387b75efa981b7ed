// Interleaving points (RocksDB's sync points): named places in the wait path, each inside the window of a race
// between the loop's thread and a waker, where a debug build lets a unit test hold a thread until another thread has
// reached another point. A test so drives a race window of a few instructions in a chosen order, deterministically,
// instead of hoping the scheduler does. Release builds compile every point to nothing.

#if DEBUG
import Glibc
import Synchronization
#endif

#if DEBUG
/// Marks a race window. Does nothing unless a test's ``InterleavingSchedule`` is installed (then one relaxed atomic
/// load when no schedule is); otherwise records that this thread reached `name` and, if an ordering of the schedule
/// says so, holds this thread here until another thread has reached another point, or until the ordering's deadline
/// (then the schedule records a failure and this thread goes on). Any thread; call it with no lock held that the
/// awaited thread needs (a point under the loop's lock can only wait for a thread that does not take it).
@inline(__always)
func interleavingPoint(_ name: StaticString) {
    if InterleavingRegistry.installed.load(ordering: .relaxed) != 0 { InterleavingRegistry.shared.reach("\(name)") }
}
#else
/// Nothing in release builds: transparent and empty, so the call and its name are gone before the optimizer weighs
/// its callers (as `Lock.assertHeld()`).
@_transparent
func interleavingPoint(_ name: StaticString) {}
#endif

#if DEBUG
/// A thread's identity for orderings: its pthread_t.
typealias InterleavingThread = UInt

/// The process-wide registry of installed schedules: which points each has seen reached, on which thread, and the
/// orderings still to apply. Every property but `installed` is protected by `lock`.
final class InterleavingRegistry: @unchecked Sendable {
    static let shared = InterleavingRegistry()
    /// The number of schedules installed (written with `lock` held, read by every point without it: a point that
    /// reads 0 while a schedule is being installed belongs to no test's ordering yet).
    static let installed = Atomic<Int>(0)

    struct Reach: Hashable {
        let point: String
        let thread: InterleavingThread
    }

    struct Ordering {
        let schedule: Int
        /// The thread held, at this point...
        let held: Reach
        /// ...until this point has been reached on this thread.
        let awaited: Reach
    }

    let lock = Lock("InterleavingRegistry.lock")
    /// Protected by `lock`: per installed schedule (by its number), the points reached since it was installed.
    private var reached: [Int: Set<Reach>] = [:]
    /// Protected by `lock`: the orderings not yet applied, each applied once (the first time its thread reaches its
    /// point).
    private var orderings: [Ordering] = []
    /// Protected by `lock`: per installed schedule, the orderings that reached their deadline.
    private var failures: [Int: [String]] = [:]
    /// Protected by `lock`: the number the next schedule takes.
    private var nextSchedule = 0

    /// A point reached by the calling thread (see ``interleavingPoint(_:)``).
    func reach(_ point: String) {
        let me = Reach(point: point, thread: UInt(pthread_self()))
        let held: [(Ordering, UInt64)] = lock.withLock {
            lock.assertHeld()
            for schedule in reached.keys { reached[schedule]!.insert(me) }
            let mine = orderings.filter { $0.held == me }
            orderings.removeAll { $0.held == me }
            return mine.map { ($0, deadlines[$0.schedule] ?? 0) }
        }
        for (ordering, deadline) in held { hold(ordering, until: deadline) }
    }

    /// Holds the calling thread until `ordering`'s awaited point has been reached, or until `deadline` (then records
    /// a failure for its schedule).
    private func hold(_ ordering: Ordering, until deadline: UInt64) {
        while true {
            let done: Bool = lock.withLock {
                lock.assertHeld()
                // A schedule removed meanwhile holds nothing any more.
                guard let seen = reached[ordering.schedule] else { return true }
                if seen.contains(ordering.awaited) { return true }
                if RefClock.nanoseconds >= deadline {
                    failures[ordering.schedule, default: []].append(
                        "\(ordering.held.point) waited for \(ordering.awaited.point), which was not reached in time")
                    return true
                }
                return false
            }
            if done { return }
            sched_yield()
        }
    }

    /// Protected by `lock`: per installed schedule, the absolute time (RefClock) its waits give up at.
    private var deadlines: [Int: UInt64] = [:]

    func install(deadline: UInt64) -> Int {
        lock.withLock {
            lock.assertHeld()
            let number = nextSchedule
            nextSchedule += 1
            reached[number] = []
            deadlines[number] = deadline
            Self.installed.wrappingAdd(1, ordering: .sequentiallyConsistent)
            return number
        }
    }

    func remove(_ schedule: Int) -> [String] {
        lock.withLock {
            lock.assertHeld()
            reached[schedule] = nil
            deadlines[schedule] = nil
            orderings.removeAll { $0.schedule == schedule }
            Self.installed.wrappingSubtract(1, ordering: .sequentiallyConsistent)
            return failures.removeValue(forKey: schedule) ?? []
        }
    }

    func add(_ ordering: Ordering) {
        lock.withLock {
            lock.assertHeld()
            orderings.append(ordering)
        }
    }

    func hasReached(_ reach: Reach, in schedule: Int) -> Bool {
        lock.withLock {
            lock.assertHeld()
            return reached[schedule]?.contains(reach) ?? false
        }
    }

    func deadline(of schedule: Int) -> UInt64 {
        lock.withLock {
            lock.assertHeld()
            return deadlines[schedule] ?? 0
        }
    }
}

/// One test's orderings of interleaving points (debug builds only). While it is installed, every point reached on
/// any thread is recorded for it; an ordering holds one thread at a point until another thread has reached another
/// point. Every hold and every ``waitUntilReached(_:on:)`` ends at the schedule's deadline at the latest: a test whose
/// ordering cannot happen fails (``end()`` returns the failures), it never hangs. Uninstall it with ``end()``.
/// Any thread.
final class InterleavingSchedule: Sendable {
    /// The calling thread's identity, for orderings naming it.
    static var currentThread: InterleavingThread { UInt(pthread_self()) }

    private let number: Int

    /// Installs a schedule whose waits give up `seconds` after now.
    init(deadlineSeconds seconds: UInt64 = 5) {
        number = InterleavingRegistry.shared.install(deadline: RefClock.nanoseconds &+ seconds * 1_000_000_000)
    }

    /// The first time `thread` reaches `point`, it is held there until `awaitedThread` has reached `awaited` (at
    /// once if it has already, since this schedule was installed).
    func hold(
        _ point: StaticString, on thread: InterleavingThread, until awaited: StaticString,
        on awaitedThread: InterleavingThread
    ) {
        InterleavingRegistry.shared.add(
            .init(
                schedule: number, held: .init(point: "\(point)", thread: thread),
                awaited: .init(point: "\(awaited)", thread: awaitedThread)))
    }

    /// Whether `thread` has reached `point` since this schedule was installed.
    func hasReached(_ point: StaticString, on thread: InterleavingThread) -> Bool {
        InterleavingRegistry.shared.hasReached(.init(point: "\(point)", thread: thread), in: number)
    }

    /// Waits (yielding) until `thread` has reached `point`, or until the schedule's deadline; true if it has.
    func waitUntilReached(_ point: StaticString, on thread: InterleavingThread) -> Bool {
        let deadline = InterleavingRegistry.shared.deadline(of: number)
        while !hasReached(point, on: thread) {
            if RefClock.nanoseconds >= deadline { return false }
            sched_yield()
        }
        return true
    }

    /// Uninstalls the schedule (a thread held for it goes on) and returns what its orderings could not do: empty
    /// when every hold ended because its awaited point was reached.
    func end() -> [String] {
        InterleavingRegistry.shared.remove(number)
    }
}
#endif
