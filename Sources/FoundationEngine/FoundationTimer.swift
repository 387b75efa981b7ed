// A Foundation Timer behind the engine contract.

import EngineKit
import Foundation

/// One `Timer`. Immutable after init; Timer's members are calls into CF, which locks the timer.
final class FoundationTimer: EngineTimer, @unchecked Sendable {
    /// The timer; used from any thread, as CFRunLoopTimer allows (Foundation marks Timer not Sendable).
    nonisolated(unsafe) let timer: Timer

    init(_ timer: Timer) { self.timer = timer }

    /// The CFRunLoopTimer inside the Timer, for CFRunLoopRemoveTimer and CFRunLoopContainsTimer, which Foundation has
    /// no API for. swift-corelibs keeps it in the stored property `_timerStorage`
    /// (Sources/Foundation/Timer.swift 31-32), internal, so it is read by reflection; nil if that property is gone.
    var cfTimer: UnsafeRawPointer? {
        for child in Mirror(reflecting: timer).children where child.label == "_timerStorage" {
            guard let optional = child.value as? AnyObject?, let storage = optional else { return nil }
            return UnsafeRawPointer(Unmanaged.passUnretained(storage).toOpaque())
        }
        return nil
    }

    func invalidate() { timer.invalidate() }
    var isValid: Bool { timer.isValid }

    var nextFireDate: Double {
        get { timer.fireDate.timeIntervalSinceReferenceDate }
        set { timer.fireDate = Date(timeIntervalSinceReferenceDate: newValue) }
    }

    var tolerance: Double {
        get { timer.tolerance }
        set { timer.tolerance = newValue }
    }
}
