// The phases of a pass that call out: observers, blocks, version-0 sources, timers, version-1 sources. Each takes a
// snapshot under the loop's lock, releases it, and calls out with no lock held, so a callout may do anything to the
// loop, including running it again (a nested run).

extension RefRunLoop {
    // MARK: Observers (rules observer.*)

    /// __CFRunLoopDoObservers: calls the mode's valid, non-firing observers watching `activity`, in order. The
    /// snapshot is taken first: an observer added during the batch is not called in it; one removed is still called;
    /// one invalidated is skipped (rule observer.batch-snapshot). A non-repeating observer is invalidated after its
    /// callout (rule observer.non-repeating).
    /// Inlined up to the check for observers, so an activity nobody watches costs a pass no call.
    @inline(__always)
    func notifyObservers(_ activity: RefRunLoopActivity, in mode: LoopMode) {
        // The mode's cached array for this activity: no lock, no allocation while the observers do not change.
        guard let batch = mode.observers(watching: activity, lock: lock) else { return }
        call(batch, activity)
    }

    private func call(_ batch: ObserverBatch, _ activity: RefRunLoopActivity) {
        // `batch.owners` keeps every observer of the batch alive, even one removed by an earlier callout, so the
        // walk needs no retain and release per observer.
        withExtendedLifetime(batch.owners) {
            for reference in batch.references {
                reference._withUnsafeGuaranteedRef { observer in
                    // Rechecked at call time, like CF (which also filters firing observers at snapshot time; the
                    // outcome is the same because an observer stops firing only when its own callout returns).
                    guard observer.beginFiring() else { return }
                    observer.callout(observer, activity)
                    if !observer.repeats { observer.invalidate() }
                    observer.endFiring()
                }
            }
        }
    }

    // MARK: Blocks (rules block.*)

    /// __CFRunLoopDoBlocks: takes the whole queue, runs the blocks that match the mode in FIFO order, and puts the
    /// others back ahead of any block queued meanwhile (rule block.queue-snapshot). Blocks never count as handled (rule
    /// result.handled-means-a-source).
    /// Inlined up to the check for queued blocks, so a pass with none pays no call.
    @inline(__always)
    func performBlocks(in mode: LoopMode) {
        if hasBlocks.load(ordering: .acquiring) { performQueuedBlocks(in: mode) }
    }

    private func performQueuedBlocks(in mode: LoopMode) {
        let taken: [PendingBlock] = lock.withLock {
            let taken = blocks
            blocks = []
            return taken
        }
        guard !taken.isEmpty else { return }
        var kept: [PendingBlock] = []
        for pending in taken {
            if pending.matches(mode.name, isCommon: { lock.withLock { commonModes.contains(mode.name) } }) {
                pending.block()
            } else {
                kept.append(pending)
            }
        }
        guard !kept.isEmpty else { return }
        lock.withLock { blocks = kept + blocks }
    }

    // MARK: Version-0 sources (rules source.*)

