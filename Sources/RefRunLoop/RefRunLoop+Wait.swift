// Sleeping and waking as CF defines them: the OS wait of a pass (rule order.pass-phases), which port it reports and
// when wake-ups count, and CFRunLoopWakeUp. The kernel objects and their edge accounting are the wait set
// (WaitSet.swift); arming the timerfd the wait reports is in RefRunLoop+TimerArming.swift.

import CRunLoopSystem
import Glibc

extension RefRunLoop {
    /// CFRunLoopWakeUp: makes the current or next wait return. Ignored while the loop is not running, and between the
    /// return of a wait and the top of the next pass (rule wakeup.ignored-outside-wait); coalesces with a wake-up not
    /// yet reported (rule wakeup.coalesce). A wake-up never ends a run by itself (rule wakeup.idle-pass). Any thread.
    ///
    /// Lock-free: the decision is one atomic step on the wait set's gate (``WakeGate/claim()``), which marks the write
    /// as pending before it is made, so a report of the write always finds it pending. While the loop is awake and its
    /// wait sets can queue no other edge before the deferral horizon (the armed timerfd's time), the claim is deferred
    /// instead: no write, and the next wait reports it without a system call (``WakeGate``, which also says why that
    /// never reports it out of order with a timer's expiry).
    public func wakeUp() {
        waitSet.wake()
    }

    /// Claims may be deferred while this loop's wait sets can queue no edge but the wake-up eventfd's before a known
    /// time, the deferral horizon: it is not the main loop (whose wait takes the main queue's descriptor), it has one
    /// mode (a new mode's set would get the eventfd's edge when created), with no descriptor and no expiry of its
    /// timerfd queued; the horizon is the time the timerfd is armed at (none when disarmed), and one already passed
    /// allows nothing (its expiry may be queued: every claim would be written anyway). Sets the gate accordingly.
    /// Caller holds `lock`.
    func updateDeferralLocked() {
        lock.assertHeld()
        var horizon: UInt64? = nil
        if !isMain && lifecycle == .open && modes.count == 1, let quiet = defaultMode.waitSet.deferralHorizon {
            horizon = quiet == .max || RefClock.nanoseconds < quiet ? quiet : nil
        }
        waitSet.setDeferral(before: horizon, in: defaultMode.waitSet)
    }

    /// Before a change that could queue an edge other than the wake-up eventfd's (a mode created, a descriptor added,
    /// a timerfd armed): no claim is deferred from now, and one deferred already is written now, so that its edge
    /// comes first, as the write CF makes at once would. Caller holds `lock`.
    func disallowDeferralLocked() {
        lock.assertHeld()
        waitSet.setDeferral(before: nil, in: defaultMode.waitSet)
    }

    /// Sets whether `frame`, the innermost run, ignores wake-ups, and the gate with it. Loop thread only.
    func ignoreWakeUps(_ frame: RunFrame, _ ignore: Bool) {
        assertOnLoopThread()
        frame.ignoreWakeUps = ignore
        if ignore { waitSet.gate.close() } else { waitSet.gate.open() }
    }

    /// After a run starts or ends: the gate follows the new innermost run (closed when none runs). Loop thread only.
    func followInnermostRun() {
        assertOnLoopThread()
        if let innermost = frames.last, !innermost.ignoreWakeUps { waitSet.gate.open() } else { waitSet.gate.close() }
    }

