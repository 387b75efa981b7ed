// The loop's wait set in kernel objects: what a pass waits on and what wakes it (CF's port sets, wake-up port and
// timer ports). One wake-up eventfd per loop with its gate (WakeGate.swift) and its count of writes; per mode, an
// epoll set holding that eventfd, the mode's timerfd and the mode's version-1 descriptors, all edge-triggered, and the
// accounting of which edges the set's ready list may still hold. The semantic side (which port a pass handles, when
// wake-ups count, run timeouts, the main queue) is RefRunLoop+Wait.swift and RefRunLoop+TimerArming.swift.
//
// As in CF each mode has its own set, so the kernel keeps each mode's readiness and its order exactly as CF's sets
// do, and a wait takes one event (maxevents 1: one live port per pass). Unlike CF:
// - the wake-up eventfd is never read. A write is one edge and each set reports it once; the gate keeps at most one
//   write unreported, so a report with no wake-up pending is a stale edge left in another mode's set, and is
//   absorbed. CF pays ppoll + epoll_wait + read and a lock per wake-up; this loop pays at most one epoll_wait and no
//   lock (none when the wake-up is consumed by a poll that only the wake-up eventfd could answer,
//   ``WaitSet/pollWouldReportNothing(_:)``).
// - a wake-up claimed while the loop is awake, when its sets can hold no other edge before the armed timerfd's time
//   (the deferral horizon), is not written at all: the next wait reports it without a system call (WakeGate's
//   `deferred`), as with libevent's active queue. CF writes at once; nothing can tell the difference, since a claim
//   is deferred only if a clock reading after it is before the horizon (so its edge would have preceded the timer's),
//   and any change that could put another edge in a set earlier writes a deferred wake-up first
//   (``WaitSet/setDeferral(before:in:)``).
// - the timerfd is never read either (setting it clears its expiry count), and it is disarmed when the mode has no
//   timer left, so removing the last timer leaves no stale expiry behind (CF's does: __CFArmNextTimerInMode 2451-63,
//   CFRunLoop.c at swift-6.3.1-RELEASE).
// - the run timeout is the wait's own timeout (epoll_pwait2, in nanoseconds): no helper thread, no descriptor.

import CRunLoopSystem
import Glibc
import Synchronization

/// The loop's wake-up eventfd, its gate and its write count, and the factory and operations of its modes' sets
/// (``ModeSet``). A non-copyable struct stored in its loop, as the loop's lock is: no object of its own, no
/// indirection on the wake-up path. Thread safety: waking (``wake()``) is lock-free from any thread; the operations
/// documented "with the loop's lock held" are called under the owning loop's lock; those documented "loop thread" only
/// by the thread that runs the loop.
struct WaitSet: ~Copyable {
    /// epoll token of the wake-up eventfd.
    static let wakeToken: UInt64 = 0
    /// epoll token of the timerfd.
    static let timerToken: UInt64 = 1
    /// Version-1 descriptors use token fd + 2.
    static let firstDescriptorToken: UInt64 = 2
    /// epoll token of a descriptor in a set for one wait only (``ModeSet/insertForOneWait(_:)``); above every
    /// descriptor token.
    static let oneWaitToken: UInt64 = .max

