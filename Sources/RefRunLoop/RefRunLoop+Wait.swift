// Sleeping and waking: the OS wait of a pass (rule order.pass-phases) and CFRunLoopWakeUp. Arming the timerfd the wait
// reports is in RefRunLoop+TimerArming.swift.
//
// As in CF, each mode has its own epoll set holding the loop's wake-up eventfd, the mode's timerfd and the mode's
// version-1 descriptors, all edge-triggered; a pass waits on its mode's set for one event (maxevents 1: one live port
// per pass), so the kernel keeps each mode's readiness and its order exactly as CF's sets do. Unlike CF:
// - the wake-up eventfd is never read. A write is one edge and each set reports it once; `wakeGate` keeps at most one
//   write unreported, so a report with no wake-up pending is a stale edge left in another mode's set, and is
//   absorbed. CF pays ppoll + epoll_wait + read and a lock per wake-up; this loop pays at most one epoll_wait and no
//   lock (none when the wake-up is consumed by a poll that only the wake-up eventfd could answer, see
//   waitForLivePort).
// - a wake-up claimed while the loop is awake, when its wait sets can hold no other edge, is not written at all: the
//   next wait reports it without a system call (WakeGate's `deferred`), so a thread handing work to a busy loop makes
//   no system call for it, as with libevent's active queue. CF writes at once; nothing can tell the difference, since
//   any change that could put another edge in a wait set writes a deferred wake-up first.
// - the timerfd is never read either (setting it clears its expiry count). It is armed at the coalesced wake-up time
// of the mode's timers, honouring tolerance (TimerCoalescing), and disarmed when the mode has no timer left, so
// removing the last timer leaves no stale expiry behind (CF's does: __CFArmNextTimerInMode 2451-63, CFRunLoop.c at
// swift-6.3.1-RELEASE).
// - the run timeout is the wait's own timeout (epoll_pwait2, in nanoseconds): no helper thread, no descriptor.

import Glibc

extension RefRunLoop {
    /// CFRunLoopWakeUp: makes the current or next wait return. Ignored while the loop is not running, and between the
    /// return of a wait and the top of the next pass (rule wakeup.ignored-outside-wait); coalesces with a wake-up not
    /// yet reported (rule wakeup.coalesce). A wake-up never ends a run by itself (rule wakeup.idle-pass). Any thread.
    ///
    /// Lock-free: the decision is one atomic step on `wakeGate` (``WakeGate/claim()``), which marks the write as
    /// pending before it is made, so a report of the write always finds it pending. While the loop is awake and its
    /// wait sets can hold no other edge, the claim is deferred instead: no write, and the next wait reports it without
    /// a system call (``WakeGate``). The eventfd stays open until deinit, so a write racing the loop's teardown is
    /// harmless.
    public func wakeUp() {
        guard wakeGate.claim() == .write else { return }
        writeWakeUp()
    }

    /// Writes the wake-up eventfd for a claim that must be written, and counts the write. Any thread.
    func writeWakeUp() {
        EventFD.signal(wakeFD)
        // After the write: a count a wait has seen is of writes whose edges were queued before that wait began.
        wakeWrites.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }

    /// Claims may be deferred while this loop's wait sets can hold no edge but the wake-up eventfd's: it is not the
    /// main loop (whose wait takes the main queue's descriptor), it has one mode (a new mode's set would get the
    /// eventfd's edge when created), with no descriptor, no timerfd armed and no expiry of it queued. Sets the gate
    /// accordingly. Caller holds `lock`.
    func updateDeferralLocked() {
        lock.assertHeld()
        let mode = defaultMode
        if !isMain && lifecycle == .open && modes.count == 1 && mode.quietUntil.load(ordering: .acquiring) == .max
            && mode.timerEdges.load(ordering: .acquiring) & 1 == 0 {
            wakeGate.allowDeferral()
        } else {
            disallowDeferralLocked()
        }
    }

    /// Before a change that could queue an edge other than the wake-up eventfd's (a mode created, a descriptor added,
    /// a timerfd armed): no claim is deferred from now, and one deferred already is written now, so that its edge
    /// comes first, as the write CF makes at once would. Caller holds `lock`.
    func disallowDeferralLocked() {
        lock.assertHeld()
        if wakeGate.disallowDeferral() { writeWakeUp() }
    }

    /// Sets whether `frame`, the innermost run, ignores wake-ups, and the gate with it. Loop thread only.
    func ignoreWakeUps(_ frame: RunFrame, _ ignore: Bool) {
        assertOnLoopThread()
        frame.ignoreWakeUps = ignore
        if ignore { wakeGate.close() } else { wakeGate.open() }
    }

    /// After a run starts or ends: the gate follows the new innermost run (closed when none runs). Loop thread only.
    func followInnermostRun() {
        assertOnLoopThread()
        if let innermost = frames.last, !innermost.ignoreWakeUps { wakeGate.open() } else { wakeGate.close() }
    }

