// A source has no lock of its own (SourceBinding.swift): one word names a mode of its home loop, the loop whose lock
// protects its places, and other loops hold it through a list of their own. These check each path a pass, a signal,
// an add, a removal and an invalidation take through that word: a source in several modes of one loop, a source whose
// home leaves while another loop still holds it and then comes back, and sources signalled and invalidated while their
// loop's thread exits. Synchronised on loop state only.

import Foundation
import Testing

@testable import RefRunLoop

/// A version-0 source that counts its performs.
private func countingSource(_ performs: Counter) -> RefRunLoopSource {
    RefRunLoopSource(perform: { performs.increment() })
}

/// Whether one pass of `loop` in `mode` (a zero-timeout run, which makes exactly one) performs a signalled source.
private func onePassPerforms(_ loop: RefRunLoop, _ mode: RefRunLoopMode, _ performs: Counter) -> Bool {
    let before = performs.current
    _ = loop.run(mode: mode, seconds: 0, returnAfterSourceHandled: false)
    return performs.current > before
}

@Test func aSourceLeavingOneOfTwoModesIsPerformedOnlyInTheOther() {
    let failure = onFreshLoopThread { loop -> String? in
        loop.checkInvariantsAfterEveryChange(true)
        let performs = Counter()
        let source = countingSource(performs)
        let side = RefRunLoopMode.named("side")
        // A timer keeps each mode from being empty, so each run makes its pass.
        for mode in [RefRunLoopMode.default, side] {
            loop.add(RefRunLoopTimer(fireDate: RefClock.now + 3_600) { _ in }, mode: mode)
        }
        // In the default mode first, then in both, then in the side mode alone: the word names one mode, then one
        // with others, then the one that is left.
        loop.add(source, mode: .default)
        loop.add(source, mode: side)
        source.signal()
        if !onePassPerforms(loop, side, performs) { return "a source in two modes was not performed in the second" }
        loop.remove(source, mode: .default)
        source.signal()
        if onePassPerforms(loop, .default, performs) { return "a source was performed in the mode it left" }
        if !onePassPerforms(loop, side, performs) { return "a source was not performed in the mode it stayed in" }
        loop.add(source, mode: .default)
        loop.remove(source, mode: side)
        source.signal()
        if onePassPerforms(loop, side, performs) { return "a source was performed in the mode it left last" }
        if !onePassPerforms(loop, .default, performs) { return "a source was not performed in the mode it rejoined" }
        loop.remove(source, mode: .default)
        return source.binding.hasNoHome ? nil : "a source in no mode still has a home"
    }
    #expect(failure == nil, "\(failure ?? "")")
}

@Test func aSourceHeldByAnotherLoopIsPerformedHereThroughThatLoopsRecordsAndTheHomeComesBack() {
    let failure = onFreshLoopThread { loop -> String? in
        loop.checkInvariantsAfterEveryChange(true)
        // A loop no thread runs: adding and removing work from any thread. Emptied before it goes.
        let other = RefRunLoop()
        other.checkInvariantsAfterEveryChange(true)
        let side = RefRunLoopMode.named("side")
        for mode in [RefRunLoopMode.default, side] {
            loop.add(RefRunLoopTimer(fireDate: RefClock.now + 3_600) { _ in }, mode: mode)
        }
        let performs = Counter()
        let visitor = countingSource(performs)
        let source = countingSource(performs)
        // Out of both loops however the test ends: the other loop must go with no item in its modes.
        defer {
            visitor.invalidate()
            source.invalidate()
        }

        // The other loop is the home; this loop holds the source through the other loops' records.
        other.add(visitor, mode: .default)
        loop.add(visitor, mode: .default)
        visitor.signal()
        if !onePassPerforms(loop, .default, performs) { return "a source held as a second loop's was not performed" }
        visitor.signal()
        if onePassPerforms(loop, side, performs) { return "a second loop's source was performed in a mode without it" }
        loop.remove(visitor, mode: .default)
        if loop.contains(visitor, mode: .default) { return "a second loop's source is still contained after removal" }
        visitor.signal()
        if onePassPerforms(loop, .default, performs) { return "a source was performed by a loop that removed it" }
        other.remove(visitor, mode: .default)

        // This loop is the home, then leaves while the other loop still holds the source.
        loop.add(source, mode: .default)
        other.add(source, mode: .default)
        loop.remove(source, mode: .default)
        if !source.binding.hasNoHome { return "the home stayed after its loop's last removal" }
        source.signal()
        if onePassPerforms(loop, .default, performs) { return "a source was performed by the loop it left" }
        other.remove(source, mode: .default)

        // Held by this loop through the other loops' records while the other loop is the home; the home then leaves,
        // and this loop becomes the home in the side mode while its records still hold the default mode: both paths
        // at once for one loop.
        other.add(source, mode: .default)
        loop.add(source, mode: .default)
        other.remove(source, mode: .default)
        loop.add(source, mode: side)
        loop.add(source, mode: .default)  // held already: changes nothing
        if !loop.contains(source, mode: .default) || !loop.contains(source, mode: side) {
            return "a source held both ways is missing from a mode"
        }
        source.signal()
        if !onePassPerforms(loop, .default, performs) { return "a source held both ways was not performed in default" }
        source.signal()
        if !onePassPerforms(loop, side, performs) { return "a source held both ways was not performed in side" }
        loop.remove(source, mode: .default)
        source.signal()
        if onePassPerforms(loop, .default, performs) { return "a source was performed in the mode it left" }
        if !onePassPerforms(loop, side, performs) { return "a source was not performed in its home mode" }
        other.add(source, mode: .default)
        // An invalidation from this thread takes it out of both loops.
        source.invalidate()
        if loop.contains(source, mode: side) || loop.contains(source, mode: .default)
            || other.contains(source, mode: .default)
        {
            return "an invalidated source is still in a mode"
        }
        if !source.binding.hasNoHome { return "an invalidated source still has a home" }
        let unbroken = loop.checkInvariants(sources: [visitor, source]) ?? other.checkInvariants(sources: [source])
        return unbroken.map { "the tables disagree: \($0)" }
    }
    #expect(failure == nil, "\(failure ?? "")")
}

@Test func sourcesSignalledAndInvalidatedWhileTheirLoopsThreadExits() {
    // Each round: a thread adds sources to its own loop (some to two of its modes) and exits, and its loop is torn
    // down and let go, while two threads signal and invalidate the sources: each reads the source's word to find the
    // loop, with no lock. The teardown's unbinding waits for them (SourceBinding), so none uses a loop let go.
    for round in 0..<100 {
        let sources = (0..<6).map { _ in RefRunLoopSource(perform: {}) }
        let added = DispatchSemaphore(value: 0)
        let finished = runTogether([
            {
                let loop = RefRunLoop.current
                for (index, source) in sources.enumerated() {
                    loop.add(source, mode: .default)
                    if index.isMultiple(of: 2) { loop.add(source, mode: .named("side")) }
                }
                added.signal()
                added.signal()
                // The thread ends here, and its loop with it.
            },
            {
                _ = added.wait(timeout: .now() + testHangLimit)
                for _ in 0..<20 { for source in sources { source.signal() } }
            },
            {
                _ = added.wait(timeout: .now() + testHangLimit)
                for source in sources.reversed() { source.invalidate() }
            },
        ])
        guard finished else {
            Issue.record("round \(round): a thread did not finish")
            return
        }
        #expect(sources.allSatisfy { !$0.isValid })
    }
}