    /// Immutable. The wake-up eventfd: in every mode's set, edge-triggered, never read. Open until deinit, so a write
    /// racing the loop's teardown is harmless.
    let wakeFD: Int32
    /// Whether wake-ups are taken now and whether an eventfd write is in flight that no wait has reported yet
    /// (further wake-ups need no write of their own). Atomic: ``wake()`` takes no lock.
    let gate = WakeGate()
    /// Writes of `wakeFD` so far, each counted after its write (any thread adds; the loop's thread reads). Every write
    /// queues an edge on every mode's ready list; while this count equals the gate's claims, every claimed write has
    /// been made (``WakeGate/allWritten(claims:writes:)``, ``ModeSet/wakeEdgesClearedAt``).
    let writes = Atomic<UInt64>(0)
    /// Whether ``wake()`` notes every caller's CPU in `lastWakerCPU`, not only a claimer's: on while the loop's wait
    /// policy spins (``RefRunLoop/waitPolicy``), so that parking costs a wake-up that finds one in flight nothing
    /// more. Any thread.
    let recordsWakerCPU = Atomic<Bool>(false)
    /// The CPU of the last caller of ``wake()`` that claimed a wake-up (of every caller while `recordsWakerCPU` is
    /// on; -1: none noted). Any thread writes it; the loop's thread reads it to skip a spin or a hand-off hold that
    /// would only keep that thread off its own CPU (``SpinGovernor``, ``RefRunLoop/handOffHold``). A hint: a stale
    /// value costs one spin, one hold or one sleep, never a wake-up.
    let lastWakerCPU = Atomic<Int32>(-1)

    init() {
        wakeFD = EventFD.create()
    }

    deinit {
        Descriptor.close(wakeFD)
    }

    // MARK: Waking (any thread)

    /// CFRunLoopWakeUp's kernel side: takes the right to wake the loop and writes the eventfd if the claim says so.
    /// Lock-free. Any thread.
    func wake() {
        let notesEveryCaller = recordsWakerCPU.load(ordering: .relaxed)
        if notesEveryCaller { lastWakerCPU.store(csystem_current_cpu(), ordering: .relaxed) }
        let claim = gate.claim()
        guard claim != .none else { return }
        // A claim is made once per pass that takes wake-ups: noting its CPU costs a stream of wake-ups nothing.
        if !notesEveryCaller { lastWakerCPU.store(csystem_current_cpu(), ordering: .relaxed) }
        guard claim == .write else { return }
        interleavingPoint("WaitSet.wake.claimed")
        write()
    }

    /// Writes the wake-up eventfd for a claim that must be written, and counts the write. Any thread.
    func write() {
        EventFD.signal(wakeFD)
        // After the write: a count a wait has seen is of writes whose edges were queued before that wait began.
        writes.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }

    /// Whether claims may be deferred, and until when: `horizon` is the earliest time another port of the loop's
    /// sets could queue an edge (the armed timerfd's time, `.max` for none); nil while one may be queued at any time.
    /// Disallowing, and changing the horizon (made with deferral disallowed: ``WakeGate/allowDeferral(before:)``),
    /// write a deferred claim now, so that its edge comes before any edge the caller's change may queue, as the write
    /// CF makes at once would (``writeDeferred(in:)``). `set` is the set claims are deferred for: a loop defers only
    /// while it has one mode. Unchanged deferral costs one load. With the loop's lock held.
    func setDeferral(before horizon: UInt64?, in set: ModeSet) {
        if let horizon, gate.allowsDeferral(before: horizon) { return }
        if gate.disallowDeferral() { writeDeferred(in: set) }
        if let horizon { gate.allowDeferral(before: horizon) }
    }

    /// Writes a deferred claim now. CF wrote it when it was made, before the horizon, so before the expiry of the
    /// timerfd armed at the horizon; if the clock has reached that time since (a callout that ran past it), the
    /// expiry's entry may be on `set`'s list ahead of the write's, so the timerfd is taken out and put back, which
    /// queues its entry again behind the write's (an expired timerfd is readable). Those two are the only entries a
    /// set that defers can hold (case wakeup.deferred.written-after-horizon-port-added). With the loop's lock held.
    private func writeDeferred(in set: ModeSet) {
        write()
        guard let armed = set.armedDeadline, armed != 0, armed <= RefClock.nanoseconds else { return }
        set.requeueTimer()
    }

    // MARK: Mode sets (with the loop's lock held)