    /// __CFRunLoopDoSources0: performs the mode's valid, signalled version-0 sources ordered by (order, first
    /// signal), clearing each one's signal first. With `stopAfterHandle` it stops after the first perform.
    ///
    /// The result is CF's: whether the last source examined was performed (__CFRunLoopDoSources0 2265, CFRunLoop.c at
    /// swift-6.3.1-RELEASE), so a batch whose last source was invalidated by an earlier perform reports "not handled".
    ///
    /// Better than CF: CF scans every source of the mode, O(n) per pass; this reads the loop's signalled list
    /// (``RefRunLoop/signalledSources``), O(s log s) for the s signalled sources, O(1) and no lock when none is.
    /// Inlined into the pass (its one caller): a call would cost every pass a prologue and an epilogue.
    @inline(__always)
    func performSources0(in mode: LoopMode, stopAfterHandle: Bool) -> Bool {
        // Nothing signalled anywhere in the loop (the second pass of a wake-up that slept, an idle pass): no lock.
        // The flag is read without the list's lock, and no signal a pass must see is missed:
        // - A signal made before a wake-up (signal(), then wakeUp(), usually on another thread) is seen by the pass
        //   that wake-up leads to. The signal's push stores true, sequentially consistent, before the wake-up's claim
        //   on the wait set's gate (WakeGate.claim(), sequentially consistent) in the producer's program order. The
        //   loop's thread takes that claim off the gate before this pass, in a sequentially consistent step of its
        //   wait (WakeGate.beginWait() for a deferred claim, consumeReport() for a written one), and this load is
        //   sequentially consistent too. If the claim set `pending`, the consume reads it;
        //   if it found a wake-up pending and only read the gate, that read precedes the consume of that wake-up.
        //   Either way the store precedes this load in the single order of sequentially consistent steps, so the load
        //   reads it or a later store. A later false is stored only when a change empties the list: on this thread
        //   (a pass taking it) or at teardown, so the source was taken, not lost. A signal on this thread (a perform,
        //   a callout, an observer) is sequenced before, and read for the same reason.
        // - A signal racing with this load (no wake-up ordered between them) may be read as not there yet. It is then
        //   a signal made after this pass collected its sources, for a later pass, as in CF, whose
        //   __CFRunLoopDoSources0 takes one snapshot of the mode's signalled sources and performs those. A signal
        //   does not wake the loop (rule source.signal-does-not-wake), so nothing else promises it to this pass.
        // - Reading true with the list since emptied (by a nested pass) only takes the lock for nothing.
        // The flag only lets the pass skip the lock: what the pass performs is read under the lock.
        guard hasSignalled.load(ordering: .sequentiallyConsistent) else {
            assert(sources0Taken.isEmpty, "the loop thread's buffer of signalled sources is empty between passes")
            return false
        }
        // Take the signalled list: the usual single source alone, two or more as a whole into the loop thread's
        // The list's lock is a leaf lock, so taking it alone first keeps the lock order.
        let only: RefRunLoopSource? = withSignalledLocked { listed in
            guard listed.hasTwoOrMore else { return listed.takeOnly() }
            // The loop's buffer is accessed only here: an access to it in the usual path would cost a dynamic
            // exclusivity check on every pass.
            listed.takeAll(into: &sources0Taken)
            return nil
        }
        if let only = consume only { return performOnlySignalled(only, in: mode) }
        guard !sources0Taken.isEmpty else { return false }
        return performTakenSources0(in: mode, stopAfterHandle: stopAfterHandle)
    }

    /// ``performSources0(in:stopAfterHandle:)`` for two or more sources taken into `sources0Taken`.
    private func performTakenSources0(in mode: LoopMode, stopAfterHandle: Bool) -> Bool {
        // The buffer is taken out while in use: a nested run (from a perform) finds it empty and allocates its own,
        // and this pass puts its (larger) one back at the end.
        var taken = swapOut(&sources0Taken)
        defer {
            taken.removeAll(keepingCapacity: true)
            sources0Taken = taken
        }
        return performSignalled(taken, in: mode, stopAfterHandle: stopAfterHandle)
    }

    /// The common case of one signalled source (a wake-up's). A source whose word names this mode as the only one of
    /// its home holding it (almost every source) has its signal taken with one compare-exchange, without the loop's
    /// lock; any other is checked under the lock, which protects its places. A signal arriving after that is a new
    /// one, for a later pass, exactly as if it had come as the perform started; with `stopAfterHandle` there is
    /// nothing left over.
    private func performOnlySignalled(_ source: RefRunLoopSource, in mode: LoopMode) -> Bool {
        let due: Bool
        if let taken = source.binding.takeSignal(ifOnlyIn: mode) {
            due = taken
        } else {
            due = lock.withLock {
                switch source.standingLocked(for: self, in: mode) {
                case .stale:
                    return false
                case .elsewhere:
                    withSignalledLocked { $0.insertAtFront(source) }
                    return false
                case .due:
                    // An invalidation since the check leaves nothing to take.
                    return source.binding.takeSignal()
                }
            }
        }
        guard due else { return false }
        source.perform()
        return true
    }

