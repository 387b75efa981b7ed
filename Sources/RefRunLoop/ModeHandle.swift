// Where a timer or an observer sits in one mode: the mode and the item's handle in that mode's store.

/// One mode that holds a timer or an observer, with the item's handle there (a timer's entry in the mode's
/// ``TimerQueue``, an observer's handle in its ``OrderedStore``). The mode is unretained, as in a source's
/// ``SourceMembership``, so that adding, removing and comparing cost no reference counting for it: a mode lives as long
/// as its loop (modes are never destroyed), and a loop's teardown (``RefRunLoop/tearDown()``) empties every timer's
/// and observer's list before the loop is let go. Protected, like the list that holds it, by the loop's lock.
struct ModeHandle<Handle> {
    /// The mode, unretained.
    let modeReference: Unmanaged<LoopMode>
    /// The item's handle in the mode's store (a timer's node in the mode's queue, unretained: the queue holds it; an
    /// observer's handle, replaced when its store relocates it).
    var handle: Handle

    init(_ mode: LoopMode, _ handle: Handle) {
        self.modeReference = Unmanaged.passUnretained(mode)
        self.handle = handle
    }

    /// The mode.
    var mode: LoopMode { modeReference.takeUnretainedValue() }

    /// Whether this is `mode`'s handle (compared by address, without retaining either).
    @inline(__always)
    func isIn(_ mode: LoopMode) -> Bool { modeReference.toOpaque() == Unmanaged.passUnretained(mode).toOpaque() }
}

extension ModeHandle where Handle == Unmanaged<RefRunLoopTimer> {
    /// A timer's node in the mode's queue (the timer or its shadow).
    var node: RefRunLoopTimer { handle.takeUnretainedValue() }
}