    /// A new mode's set, holding the wake-up eventfd and a new timerfd (disarmed).
    ///
    /// CF's insert of its eventfd queues an entry on the new set's ready list only while a write is unread (its count
    /// above 0). This eventfd is never read, so after its first write every insert queues an entry; one left there
    /// would stay at the head of the list, and a later write would be reported from there, ahead of a descriptor that
    /// became ready in between, where CF's set holds that descriptor first (case
    /// wakeup.stale-edge.new-mode-set-nested). So unless a wake-up is pending (CF's count is above 0 then, and its
    /// set has the entry too), the entry is taken off by a poll, the only one the new set can report (no descriptor,
    /// the timerfd disarmed); if a claim was made meanwhile (CF's write then comes after its insert), the eventfd is
    /// put back, which queues its entry again.
    func makeModeSet() -> ModeSet {
        let epollFD = Epoll.create()
        let timerFD = TimerFD.create()
        do {
            try Epoll.add(epollFD, fd: timerFD, token: Self.timerToken)
            try Epoll.add(epollFD, fd: wakeFD, token: Self.wakeToken)
        } catch {
            fatalError("RefRunLoop: cannot register the wake-up and timer descriptors: \(error)")
        }
        let before = gate.snapshot()
        if !before.pending {
            _ = Epoll.waitForOne(epollFD, timeoutNanoseconds: 0)
            let after = gate.snapshot()
            if after.pending || after.claims != before.claims {
                Epoll.remove(epollFD, fd: wakeFD)
                do {
                    try Epoll.add(epollFD, fd: wakeFD, token: Self.wakeToken)
                } catch {
                    fatalError("RefRunLoop: cannot register the wake-up descriptor: \(error)")
                }
            }
        }
        return ModeSet(epollFD: epollFD, timerFD: timerFD)
    }

    /// Arms `set`'s timerfd at `deadline` (nil: disarms it, unless it expired already), noting the expiries that may
    /// be queued on its ready list: the old arming's if it passed unreported, the new one's if it is due at `now`.
    /// A new arming moves the deferral horizon, so a deferred wake-up is written first (its edge goes first); the
    /// caller sets the deferral again afterwards (``setDeferral(before:in:)``). With the loop's lock held.
    @inline(__always)
    func arm(_ set: ModeSet, at deadline: UInt64?, now: UInt64) {
        if deadline != nil { setDeferral(before: nil, in: set) }
        let old = set.armedDeadline.flatMap { $0 == 0 ? nil : $0 }
        if let old, old <= now { set.noteTimerEdgeQueued() }
        if let deadline, deadline <= now { set.noteTimerEdgeQueued() }
        if let deadline {
            TimerFD.arm(set.timerFD, atNanoseconds: deadline)
        } else if old != nil {
            TimerFD.disarm(set.timerFD)
        }
        // The old arming may have expired between `now` and the system call, which does not take an expiry queued
        // already off the list: noted too, from a clock read after the call (deferral and skipped polls rely on it).
        if let old, old > now, old <= RefClock.nanoseconds { set.noteTimerEdgeQueued() }
        set.armedDeadline = deadline
    }

    /// Puts a version-1 descriptor in `set` (CF: __CFPortSetInsert). A descriptor already there (two sources with one
    /// descriptor) stays registered once. A descriptor the caller closed or that cannot be polled is not registered
    /// (like CF, its source just never fires). With the loop's lock held.
    func register(_ fd: Int32, in set: ModeSet, modeName: String) {
        setDeferral(before: nil, in: set)  // the descriptor may become ready at any time
        switch Epoll.addForeign(set.epollFD, fd: fd, token: UInt64(UInt32(bitPattern: fd)) + Self.firstDescriptorToken)
        {
        case 0, EEXIST:
            // EEXIST: registered already by another source with the same descriptor.
            break
        case EBADF where fcntl(set.epollFD, F_GETFD) < 0:
            fatalError("internal bug: the wait set of mode \(modeName) is closed")
        case let code:
            // The caller's descriptor is closed or cannot be polled: like CF, the source just never fires.
            _ = code
        }
    }

    // MARK: Waiting (loop thread)