    /// Two or more signalled sources: every standing is checked under the loop's lock (one snapshot of the
    /// mode, as CF collects its sources), then each source is performed in order after checking its signal again.
    private func performSignalled(_ taken: [RefRunLoopSource], in mode: LoopMode, stopAfterHandle: Bool) -> Bool {
        var candidates = swapOut(&sources0Candidates)
        defer {
            candidates.removeAll(keepingCapacity: true)
            sources0Candidates = candidates
        }
        lock.withLock {
            var kept: [RefRunLoopSource] = []
            for source in taken {
                switch source.standingLocked(for: self, in: mode) {
                case .stale: break
                case .elsewhere: kept.append(source)
                case .due(let sequence): candidates.append((source, source.order, sequence))
                }
            }
            if !kept.isEmpty { withSignalledLocked { $0.insertAtFront(contentsOf: kept) } }
        }
        guard !candidates.isEmpty else { return false }
        if candidates.count > 1 {
            candidates.sort { $0.order != $1.order ? $0.order < $1.order : $0.sequence < $1.sequence }
            // A source can be listed twice (re-added to a mode while signalled): duplicates sort next to each other,
            // since no two sources share a signal stamp.
            var unique = 0
            for index in candidates.indices
            where unique == 0 || candidates[index].source !== candidates[unique - 1].source {
                candidates[unique] = candidates[index]
                unique += 1
            }
            candidates.removeLast(candidates.count - unique)
            // CF clears a source's signal only when its batch reaches it (__CFRunLoopDoSource0), so a run nested in
            // an earlier perform finds the later sources still signalled and performs them, and the batch then skips
            // them (rule source.signal-belongs-to-source). They go back on the signalled list for such a nested
            // pass; a later pass drops those this batch performs as stale. With `stopAfterHandle` the rest thus stay
            // listed.
            let rest = candidates.dropFirst().map(\.source)
            withSignalledLocked { $0.insertAtFront(contentsOf: rest) }
        }
        var handled = false
        for index in candidates.indices {
            handled = performSource0(candidates[index].source)
            if stopAfterHandle && handled { break }  // the rest stay signalled and listed, for a later pass
        }
        return handled
    }

    /// Moves a buffer out of its property, leaving an empty one without storage. Loop thread only.
    @inline(__always)
    private func swapOut<T>(_ buffer: inout [T]) -> [T] {
        assertOnLoopThread()
        var out: [T] = []
        swap(&out, &buffer)
        return out
    }

    /// __CFRunLoopDoSource0: clears the signal and performs the source if it is still valid (rule
    /// source.batch-snapshot: one invalidated earlier in the batch is skipped; one merely removed is still performed).
    private func performSource0(_ source: RefRunLoopSource) -> Bool {
        guard source.binding.takeSignal() else { return false }
        source.perform()
        return true
    }

    // MARK: Version-1 sources (rule source.v1-port)

    /// __CFRunLoopDoSource1: performs the mode's source for the descriptor the wait returned (its 8 bytes were read
    /// then), if the mode still has one and it is valid. Counts as handled.
    func performSource1(fd: Int32, in mode: LoopMode) -> Bool {
        let source: RefRunLoopSource? = lock.withLock {
            guard let source = mode.sourcesByDescriptor[fd], source.isValid else { return nil }
            return source
        }
        guard let source else { return false }
        source.perform()
        return true
    }

    // MARK: Timers (rules timer.*)

    /// __CFRunLoopDoTimers: snapshots the valid, non-firing timers due now, in (deadline, insertion) order, and fires
    /// each after checking it again (a timer that becomes due during an earlier callout waits for a later pass,
    /// rule timer.due-batch).
    func fireDueTimers(in mode: LoopMode) {
        let now = RefClock.nanoseconds
        let due: [RefRunLoopTimer] = lock.withLock {
            mode.timerBatches += 1
            return mode.timers.due(atOrBefore: now).map(\.payload).filter { timer in
                timer.state.withLocked { _ in timer.validLocked && !timer.firingLocked }
            }
        }
        var fired = false
        for timer in due where fire(timer, in: mode) { fired = true }
        lock.withLock {
            mode.timerBatches -= 1
            // Nothing was due after all (the timer moved meanwhile): arm again for what is left (as CF, __CFRunLoopRun
            // 3199-3210, CFRunLoop.c at swift-6.3.1-RELEASE).
            if !fired { rearmTimerLocked(mode) }
        }
    }

