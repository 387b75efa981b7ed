// A version-0 source that never stays unsignalled (its perform signals it again, as producers that keep its queue
// non-empty would) does not starve a timer that is due: the pass performs the source once, its poll then reports the
// timerfd, and the timer fires in that pass, as CF's does (a perform makes the next wait a poll, and the poll reports
// every port that is ready). This is the guard for a pass that drains the version-0 sources again while they stay
// signalled: such a drain has to stop as soon as another port is ready, or it would delay this timer.

import Testing

@testable import RefRunLoop

/// What the callouts record. Confined to the loop's thread (every callout runs there).
private final class Tally: @unchecked Sendable {
    var performs = 0
    /// The performs made when the timer fired; nil until it fires.
    var performsAtFire: Int?
}

@Test func aDueTimerFiresWhileASourceKeepsItselfSignalled() {
    let report = onFreshLoopThread { loop -> String? in
        let tally = Tally()
        let holder = ResultBox<RefRunLoopSource>()  // set before the run, read only in the perform
        let source = RefRunLoopSource(perform: {
            tally.performs += 1
            holder.value?.signal()  // signalled again at once: the queue is never empty
        })
        holder.value = source
        loop.add(source, mode: .default)
        source.signal()
        let timer = RefRunLoopTimer(fireDate: RefClock.now) { _ in
            if tally.performsAtFire == nil { tally.performsAtFire = tally.performs }
            loop.stop()
        }
        loop.add(timer, mode: .default)
        let result = loop.run(mode: .default, seconds: testHangLimit, returnAfterSourceHandled: false)
        guard result == .stopped, let atFire = tally.performsAtFire else {
            return "the due timer did not fire (the run ended \(result) after \(tally.performs) performs)"
        }
        return atFire == 1 ? nil : "the due timer fired after \(atFire) performs of the source, not after the first"
    }
    #expect(report == nil, "\(report ?? "")")
}