    /// What one return of a mode set's wait reported.
    enum Report: Equatable {
        /// Nothing before the timeout (a poll: nothing ready).
        case timeout
        /// The wake-up eventfd, for the claim in flight: consumed, and the gate closed.
        case wakeUp
        /// The wake-up eventfd with no claim pending: an edge another mode's set kept, absorbed.
        case staleWakeUp
        /// The mode's timerfd expired.
        case timer
        /// A version-1 descriptor became readable (nothing read yet).
        case descriptor(Int32)
        /// The descriptor inserted for this wait (``ModeSet/insertForOneWait(_:)``) became readable.
        case oneWait
    }

    /// Before a wait: if a deferred claim is pending that was made before the deferral horizon, consumes it (closing
    /// the gate) and reports it as a wake-up without a system call, as the wait would have reported the eventfd's
    /// edge at once, the first one `set` could hold; true then, and the wait is over. Otherwise marks the loop
    /// waiting, so that every claim from now on writes (and writes a deferred claim the loop cannot place before the
    /// horizon: the wait then reports its edge in the kernel's order), and returns false: end the wait with
    /// ``endWait()``. Loop thread. Inlined into the pass's wait, its one caller.
    @inline(__always)
    func beginWait(_ set: ModeSet) -> Bool {
        let claim: UInt64
        switch gate.beginWait() {
        case .waiting:
            return false
        case .waitingAfterWrite:
            write()
            return false
        case .consumed(let consumed):
            claim = consumed
        }
        // Counted as if written (WakeGate.allWritten), and the list is clear up to this claim if it was clear before
        // it, as after a reported write.
        writes.wrappingAdd(1, ordering: .sequentiallyConsistent)
        if set.wakeEdgesClearedAt == claim &- 1 { set.wakeEdgesClearedAt = claim }
        return true
    }

    /// The wait is over (claims may be deferred again while deferrable). Loop thread.
    func endWait() {
        gate.endWait()
    }

    /// Before a poll: while a claim is pending whose write has not been made yet (its thread is between the claim and
    /// the write, or is writing a deferred claim before it changes a set), waits for the write, so that the poll
    /// reports the wake-up as CF's reports a write made when its WakeUp call was. Otherwise a wake-up deferred in a
    /// callout, whose WakeUp call has returned, could miss the poll after the callout when another thread's change
    /// makes it a write at that moment. The writer is one system call away; this yields meanwhile and gives up after
    /// a second (a later wait then reports the wake-up). Loop thread.
    /// Inlined up to the first look, so a poll with no write in flight pays no call.
    @inline(__always)
    func awaitWriteInFlight() {
        if writeInFlight() { awaitWriteInFlightSlowly() }
    }

    /// Whether a claim is pending whose write has not been counted yet (``WakeGate/allWritten(claims:writes:)``).
    /// Loop thread.
    @inline(__always)
    private func writeInFlight() -> Bool {
        // The count before the claims: see WakeGate.allWritten.
        let written = writes.load(ordering: .sequentiallyConsistent)
        let (claims, pending) = gate.snapshot()
        return pending && !WakeGate.allWritten(claims: claims, writes: written)
    }

    /// ``awaitWriteInFlight()`` once it found a write in flight: yields until the write is counted, for a second at
    /// most. Loop thread.
    private func awaitWriteInFlightSlowly() {
        let deadline = RefClock.nanoseconds &+ 1_000_000_000
        repeat {
            interleavingPoint("WaitSet.awaitWriteInFlight.waiting")
            sched_yield()
        } while writeInFlight() && RefClock.nanoseconds < deadline
    }

    /// What ended a spin (``spin(_:until:)``).
    enum SpinEnd: Equatable {
        /// A wake-up is claimed and can be reported at once: deferred (``beginWait(_:)`` consumes it), or written
        /// (the wait's system call returns at once with its edge).
        case claimed
        /// The deadline passed, or another port of the set may be ready (a timerfd armed before the deadline, an
        /// expiry queued, a descriptor added): the wait takes over.
        case parked
    }

