// Timer arming: each mode's timerfd follows the coalesced wake-up time of the mode's timers (rule
// timer.port-in-wait-set), whichever thread changes them, and timers move to new dates and tolerances through here.
// The wait (RefRunLoop+Wait.swift) reports the timerfd; firing (RefRunLoop+Phases.swift) leaves a firing timer out of
// arming and re-arms; each mode's TimerQueue keeps the earliest cap, the wake-up time.

#if canImport(Glibc)
import Glibc
#endif

extension RefRunLoop {
    // MARK: Moving timers (called by RefRunLoopTimer)

    /// Moves a timer of this loop to a new date in all its modes. Returns false if the timer is not in this loop
    /// any more (the caller retries).
    func rescheduleTimer(_ timer: RefRunLoopTimer, fireDate: Double, deadline: UInt64) -> Bool {
        lock.withLock {
            defer { checkInvariantsAfterChangeLocked() }
            let moved: (hard: UInt64, places: RefRunLoopTimer.Places)?? = timer.state.withLocked { state in
                guard state.binding.isBound(to: self) else { return nil }
                guard timer.validLocked else { return .some(nil) }
                state.fireDate = fireDate
                state.deadline = deadline
                return (TimerTolerance.hardDeadline(deadline: deadline, window: state.windowNanoseconds), state.entries)
            }
            guard let moved else { return false }
            guard let (hard, places) = moved else { return true }
            // The places are the loop's to change: its lock, held, protects the modes' queues.
            for place in places {
                let mode = place.mode
                mode.timers.reschedule(place.node, deadline: deadline, hardDeadline: hard)
                rearmTimerLocked(mode, changed: true)
            }
            return true
        }
    }

    /// Stores a new tolerance and widens or narrows the timer's windows. Returns false if the timer left the loop.
    func setTimerTolerance(_ timer: RefRunLoopTimer, _ value: Double) -> Bool {
        lock.withLock {
            defer { checkInvariantsAfterChangeLocked() }
            let interval = timer.interval
            let changed: (hard: UInt64, places: RefRunLoopTimer.Places)? = timer.state.withLocked { state in
                guard state.binding.isBound(to: self) else { return nil }
                state.storedTolerance = TimerTolerance.clamped(value, interval: interval)
                let hard = TimerTolerance.hardDeadline(deadline: state.deadline, window: state.windowNanoseconds)
                return (hard, state.entries)
            }
            guard let (hard, places) = changed else { return false }
            for place in places {
                let mode = place.mode
                mode.timers.setHardDeadline(place.node, hard)
                rearmTimerLocked(mode, changed: true)
            }
            return true
        }
    }

    // MARK: Arming

    /// Arms the mode's timerfd at the coalesced wake-up time of its timers, or disarms it when it has none, whichever
    /// thread changed them and whether or not the mode is running (so a timer added from another thread fires on time
    /// without a wake-up, rule timer.port-in-wait-set, and the order in which a due timer and a readable descriptor
    /// are reported is CF's). Makes the system call only when the time changes; an expired timerfd needs no disarming
    /// (its expiry was reported already). O(1) besides the system call. Caller holds `lock`.
    ///
    /// On the loop's own thread, a move to a later time is deferred to the loop's next wait in that mode
    /// (``WaitSet/ModeSet/rearmPending``; `mayDefer` false forces it): until then the timerfd stays armed at the earlier time,
    /// and only a wait in the mode could tell, so adding and removing many timers costs no system call per change.
    /// A move to an earlier time, a disarm and every change from another thread (the loop may be asleep) are made at
    /// once.
    ///
    /// Inlined: most changes leave the wake-up time where it was (a timer added behind the first, one removed from
    /// behind it), and then the call returns after three reads.
    @inline(__always)
    func rearmTimerLocked(_ mode: LoopMode, mayDefer: Bool = true, changed: Bool = false) {
        lock.assertHeld()
        // The wake-up time has not moved since the last computation below (the queue is settled: since then, only
        // insertions and removals that left both firsts in place, and no tolerant entry, TimerQueue.isSettled), and
        // that computation left the timerfd armed at it or its move deferred; since then only an expiry (armed 0) can
        // have changed the arming. Then the rest would change nothing: armed at the time, it finds it equal;
        // deferred, it defers again on the loop's thread (the flag is set already). Only another thread, or a forced
        // call, makes a pending move at once, so those go on.
        let set = mode.waitSet
        if mode.timers.isSettled, set.armedDeadline != 0,
            !set.rearmPending.load(ordering: .relaxed) || (mayDefer && isDeferringThread(of: set))
        {
            return
        }
        rearmTimerFromWakeTimeLocked(mode, mayDefer: mayDefer, changed: changed)
    }

