// Timer tolerance and coalescing: the small pure functions behind "better than CF on Linux".
//
// On Darwin a timer may fire anywhere in [fire date, fire date + tolerance] and the system batches timers whose windows
// overlap. CoreFoundation on Linux stores no tolerance (rule timer.tolerance) and arms its timerfd at the earliest fire
// date (rule timer.port-in-wait-set), so every timer costs its own wake-up. The reference loop honours tolerance and
// arms its single timerfd at the coalesced wake-up time computed here.

/// Darwin's tolerance rules.
public enum TimerTolerance {
    /// CFRunLoopTimerSetTolerance on Darwin (rule timer.tolerance): a repeating timer's tolerance is
    /// `MIN(tolerance, interval / 2)` (so a negative value stays negative, and NaN becomes interval / 2, as C's MIN
    /// macro gives); a one-shot timer's negative tolerance becomes 0.
    public static func clamped(_ tolerance: Double, interval: Double) -> Double {
        if interval > 0 {
            let half = interval / 2
            return tolerance < half ? tolerance : half
        }
        return tolerance < 0 ? 0 : tolerance
    }

    /// The length of the firing window a stored tolerance gives, in nanoseconds: negative and NaN tolerances give
    /// an empty window (the timer fires at its fire date).
    public static func windowNanoseconds(_ tolerance: Double) -> UInt64 {
        guard tolerance > 0 else { return 0 }
        return RefClock.nanoseconds(fromSeconds: tolerance)
    }

    /// deadline + window, saturating.
    @inline(__always)
    public static func hardDeadline(deadline: UInt64, window: UInt64) -> UInt64 {
        let (sum, overflow) = deadline.addingReportingOverflow(window)
        return overflow ? .max : sum
    }
}

/// The wake-up time that fires the most timers at once without firing any of them early or late.
public enum TimerCoalescing {
    /// The most timers one wake-up may fire. Past this, the scan stops early: the group is still a prefix in
    /// deadline order, so nobody fires late; only the batching gets smaller. Keeps arming O(log n)-ish for queues
    /// whose windows all overlap.
    public static let maximumGroup = 64

    /// One timer's firing window, in nanoseconds: it may fire at any time in `soft...hard`.
    public struct Window: Equatable, Sendable, CustomStringConvertible {
        public var soft: UInt64
        public var hard: UInt64
        public init(soft: UInt64, hard: UInt64) {
            self.soft = soft
            self.hard = max(hard, soft)
        }
        public var description: String { "[\(soft), \(hard)]" }
    }

    /// Scans windows in ascending `soft` order (ties in queue order), the way CF computes its soft and hard
    /// deadlines (__CFArmNextTimerInMode), and returns the wake-up time:
    ///
    /// the group is the longest prefix whose every window starts no later than the earliest end, less its
    /// ``margin(_:)``, among the windows before it; the wake-up is the latest start in the group. Then every timer whose window has started by the
    /// wake-up is in the group and its window has not ended: all of them fire, none early, none late; and the next
    /// window cannot join without cutting into someone's margin. Equivalently, the result is the latest window start
    /// `t` such that every window starting at or before `t` ends at or after `t` + its margin.
    ///
    /// Returns nil for no windows. O(k) for the k windows read: it stops at the first window that cannot join, or
    /// after `limit` windows.
    public static func wakeTime<S: Swift.Sequence>(_ windows: S, limit: Int = maximumGroup) -> UInt64?
    where S.Element == Window {
        var state = Scan(limit: limit)
        for window in windows where !state.add(window) { break }
        return state.wake
    }

    /// The slack kept before a window's end: a group's wake-up is at least this much before every member's hard
    /// deadline, so the timerfd's own latency, a busy CPU and the callouts of the members before it do not make the
    /// last member late. min(1 ms, 10 % of the window): 1 ms is what the benchmarks allow beyond the tolerance
    /// (Benchmarks/README.md, `late_fires`), and a short window keeps 90 % of its batching. Never more than the
    /// window, so every window can at least form a group of its own.
    @inline(__always)
    public static func margin(_ window: Window) -> UInt64 {
        min(1_000_000, (window.hard - window.soft) / 10)
    }

    /// The incremental form of ``wakeTime(_:limit:)``, for callers that walk a queue lazily.
    public struct Scan {
        public private(set) var wake: UInt64?
        /// The earliest `hard - margin` of the group: a later window joins only if it starts by then.
        private var earliestCap = UInt64.max
        private var taken = 0
        private let limit: Int

        public init(limit: Int = TimerCoalescing.maximumGroup) { self.limit = max(limit, 1) }

        /// After the scan: a window starting later than this cannot change `wake` (it cannot join the group, or the
        /// group is full of windows that come before it), so adding, removing or moving one needs no new scan.
        public var bound: UInt64 {
            guard let wake else { return .max }
            return taken >= limit ? wake : earliestCap
        }

        /// Offers the next window in ascending soft order. Returns false when the scan is over (this window did not
        /// join, or the group is full); `wake` is then final.
        public mutating func add(_ window: Window) -> Bool {
            guard taken < limit, window.soft <= earliestCap else { return false }
            wake = window.soft
            earliestCap = min(earliestCap, window.hard - TimerCoalescing.margin(window))
            taken += 1
            return taken < limit
        }
    }
}