    /// Spin-then-park's spin (``RefRunLoop/WaitPolicy``): polls the gate with the CPU's spin hint and no system call
    /// until a wake-up is claimed and reportable, or `deadline` passes, or `set` may hold another port's edge.
    /// Loop thread, after BeforeWaiting and before ``beginWait(_:)``.
    ///
    /// Why no wake-up can be lost, by construction: the spin writes nothing. It runs while the gate is open and its
    /// `waiting` flag clear, the state the loop is in during any callout of the pass, so a wake-up claimed during the
    /// spin follows the protocol for an awake loop (``WakeGate``): deferred while the loop is `deferrable` (its
    /// claimer writes nothing, unless its clock has reached the deferral horizon, and the next ``beginWait(_:)``
    /// consumes it, or writes it if the claimer had not settled it and the loop's clock has reached the horizon),
    /// written otherwise (the wait reports its edge). The spin only chooses when ``beginWait(_:)`` runs; whatever is
    /// pending then is reported exactly as if the spin had taken no time (as if the loop's thread had been
    /// descheduled for it), and a claim made after the spin's last look meets ``beginWait(_:)``'s atomic step
    /// like any other. Ending early on a written claim waits for its write to be counted
    /// (``WakeGate/allWritten(claims:writes:)``), so the wait that follows finds the edge on its list and returns
    /// without sleeping.
    ///
    /// Nor is a port reported later than when parking at once (but for the few polls between two clock reads):
    /// `deadline` is at most the run's, the spin ends once the clock reaches the set's quiet time
    /// (``ModeSet/quietUntil``, which every arming of its timerfd and every descriptor change updates, from any
    /// thread) or an expiry is queued, and the caller spins only in a set with no descriptor and no queued expiry. The wait that follows is the wait parking would have made, begun no later
    /// than any of its ports could be ready, so it reports the same port (the spin only delays the system call, as
    /// a descheduled loop thread would).
    func spin(_ set: ModeSet, until deadline: UInt64) -> SpinEnd {
        var polls: UInt32 = 0
        while true {
            // The count before the claims: see WakeGate.allWritten.
            let written = writes.load(ordering: .sequentiallyConsistent)
            if gate.reportable(writes: written) { return .claimed }
            if set.timerEdges.load(ordering: .acquiring) & 1 != 0 { return .parked }
            polls &+= 1
            // A clock read costs more than a poll of the gate: one in eight polls reads it.
            if polls & 7 == 0 {
                let now = RefClock.nanoseconds
                if now >= deadline || now >= set.quietUntil.load(ordering: .acquiring) { return .parked }
            }
            csystem_cpu_relax()
        }
    }

    /// The hand-off hold (``RefRunLoop/handOffHold``): spins with the CPU's spin hint and no
    /// system call until `deadline` passes or `set` may hold another port's edge, whatever the gate says. Loop
    /// thread, before the poll that follows a handled source (``beginWait(_:)`` not yet called).
    ///
    /// Like ``spin(_:until:)`` it writes nothing and only delays the poll: a wake-up claimed meanwhile follows the
    /// protocol for an awake loop (the gate is open and not `waiting`), and the poll reports whatever is pending when
    /// it runs, as if the loop's thread had been descheduled for the hold. It ends once the clock reaches the set's
    /// quiet time or an expiry is queued, so no timer or descriptor is reported later than by the poll it delays (but
    /// for the few polls between two clock reads).
    func hold(_ set: ModeSet, until deadline: UInt64) {
        var polls: UInt32 = 0
        while set.timerEdges.load(ordering: .acquiring) & 1 == 0 {
            polls &+= 1
            // A clock read costs more than a look at the set: one in eight looks reads it.
            if polls & 7 == 0 {
                let now = RefClock.nanoseconds
                if now >= deadline || now >= set.quietUntil.load(ordering: .acquiring) { return }
            }
            csystem_cpu_relax()
        }
    }

