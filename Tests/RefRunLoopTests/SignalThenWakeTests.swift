// A source signalled and then its loop woken, from another thread, many times: the pass that wake-up leads to performs
// the source. A pass that finds the loop's signalled list empty decides so from a flag read without the list's lock
// (RefRunLoop.performSources0); were a signal made before the wake-up missed by that pass, the loop would sleep again
// with nothing left to wake it, its run would last until its deadline and return timed out, and the sender would wait
// for the perform until its own deadline. Synchronised on loop state only.

import Foundation
import Testing

@testable import RefRunLoop

@Test func aSourceSignalledBeforeAWakeUpIsPerformedByThePassThatWakeUpLeadsTo() {
    let rounds = 2_000
    let report = onFreshLoopThread { loop -> String? in
        loop.checkInvariantsAfterEveryChange(true)
        let performed = Counter()
        let source = RefRunLoopSource(perform: { performed.increment() })
        loop.add(source, mode: .default)
        defer { loop.remove(source, mode: .default) }
        let sender = Thread {
            for round in 1...rounds {
                guard waitUntil("round \(round - 1) to be performed", { performed.current == round - 1 }) else {
                    return
                }
                // Every other round waits for the loop to sleep first, so the signal lands after a pass found the
                // list empty (the flag read false); the others race with the loop's passes.
                if round.isMultiple(of: 2) {
                    guard waitUntil("the loop to wait before round \(round)", { loop.isWaiting }) else { return }
                }
                source.signal()
                loop.wakeUp()
            }
        }
        sender.start()
        for round in 1...rounds {
            // Each run ends when it performs the source: the wake-up's pass, or an earlier one that found the signal
            // already listed. A stale wake-up (its source performed before it landed) only adds an empty pass.
            let result = loop.run(mode: .default, seconds: testHangLimit, returnAfterSourceHandled: true)
            guard result == .handledSource else {
                return "round \(round): the run returned \(result) with \(performed.current) performs: a signal missed"
            }
        }
        guard performed.current == rounds else { return "\(performed.current) performs for \(rounds) signals" }
        return loop.checkInvariants(sources: [source])
    }
    #expect(report == nil, "\(report ?? "")")
}
