// The coalescing window and Darwin's tolerance clamp: exhaustive over small inputs against a brute force.

import Testing
@testable import RefRunLoop

/// The brute force: the latest window start t such that every window starting at or before t ends at or after t.
private func bruteForceWake(_ windows: [TimerCoalescing.Window]) -> UInt64? {
    windows.map(\.soft).filter { t in windows.allSatisfy { $0.soft > t || $0.hard >= t } }.max()
}

/// All lists of `count` windows with starts in 0...3 and lengths in 0...2, sorted by start (stable).
private func windowLists(count: Int) -> [[TimerCoalescing.Window]] {
    let single = (0...3).flatMap { soft in (0...2).map { TimerCoalescing.Window(soft: UInt64(soft), hard: UInt64(soft + $0)) } }
    var lists: [[TimerCoalescing.Window]] = [[]]
    for _ in 0..<count { lists = lists.flatMap { list in single.map { list + [$0] } } }
    return lists.map { list in list.enumerated().sorted { ($0.element.soft, $0.offset) < ($1.element.soft, $1.offset) }.map(\.element) }
}

@Test func coalescedWakeIsTheLatestStartNobodyIsLateFor() {
    var failures: [String] = []
    for count in 0...4 {
        for windows in windowLists(count: count) {
            let wake = TimerCoalescing.wakeTime(windows)
            let expected = bruteForceWake(windows)
            if wake != expected { failures.append("\(windows): got \(String(describing: wake)), expected \(String(describing: expected))") }
        }
    }
    #expect(failures.isEmpty, "failing inputs:\n\(failures.prefix(10).joined(separator: "\n"))")
}

@Test func coalescedWakeNeverFiresEarlyOrLateWhateverTheLimit() {
    var failures: [String] = []
    for windows in windowLists(count: 4) {
        for limit in 1...4 {
            guard let wake = TimerCoalescing.wakeTime(windows, limit: limit) else {
                failures.append("\(windows) limit \(limit): no wake")
                continue
            }
            // Never early: the first timer's window has started. Never late: every started window is still open.
            if wake < windows[0].soft { failures.append("\(windows) limit \(limit): \(wake) is early") }
            if let late = windows.first(where: { $0.soft <= wake && $0.hard < wake }) {
                failures.append("\(windows) limit \(limit): \(wake) is late for \(late)")
            }
        }
    }
    #expect(failures.isEmpty, "failing inputs:\n\(failures.prefix(10).joined(separator: "\n"))")
}

@Test func overlappingWindowsShareOneWake() {
    let windows = [TimerCoalescing.Window(soft: 100, hard: 200), TimerCoalescing.Window(soft: 150, hard: 160),
                   TimerCoalescing.Window(soft: 170, hard: 300)]
    // The second window ends before the third starts: the first two share the wake at 150.
    #expect(TimerCoalescing.wakeTime(windows) == 150)
}

@Test func coalescedWakeKeepsAMarginBeforeEveryHardDeadline() {
    // 10 ms windows 100 µs apart: margin 1 ms, so the group ends at the first window's end less 1 ms (9 ms after
    // its start), and the wake-up leaves every member at least 1 ms of its window.
    let ms: UInt64 = 1_000_000
    let windows = (0..<200).map { TimerCoalescing.Window(soft: UInt64($0) * 100_000, hard: UInt64($0) * 100_000 + 10 * ms) }
    let wake = TimerCoalescing.wakeTime(windows, limit: 200)
    #expect(wake == 9 * ms)
    // A short window's margin is 10 % of it; an empty window has none.
    #expect(TimerCoalescing.margin(.init(soft: 0, hard: 500_000)) == 50_000)
    #expect(TimerCoalescing.margin(.init(soft: 7, hard: 7)) == 0)
}

@Test func toleranceIsClampedAsOnDarwin() {
    let cases: [(tolerance: Double, interval: Double, expected: Double)] = [
        (0.05, 0, 0.05),      // one-shot: kept
        (-1, 0, 0),           // one-shot: negative becomes 0
        (0.05, 1, 0.05),      // repeating: below half the interval, kept
        (0.8, 1, 0.5),        // repeating: clamped to interval / 2
        (-1, 1, -1),          // repeating: MIN keeps a negative value
        (.nan, 1, 0.5),       // repeating: MIN(NaN, x) is x
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