    /// Whether a poll of `set` now could report nothing, and would leave its ready list as it is: the set has no
    /// descriptor, its timerfd cannot have expired (``ModeSet/quietUntil``), no wake-up edge is queued on its list
    /// and no write is in flight (no claim pending, and every claim's edge off the list for good:
    /// ``ModeSet/wakeEdgesClearedAt``). The poll's system call can then be skipped. Loop thread.
    ///
    /// A wake-up edge can be queued with no write pending: a write queues an edge on every mode's list and the wait
    /// that consumes it takes it off one. The eventfd is never read, so that edge would be reported, and absorbed, by
    /// the poll; skipped, it would stay at the head of the list, and the next write would be reported from there,
    /// ahead of a timer or descriptor that became ready in between, where CF (whose poll clears its list) reports
    /// that port first (case wakeup.stale-edge-cleared-by-poll, found by runloop fuzz, seed 5126180). (A pending
    /// wake-up is left to the system call for the same reason: reporting it takes its edge off the list, as CF's read
    /// of the eventfd does.)
    @inline(__always)
    func pollWouldReportNothing(_ set: ModeSet) -> Bool {
        let (claims, pending) = gate.snapshot()
        guard !pending, set.wakeEdgesClearedAt == claims else { return false }
        // A timerfd entry left on the ready list would be dropped by the system call; skipped, it would stay ahead of
        // ports that become ready later.
        guard set.timerEdges.load(ordering: .acquiring) & 1 == 0 else { return false }
        let quiet = set.quietUntil.load(ordering: .acquiring)
        guard quiet != 0 else { return false }
        return quiet == .max || RefClock.nanoseconds < quiet
    }

    /// Waits on `set` for one event, `timeout` nanoseconds at most (nil: no limit; 0 polls), and keeps the edge
    /// accounting: which wake-up edges and timerfd expiries the set's ready list may still hold. A wake-up report for
    /// the claim in flight consumes it and closes the gate in one atomic step. Loop thread, between ``beginWait(_:)``
    /// and ``endWait()``. Inlined into the pass's wait, its one caller there.
    @inline(__always)
    func waitForOne(_ set: ModeSet, timeoutNanoseconds timeout: UInt64?) -> Report {
        let edges = set.timerEdges.load(ordering: .acquiring)
        // The count before the claims: see WakeGate.allWritten.
        let written = writes.load(ordering: .sequentiallyConsistent)
        let (claims, pending) = gate.snapshot()
        // This set's list holds no wake-up edge and none can arrive but from a claim made after this point.
        let clear = !pending && set.wakeEdgesClearedAt == claims
        // Every claim so far has been written, so its edge is on this list already or was taken off it.
        let allWritten = !pending && WakeGate.allWritten(claims: claims, writes: written)
        let token = Epoll.waitForOne(set.epollFD, timeoutNanoseconds: timeout)
        if allWritten && (token == nil || token == Self.wakeToken) {
            // The wait scanned the whole ready list, or took the wake-up eventfd's one entry off it: the edges of
            // every claim made before the wait are gone from this list.
            set.wakeEdgesClearedAt = claims
        }
        if edges & 1 != 0 && (token == nil || token == Self.timerToken) {
            // The wait scanned the whole ready list, or reported the timerfd: no expiry of it is queued any more,
            // unless one was queued since the load above (then the generation moved and this does nothing).
            _ = set.timerEdges.compareExchange(expected: edges, desired: edges & ~1, ordering: .relaxed)
        }
        switch token {
        case nil:
            return .timeout
        case Self.wakeToken?:
            // Every write is marked pending before it is made; a report with no write pending is an edge another
            // mode's set kept.
            guard gate.consumeReport() else { return .staleWakeUp }
            // With the list clear before the wait, the report was the edge of the next claim's write (no later claim
            // can be made before this report), now taken off: the list is clear up to that claim, whether or not its
            // writer has counted it yet, so the poll that follows a handled source can skip its system call without
            // waiting for that count.
            if clear { set.wakeEdgesClearedAt = claims &+ 1 }
            return .wakeUp
        case Self.timerToken?:
            return .timer
        case Self.oneWaitToken?:
            return .oneWait
        case let token?:
            return .descriptor(Int32(truncatingIfNeeded: token - Self.firstDescriptorToken))
        }
    }

