// A plain mutex on a futex word: the release build's ``Lock`` and ``Guarded``. An uncontended acquisition is one
// compare-exchange and a release one exchange, with no system call, no thread id and no thread-local storage (the
// standard library's `Mutex` on Linux is a priority-inheritance futex that reads the calling thread's id on every
// acquisition and release: journal/2026-12-07-futex-lock.md has what that cost per item).

import Synchronization

/// A non-recursive mutex of one 32-bit word, stored inline in its owner: Drepper's three-state futex mutex ("Futexes
/// Are Tricky", mutex 3). The word is 0 when the lock is free, 1 when it is held, and 2 when it is held and a thread
/// may be sleeping on it. A thread that finds it held sets it to 2 and sleeps in FUTEX_WAIT while it stays 2; a
/// release that finds 2 wakes one sleeper, which sets it to 2 again as it takes the lock (it cannot know whether
/// others sleep), so no sleeper is left behind at the price of a wake call that may find no one.
///
/// No owner, no fairness, no priority inheritance: the loop holds its locks for a few dozen instructions and never
/// calls out under one. Debug builds test it directly (FutexLockTests); their ``Lock`` and ``Guarded`` keep a pthread
/// mutex that checks its owner and that ThreadSanitizer sees.
struct FutexLock: ~Copyable, @unchecked Sendable {
    /// The futex word, stored inline in the owner and never moved while the lock exists (an atomic value is not
    /// copyable, and the lock is stored as a `let`), so the kernel sleeps and wakes on its address. Changed only by
    /// atomic operations on it.
    private let word = Atomic<UInt32>(0)

    init() {}

    /// Takes the lock, sleeping while another thread holds it.
    @inline(__always)
    borrowing func lock() {
        let (taken, seen) = word.compareExchange(
            expected: 0, desired: 1, successOrdering: .acquiring, failureOrdering: .relaxed)
        if !taken { lockContended(seen) }
    }

    /// The held lock's path (out of line: the inlined fast path stays one compare-exchange and a branch). `seen` is
    /// the word the fast path found.
    @inline(never)
    private borrowing func lockContended(_ seen: UInt32) {
        // Marked 2 before each sleep, so the holder's release wakes a sleeper; the exchange that finds 0 takes the lock.
        var current = seen == 2 ? 2 : word.exchange(2, ordering: .acquiring)
        while current != 0 {
            withFutexAddress { Futex.wait($0, whileHolding: 2) }
            current = word.exchange(2, ordering: .acquiring)
        }
    }

    /// Releases the lock, which the calling thread holds, and wakes one sleeper if one may be waiting.
    @inline(__always)
    borrowing func unlock() {
        if word.exchange(0, ordering: .releasing) == 2 { wakeOne() }
    }

    @inline(never)
    private borrowing func wakeOne() {
        withFutexAddress { Futex.wakeOne($0) }
    }

    /// Runs `body` with the word's address for the kernel, which reads it as a plain 32-bit word (as an atomic one is
    /// laid out). The word is borrowed in place: a value that cannot be copied is passed by its address (were it a
    /// copy, a sleeper would never be woken, and FutexLockTests' waiter would hang).
    private borrowing func withFutexAddress(_ body: (UnsafeMutableRawPointer) -> Void) {
        withUnsafePointer(to: word) { body(UnsafeMutableRawPointer(mutating: $0)) }
    }

    /// The word (0 free, 1 held, 2 held and maybe waited for), for tests that wait for a thread to be sleeping on it.
    var wordForTesting: UInt32 { word.load(ordering: .relaxed) }
}