    /// Steps h and i of a pass: set the waiting flag, wait for one live port (at once when polling), then ignore
    /// wake-ups until the next pass.
    ///
    /// A wake-up report takes no lock (``WakeGate/consumeReport()``); a timer or descriptor report takes `lock` once
    /// to look at the mode. The timeout needs only the run frames and their clocks, which only this (the loop's)
    /// thread writes, so it reads them without the lock.
    func waitForLivePort(_ frame: RunFrame, poll: Bool) -> LivePort {
        // A later arming this thread deferred is made now, before the mode's wait set is looked at.
        if frame.mode.rearmPending.load(ordering: .relaxed) { lock.withLock { rearmTimerLocked(frame.mode, mayDefer: false) } }
        if let claim = wakeGate.beginWait() {
            // A deferred wake-up, consumed: the wait would report the eventfd's edge at once, the only one the wait
            // set can hold, so it is reported without a system call. Counted as if written (WakeGate.allWritten), and
            // the list is clear up to this claim if it was clear before it, as after a reported write.
            wakeGate.endWait()
            wakeWrites.wrappingAdd(1, ordering: .sequentiallyConsistent)
            if frame.mode.wakeEdgesClearedAt == claim &- 1 { frame.mode.wakeEdgesClearedAt = claim }
            count(wakeUpCounter)
            count(deferredWakeUpCounter)
            frame.ignoreWakeUps = true
            return .none
        }
        defer { wakeGate.endWait() }
        if poll { awaitWriteInFlight() }
        if poll && frame.mainQueueFD < 0 && onlyWakeUpsCanBeReported(frame.mode) {
            // The poll's system call is skipped: its one possible report is the wake-up eventfd's, and no wake-up is
            // in flight, so made at this instant it would return nothing. (A pending wake-up is left to the system
            // call: reporting it takes its edge off this mode's ready list, as CF's read of the eventfd does, so a
            // later wake-up queues behind a timer or descriptor that became ready before it, rule order.pass-phases.
            // Consumed here instead, the edge would stay at the head of the list and put the next wake-up first.)
            ignoreWakeUps(frame, true)
            return .none
        }
        sleeping.store(true, ordering: .releasing)
        defer { sleeping.store(false, ordering: .releasing) }
        // The main queue's eventfd is in the mode's set for this wait only, as CF inserts and removes its dispatch
        // port around each wait: a run nested in another mode must not see it, nor a later run of this mode that
        // does not service the queue. Added edge-triggered, it is reported at once if readable already.
        let mainQueueFD = frame.mainQueueFD
        if mainQueueFD >= 0 {
            _ = Epoll.addForeign(frame.mode.epollFD, fd: mainQueueFD, token: Self.mainQueueToken)
        }
        defer { if mainQueueFD >= 0 { Epoll.remove(frame.mode.epollFD, fd: mainQueueFD) } }
        while true {
            let timeout = poll ? 0 : waitTimeout()
            let edges = frame.mode.timerEdges.load(ordering: .acquiring)
            // The count before the claims: see WakeGate.allWritten.
            let writes = wakeWrites.load(ordering: .sequentiallyConsistent)
            let (claims, pending) = wakeGate.snapshot()
            // This mode's list holds no wake-up edge and none can arrive but from a claim made after this point.
            let clear = !pending && frame.mode.wakeEdgesClearedAt == claims
            // Every claim so far has been written, so its edge is on this list already or was taken off it.
            let allWritten = !pending && WakeGate.allWritten(claims: claims, writes: writes)
            let token = Epoll.waitForOne(frame.mode.epollFD, timeoutNanoseconds: timeout)
            count(wakeUpCounter)
            if allWritten && (token == nil || token == Self.wakeToken) {
                // The wait scanned the whole ready list, or took the wake-up eventfd's one entry off it: the edges of
                // every claim made before the wait are gone from this mode's list.
                frame.mode.wakeEdgesClearedAt = claims
            }
            if edges & 1 != 0 && (token == nil || token == Self.timerToken) {
                // The wait scanned the whole ready list, or reported the timerfd: no expiry of it is queued any more,
                // unless one was queued since the load above (then the generation moved and this does nothing).
                _ = frame.mode.timerEdges.compareExchange(expected: edges, desired: edges & ~1, ordering: .relaxed)
            }
            switch token {
            case nil:
                // Timeout: the run's deadline (or an outer run's) passed; CF's timeout timer would have called
                // WakeUp once (rule timeout.finite).
                if !poll { lock.withLock { markTimeoutsDeliveredLocked() } }
                ignoreWakeUps(frame, true)
                return .none
            case Self.wakeToken?:
                // Every write is marked pending before it is made; a report with no write pending is an edge another
                // mode's set kept, absorbed. A real one is consumed and the gate closed in one atomic step.
                guard wakeGate.consumeReport() else { continue }
                // With the list clear before the wait, the report was the edge of the next claim's write (no later
                // claim can be made before this report), now taken off: the list is clear up to that claim, whether or
                // not its writer has counted it yet, so the poll that follows a handled source can skip its system
                // call without waiting for that count.
                if clear { frame.mode.wakeEdgesClearedAt = claims &+ 1 }
                frame.ignoreWakeUps = true
                return .none
            case Self.mainQueueToken?:
                // CF reads the eventfd when its wait reports it; nothing to read means another reader took it.
                let drained: UInt64?
                do { drained = try EventFD.read(mainQueueFD) } catch { drained = nil }
                ignoreWakeUps(frame, true)
                return drained == nil ? .none : .mainQueue
            case let token?:
                guard let live = lock.withLock({ classifyLocked(token, mode: frame.mode) }) else {
                    // Absorbed: not for this mode (or stale). Wait again (a poll polls again: each report comes
                    // once, so this ends), as if the report had never reached this mode's wait set.
                    continue
                }
                ignoreWakeUps(frame, true)
                return live
            }
        }
    }