    /// One mode's epoll set and timerfd, with its edge accounting. Every property is protected by the owning loop's
    /// lock unless it says otherwise.
    final class ModeSet {
        /// Immutable. The mode's epoll set (CF's `_portSet`): the loop's wake-up eventfd, the mode's timerfd and the
        /// descriptors of the mode's version-1 sources, all edge-triggered. A descriptor that became readable while
        /// another mode ran is reported when this mode next waits; one added while readable is reported after the
        /// ones already ready.
        let epollFD: Int32
        /// Immutable. The mode's timerfd (CF's `_timerPort`), in `epollFD`: armed whenever the mode's timers change,
        /// from any thread, as CF arms its per-mode timer; never read (setting it clears its expiry count).
        let timerFD: Int32
        /// The absolute time `timerFD` is armed at; nil when disarmed; 0 when it expired and was not set since.
        var armedDeadline: UInt64? {
            didSet { updateQuietUntil() }
        }
        /// Whether the set holds version-1 descriptors (set by the mode when its descriptor map changes).
        var hasDescriptors = false {
            didSet { updateQuietUntil() }
        }
        /// Whether the loop's thread deferred moving `timerFD` to a later time
        /// (``RefRunLoop/rearmTimerLocked(_:mayDefer:changed:)``): set by the loop's thread and cleared by any thread,
        /// with the loop's lock held; read by the loop's thread without it before each wait in this mode (only it
        /// sets the flag, so it cannot miss its own setting).
        let rearmPending = Atomic<Bool>(false)
        /// The thread that set `rearmPending` (the loop's: only it defers), meaningful while the flag is set: a caller
        /// that finds the flag set tells whether it is the loop's thread by comparing itself with this one, which
        /// costs less than ``RefRunLoop/isCurrentThread``'s thread-specific read. Protected by the owning loop's lock.
        var deferringThread = pthread_t()
        /// Whether the armed time had passed when the re-arming now pending was deferred (read when `rearmPending`
        /// is set). If it had not, an expiry at that time came after CF's re-arming, which CF's timerfd never made,
        /// and is put behind what became ready meanwhile when the re-arming is made (``requeueTimer()``). Protected by
        /// the owning loop's lock.
        var armedTimePassedAtDeferral = false
        /// Whether an expiry of `timerFD` may still be queued on `epollFD`'s ready list (bit 0), and a generation
        /// (the other bits) bumped whenever one may have been queued. An expiry queues the timerfd's entry at the
        /// tail of the ready list, and it stays there, ahead of later-ready ports, until a wait on this set reaches
        /// it, even if the timerfd was re-armed meanwhile (then the wait drops it, as CF's does). Set with the loop's
        /// lock held (``WaitSet/arm(_:at:now:)``); cleared by the loop's thread, without the lock, after a wait that
        /// scanned the whole list (it returned nothing) or reported the timerfd, unless the generation moved
        /// meanwhile. While it is set, a poll cannot skip its system call (``WaitSet/pollWouldReportNothing(_:)``).
        let timerEdges = Atomic<UInt64>(0)
        /// Confined to the loop's thread. A number of wake-up claims (``WakeGate``) whose writes' edges are all off
        /// this set's ready list for good: every claim up to it has been written and its edge taken off the list by a
        /// wait on `epollFD`. Set to the claims of a moment when every claim had been written and counted, by a wait
        /// begun after that moment that returned nothing (it scanned the whole list) or reported the wake-up eventfd
        /// (taking that entry off); and one higher by a wait begun with the list clear that reported the next claim's
        /// write, the only edge the list could then have received. Nil until the first such wait: adding the eventfd
        /// to a new set queues an edge if a write was made before. While it equals the claims and none is pending,
        /// the list holds no wake-up edge and no write is in flight: a poll may skip its system call.
        var wakeEdgesClearedAt: UInt64? = nil
        /// Written with the loop's lock held (by `armedDeadline` and `hasDescriptors`), read without it by the loop's
        /// thread: until this time, nothing in the set but the wake-up eventfd can be reported. 0 while the set has
        /// descriptors (one may become readable at any time); the armed time while the timerfd is armed (it cannot
        /// expire earlier); `.max` when it is disarmed or has expired and been reported (an edge is reported once).
        let quietUntil = Atomic<UInt64>(.max)

