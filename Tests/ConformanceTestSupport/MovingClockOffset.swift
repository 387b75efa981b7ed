// A fake reading of the wall clock's offset from the monotonic clock, for tests of what a run judged while the clock
// moved becomes.

import Synchronization

/// Each read moves the offset by `step` seconds, for the first `movingReads` reads (all of them when nil), then it
/// stays put. Any thread: `state` is protected by its mutex.
public final class MovingClockOffset: Sendable {
    private let state = Mutex<(reads: Int, value: Double)>((0, 0))
    private let step: Double
    private let movingReads: Int?

    public init(step: Double, movingReads: Int? = nil) {
        self.step = step
        self.movingReads = movingReads
    }

    public func read() -> Double {
        state.withLock { state in
            state.reads += 1
            if state.reads <= movingReads ?? .max { state.value += step }
            return state.value
        }
    }

    /// How many reads were made.
    public var reads: Int { state.withLock { $0.reads } }
}
