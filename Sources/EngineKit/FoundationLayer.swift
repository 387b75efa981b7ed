// The Foundation layer of a loop: the members of Foundation's RunLoop and Timer that are not one CFRunLoop function
// each (spec format 1.3, INTERPRETING.md "Foundation verbs"). An engine whose loops adopt this protocol has
// ``EngineFeature/foundation``; the runner uses it only for cases that need that feature. Every member is called on
// the loop's own thread unless it says "any thread".

/// What `RunLoop.limitDate(forMode:)` answered.
public enum LimitDate: Sendable, Equatable {
    /// nil: the mode has no sources or timers (or the loop is not the calling thread's).
    case none
    /// `Date.distantFuture`: sources but no timer.
    case distantFuture
    /// The next timer's fire date, absolute in ``EngineLoop/now``'s clock.
    case date(Double)
}

/// A loop driven through Foundation's `RunLoop` and `Timer`.
public protocol FoundationLayerLoop: EngineLoop {
    /// `RunLoop.run()`: runs the default mode until a run of it finds the mode without sources.
    func foundationRun()
    /// `RunLoop.run(until:)`, `date` absolute in ``EngineLoop/now``'s clock.
    func foundationRun(until date: Double)
    /// `RunLoop.run(mode:before:)`, `date` absolute; its Bool result.
    func foundationRun(mode: ModeName, before date: Double) -> Bool
    /// `RunLoop.limitDate(forMode:)`.
    func limitDate(mode: ModeName) -> LimitDate
    /// `RunLoop.acceptInput(forMode:before:)`, `date` absolute.
    func acceptInput(mode: ModeName, before date: Double)
    /// `Timer(fire:interval:repeats:block:)` when `fireDate` is given, else `Timer(timeInterval:repeats:block:)`; not
    /// added to any mode.
    func makeFoundationTimer(
        fireDate: Double?, interval: Double, repeats: Bool, callout: @escaping @Sendable () -> Void
    ) -> any EngineTimer
    /// `Timer.scheduledTimer(withTimeInterval:repeats:block:)`: a timer added to the calling thread's loop.
    func scheduledTimer(interval: Double, repeats: Bool, callout: @escaping @Sendable () -> Void) -> any EngineTimer
    /// `RunLoop.perform(inModes:block:)`, or `RunLoop.perform(_:)` when `modes` is nil. Any thread: the block goes to
    /// this loop, whichever thread calls (how Swift performs a block on another thread's loop).
    func foundationPerform(inModes modes: [ModeName]?, _ block: @escaping @Sendable () -> Void)
}
