// Timer tolerance and coalescing: the small pure functions behind "better than CF on Linux".
//
// On Darwin a timer may fire anywhere in [fire date, fire date + tolerance] and the system batches timers whose windows
// overlap. CoreFoundation on Linux stores no tolerance (rule timer.tolerance) and arms its timerfd at the earliest fire
// date (rule timer.port-in-wait-set), so every timer costs its own wake-up. The reference loop honours tolerance and
// arms each mode's timerfd at the coalesced wake-up time its TimerQueue keeps.

/// Darwin's tolerance rules.
enum TimerTolerance {
    /// CFRunLoopTimerSetTolerance on Darwin (rule timer.tolerance): a repeating timer's tolerance is
    /// `MIN(tolerance, interval / 2)` (so a negative value stays negative, and NaN becomes interval / 2, as C's MIN
    /// macro gives); a one-shot timer's negative tolerance becomes 0.
    static func clamped(_ tolerance: Double, interval: Double) -> Double {
        if interval > 0 {
            let half = interval / 2
            return tolerance < half ? tolerance : half
        }
        return tolerance < 0 ? 0 : tolerance
    }

    /// The length of the firing window a stored tolerance gives, in nanoseconds: negative and NaN tolerances give
    /// an empty window (the timer fires at its fire date).
    static func windowNanoseconds(_ tolerance: Double) -> UInt64 {
        guard tolerance > 0 else { return 0 }
        return RefClock.nanoseconds(fromSeconds: tolerance)
    }

    /// deadline + window, saturating.
    @inline(__always)
    static func hardDeadline(deadline: UInt64, window: UInt64) -> UInt64 {
        let (sum, overflow) = deadline.addingReportingOverflow(window)
        return overflow ? .max : sum
    }
}

/// Coalescing: one wake-up fires every timer whose window has opened, at the latest time none of them is late for.
///
/// Each mode's ``TimerQueue`` keeps its timers' caps (hard deadline less ``margin(_:)``) in a heap; the mode's timerfd
/// is armed at the earliest cap. That wake-up fires every timer whose soft deadline has come, and no schedule fires
/// the same timers with fewer wake-ups: the earliest cap is the greedy choice of interval stabbing, which is optimal.
enum TimerCoalescing {
    /// One timer's firing window, in nanoseconds: it may fire at any time in `soft...hard`.
    struct Window: Equatable, Sendable, CustomStringConvertible {
        var soft: UInt64
        var hard: UInt64
        init(soft: UInt64, hard: UInt64) {
            self.soft = soft
            self.hard = max(hard, soft)
        }
        var description: String { "[\(soft), \(hard)]" }
    }

    /// The slack kept before a window's end: a wake-up is at least this much before every member's hard deadline, so
    /// the timerfd's own latency, a busy CPU and the callouts of the timers fired before it do not make the last one
    /// late. min(1 ms, 10 % of the window), and at least 5 % of it: 1 ms is what the benchmarks allow beyond the
    /// tolerance (Benchmarks/README.md, `late_fires`); a window of up to 20 ms keeps at least 90 % of its batching,
    /// a longer one 95 % and more slack than 1 ms (5 ms for a 100 ms window, where a CPU hog on the loop's CPU can
    /// hold off the woken loop for over 2 ms). Never more than the window, so the cap is never before the window opens.
    @inline(__always)
    static func margin(_ window: Window) -> UInt64 {
        let length = window.hard - window.soft
        return max(min(1_000_000, length / 10), length / 20)
    }
}