    /// __CFRunLoopDoTimer: one timer's callout and its rescheduling.
    private func fire(_ timer: RefRunLoopTimer, in mode: LoopMode) -> Bool {
        let previousDeadline: UInt64? = lock.withLock {
            // A firing timer is left out of arming in every mode that holds it (rule
            // timer.firing-skipped-by-nested-run); the firing mode is armed for the next one, as CF does before the
            // callout. The other modes keep their arming until something else changes their timers, as in CF.
            let start: UInt64? = timer.state.withLocked { state in
                guard timer.validLocked, !timer.firingLocked, state.binding.isBound(to: self),
                    state.deadline <= RefClock.nanoseconds
                else { return nil }
                timer.firingLocked = true
                for place in state.entries { place.mode.timers.suspend(place.node) }
                return state.deadline
            }
            guard let start else { return nil }
            rearmTimerLocked(mode)
            return start
        }
        guard let previousDeadline else { return false }
        timer.callout(timer)
        // A one-shot timer is invalidated even if its callout set a new fire date (rule timer.one-shot-invalidated).
        if !timer.repeats { timer.invalidate() }
        lock.withLock {
            let interval = timer.interval
            typealias Outcome = (
                reposition: (deadline: UInt64, hard: UInt64)?, bound: Bool, places: RefRunLoopTimer.Places
            )
            let (reposition, bound, places): Outcome = timer.state.withLocked { state in
                timer.firingLocked = false
                let bound = state.binding.isBound(to: self)
                guard timer.validLocked else { return (nil, bound, state.entries) }
                // A new fire date set in the callout is honoured only if it is later than the one that fired.
                if previousDeadline < state.deadline { return (nil, bound, state.entries) }
                let next = Self.nextGridDeadline(after: previousDeadline, interval: interval, now: RefClock.nanoseconds)
                state.deadline = next
                state.fireDate = Double(next) / 1e9
                let hard = TimerTolerance.hardDeadline(deadline: next, window: state.windowNanoseconds)
                return ((deadline: next, hard: hard), bound, state.entries)
            }
            // Armable again (an invalidated timer has left its queues already). The places are the loop's to change
            // while the timer is still bound to it: its lock, held, protects the modes' queues. A timer the callout
            // moved to another loop has that loop's places, none of them suspended, and that loop's lock protects them.
            if bound { for place in places { place.mode.timers.resume(place.node) } }
            guard let reposition, bound else {
                rearmTimerLocked(mode)
                return
            }
            for place in places {
                let holder = place.mode
                holder.timers.reschedule(place.node, deadline: reposition.deadline, hardDeadline: reposition.hard)
                rearmTimerLocked(holder)
            }
        }
        return true
    }

    /// The repeating-timer grid (rule timer.repeat-keeps-phase): previous + k × interval for the smallest k >= 1 that
    /// is after `now`, so missed fires are skipped and the phase is kept. The interval is clamped to CF's limit (rule
    /// timer.repeat-keeps-phase).
    static func nextGridDeadline(after previous: UInt64, interval: Double, now: UInt64) -> UInt64 {
        let step = max(RefClock.nanoseconds(fromSeconds: min(interval, RefClock.intervalLimit)), 1)
        if UInt64(Int64.max) - step <= previous { return UInt64(Int64.max) }
        guard now >= previous else { return previous + step }
        let steps = (now - previous) / step + 1
        let (product, overflow) = steps.multipliedReportingOverflow(by: step)
        if overflow { return UInt64(Int64.max) }
        let (next, overflow2) = previous.addingReportingOverflow(product)
        return overflow2 ? UInt64(Int64.max) : next
    }
}
