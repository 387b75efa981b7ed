// Helpers: every loop test runs on a fresh thread (a loop belongs to its thread), and waits on loop state, never on
// sleeps. Every wait has a deadline (testHangLimit), so a lost wake-up or stop fails the test instead of hanging it.

import Foundation
import Testing

@testable import RefRunLoop

/// How long any one test may wait for anything, in seconds. Not a timing threshold: the slowest test takes about
/// 35 s with both CPUs busy, so only a hang reaches it.
let testHangLimit: Double = 300

/// A point testHangLimit seconds from its creation, for loops that must give up instead of spinning for ever.
struct TestDeadline {
    private let end = DispatchTime.now() + testHangLimit
    var passed: Bool { DispatchTime.now() >= end }
}

/// A deadline on progress rather than on a whole run: passed once the count handed to ``passed(progress:)`` has kept
/// one value for testHangLimit seconds. For runs whose length grows with the machine's load (many hand-offs, each a
/// few time slices when the CPUs are busy) while each step is prompt: a stall stops the count, slowness does not.
struct ProgressDeadline {
    private var last = Int.min
    private var deadline = TestDeadline()

    /// Whether `progress` has not moved for testHangLimit seconds (the deadline restarts whenever it moves).
    mutating func passed(progress: Int) -> Bool {
        if progress != last {
            last = progress
            deadline = TestDeadline()
        }
        return deadline.passed
    }
}

/// Reports a wait that reached its deadline: as an issue of the running test, and on stderr, since the wait may
/// run on a helper thread that has no test of its own.
func recordHang(_ what: String, sourceLocation: SourceLocation) {
    let message = "gave up after \(Int(testHangLimit)) s waiting for \(what): a hang"
    FileHandle.standardError.write(Data("\(sourceLocation): \(message)\n".utf8))
    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
}

/// Runs `body` on a new thread with its own loop and returns its result. A body that does not return within twice
/// testHangLimit (longer than any one wait inside it, so such a wait gives up and reports first) ends the test
/// process with a message: there is no result to return, and the thread cannot be stopped from outside.
func onFreshLoopThread<T: Sendable>(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable (RefRunLoop) -> T
) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.value = body(RefRunLoop.current)
        done.signal()
    }
    thread.stackSize = 8 << 20
    thread.start()
    if done.wait(timeout: .now() + 2 * testHangLimit) == .timedOut {
        fatalError("\(sourceLocation): the loop thread's test body did not return within \(Int(2 * testHangLimit)) s")
    }
    return box.value!
}

/// Runs each of `bodies` on a thread of its own, all released together; false if one did not finish in time.
func runTogether(_ bodies: [@Sendable () -> Void]) -> Bool {
    let start = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for body in bodies {
        done.enter()
        Thread {
            _ = start.wait(timeout: .now() + testHangLimit)
            body()
            done.leave()
        }.start()
    }
    for _ in bodies { start.signal() }
    return done.wait(timeout: .now() + testHangLimit) == .success
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

/// Spins (yielding) until `condition` holds, for synchronising on another thread's loop state; true if it did. After
/// testHangLimit seconds it records an issue naming `what` and returns false, so the caller goes on and the test
/// fails instead of hanging.
@discardableResult
func waitUntil(
    _ what: String = "a condition", sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () -> Bool
) -> Bool {
    let deadline = TestDeadline()
    while !condition() {
        if deadline.passed {
            recordHang(what, sourceLocation: sourceLocation)
            return false
        }
        sched_yield()
    }
    return true
}

/// SplitMix64: the random runs of the model tests (OrderedStoreTests, OrderTreapTests), the same for a seed every time.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
