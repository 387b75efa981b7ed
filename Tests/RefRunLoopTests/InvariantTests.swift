// The loop's invariant check (RefRunLoop+Invariants.swift) finds a broken table and names it: without this, a check
// that always said "sound" would pass every stress test that turns it on.

import Testing

@testable import RefRunLoop

@Test func theInvariantCheckNamesABrokenTable() {
    let failure = onFreshLoopThread { loop -> String? in
        let sources = (0..<3).map { _ in RefRunLoopSource(perform: {}) }
        for source in sources { loop.add(source, mode: .default) }
        loop.add(RefRunLoopTimer(fireDate: RefClock.now + 3_600) { _ in }, mode: .default)
        if let broken = loop.checkInvariants(sources: sources) { return "a sound loop was reported broken: \(broken)" }
        // A source that believes it is at another place in its mode's list.
        let mode = loop.defaultMode
        let slot = loop.lock.withLock { sources[1].slotLocked(in: mode, of: loop)! }
        loop.lock.withLock { sources[1].moveLocked(in: mode, of: loop, to: slot + 1) }
        let misplaced = loop.checkInvariants(sources: sources)
        loop.lock.withLock { sources[1].moveLocked(in: mode, of: loop, to: slot) }
        guard let misplaced, misplaced.contains("mode kCFRunLoopDefaultMode") else {
            return "a source's wrong slot went unnoticed (\(misplaced ?? "nil"))"
        }
        // The lock-free flag of the block queue disagreeing with the queue.
        loop.hasBlocks.store(true, ordering: .relaxed)
        let flagged = loop.checkInvariants()
        loop.hasBlocks.store(false, ordering: .relaxed)
        guard flagged != nil else { return "a wrong hasBlocks went unnoticed" }
        return loop.checkInvariants(sources: sources).map { "not sound again after the repairs: \($0)" }
    }
    #expect(failure == nil, "\(failure ?? "")")
}
