// Running: CFRunLoopRunSpecific and __CFRunLoopRun. The pass reads as rule order.pass-phases, steps a-m.

/// How a pass's wait ended: the one live port it handles (rule order.pass-phases).
enum LivePort {
    /// Timeout, poll with nothing ready, or a wake-up: nothing to handle.
    case none
    /// The timerfd expired with timers due.
    case timer
    /// A version-1 descriptor of the mode became readable; its 8 bytes are read already.
    case source1(fd: Int32)
    /// The main dispatch queue's eventfd became readable (main loop only); its count is read already.
    case mainQueue
}

extension RefRunLoop {
    /// CFRunLoopRunInMode: runs the loop in `mode` until a result applies.
    ///
    /// - `seconds` <= 0 makes exactly one pass (a poll); a huge value (over about 16 years), +infinity or NaN means
    ///   no timeout (rules timeout.poll, timeout.finite, timeout.infinite).
    /// - Returns `.finished` at once, without Entry or Exit, for `.common`, a mode named "kCFRunLoopCommonModes", a
    ///   missing mode or an empty one (rules run.common-modes-refused, run.empty-mode-finished).
    /// - May be called from a callout of this loop (a nested run, in any mode).
    ///
    /// Must be called on the loop's thread.
    public func run(mode: RefRunLoopMode, seconds: Double, returnAfterSourceHandled: Bool) -> RefRunLoopResult {
        precondition(isCurrentThread, "RefRunLoop.run must be called on the loop's own thread (use RefRunLoop.current)")
        guard case .named(let name) = mode, name != RefRunLoopMode.commonModesName else { return .finished }
        let frame: RunFrame? = lock.withLock {
            guard lifecycle == .open, let mode = modeLocked(name, create: false), !isEmptyLocked(mode) else {
                return nil
            }
            let frame = RunFrame(mode: mode)
            frame.checkedEpoch = exitEpoch.load(ordering: .relaxed)  // the mode is not empty, as checked just now
            frames.append(frame)
            followInnermostRun()
            return frame
        }
        guard let frame else { return .finished }
        notifyObservers(.entry, in: frame.mode)
        let result = runPasses(frame, seconds: seconds, returnAfterSourceHandled: returnAfterSourceHandled)
        lock.withLock { frame.stopClock() }
        notifyObservers(.exit, in: frame.mode)
        lock.withLock {
            let popped = frames.popLast()
            precondition(popped === frame, "internal bug: run frames popped out of order")
            followInnermostRun()
        }
        return result
    }

    /// CFRunLoopRun: runs the default mode until it is stopped or finished (rule run.until-stopped-or-finished). Loop
    /// thread.
    public func run() {
        while true {
            let result = run(mode: .default, seconds: 1e10, returnAfterSourceHandled: false)
            if result == .stopped || result == .finished { return }
        }
    }

    /// The monotonic time a run ends: 0 for a poll, `.max` for none (rules timeout.poll, timeout.finite,
    /// timeout.infinite).
    static func termination(start: UInt64, seconds: Double) -> UInt64 {
        if seconds <= 0 { return 0 }
        if seconds <= RefClock.intervalLimit {
            return TimerTolerance.hardDeadline(deadline: start, window: RefClock.nanoseconds(fromSeconds: seconds))
        }
        return .max  // larger than the limit, +infinity, or NaN (every comparison above is false)
    }

    /// __CFRunLoopRun: passes until one of the four results applies.
    private func runPasses(_ frame: RunFrame, seconds: Double, returnAfterSourceHandled stopAfterHandle: Bool)
        -> RefRunLoopResult
    {
        // The timeout counts from here, after the Entry observers, as in CF.
        let start = RefClock.nanoseconds
        // A stop requested before the first pass (in the Entry observer, say) is consumed at once (rule
        // stop.before-first-pass).
        if let early = startPasses(frame, termination: Self.termination(start: start, seconds: seconds)) {
            return early
        }
        let mode = frame.mode
        let modeSet = mode.waitSet
        frame.mainQueueFD = isMain ? mainQueueDescriptor(for: mode) : -1
        let poll0 = frame.termination == 0
        while true {
            count(passCounter)
            // a. wake-ups count again from here until the wait returns: done by the check that let this pass start
            //    (startPasses for the first, exitCheck at step m for the others), as nothing runs between that check
            //    and here
            // b. BeforeTimers, then BeforeSources (timers do not fire here: rule order.timers-fire-after-wait)
            notifyObservers(.beforeTimers, in: mode)
            notifyObservers(.beforeSources, in: mode)
            // c. blocks
            performBlocks(in: mode)
            // d. version-0 sources, then blocks again if one was performed
            var handled = performSources0(in: mode, stopAfterHandle: stopAfterHandle)
            if handled { performBlocks(in: mode) }
            // e. poll when a source was handled or the run has no timeout
            let poll = handled || poll0
            // f. the main-queue fast path (main loop only): a main queue ready at the top of the pass is serviced
            //    without BeforeWaiting, the wait and AfterWaiting, unless the last pass serviced it
            //    (rule main.queue-fast-path)
            let live: LivePort
            if frame.mainQueueFD >= 0 && !frame.servicedMainQueueLastTime && mainQueueReadyNow(frame.mainQueueFD) {
                ignoreWakeUps(frame, true)
                live = .mainQueue
            } else {
                frame.servicedMainQueueLastTime = false
                // g. BeforeWaiting, only when about to sleep (rule order.wait-observers-skipped-on-poll)
                if !poll { notifyObservers(.beforeWaiting, in: mode) }
                // h-i. sleep (or poll) until one live port; wake-ups are ignored from its return
                live = waitForLivePort(
                    frame, in: modeSet, poll: poll, afterHandledSource: handled && !stopAfterHandle && !poll0)
                // j. AfterWaiting, paired with BeforeWaiting (rule order.wait-observers-paired)
                if !poll { notifyObservers(.afterWaiting, in: mode) }
            }
            // k. handle the one live port
            switch live {
            case .none:
                break
            case .timer:
                fireDueTimers(in: mode)
            case .source1(let fd):
                handled = performSource1(fd: fd, in: mode) || handled
            case .mainQueue:
                serviceMainQueue()
                handled = true
                frame.servicedMainQueueLastTime = true
            }
            // l. blocks
            performBlocks(in: mode)
            // m. the exit checks, in CF's order (rule result.check-order)
            if let result = exitCheck(frame, handled: handled, stopAfterHandle: stopAfterHandle) { return result }
        }
    }

