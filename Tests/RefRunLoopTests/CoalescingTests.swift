// Coalescing and Darwin's tolerance clamp: the queue's wake-up times checked exhaustively over small inputs against
// a brute-force minimum number of wake-ups, never early and never late.

import Testing

@testable import RefRunLoop

/// A timer-queue node (the queue's entries are their payloads' own objects); these tests look only at deadlines.
private final class Tag: TimerQueueNode {
    var queuePlace = TimerQueuePlace()
    var payload: Tag { self }
}

/// All lists of `count` windows with starts in 0...3 and lengths in 0...2 (margins are 0 for windows this short).
private func windowLists(count: Int) -> [[TimerCoalescing.Window]] {
    let single = (0...3).flatMap { soft in
        (0...2).map { TimerCoalescing.Window(soft: UInt64(soft), hard: UInt64(soft + $0)) }
    }
    var lists: [[TimerCoalescing.Window]] = [[]]
    for _ in 0..<count { lists = lists.flatMap { list in single.map { list + [$0] } } }
    return lists
}

/// The loop's schedule: wake at the queue's earliest cap, fire every timer whose window has opened, repeat.
private func greedyWakes(_ windows: [TimerCoalescing.Window]) -> (wakes: Int, early: Bool, late: Bool) {
    var queue = TimerQueue<Tag>()
    var entries = windows.enumerated().map {
        queue.insert(Tag(), deadline: $0.element.soft, hardDeadline: $0.element.hard)
    }
    var wakes = 0
    var early = false
    var late = false
    while let wake = queue.earliestCap {
        wakes += 1
        let fired = entries.filter { $0.deadline <= wake }
        if fired.isEmpty {
            early = true
            break
        }
        for entry in fired {
            if entry.hardDeadline < wake { late = true }
            queue.remove(entry)
        }
        entries.removeAll { !$0.isQueued }
    }
    return (wakes, early, late)
}

/// The fewest instants that stab every window, by brute force over the windows' ends.
private func fewestStabs(_ windows: [TimerCoalescing.Window]) -> Int {
    guard !windows.isEmpty else { return 0 }
    let ends = Array(Set(windows.map(\.hard)))
    for size in 1...windows.count {
        func choose(_ start: Int, _ picked: [UInt64]) -> Bool {
            if picked.count == size {
                return windows.allSatisfy { window in picked.contains { window.soft <= $0 && $0 <= window.hard } }
            }
            guard start < ends.count else { return false }
            return choose(start + 1, picked + [ends[start]]) || choose(start + 1, picked)
        }
        if choose(0, []) { return size }
    }
    return windows.count
}

@Test func wakingAtTheEarliestCapFiresEveryTimerWithTheFewestWakeUps() {
    var failures: [String] = []
    for count in 0...4 {
        for windows in windowLists(count: count) {
            let (wakes, early, late) = greedyWakes(windows)
            if early || late { failures.append("\(windows): a wake-up was \(early ? "early" : "late")") }
            let fewest = fewestStabs(windows)
            if wakes != fewest { failures.append("\(windows): \(wakes) wake-ups, the fewest is \(fewest)") }
        }
    }
    #expect(failures.isEmpty, "failing inputs:\n\(failures.prefix(10).joined(separator: "\n"))")
}

@Test func aSuspendedTimerIsLeftOutOfTheWakeUpTime() {
    var queue = TimerQueue<Tag>()
    let first = queue.insert(Tag(), deadline: 100, hardDeadline: 100)
    queue.insert(Tag(), deadline: 200, hardDeadline: 200)
    #expect(queue.earliestCap == 100)
    queue.suspend(first)
    #expect(queue.earliestCap == 200)
    queue.reschedule(first, deadline: 50, hardDeadline: 50)  // moved while firing: still left out
    #expect(queue.earliestCap == 200)
    queue.resume(first)
    #expect(queue.earliestCap == 50)
    #expect(queue.checkInvariants() == nil)
}

@Test func theWakeUpKeepsAMarginBeforeEveryHardDeadline() {
    // 10 ms windows 100 µs apart: margin 1 ms, so the wake-up is at the first window's end less 1 ms (9 ms after its
    // start), and it fires the 91 timers whose windows have opened by then, each with at least 1 ms of its window left.
    let ms: UInt64 = 1_000_000
    var queue = TimerQueue<Tag>()
    for index in 0..<200 {
        queue.insert(Tag(), deadline: UInt64(index) * 100_000, hardDeadline: UInt64(index) * 100_000 + 10 * ms)
    }
    #expect(queue.earliestCap == 9 * ms)
    #expect(queue.due(atOrBefore: 9 * ms).count == 91)
    // A short window's margin is 10 % of it, one of up to 20 ms 1 ms, a longer one 5 %; an empty window has none.
    #expect(TimerCoalescing.margin(.init(soft: 0, hard: 500_000)) == 50_000)
    #expect(TimerCoalescing.margin(.init(soft: 0, hard: 15 * ms)) == 1 * ms)
    #expect(TimerCoalescing.margin(.init(soft: 0, hard: 20 * ms)) == 1 * ms)
    #expect(TimerCoalescing.margin(.init(soft: 5, hard: 5 + 100 * ms)) == 5 * ms)
    #expect(TimerCoalescing.margin(.init(soft: 7, hard: 7)) == 0)
}

@Test func toleranceIsClampedAsOnDarwin() {
    let cases: [(tolerance: Double, interval: Double, expected: Double)] = [
        (0.05, 0, 0.05),  // one-shot: kept
        (-1, 0, 0),  // one-shot: negative becomes 0
        (0.05, 1, 0.05),  // repeating: below half the interval, kept
        (0.8, 1, 0.5),  // repeating: clamped to interval / 2
        (-1, 1, -1),  // repeating: MIN keeps a negative value
        (.nan, 1, 0.5),  // repeating: MIN(NaN, x) is x
    ]
    for item in cases {
        let clamped = TimerTolerance.clamped(item.tolerance, interval: item.interval)
        #expect(clamped == item.expected, "clamp(\(item.tolerance), interval \(item.interval))")
    }
    #expect(TimerTolerance.windowNanoseconds(-1) == 0)
    #expect(TimerTolerance.windowNanoseconds(.nan) == 0)
    #expect(TimerTolerance.windowNanoseconds(0.25) == 250_000_000)
    #expect(TimerTolerance.hardDeadline(deadline: .max - 1, window: 5) == .max)
}

@Test func repeatingGridSkipsMissedFiresAndKeepsPhase() {
    // Fired at 100 with interval 10: at now 100 the next is 110; a stall to 135 gives 140, not 110/120/130.
    #expect(RefRunLoop.nextGridDeadline(after: 100, interval: 10e-9, now: 100) == 110)
    #expect(RefRunLoop.nextGridDeadline(after: 100, interval: 10e-9, now: 135) == 140)
    #expect(RefRunLoop.nextGridDeadline(after: 100, interval: 10e-9, now: 140) == 150)
    for now: UInt64 in 100...200 {
        let next = RefRunLoop.nextGridDeadline(after: 100, interval: 7e-9, now: now)
        #expect(next > now && next - 7 <= now && (next - 100) % 7 == 0, "now \(now): next \(next)")
    }
}