    /// Steps h and i of a pass: set the waiting flag, wait for one live port (at once when polling), then ignore
    /// wake-ups until the next pass.
    ///
    /// A wake-up report takes no lock (``WakeGate/consumeReport()``); a timer or descriptor report takes `lock` once
    /// to look at the mode. The timeout needs only the run frames and their clocks, which only this (the loop's)
    /// thread writes, so it reads them without the lock.
    ///
    /// `set` is `frame.mode.waitSet` (both immutable), which the caller (runPasses) holds for the whole run: read
    /// here from the frame, it would cost a retain and a release on every wait. `afterHandledSource`: this is the poll
    /// after a handled source in a run that goes on after the pass (not a poll run, not returnAfterSourceHandled),
    /// which spin-then-park may hold (``holdBeforePoll(_:_:)``).
    ///
    /// The system call and its reports are a function of their own (``waitInKernel(_:_:poll:waitStart:)``): a wake-up
    /// consumed without one, and a poll that skips it, pay for no frame that size.
    func waitForLivePort(_ frame: RunFrame, in set: WaitSet.ModeSet, poll: Bool, afterHandledSource: Bool) -> LivePort {
        assertOnLoopThread()
        // A later arming this thread deferred is made now, before the mode's wait set is looked at.
        if set.rearmPending.load(ordering: .relaxed) { lock.withLock { rearmTimerLocked(frame.mode, mayDefer: false) } }
        // The hand-off hold: part of the poll, before it looks at anything (WaitPolicy.swift).
        if afterHandledSource { holdBeforePoll(frame, set) }
        // Spin-then-park: the spin is part of the wait (WaitPolicy.swift, WaitSet.spin).
        let (waitStart, spun) = poll ? (start: 0, spun: false) : spinBeforeWaiting(frame, set)
        if waitSet.beginWait(set) {
            // A deferred wake-up, consumed without a system call.
            count(wakeUpCounter)
            count(deferredWakeUpCounter)
            frame.ignoreWakeUps = true
            if spun { sleeping.store(false, ordering: .releasing) }
            if waitStart != 0 { noteWakeUp(since: waitStart) }
            return .none
        }
        if poll {
            waitSet.awaitWriteInFlight()
            if frame.mainQueueFD < 0 && waitSet.pollWouldReportNothing(set) {
                // The poll's system call is skipped: it could report nothing and would leave the ready list as it is.
                // Wake-ups are ignored from here and the wait is over (ignoreWakeUps and endWait in one step).
                frame.ignoreWakeUps = true
                waitSet.gate.closeAndEndWait()
                return .none
            }
        }
        return waitInKernel(frame, set, poll: poll, waitStart: waitStart)
    }

    /// The wait's system call and its reports, for ``waitForLivePort(_:in:poll:afterHandledSource:)`` once the gate
    /// marks the loop waiting; ends the wait. `waitStart` is the spin's (0 when it did not run). Loop thread.
    private func waitInKernel(_ frame: RunFrame, _ set: WaitSet.ModeSet, poll: Bool, waitStart: UInt64) -> LivePort {
        sleeping.store(true, ordering: .releasing)
        // The main queue's eventfd is in the mode's set for this wait only, as CF inserts and removes its dispatch
        // port around each wait: a run nested in another mode must not see it, nor a later run of this mode that
        // does not service the queue. Added edge-triggered, it is reported at once if readable already.
        let mainQueueFD = frame.mainQueueFD
        if mainQueueFD >= 0 {
            set.insertForOneWait(mainQueueFD)
        }
        // The wait's end, in this order after every report below: the main queue's eventfd out of the set, the
        // waiting flag cleared, the gate's wait ended. Written out after the loop, not deferred (the optimizer made a
        // call of the deferred block on every wait), so every report leaves the loop by `break waiting`; a debug
        // build checks that each exit of this function went through the wait's end.
        #if DEBUG
        var waitEnded = false
        defer { precondition(waitEnded, "internal bug: a wait returned without ending (waitInKernel: break waiting)") }
        #endif
        let live: LivePort
        waiting: while true {
            let report = waitSet.waitForOne(set, timeoutNanoseconds: poll ? 0 : waitTimeout())
            count(wakeUpCounter)
            switch report {
            case .timeout:
                // Timeout: the run's deadline (or an outer run's) passed; CF's timeout timer would have called
                // WakeUp once (rule timeout.finite).
                if !poll { lock.withLock { markTimeoutsDeliveredLocked() } }
                ignoreWakeUps(frame, true)
                live = .none
                break waiting
            case .wakeUp:
                frame.ignoreWakeUps = true
                if waitStart != 0 { noteWakeUp(since: waitStart) }
                live = .none
                break waiting
            case .staleWakeUp:
                // An edge another mode's set kept, with no wake-up pending: absorbed.
                continue
            case .oneWait:
                // CF reads the eventfd when its wait reports it; nothing to read means another reader took it.
                let drained: UInt64?
                do { drained = try EventFD.read(mainQueueFD) } catch { drained = nil }
                ignoreWakeUps(frame, true)
                live = drained == nil ? .none : .mainQueue
                break waiting
            case .timer, .descriptor:
                guard let classified = lock.withLock({ classifyLocked(report, mode: frame.mode) }) else {
                    // Absorbed: not for this mode (or stale). Wait again (a poll polls again: each report comes
                    // once, so this ends), as if the report had never reached this mode's wait set.
                    continue
                }
                ignoreWakeUps(frame, true)
                live = classified
                break waiting
            }
        }
        if mainQueueFD >= 0 { set.removeAfterWait(mainQueueFD) }
        sleeping.store(false, ordering: .releasing)
        waitSet.endWait()
        #if DEBUG
        waitEnded = true
        #endif
        return live
    }