    /// Starts the run's clock and consumes a stop requested before the first pass; when there is none, does step a
    /// of the first pass (wake-ups count again). One acquisition of `lock`.
    private func startPasses(_ frame: RunFrame, termination: UInt64) -> RefRunLoopResult? {
        lock.withLock {
            frame.startClock(termination: termination)
            updateDeferralLocked()
            if consumeStopLocked(frame) { return .stopped }
            ignoreWakeUps(frame, false)  // step a of the first pass
            return nil
        }
    }

    /// Rule result.check-order: HandledSource, then TimedOut, then the run's stop flag, then the mode's, then Finished if empty.
    /// When the run goes on, also does step a of the next pass.
    ///
    /// The stop flags and the mode's emptiness need `lock`, unless nothing that could set them changed since this
    /// run last looked (`exitEpoch` equals the frame's `checkedEpoch`): then the check takes no lock.
    /// Inlined into the pass (its one caller): a call would cost the pass a prologue and an epilogue.
    @inline(__always)
    private func exitCheck(_ frame: RunFrame, handled: Bool, stopAfterHandle: Bool) -> RefRunLoopResult? {
        if handled && stopAfterHandle { return .handledSource }
        // A run without timeout (.max) cannot time out: no clock read.
        let termination = frame.termination
        if termination != .max && termination < RefClock.nanoseconds { return .timedOut }
        if exitEpoch.load(ordering: .sequentiallyConsistent) == frame.checkedEpoch {
            // Step a first, then the epoch again: a stop() that bumps the epoch after this second look finds the gate
            // open and its wake-up taken (both sides are sequentially consistent), so no stop is slept through.
            ignoreWakeUps(frame, false)
            if exitEpoch.load(ordering: .sequentiallyConsistent) == frame.checkedEpoch { return nil }
        }
        return lock.withLock {
            frame.checkedEpoch = exitEpoch.load(ordering: .relaxed)  // every bump is made under `lock`
            updateDeferralLocked()
            let result: RefRunLoopResult? =
                consumeStopLocked(frame) ? .stopped : isEmptyLocked(frame.mode) ? .finished : nil
            ignoreWakeUps(frame, result != nil)  // step a of the next pass when the run goes on
            return result
        }
    }

    /// Consumes the run's stop flag, else the mode's (rules result.check-order, stop.before-first-pass,
    /// stop.consumed-or-discarded, stop.mode-flag): true if either was set. Caller holds `lock`.
    private func consumeStopLocked(_ frame: RunFrame) -> Bool {
        lock.assertHeld()
        if frame.stopped {
            frame.stopped = false
            return true
        }
        if frame.mode.stopped {
            frame.mode.stopped = false
            return true
        }
        return false
    }

    /// __CFRunLoopModeIsEmpty (rule empty.what-counts): no source, no timer, no pending block for it. Observers do not
    /// count. On the main loop a common mode is never empty outside a main-queue callout: it stands for the main
    /// dispatch queue (rule main.common-mode-never-empty). Caller holds `lock`; loop thread.
    func isEmptyLocked(_ mode: LoopMode) -> Bool {
        lock.assertHeld()
        if isMain && servesMainQueueLocked(mode) { return false }
        if mode.hasSourcesOrTimers { return false }
        let isCommon = commonModes.contains(mode.name)
        return !blocks.contains { $0.matches(mode.name, isCommon: { isCommon }) }
    }

    // MARK: Stop (any thread)

    /// CFRunLoopStop: ends the innermost run with `.stopped` at its next check, and wakes the loop. Does nothing when
    /// the loop is not running (rule stop.only-during-run). Any thread.
    public func stop() {
        let running: Bool = lock.withLock {
            guard lifecycle == .open, let frame = frames.last else { return false }
            frame.stopped = true
            exitConditionsChangedLocked()
            return true
        }
        if running { wakeUp() }
    }

    /// _CFRunLoopStopMode: a persistent request that the next check in `mode` returns `.stopped`, ranked below a run
    /// stop (rule stop.mode-flag). Creates the mode if needed, and wakes the loop. Any thread.
    public func stop(mode name: String) {
        lock.withLock {
            guard lifecycle == .open else { return }
            modeLocked(name, create: true)?.stopped = true
            exitConditionsChangedLocked()
        }
        wakeUp()
    }
}
