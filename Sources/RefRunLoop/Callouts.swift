// How items store their callouts: a Swift closure (the Swift API) or a C function with its info pointer (the C ABI,
// CABI.swift), held inline in the item. A C callout wrapped in a closure would need a second heap allocation per
// item for the closure's context, and a free when the item goes.

/// A C callout and its argument. The C caller promises `info` may be used from the loop's thread.
struct CCallout: @unchecked Sendable {
    let function: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let info: UnsafeMutableRawPointer?
    @inline(__always)
    func callAsFunction() { function(info) }
}

/// A C observer callout (it also receives the activity) and its argument; `info` as for ``CCallout``.
struct CObserverCallout: @unchecked Sendable {
    let function: @convention(c) (UInt32, UnsafeMutableRawPointer?) -> Void
    let info: UnsafeMutableRawPointer?
}

/// A source's perform callout.
enum SourcePerform: Sendable {
    case swift(@Sendable () -> Void)
    case c(CCallout)

    @inline(__always)
    func callAsFunction() {
        switch self {
        case .swift(let closure): closure()
        case .c(let callout): callout()
        }
    }
}

/// A timer's callout.
enum TimerCallout: Sendable {
    case swift(@Sendable (RefRunLoopTimer) -> Void)
    case c(CCallout)

    @inline(__always)
    func callAsFunction(_ timer: RefRunLoopTimer) {
        switch self {
        case .swift(let closure): closure(timer)
        case .c(let callout): callout()
        }
    }
}

/// An observer's callout.
enum ObserverCallout: Sendable {
    case swift(@Sendable (RefRunLoopObserver, RefRunLoopActivity) -> Void)
    case c(CObserverCallout)
    /// A C callout that is not told the activity (ref_runloop_observer_create_without_activity).
    case cWithoutActivity(CCallout)

    @inline(__always)
    func callAsFunction(_ observer: RefRunLoopObserver, _ activity: RefRunLoopActivity) {
        switch self {
        case .swift(let closure): closure(observer, activity)
        case .c(let callout): callout.function(UInt32(truncatingIfNeeded: activity.rawValue), callout.info)
        case .cWithoutActivity(let callout): callout()
        }
    }
}
