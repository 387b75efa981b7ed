// Observers added to two loops, removed and invalidated from several threads at once, and invalidated while the loop
// holding them is torn down: an observer's modes are its loop's alone (no lock of its own), so these check what its
// lock used to guarantee. Synchronised on loop state only.

import Foundation
import Testing

@testable import RefRunLoop

@Test func observersRacingBetweenTwoLoopsAndInvalidationsStayInOneLoopAndLeaveWhenInvalid() {
    // Two loops that no thread runs (adding and removing work from any thread); kept alive by the test.
    let loops = [RefRunLoop(), RefRunLoop()]
    for loop in loops { loop.checkInvariantsAfterEveryChange(true) }
    let modes: [RefRunLoopMode] = [.default, .named("side")]
    for round in 0..<150 {
        let observers = (0..<8).map { _ in RefRunLoopObserver(activities: .allActivities) { _, _ in } }
        let invalidating = round.isMultiple(of: 2)
        var bodies: [@Sendable () -> Void] = loops.map { loop in
            {
                for observer in observers {
                    for mode in modes { loop.add(observer, mode: mode) }
                }
                // Some leave again, so the other loop may take them.
                for observer in observers.prefix(3) { loop.remove(observer, mode: .default) }
                for observer in observers.prefix(3) { loop.remove(observer, mode: .named("side")) }
                for observer in observers.prefix(3) { loop.add(observer, mode: .default) }
            }
        }
        if invalidating { bodies.append { for observer in observers.reversed() { observer.invalidate() } } }
        guard runTogether(bodies) else {
            Issue.record("round \(round): a thread did not finish")
            return
        }
        for (index, observer) in observers.enumerated() {
            let holders = loops.filter { loop in modes.contains { loop.contains(observer, mode: $0) } }
            if invalidating && !holders.isEmpty {
                Issue.record("round \(round): invalidated observer \(index) is still in a loop's mode")
            }
            if holders.count > 1 { Issue.record("round \(round): observer \(index) is in both loops") }
            observer.invalidate()
        }
        for loop in loops {
            for mode in modes where observers.contains(where: { loop.contains($0, mode: mode) }) {
                Issue.record("round \(round): an invalidated observer is still in a mode")
            }
        }
    }
}

@Test func observersInvalidatedWhileTheirLoopsThreadExits() {
    // Each round: a thread adds observers to its own loop and exits (its loop is torn down and let go) while another
    // thread invalidates them, which reads their binding to find the loop.
    for round in 0..<100 {
        let observers = (0..<6).map { _ in RefRunLoopObserver(activities: .allActivities) { _, _ in } }
        let added = DispatchSemaphore(value: 0)
        let finished = runTogether([
            {
                let loop = RefRunLoop.current
                for observer in observers { loop.add(observer, mode: .default) }
                added.signal()
                // The thread ends here, and its loop with it.
            },
            {
                _ = added.wait(timeout: .now() + testHangLimit)
                for observer in observers { observer.invalidate() }
            },
        ])
        guard finished else {
            Issue.record("round \(round): a thread did not finish")
            return
        }
        #expect(observers.allSatisfy { !$0.isValid })
    }
}
