// The wall clock against the monotonic clock, so that a case judged while the system stepped or slewed its wall clock
// is not reported as the engine's failure. CF keeps dates as CFAbsoluteTime (the wall clock) and schedules on the
// monotonic clock: a repeating timer's next date is "now" on one plus the time left on the other
// (__CFRunLoopDoTimer 2622, CFRunLoop.c at swift-6.3.1-RELEASE), so a wall clock that moves during a case moves the
// dates its queries answer, by as much as the clock moved.

import Glibc

/// Reads of the wall clock's offset from the monotonic clock. Stateless.
public enum WallClock {
    /// How far the wall clock may move against the monotonic clock during an attempt before a result that depends on
    /// its trace is not taken as the engine's: the resolution of ``offset()``, not a share of the 0.01 s to which a
    /// case writes its dates, since a date near a rounding boundary rounds differently after any move.
    public static let tolerance = 0.000_05

    /// How many attempts a failure during which the wall clock moved gets in all, before it is reported ERROR.
    public static let attempts = 3

    /// The prefix of the detail of an ERROR for a result the moving wall clock left unjudged.
    static let unjudgedPrefix = "the wall clock moved against the monotonic clock in each of"

    /// CLOCK_REALTIME minus CLOCK_MONOTONIC, in seconds: constant unless the wall clock is stepped or slewed. The
    /// wall clock is read between two monotonic readings and set against their midpoint, from readings no more than
    /// 10 us apart when one of a few tries gets them (a thread preempted between two readings would add its delay).
    public static func offset() -> Double {
        var best: (spread: Int64, offset: Double) = (.max, 0)
        for _ in 0..<5 {
            var before = timespec()
            var realtime = timespec()
            var after = timespec()
            clock_gettime(CLOCK_MONOTONIC, &before)
            clock_gettime(CLOCK_REALTIME, &realtime)
            clock_gettime(CLOCK_MONOTONIC, &after)
            let start = Int64(before.tv_sec) * 1_000_000_000 + Int64(before.tv_nsec)
            let end = Int64(after.tv_sec) * 1_000_000_000 + Int64(after.tv_nsec)
            let wall = Int64(realtime.tv_sec) * 1_000_000_000 + Int64(realtime.tv_nsec)
            let spread = end - start
            if spread < best.spread { best = (spread, Double(wall - (start + spread / 2)) / 1e9) }
            if spread <= 10_000 { break }
        }
        return best.offset
    }

    /// Whether `outcome` is an ERROR for a result the wall clock left unjudged (``steady(offset:retrying:_:)``): a
    /// finding about the machine's clock, not about the engine, nor the suite's fault.
    public static func leftUnjudged(_ outcome: CaseOutcome) -> Bool {
        outcome.status == .error && saysUnjudged(outcome.detail)
    }

    /// Whether `detail` is the one ``steady(offset:retrying:_:)`` gives a result the wall clock left unjudged.
    public static func saysUnjudged(_ detail: String?) -> Bool {
        (detail ?? "").hasPrefix(unjudgedPrefix)
    }

    /// Runs `attempt` (one run of one case, judged against its expectation) and, when the result does not meet the
    /// expectation with a trace that was judged (PASS or FAIL) while the wall clock moved by more than ``tolerance``,
    /// runs it again, ``attempts`` times in all. A result still not met with the clock moving each time is ERROR,
    /// saying so: it cannot tell the engine's behaviour from the clock's. `offset` is ``offset()`` but in tests.
    static func judgedOnASteadyClock(
        offset: () -> Double = WallClock.offset, _ attempt: () -> CaseOutcome
    ) -> CaseOutcome {
        steady(
            offset: offset, retrying: { !$0.meetsExpectation && ($0.status == .pass || $0.status == .fail) }, attempt
        ).outcome
    }

    /// Runs `attempt` and, while `retrying` says its outcome stands on its trace and the wall clock moved by more
    /// than ``tolerance`` during it, runs it again, ``attempts`` times in all. Returns the first outcome made on a
    /// steady clock, or, when the clock moved during every attempt, the last one turned into an ERROR that says so
    /// (`steady` false, `moves` the clock's moves in seconds). `offset` is ``offset()`` but in tests.
    public static func steady(
        offset: () -> Double = WallClock.offset, retrying: (CaseOutcome) -> Bool, _ attempt: () -> CaseOutcome
    ) -> (outcome: CaseOutcome, steady: Bool, moves: [Double]) {
        var moves: [Double] = []
        while true {
            let before = offset()
            var outcome = attempt()
            let moved = offset() - before
            guard retrying(outcome), abs(moved) > tolerance else { return (outcome, true, moves) }
            moves.append(moved)
            guard moves.count == attempts else { continue }
            let millis = moves.map { "\(($0 * 1_000_000).rounded() / 1000) ms" }.joined(separator: ", ")
            outcome.detail =
                "\(unjudgedPrefix) \(attempts) attempts (\(millis)): "
                + "the system stepped or slewed it, which moves the dates an engine keeps in wall-clock time "
                + "(CFAbsoluteTime), so the trace cannot be judged; run the case again. The last attempt's "
                + "\(outcome.status.rawValue): " + (outcome.detail ?? "")
            outcome.status = .error
            return (outcome, false, moves)
        }
    }
}
