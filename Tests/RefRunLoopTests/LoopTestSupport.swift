// Helpers: every loop test runs on a fresh thread (a loop belongs to its thread), and waits on loop state, never on
// sleeps.

import Foundation
@testable import RefRunLoop

/// Runs `body` on a new thread with its own loop and returns its result.
func onFreshLoopThread<T: Sendable>(_ body: @escaping @Sendable (RefRunLoop) -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.value = body(RefRunLoop.current)
        done.signal()
    }
    thread.stackSize = 8 << 20
    thread.start()
    done.wait()
    return box.value!
}

/// A value handed from one thread to another through a semaphore (which orders the accesses).
final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

/// A thread-safe list for recording callouts.
final class Recorder<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    /// Protected by `lock`.
    private var items: [Element] = []

    func append(_ item: Element) { lock.withLock { items.append(item) } }
    var all: [Element] { lock.withLock { items } }
    var count: Int { lock.withLock { items.count } }
}

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    /// Protected by `lock`.
    private var value = 0
    func increment() { lock.withLock { value += 1 } }
    var current: Int { lock.withLock { value } }
}

/// Spins (yielding) until `condition` holds. For synchronising on another thread's loop state.
func waitUntil(_ condition: () -> Bool) {
    while !condition() { sched_yield() }
}