    /// Spin-then-park's spin, after BeforeWaiting and before the wait (``WaitPolicy``): when the policy spins and
    /// the governor says this wait should (``SpinGovernor``), marks the loop waiting (CFRunLoopIsWaiting: the spin
    /// counts as sleeping, so the observer trace and IsWaiting are those of parking) and polls the gate until a
    /// wake-up is claimed, the budget is spent, or another port may be ready (``WaitSet/spin(_:until:)``, which says
    /// why no wake-up can be lost). Spins only where nothing but a wake-up can end the wait before the spin does: no
    /// main-queue descriptor in the wait, no descriptor in the set, no timerfd expiry queued, and not past the
    /// set's quiet time or the run's deadline, which bound the spin. Returns when the wait began (0 when the policy
    /// parks: the governor is not fed) and whether it spun (then `sleeping` is set). Loop thread.
    /// Inlined up to the policy's check, so a parking loop pays no call.
    @inline(__always)
    private func spinBeforeWaiting(_ frame: RunFrame, _ set: WaitSet.ModeSet) -> (start: UInt64, spun: Bool) {
        let maxSpin = maxSpinNanoseconds.load(ordering: .relaxed)
        guard maxSpin > 0 else { return (0, false) }
        return spinBeforeWaiting(frame, set, maxSpin: maxSpin)
    }

    /// ``spinBeforeWaiting(_:_:)`` when the policy spins (`maxSpin` > 0). Loop thread.
    private func spinBeforeWaiting(_ frame: RunFrame, _ set: WaitSet.ModeSet, maxSpin: UInt64) -> (
        start: UInt64, spun: Bool
    ) {
        let now = RefClock.nanoseconds
        guard frame.mainQueueFD < 0, set.timerEdges.load(ordering: .acquiring) & 1 == 0 else { return (now, false) }
        let waker = waitSet.lastWakerCPU.load(ordering: .relaxed)
        let budget =
            spinsEveryWait
            ? maxSpin
            : spinGovernor.spinBudget(
                now: now, maxSpin: maxSpin, wakerOnThisCPU: waker >= 0 && waker == csystem_current_cpu())
        guard budget > 0 else { return (now, false) }
        var deadline = now &+ budget
        if let timeout = waitTimeout() { deadline = min(deadline, now &+ timeout) }
        guard deadline > now, set.quietUntil.load(ordering: .acquiring) > now else { return (now, false) }
        sleeping.store(true, ordering: .releasing)  // CFRunLoopIsWaiting: the spin is part of the wait
        if waitSet.spin(set, until: deadline) == .claimed { count(spinCaughtCounter) }
        return (now, true)
    }

    /// The hand-off hold (``handOffHold``), before the poll that follows a handled source, with either wait policy:
    /// when a wake-up is pending (work was handed over while the pass ran) and its claimer ran on another CPU (it can
    /// go on handing work over meanwhile), the poll first waits, without a system call, so that the hand-offs gather
    /// into one batch for the next pass instead of a batch per pass. With REF_RUNLOOP_SPIN=every
    /// (``WaitPolicy/spinsEveryWait``) it holds before every such poll, pending wake-up or not. Bounded as the spin
    /// is (``WaitSet/hold(_:until:)``): no main-queue descriptor in the wait, no descriptor in the set, no timerfd
    /// expiry queued, and not past the set's quiet time or the run's deadline. It only delays the poll, as a
    /// descheduled loop thread would: the poll then reports what it would have reported at that time. The loop is not
    /// waiting meanwhile (CFRunLoopIsWaiting stays false, as in any poll). Loop thread.
    /// Inlined up to the decision to hold, so a poll that does not hold pays no call.
    @inline(__always)
    private func holdBeforePoll(_ frame: RunFrame, _ set: WaitSet.ModeSet) {
        let length = handOffHoldNanoseconds.load(ordering: .relaxed)
        guard length > 0, frame.mainQueueFD < 0, set.timerEdges.load(ordering: .acquiring) & 1 == 0 else { return }
        if !spinsEveryWait {
            // The count before the claims: see WakeGate.allWritten.
            guard waitSet.gate.reportable(writes: waitSet.writes.load(ordering: .sequentiallyConsistent)) else {
                return
            }
            let waker = waitSet.lastWakerCPU.load(ordering: .relaxed)
            guard waker < 0 || waker != csystem_current_cpu() else { return }
        }
        hold(set, length: length)
    }

