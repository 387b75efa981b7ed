// A mode's observer snapshots (LoopMode.observers(watching:lock:)): each activity's observers in call order, rebuilt
// once after the mode's observers change, then handed out as they are, without the loop's lock, on every later pass.
// No CF behaviour shows whether a pass rebuilt them (the observers called are the same), so no spec case can check
// it; the test compares the arrays handed out: the same storage until a change, new storage with the new observers
// after one.

import Testing

@testable import RefRunLoop

/// The address of an array's storage: the same for two copies of one array, different for two arrays alive at once.
private func storage(_ batch: ObserverBatch?) -> UnsafeRawPointer? {
    batch?.owners.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
}

@Test func aModesObserverSnapshotsAreRebuiltOncePerChangeNotOncePerPass() {
    onFreshLoopThread { loop in
        let mode = loop.defaultMode
        let first = RefRunLoopObserver(activities: .beforeWaiting) { _, _ in }
        let second = RefRunLoopObserver(activities: [.beforeWaiting, .afterWaiting]) { _, _ in }
        defer {
            first.invalidate()
            second.invalidate()
        }
        #expect(mode.observers(watching: .beforeWaiting, lock: loop.lock) == nil)

        loop.add(first, mode: .default)
        let built = mode.observers(watching: .beforeWaiting, lock: loop.lock)
        #expect(built?.owners.map(ObjectIdentifier.init) == [ObjectIdentifier(first)])
        let again = mode.observers(watching: .beforeWaiting, lock: loop.lock)
        #expect(storage(again) != nil && storage(again) == storage(built), "rebuilt with no change in between")
        #expect(mode.observers(watching: .afterWaiting, lock: loop.lock) == nil)

        loop.add(second, mode: .default)
        let rebuilt = mode.observers(watching: .beforeWaiting, lock: loop.lock)
        #expect(rebuilt?.owners.map(ObjectIdentifier.init) == [first, second].map(ObjectIdentifier.init))
        #expect(storage(rebuilt) != storage(built), "not rebuilt after an observer was added")
        let afterWaiting = mode.observers(watching: .afterWaiting, lock: loop.lock)
        #expect(afterWaiting?.owners.map(ObjectIdentifier.init) == [ObjectIdentifier(second)])
        let stillThere = mode.observers(watching: .beforeWaiting, lock: loop.lock)
        #expect(storage(stillThere) == storage(rebuilt), "rebuilt with no change in between")
        #expect(storage(mode.observers(watching: .afterWaiting, lock: loop.lock)) == storage(afterWaiting))

        // Removed: the activity only it watched has no observer left, and the other has the one left.
        loop.remove(second, mode: .default)
        #expect(mode.observers(watching: .afterWaiting, lock: loop.lock) == nil)
        let afterRemoval = mode.observers(watching: .beforeWaiting, lock: loop.lock)
        #expect(afterRemoval?.owners.map(ObjectIdentifier.init) == [ObjectIdentifier(first)])
    }
}