    /// Before a poll: while a claim is pending whose write has not been made yet (its thread is between the claim and
    /// the write, or is writing a deferred claim before it changes a wait set), waits for the write, so that the poll
    /// reports the wake-up as CF's reports a write made when its WakeUp call was. Otherwise a wake-up deferred in a
    /// callout, whose WakeUp call has returned, could miss the poll after the callout when another thread's change
    /// makes it a write at that moment. The writer is one system call away; this yields meanwhile and gives up after
    /// a second (a later wait then reports the wake-up). Loop thread only.
    private func awaitWriteInFlight() {
        assertOnLoopThread()
        var deadline: UInt64 = 0
        while true {
            // The count before the claims: see WakeGate.allWritten.
            let writes = wakeWrites.load(ordering: .sequentiallyConsistent)
            let (claims, pending) = wakeGate.snapshot()
            if !pending || WakeGate.allWritten(claims: claims, writes: writes) { return }
            let now = RefClock.nanoseconds
            if deadline == 0 {
                deadline = now &+ 1_000_000_000
            } else if now >= deadline {
                return
            }
            sched_yield()
        }
    }

    /// Whether a poll of the mode's wait set now could report nothing, and would leave its ready list as it is: the
    /// mode has no descriptor, its timerfd cannot have expired (``LoopMode/quietUntil``), no wake-up edge is queued on
    /// its list and no write is in flight (no claim pending, and every claim's edge off the list for good:
    /// ``LoopMode/wakeEdgesClearedAt``). Loop thread only.
    ///
    /// A wake-up edge can be queued with no write pending: a write queues an edge on every mode's list and the wait
    /// that consumes it takes it off one. The eventfd is never read, so that edge would be reported, and absorbed, by
    /// the poll; skipped, it would stay at the head of the list, and the next write would be reported from there,
    /// ahead of a timer or descriptor that became ready in between, where CF (whose poll clears its list) reports
    /// that port first (case wakeup.stale-edge-cleared-by-poll, found by runloop fuzz, seed 5126180).
    private func onlyWakeUpsCanBeReported(_ mode: LoopMode) -> Bool {
        assertOnLoopThread()
        let (claims, pending) = wakeGate.snapshot()
        guard !pending, mode.wakeEdgesClearedAt == claims else { return false }
        // A timerfd entry left on the ready list would be dropped by the system call; skipped, it would stay ahead of
        // ports that become ready later.
        guard mode.timerEdges.load(ordering: .acquiring) & 1 == 0 else { return false }
        let quiet = mode.quietUntil.load(ordering: .acquiring)
        guard quiet != 0 else { return false }
        return quiet == .max || RefClock.nanoseconds < quiet
    }

    /// What a timer or descriptor report means for the running mode, or nil if it is to be absorbed. Caller holds
    /// `lock`.
    private func classifyLocked(_ token: UInt64, mode: LoopMode) -> LivePort? {
        lock.assertHeld()
        switch token {
        case Self.timerToken:
            // The timerfd is one-shot: it has expired, and its expiry count stays set until it is set again. It is
            // the pass's live port even when nothing is due (the mode's timer is firing in an outer run, so arming
            // left it armed at that timer's date, as CF's arming does for the modes other than the firing one): CF
            // handles that port, fires nothing and re-arms (__CFRunLoopRun 3199-3210, CFRunLoop.c at
            // swift-6.3.1-RELEASE), so a descriptor that became ready after it waits for the next pass
            // (fireDueTimers re-arms).
            mode.armedDeadline = 0
            return .timer
        default:
            let fd = Int32(truncatingIfNeeded: token - Self.firstDescriptorToken)
            guard mode.sourcesByDescriptor[fd] != nil else { return nil }
            // CF acknowledges the descriptor as soon as the wait returns, before AfterWaiting (it reads 8 bytes in
            // __CFRunLoopServiceFileDescriptors) and looks the source up only afterwards: an AfterWaiting observer
            // that removes the source loses the event. Nothing to read: another reader took it; nothing to handle.
            let drained: UInt64?
            do { drained = try EventFD.read(fd) } catch { drained = nil }
            return drained == nil ? LivePort.none : .source1(fd: fd)
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