    /// ``holdBeforePoll(_:_:)`` once it holds: for `length` nanoseconds at most, within its bounds. Loop thread.
    private func hold(_ set: WaitSet.ModeSet, length: UInt64) {
        let now = RefClock.nanoseconds
        var deadline = now &+ length
        if let timeout = waitTimeout() { deadline = min(deadline, now &+ timeout) }
        guard deadline > now, set.quietUntil.load(ordering: .acquiring) > now else { return }
        count(holdCounter)
        waitSet.hold(set, until: deadline)
    }

    /// A wait that began at `waitStart` was ended by a wake-up: the governor learns the gap. Loop thread.
    private func noteWakeUp(since waitStart: UInt64) {
        spinGovernor.noteWakeUp(
            waitStart: waitStart, now: RefClock.nanoseconds, maxSpin: maxSpinNanoseconds.load(ordering: .relaxed))
    }

    /// What a timer or descriptor report means for the running mode, or nil if it is to be absorbed. Caller holds
    /// `lock`.
    private func classifyLocked(_ report: WaitSet.Report, mode: LoopMode) -> LivePort? {
        lock.assertHeld()
        switch report {
        case .timer:
            // The timerfd is one-shot: it has expired, and its expiry count stays set until it is set again. It is
            // the pass's live port even when nothing is due (the mode's timer is firing in an outer run, so arming
            // left it armed at that timer's date, as CF's arming does for the modes other than the firing one): CF
            // handles that port, fires nothing and re-arms (__CFRunLoopRun 3199-3210, CFRunLoop.c at
            // swift-6.3.1-RELEASE), so a descriptor that became ready after it waits for the next pass
            // (fireDueTimers re-arms).
            mode.waitSet.noteExpiryReported()
            return .timer
        case .descriptor(let fd):
            guard mode.sourcesByDescriptor[fd] != nil else { return nil }
            // CF acknowledges the descriptor as soon as the wait returns, before AfterWaiting (it reads 8 bytes in
            // __CFRunLoopServiceFileDescriptors) and looks the source up only afterwards: an AfterWaiting observer
            // that removes the source loses the event. Nothing to read: another reader took it; nothing to handle.
            let drained: UInt64?
            do { drained = try EventFD.read(fd) } catch { drained = nil }
            return drained == nil ? LivePort.none : .source1(fd: fd)
        case .timeout, .wakeUp, .staleWakeUp, .oneWait:
            preconditionFailure("internal bug: \(report) is not a timer or descriptor report")
        }
    }

    /// The wait's timeout: until the earliest run deadline that has not woken the loop yet (an outer run's deadline
    /// wakes a nested run once, as CF's timeout timer does), or this run's own deadline in any case; nil for none.
    ///
    /// Better than CF: when an outer run's single timeout wake-up was spent inside a nested run, CF's outer run then
    /// sleeps past its deadline, possibly forever; here its own deadline always bounds its wait.
    /// Loop thread only (it alone writes `frames` and the frames' clocks, so it reads them without `lock`).
    private func waitTimeout() -> UInt64? {
        assertOnLoopThread()
        var earliest = UInt64.max
        for frame in frames where !frame.timeoutDelivered {
            earliest = min(earliest, frame.termination)
        }
        // The innermost run is waiting now, so its clock is running: its own deadline always counts.
        if let innermost = frames.last, innermost.termination != 0 { earliest = min(earliest, innermost.termination) }
        guard earliest != .max else { return nil }
        let now = RefClock.nanoseconds
        // One nanosecond past the deadline: the exit check is strict (termination < now, rule
        // timeout.end-of-pass-only).
        return earliest >= now ? earliest - now + 1 : 0
    }

    /// Marks the deadlines that have passed as delivered. One that has not (a wait that returned a hair early) stays
    /// pending, so the next wait has a short timeout instead of none.
    private func markTimeoutsDeliveredLocked() {
        lock.assertHeld()
        let now = RefClock.nanoseconds
        for frame in frames where !frame.timeoutDelivered && frame.termination < now { frame.timeoutDelivered = true }
    }
}