    /// ``rearmTimerLocked(_:mayDefer:changed:)`` once the wake-up time may have moved: computes it and arms, defers or
    /// leaves the timerfd as that function says. Caller holds `lock`.
    private func rearmTimerFromWakeTimeLocked(_ mode: LoopMode, mayDefer: Bool, changed: Bool) {
        lock.assertHeld()
        guard lifecycle == .open else { return }
        let set = mode.waitSet
        let desired = wakeTimeLocked(for: mode, changed: changed)
        mode.timers.settle()
        guard desired != set.armedDeadline else {
            set.rearmPending.store(false, ordering: .relaxed)
            return
        }
        let pending = set.rearmPending.load(ordering: .relaxed)
        if mayDefer, let desired, let armed = set.armedDeadline, armed != 0, armed < desired,
            pending ? isDeferringThread(of: set) : isCurrentThread
        {
            // CF re-arms now. Whether the armed time has passed at this moment (read once per deferral, not per
            // change) tells, when the re-arming is made, whether an expiry at that time is one CF's timerfd made too.
            if !pending {
                set.deferringThread = pthread_self()
                set.armedTimePassedAtDeferral = armed <= RefClock.nanoseconds
                set.rearmPending.store(true, ordering: .relaxed)
            }
            return
        }
        let deferred = pending
        set.rearmPending.store(false, ordering: .relaxed)
        let now = RefClock.nanoseconds
        // The armed time passed after the deferral: its expiry, which CF's timerfd (re-armed at the deferral) never
        // made, may be queued ahead of what became ready since. Its entry is put back after the arming, at the tail
        // if the new time has passed too (then behind a port that became ready after that time as well, where CF's
        // is ahead of it: the one order this cannot restore) (case timer.deferred-rearm.expiry-after-deferral).
        let requeue =
            deferred && !set.armedTimePassedAtDeferral
            && set.armedDeadline.map { armed in armed != 0 && armed <= now } == true
        // Writes a deferred wake-up first when arming (its edge goes first), and notes the expiries that may be queued;
        // then claims may be deferred again, until the new arming's time (RefRunLoop+Wait.swift, WakeGate).
        waitSet.arm(set, at: desired, now: now)
        if requeue { set.requeueTimer() }
        updateDeferralLocked()
    }

    /// Whether the caller is the thread that deferred the pending move of `set`'s arming, which is the loop's thread
    /// (only it defers, and a loop's thread outlives every deferral of its loop: its exit closes the loop, and the
    /// main loop's thread is the process's). Meaningful only while the move is pending. Caller holds `lock`.
    @inline(__always)
    private func isDeferringThread(of set: WaitSet.ModeSet) -> Bool {
        pthread_equal(set.deferringThread, pthread_self()) != 0
    }

    /// The mode's wake-up time: the earliest cap of its timers that are not firing (``TimerQueue/earliestCap``), nil
    /// when there is none; but at once (the earliest deadline) when the timers were `changed` (added, removed, moved,
    /// given a tolerance) and the earliest is due already and not firing, and no batch of fires is under way in the
    /// mode (``LoopMode/timerBatches``). Tolerance delays a wake-up still to come, not a timer found due when the
    /// timers change, which fires at the next wait or poll as on CF (which stores no tolerance on Linux); the timers
    /// that come due while a batch fires wait for their cap, so batches stay whole. O(1). Caller holds `lock`.
    ///
    /// The earliest cap is never before the earliest deadline (a cap is its entry's deadline or later), so when the two
    /// are equal (no tolerance, the usual case) the answer is the same either way and the clock is not read.
    func wakeTimeLocked(for mode: LoopMode, changed: Bool = false) -> UInt64? {
        lock.assertHeld()
        // Both read in one access in place, before the clock call (see wakeUpTimes).
        let (cap, first) = mode.timers.wakeUpTimes(withFirst: changed)
        if let first, mode.timerBatches == 0, first != cap, first <= RefClock.nanoseconds {
            return first
        }
        return cap
    }
}