        init(epollFD: Int32, timerFD: Int32) {
            self.epollFD = epollFD
            self.timerFD = timerFD
        }

        /// Until when the set can queue no edge but the wake-up eventfd's: nil when it has descriptors or an expiry
        /// of its timerfd may be queued; else the time its timerfd is armed at (it never expires earlier), or `.max`
        /// when it is disarmed or its expiry was reported. With the loop's lock held.
        var deferralHorizon: UInt64? {
            guard timerEdges.load(ordering: .acquiring) & 1 == 0 else { return nil }
            let quiet = quietUntil.load(ordering: .acquiring)
            return quiet == 0 ? nil : quiet
        }

        /// The timerfd's expiry was reported: it stays expired until set again. With the loop's lock held.
        func noteExpiryReported() {
            armedDeadline = 0
        }

        /// Takes the timerfd's entry off the ready list and adds the timerfd again, which queues its entry at the
        /// list's tail if it has expired (and at its expiry if not). With the loop's lock held.
        func requeueTimer() {
            Epoll.remove(epollFD, fd: timerFD)
            do {
                try Epoll.add(epollFD, fd: timerFD, token: WaitSet.timerToken)
            } catch {
                fatalError("RefRunLoop: cannot register the timer descriptor again: \(error)")
            }
            noteTimerEdgeQueued()
        }

        /// Takes a version-1 descriptor out of the set (CF: __CFPortSetRemove). With the loop's lock held.
        func unregister(_ fd: Int32) {
            Epoll.remove(epollFD, fd: fd)
        }

        /// Puts a descriptor in the set for one wait (edge-triggered: reported at once if readable already), to be
        /// taken out after it with ``removeAfterWait(_:)``. Loop thread.
        func insertForOneWait(_ fd: Int32) {
            _ = Epoll.addForeign(epollFD, fd: fd, token: WaitSet.oneWaitToken)
        }

        /// Takes the descriptor of ``insertForOneWait(_:)`` out again. Loop thread.
        func removeAfterWait(_ fd: Int32) {
            Epoll.remove(epollFD, fd: fd)
        }

        /// Closes the set's descriptors (the loop is closing). With the loop's lock held.
        func close() {
            Descriptor.close(epollFD)
            Descriptor.close(timerFD)
        }

        /// Notes that an expiry of `timerFD` may be queued. With the loop's lock held.
        fileprivate func noteTimerEdgeQueued() {
            var current = timerEdges.load(ordering: .relaxed)
            while true {
                let (exchanged, original) = timerEdges.compareExchange(
                    expected: current, desired: (current | 1) &+ 2, ordering: .releasing)
                if exchanged { return }
                current = original
            }
        }

        private func updateQuietUntil() {
            let quiet: UInt64
            if hasDescriptors {
                quiet = 0
            } else if let armed = armedDeadline, armed != 0 {
                quiet = armed
            } else {
                quiet = .max
            }
            quietUntil.store(quiet, ordering: .releasing)
            interleavingPoint("WaitSet.ModeSet.quietUntilUpdated")
        }
    }
}

#if DEBUG
/// sched_yield(2), counted on a thread with a probe (ThreadProbes.swift): debug builds only, and this file only (a
/// file-private declaration is found before Glibc's). Release builds call Glibc's directly.
@inline(__always)
@discardableResult
private func sched_yield() -> Int32 {
    ThreadProbe.current?.noteYield()
    return Glibc.sched_yield()
}

/// The CPU's spin hint, counted on a thread with a probe, as `sched_yield` above.
@inline(__always)
private func csystem_cpu_relax() {
    ThreadProbe.current?.noteSpinHint()
    CRunLoopSystem.csystem_cpu_relax()
}
#endif
