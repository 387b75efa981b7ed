// The release build's futex lock (FutexLock.swift) on its own, in the debug build that the tests use (where `Lock` and
// `Guarded` take a pthread mutex instead): its word's three states, a sleeper woken by the release, and mutual
// exclusion under contention from several threads. Every wait has a deadline (testHangLimit).

import Foundation
import Testing

@testable import RefRunLoop

/// A counter protected by a futex lock: `value` is read and written only by the lock's holder.
private final class LockedCounter: @unchecked Sendable {
    let lock = FutexLock()
    /// Protected by `lock`.
    private var value = 0

    func increment() {
        lock.lock()
        value += 1
        lock.unlock()
    }

    var current: Int {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// Runs `body` on a new thread; the returned semaphore is signalled when it returns.
private func onNewThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.start()
    return done
}

@Test func anUncontendedFutexLockGoesFromFreeToHeldAndBack() {
    let counter = LockedCounter()
    #expect(counter.lock.wordForTesting == 0)
    counter.lock.lock()
    #expect(counter.lock.wordForTesting == 1, "held, no one waiting")
    counter.lock.unlock()
    #expect(counter.lock.wordForTesting == 0)
    counter.increment()
    #expect(counter.current == 1)
    #expect(counter.lock.wordForTesting == 0)
}

@Test func aThreadThatFindsTheFutexLockHeldWaitsUntilItIsReleased() {
    let counter = LockedCounter()
    counter.lock.lock()
    let done = onNewThread { counter.increment() }
    // The other thread has found the lock held and marked it waited for (it sleeps, or is about to).
    let marked = waitUntil("the second thread to mark the lock waited for") { counter.lock.wordForTesting == 2 }
    #expect(done.wait(timeout: .now()) == .timedOut, "the second thread cannot have taken the lock")
    counter.lock.unlock()
    guard marked else { return }
    // The release saw 2 and woke it: it takes the lock, counts and releases it.
    if done.wait(timeout: .now() + testHangLimit) == .timedOut {
        recordHang("the woken thread to take the lock", sourceLocation: #_sourceLocation)
        return
    }
    #expect(counter.current == 1)
    #expect(counter.lock.wordForTesting == 0, "free again, nobody waiting")
}

@Test func aFutexLockKeepsIncrementsFromSeveralThreadsApart() {
    let threads = 4
    let increments = 20_000
    let counter = LockedCounter()
    let dones = (0..<threads).map { _ in
        onNewThread {
            for _ in 0..<increments { counter.increment() }
        }
    }
    for done in dones where done.wait(timeout: .now() + testHangLimit) == .timedOut {
        recordHang("the incrementing threads to finish", sourceLocation: #_sourceLocation)
        return
    }
    #expect(counter.current == threads * increments)
    #expect(counter.lock.wordForTesting == 0)
}
