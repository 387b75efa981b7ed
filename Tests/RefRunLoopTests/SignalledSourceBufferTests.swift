// A pass that performs two or more signalled sources takes them into two buffers of the loop's thread (the signalled
// list and the sorted candidates, RefRunLoop+Phases.swift) and gives both back emptied, with their capacity, for the
// next such pass: a steady load of signalled sources allocates nothing per pass. No CF behaviour shows an allocation,
// so no spec case can check it; the test reads the buffers after the pass, on the loop's thread that owns them.

import Testing

@testable import RefRunLoop

@Test func aPassGivesBackItsBuffersOfSignalledSourcesEmptyAndWithTheirCapacity() {
    let results = onFreshLoopThread { loop -> [String] in
        let performed = Counter()
        let sources = (0..<3).map { _ in RefRunLoopSource(perform: { performed.increment() }) }
        for source in sources { loop.add(source, mode: .default) }
        defer { for source in sources { loop.remove(source, mode: .default) } }
        var results: [String] = []
        for round in 1...2 {
            for source in sources { source.signal() }
            _ = loop.run(mode: .default, seconds: 0, returnAfterSourceHandled: false)
            results.append(
                "round \(round): performed \(performed.current), "
                    + "taken \(loop.sources0Taken.count) of at least 3: \(loop.sources0Taken.capacity >= 3), "
                    + "candidates \(loop.sources0Candidates.count) of at least 3: \(loop.sources0Candidates.capacity >= 3)"
            )
        }
        return results
    }
    #expect(
        results == [
            "round 1: performed 3, taken 0 of at least 3: true, candidates 0 of at least 3: true",
            "round 2: performed 6, taken 0 of at least 3: true, candidates 0 of at least 3: true",
        ])
}
