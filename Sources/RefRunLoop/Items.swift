// Sources, timers and observers: the items a mode holds.
//
// Lock order: a loop's lock may be held while taking a timer's lock or RefRunLoopSource.otherLoopsLock, never the
// reverse (a source and an observer have no lock of their own: their bindings are atomic and their places are their
// loop's, SourceBinding.swift and SharedLoopBinding in LoopBinding.swift); the lock of a loop's `signalledSources` comes
// last of all. No lock is held during a callout.

import Synchronization

/// A run-loop source (CFRunLoopSource): version 0 (signalled by hand) or version 1 (a readable file descriptor).
///
/// A source can be in several modes of several loops. Signal, invalidate and the queries work from any thread.
public final class RefRunLoopSource: @unchecked Sendable {
    enum Kind {
        /// A version-0 source, with its schedule and cancel callouts when it has either (boxed: most sources have
        /// none, and two optional closures stored inline took 32 bytes of every source). The box is held by a
        /// reference the source retains in its initializer and releases in its deinit (``init(order:kind:perform:)``):
        /// with no counted reference in it, `Kind` is a plain value, and the last release of a source without
        /// callouts (every C ABI source) tests one word instead of destroying an enum through an outlined function
        /// that releases its nil payload (16 instructions per source under callgrind).
        case version0(Unmanaged<ModeCallouts>?)
        case version1(fileDescriptor: Int32)

        /// A version-0 kind with `callouts`, retained for the source that stores the kind.
        static func version0(retaining callouts: ModeCallouts?) -> Kind {
            .version0(callouts.map { Unmanaged.passRetained($0) })
        }
    }

    /// A version-0 source's schedule and cancel callouts (rules source.schedule-once-per-mode,
    /// source.cancel-on-remove). Immutable.
    final class ModeCallouts: Sendable {
        let schedule: (@Sendable (String) -> Void)?
        let cancel: (@Sendable (String) -> Void)?

        init(schedule: (@Sendable (String) -> Void)?, cancel: (@Sendable (String) -> Void)?) {
            self.schedule = schedule
            self.cancel = cancel
        }
    }

    /// Sources with a lower order are performed first (rule source.perform-order).
    public let order: Int
    let kind: Kind
    /// The perform callout, of either version. Immutable: a pass calls it without a lock.
    let perform: SourcePerform

    /// The source's marks (valid, signalled), a mode of its home loop and its creator's hold, one word any thread reads
    /// and changes atomically, with no lock (``SourceBinding``).
    let binding: SourceBinding
    /// The source's place in each mode of its home loop that holds it (the mode, and the source's position in the
    /// mode's source list, ``LoopMode/sources``). Protected by the home loop's lock, and reached only while that loop
    /// is the home (``homePlaces``, which asserts both): only that loop's "...Locked" functions read and change it.
    /// Searched by identity: a source is almost always in one mode, which the list stores inline, so adding, removing
    /// and a pass's check cost no hashing and no allocation. Not checked for exclusivity at run time, as an
    /// observer's places: every access is under that one lock and none overlaps another.
    @exclusivity(unchecked) private var storedHomePlaces = HomePlaces()
    typealias HomePlaces = InlineList<ModeHandle<Int>>
    /// The modes of loops other than the home that hold the source (CF allows a source in several loops), with the
    /// source's place in each; nil while there is none. Protected by ``otherLoopsLock`` (``otherMemberships``), and
    /// changed with the holding loop's lock held too.
    @exclusivity(unchecked) private var storedOtherMemberships: [SourceMembership]? = nil
    /// The lock of every source's ``otherMemberships``, process-wide: a source in the modes of two loops at once is
    /// rare, and a lock of each source's own would cost every source its word. Taken after a loop's lock, before a
    /// loop's signalled list's.
    static let otherLoopsLock = Lock("RefRunLoopSource.otherLoopsLock")

    /// ``storedHomePlaces``. Caller holds the home loop's lock.
    var homePlaces: HomePlaces {
        _read {
            binding.assertHomeHeld()
            yield storedHomePlaces
        }
        _modify {
            binding.assertHomeHeld()
            yield &storedHomePlaces
        }
    }

    /// ``storedOtherMemberships``. Caller holds ``otherLoopsLock``.
    var otherMemberships: [SourceMembership]? {
        _read {
            Self.otherLoopsLock.assertHeld()
            yield storedOtherMemberships
        }
        _modify {
            Self.otherLoopsLock.assertHeld()
            yield &storedOtherMemberships
        }
    }

    /// A version-0 source. `schedule` and `cancel`, when given, receive the concrete mode name, once per mode the
    /// source is added to or removed from (rules source.schedule-once-per-mode, source.cancel-on-remove).
    public convenience init(
        order: Int = 0, perform: @escaping @Sendable () -> Void,
        schedule: (@Sendable (String) -> Void)? = nil,
        cancel: (@Sendable (String) -> Void)? = nil
    ) {
        let callouts = schedule == nil && cancel == nil ? nil : ModeCallouts(schedule: schedule, cancel: cancel)
        self.init(order: order, kind: .version0(retaining: callouts), perform: .swift(perform), creatorHolds: false)
    }

    /// A version-1 source: when `fileDescriptor` becomes readable in a mode that holds the source, the loop reads 8
    /// bytes from it and calls `perform`, one source per pass (rule source.v1-port). The caller owns the descriptor; it
    /// must stay open while the source is in a mode.
    public convenience init(order: Int = 0, fileDescriptor: Int32, perform: @escaping @Sendable () -> Void) {
        self.init(
            order: order, kind: .version1(fileDescriptor: fileDescriptor), perform: .swift(perform), creatorHolds: false
        )
    }

    /// A source of either version with its perform callout stored as given (the C ABI passes C callouts). A
    /// version-0 `kind`'s callouts must be retained for the source (``Kind/version0(retaining:)``): it releases them
    /// in its deinit. `creatorHolds`: the reference the caller makes is the C ABI's, given back only through
    /// ``releaseCreatorsReference(_:)`` (SourceBinding). Inlined into its callers (the C ABI's creation called it out
    /// of line, a frame per source).
    @inline(__always)
    init(order: Int, kind: Kind, perform: SourcePerform, creatorHolds: Bool) {
        self.order = order
        self.kind = kind
        self.perform = perform
        self.binding = SourceBinding(creatorHolds: creatorHolds)
    }

    deinit {
        // The one reference for the places is held while a mode of any loop holds the source (SourceBinding, as CF's
        // mode sets retain theirs and RefRunLoopABI.h promises), so a source never goes while it has a place in one.
        assert(
            binding.hasNoHome && storedOtherMemberships == nil, "internal bug: a source was let go while in a mode")
        if case .version0(let callouts?) = kind { callouts.release() }
    }

    /// Where a signalled source stands for a pass of `loop` in `mode` (``standingLocked(for:in:)``).
    enum PassStanding {
        /// Not valid, not signalled (performed since it was listed), or in no mode of the loop: dropped from the
        /// loop's signalled list (signalling it again or adding it to a mode lists it again).
        case stale
        /// Signalled and in the loop, but not in that mode: kept for a pass in another mode.
        case elsewhere
        /// To be performed by the pass; ties in `order` go by the sequence number.
        case due(sequence: UInt64)
    }

    // MARK: Places in modes (the holding loop's lock)

    /// The source's position in `mode`'s source list, nil when `mode` (of `loop`) does not hold it. Caller holds
    /// `loop`'s lock. Inlined for the usual source, at home in `loop` or in no loop.
    @inline(__always)
    func slotLocked(in mode: LoopMode, of loop: RefRunLoop) -> Int? {
        loop.lock.assertHeld()
        if binding.isHome(loop), let index = homePlaces.firstIndex(where: { $0.isIn(mode) }) {
            return homePlaces[index].handle
        }
        // Another loop's add may set the mark at any time, but only this loop, under its lock, adds this loop's
        // memberships: when there is one, the mark is set and this thread sees it.
        guard binding.current & SourceBinding.inOtherLoops != 0 else { return nil }
        return otherSlot(in: mode)
    }

    /// ``slotLocked(in:of:)`` among the other loops' memberships.
    @inline(never)
    private func otherSlot(in mode: LoopMode) -> Int? {
        Self.otherLoopsLock.withLock { otherMemberships?.first { $0.isIn(mode) }?.slot }
    }

    /// Appends the source to `mode`'s source list and records its place, unless it is invalid or there already;
    /// returns whether it joined. A signalled version-0 source goes on the loop's signalled list, for a pass in that
    /// mode to find. Caller holds `loop`'s lock.
    @inline(__always)
    func joinLocked(_ loop: RefRunLoop, _ mode: LoopMode) -> Bool {
        loop.lock.assertHeld()
        guard slotLocked(in: mode, of: loop) == nil else { return false }
        let marks: UInt
        if binding.isHome(loop) {
            marks = binding.current
            // An invalid source is never added (CF checks in CFRunLoopAddSource).
            guard marks & SourceBinding.invalid == 0 else { return false }
            homePlaces.append(ModeHandle(mode, mode.sources.append(Unmanaged.passUnretained(self))))
            binding.rename(homePlaces[0].mode, several: true)
        } else if let bound = binding.bindHome(mode) {
            marks = bound.after
            guard marks & SourceBinding.invalid == 0 else {
                // Bound and unbound with no place between: the hold is as it was.
                _ = binding.unbindHome(from: loop)
                return false
            }
            homePlaces.append(ModeHandle(mode, mode.sources.append(Unmanaged.passUnretained(self))))
            adjustHold(bound)
        } else {
            return joinOtherLoopLocked(loop, mode)
        }
        if marks & SourceBinding.signalled != 0 && isVersion0 { loop.enqueueSignalledOnJoin(self) }
        return true
    }

    /// ``joinLocked(_:_:)`` for a loop that is not the source's home while another is.
    @inline(never)
    private func joinOtherLoopLocked(_ loop: RefRunLoop, _ mode: LoopMode) -> Bool {
        Self.otherLoopsLock.withLock {
            // Marked before the validity and the signal are read (one read-modify-write): a signal or an invalidation
            // that this add does not see sees the mark, and then waits for this lock to read the memberships.
            let change = binding.markInOtherLoops()
            let marks = change.before
            guard marks & SourceBinding.invalid == 0 else {
                // Marked and cleared with no place between: the hold is as it was.
                if otherMemberships == nil { _ = binding.clearInOtherLoops() }
                return false
            }
            let slot = mode.sources.append(Unmanaged.passUnretained(self))
            let membership = SourceMembership(loop: loop, mode: mode, slot: slot)
            if otherMemberships == nil { otherMemberships = [membership] } else { otherMemberships!.append(membership) }
            adjustHold(change)
            if marks & SourceBinding.signalled != 0 && isVersion0 { loop.enqueueSignalledOnJoin(self) }
            return true
        }
    }

    /// Records that `mode` of `loop` no longer holds the source and returns where it was in the mode's source list,
    /// nil when it was not there. Caller holds `loop`'s lock, and a reference to the source: leaving its last place
    /// may let go of the one reference for its places (SourceBinding).
    ///
    /// Inlined for a source in that one mode only (almost every source): the general removal stays out of line,
    /// and the call with its frame cost more than the test.
    @inline(__always)
    func leaveLocked(_ loop: RefRunLoop, _ mode: LoopMode) -> Int? {
        loop.lock.assertHeld()
        if binding.isHome(loop), let sole = homePlaces.removeSole(where: { $0.isIn(mode) }) {
            adjustHold(binding.unbindHome(from: loop))
            return sole.handle
        }
        return leaveOneOfPlacesLocked(loop, mode)
    }

    /// ``leaveLocked(_:_:)`` for a source in another mode or in several, or in other loops.
    @inline(never)
    private func leaveOneOfPlacesLocked(_ loop: RefRunLoop, _ mode: LoopMode) -> Int? {
        if binding.isHome(loop), let index = homePlaces.firstIndex(where: { $0.isIn(mode) }) {
            let slot = homePlaces.remove(at: index).handle
            if homePlaces.isEmpty {
                adjustHold(binding.unbindHome(from: loop))
            } else {
                binding.rename(homePlaces[0].mode, several: homePlaces.count > 1)
            }
            return slot
        }
        guard binding.current & SourceBinding.inOtherLoops != 0 else { return nil }
        let (slot, change): (Int?, (before: UInt, after: UInt)?) = Self.otherLoopsLock.withLock {
            guard let index = otherMemberships?.firstIndex(where: { $0.isIn(mode) }) else { return (nil, nil) }
            let slot = otherMemberships!.remove(at: index).slot
            guard otherMemberships!.isEmpty else { return (slot, nil) }
            otherMemberships = nil
            return (slot, binding.clearInOtherLoops())
        }
        if let change { adjustHold(change) }
        return slot
    }

    /// Records that the source moved to `slot` of `mode`'s source list (its holes were squeezed out). Caller holds
    /// `loop`'s lock.
    func moveLocked(in mode: LoopMode, of loop: RefRunLoop, to slot: Int) {
        loop.lock.assertHeld()
        if binding.isHome(loop), let index = homePlaces.firstIndex(where: { $0.isIn(mode) }) {
            homePlaces[index].handle = slot
            return
        }
        Self.otherLoopsLock.withLock {
            guard let index = otherMemberships?.firstIndex(where: { $0.isIn(mode) }) else {
                preconditionFailure("internal bug: a source listed in mode \(mode.name) has no place there")
            }
            otherMemberships![index].slot = slot
        }
    }

    /// Forgets every place in `loop` (its thread exited). Caller holds `loop`'s lock, and a reference to the source (as
    /// for ``leaveLocked(_:_:)``).
    func leaveEveryModeLocked(of loop: RefRunLoop) {
        loop.lock.assertHeld()
        if binding.isHome(loop) {
            homePlaces = []
            adjustHold(binding.unbindHome(from: loop))
        }
        guard binding.current & SourceBinding.inOtherLoops != 0 else { return }
        let change: (before: UInt, after: UInt)? = Self.otherLoopsLock.withLock {
            otherMemberships?.removeAll { $0.isIn(loop) }
            guard otherMemberships?.isEmpty == true else { return nil }
            otherMemberships = nil
            return binding.clearInOtherLoops()
        }
        if let change { adjustHold(change) }
    }

    /// Where the source stands for a pass of `loop` in `mode` (``PassStanding``). Caller holds `loop`'s lock.
    /// O(modes holding the source). Inlined: a pass checks the one source of a wake-up with it.
    @inline(__always)
    func standingLocked(for loop: RefRunLoop, in mode: LoopMode) -> PassStanding {
        loop.lock.assertHeld()
        let marks = binding.current
        guard marks & (SourceBinding.invalid | SourceBinding.signalled) == SourceBinding.signalled else {
            return .stale
        }
        let home = binding.isHome(loop)
        if home && homePlaces.contains(where: { $0.isIn(mode) }) { return .due(sequence: binding.signalStamp) }
        guard marks & SourceBinding.inOtherLoops != 0 else { return home ? .elsewhere : .stale }
        return otherStanding(for: loop, in: mode, atHome: home)
    }

    /// ``standingLocked(for:in:)`` among the other loops' memberships.
    @inline(never)
    private func otherStanding(for loop: RefRunLoop, in mode: LoopMode, atHome: Bool) -> PassStanding {
        Self.otherLoopsLock.withLock {
            guard let memberships = otherMemberships else { return atHome ? .elsewhere : .stale }
            if memberships.contains(where: { $0.isIn(mode) }) { return .due(sequence: binding.signalStamp) }
            return atHome || memberships.contains { $0.isIn(loop) } ? .elsewhere : .stale
        }
    }

    var isVersion0: Bool {
        if case .version0 = kind { return true }
        return false
    }

    var fileDescriptor: Int32? {
        if case .version1(let fd) = kind { return fd }
        return nil
    }

    /// The schedule callout, made for each mode the source joins.
    var scheduleCallout: (@Sendable (String) -> Void)? {
        // The source holds the box for its whole life.
        if case .version0(let callouts?) = kind { return callouts._withUnsafeGuaranteedRef { $0.schedule } }
        return nil
    }

    /// The cancel callout, made for each mode the source leaves.
    var cancelCallout: (@Sendable (String) -> Void)? {
        if case .version0(let callouts?) = kind { return callouts._withUnsafeGuaranteedRef { $0.cancel } }
        return nil
    }

    /// CFRunLoopSourceSignal: marks the source to be performed by the next pass that reaches it, keeping the time of
    /// the first signal. Does not wake any loop (rule source.signal-does-not-wake). O(1). Any thread.
    ///
    /// The first signal also puts the source on the signalled list of every loop holding it, so that a pass visits
    /// only signalled sources (``RefRunLoop/performSources0(in:stopAfterHandle:)``). O(loops holding it).
    @inline(__always)
    public func signal() {
        // Only a version-0 source is performed for its signal (CF's __CFRunLoopCollectSources0 takes version-0
        // sources only): a signalled version-1 source just answers isSignalled (rule source.v1-port).
        guard isVersion0 else {
            _ = binding.signal(inFlight: false)
            return
        }
        guard let marks = binding.signal(inFlight: true) else { return }
        // The home through an unretained reference, safe while in flight (SourceBinding): no reference counting per
        // signal.
        SourceBinding.homeLoop(in: marks)?._withUnsafeGuaranteedRef { $0.enqueueSignalled(self) }
        if marks & SourceBinding.inOtherLoops != 0 { signalOtherLoops() }
        binding.leaveFlight()
    }

    /// Lists the source in every other loop holding it, once per loop. The loops are retained (a rare path): the
    /// usual path's unretained call to the home is then the only one of its kind, which the compiler inlines (two
    /// such closures were merged into one function, called out of line).
    @inline(never)
    private func signalOtherLoops() {
        Self.otherLoopsLock.withLock {
            for loop in otherMemberships?.loops ?? [] { loop.enqueueSignalled(self) }
        }
    }

    /// CFRunLoopSourceInvalidate: the source is never performed again and leaves every mode of every loop, with a
    /// cancel callout per mode (rule source.invalidate). O(modes of the loops holding it). Any thread.
    public func invalidate() {
        guard let before = binding.invalidate() else { return }
        // The places stay until each loop takes the source out of each mode (removeEverywhere), which needs the
        // source's place in the mode's list; invalid, the source is never performed or listed meanwhile. Each loop is
        // retained while in flight (SourceBinding), so it outlives the removal.
        var holders: [RefRunLoop] = []
        if let home = SourceBinding.homeLoop(in: before) { holders.append(home.takeUnretainedValue()) }
        if before & SourceBinding.inOtherLoops != 0 {
            Self.otherLoopsLock.withLock {
                for loop in otherMemberships?.loops ?? [] where !holders.contains(where: { $0 === loop }) {
                    holders.append(loop)
                }
            }
        }
        binding.leaveFlight()
        for loop in holders { loop.removeEverywhere(.source(self)) }
    }

    /// CFRunLoopSourceIsValid. Any thread, no lock.
    public var isValid: Bool { binding.isValid }

    /// CFRunLoopSourceIsSignalled. Any thread, no lock.
    public var isSignalled: Bool { binding.isSignalled }
}

/// A run-loop timer (CFRunLoopTimer).
///
/// A timer belongs to at most one loop at a time (as CFRunLoopAddTimer 3950, CFRunLoop.c at swift-6.3.1-RELEASE) but
/// can be in several of its modes. Its fire dates are in ``RefClock`` seconds.
public final class RefRunLoopTimer: TimerQueueNode, @unchecked Sendable {
    /// Seconds between fires; 0 for a one-shot timer (negative intervals become 0, rule timer.creation).
    public let interval: Double
    /// Stored for API parity; CF ignores it when ordering timers (rule timer.date-order).
    public let order: Int
    let callout: TimerCallout
    /// For a shadow: the timer it stands for in the queue of one more mode (a timer's own ``queuePlace`` serves one
    /// mode at a time), retained by the shadow's initializer and released by its deinit. nil for a timer. A shadow is
    /// made by the loop and held only by that mode's queue. Unmanaged, as a source's callouts box is: as an optional
    /// strong reference to its own class, the field made every timer's deinit walk it as a chain (a retain and a
    /// release of nil and a uniqueness loop: 36 instructions per timer added and removed under callgrind); now a timer
    /// tests one word.
    private let shadowOwner: Unmanaged<RefRunLoopTimer>?
    /// The timer's entry in one mode's queue (``TimerQueue``, whose node the timer is): adding a timer to a mode
    /// allocates no entry. Protected by the lock of the loop in `state`'s binding (a timer is in one loop's modes at a
    /// time): only that loop's mode queues change it, in the loop's "...Locked" functions, which assert the lock; a
    /// timer joins and leaves a queue with its own lock held too, so it is unbound only while in no queue. Exclusivity
    /// is checked as for any field: the release build proves the sifts' accesses apart, so the check costs nothing
    /// per item added and removed (callgrind, journal/2026-12-06-exclusivity-on-the-timer-place.md).
    var queuePlace = TimerQueuePlace()

    /// The timer this node stands for: itself, or the owner of a shadow.
    var payload: RefRunLoopTimer { shadowOwner?.takeUnretainedValue() ?? self }
    // The two marks are part of what `state`'s lock protects (``validLocked``, ``firingLocked``), but stored here
    // rather than in ``State``, as atomics read and written with relaxed ordering while the lock is held: two single
    // bytes between the class's fields, where padding can absorb them (inside the state they added 16 bytes, and a
    // larger timer costs more in malloc and free: journal/2026-12-06-ref-hot-paths.md measured 47 instructions per
    // timer added and removed for 136 bytes against 120, the largest size glibc keeps in its fast bins).
    private let validMark = Atomic<Bool>(true)
    private let firingMark = Atomic<Bool>(false)

    /// Whether the timer is valid. Caller holds `state`'s lock.
    var validLocked: Bool {
        get {
            state.assertHeld()
            return validMark.load(ordering: .relaxed)
        }
        set {
            state.assertHeld()
            validMark.store(newValue, ordering: .relaxed)
        }
    }

    /// Set while the callout runs: nested runs skip the timer and arming ignores it (rule
    /// timer.firing-skipped-by-nested-run). Caller holds `state`'s lock.
    var firingLocked: Bool {
        get {
            state.assertHeld()
            return firingMark.load(ordering: .relaxed)
        }
        set {
            state.assertHeld()
            firingMark.store(newValue, ordering: .relaxed)
        }
    }

    /// What `state` protects: the timer's own fields, which any thread reads and changes (and ``validLocked`` and
    /// ``firingLocked``).
    struct State: @unchecked Sendable {  // LoopBinding's reference is unretained: see LoopBinding.
        /// What ``nextFireDate`` returns (CF's `_nextFireDate`).
        var fireDate: Double
        /// The soft deadline in CLOCK_MONOTONIC nanoseconds (CF's `_fireTSR`).
        var deadline: UInt64
        /// The tolerance after Darwin's clamp.
        var storedTolerance: Double = 0
        /// The loop whose modes hold the timer, if any.
        var binding = LoopBinding()
        /// Changed with the lock of the loop in `binding` held too. The timer's entry in each mode's queue.
        var entries: Places = InlineList()

        /// The window length in nanoseconds. A timer without tolerance (the usual one) gets its empty window without
        /// the call.
        var windowNanoseconds: UInt64 {
            storedTolerance > 0 ? TimerTolerance.windowNanoseconds(storedTolerance) : 0
        }
    }
    /// The timer's lock and the fields it protects (``State``), reached only through `state.withLocked`.
    let state: Guarded<State>
    /// Where a timer is: its node in each mode's queue (the timer itself or a shadow, unretained: the mode's queue
    /// holds it).
    typealias Places = InlineList<ModeHandle<Unmanaged<RefRunLoopTimer>>>

    /// CFRunLoopTimerCreate. `fireDate` is in ``RefClock`` seconds; a date in the past fires at the next
    /// opportunity. `interval` <= 0 makes a one-shot timer. A NaN interval is a programming error.
    public convenience init(
        fireDate: Double, interval: Double = 0, order: Int = 0,
        callout: @escaping @Sendable (RefRunLoopTimer) -> Void
    ) {
        self.init(fireDate: fireDate, interval: interval, order: order, callout: .swift(callout))
    }

    /// CFRunLoopTimerCreate with the callout stored as given (the C ABI's); with `shadowOf`, a shadow of that timer.
    init(fireDate: Double, interval: Double, order: Int, callout: TimerCallout, shadowOf owner: RefRunLoopTimer? = nil)
    {
        precondition(!interval.isNaN, "NaN was used as an interval for a RefRunLoopTimer")
        self.interval = interval < 0 ? 0 : interval
        self.order = order
        self.callout = callout
        self.shadowOwner = owner.map { Unmanaged.passRetained($0) }
        self.state = Guarded(
            "RefRunLoopTimer.state",
            State(
                fireDate: fireDate.isNaN ? RefClock.dateLimit : min(fireDate, RefClock.dateLimit),
                deadline: RefClock.deadline(forFireDate: fireDate)))
    }

    deinit {
        shadowOwner?.release()
    }

    /// A shadow of `timer`: its node in the queue of a mode that holds it while its own place is taken.
    convenience init(shadowOf timer: RefRunLoopTimer) {
        self.init(fireDate: 0, interval: timer.interval, order: timer.order, callout: timer.callout, shadowOf: timer)
    }

    /// Whether the timer repeats (interval > 0).
    public var repeats: Bool { interval > 0 }

    /// CFRunLoopTimerInvalidate: the timer never fires again and leaves every mode. O(modes × log n). Any thread.
    public func invalidate() {
        let holder: RefRunLoop? = state.withLocked { state in
            guard validLocked else { return nil }
            validLocked = false
            return state.binding.loop
        }
        holder?.removeEverywhere(.timer(self))
    }

    /// CFRunLoopTimerIsValid. Any thread.
    public var isValid: Bool { state.withLocked { _ in validLocked } }

    /// CFRunLoopTimerGetNextFireDate / SetNextFireDate. The getter returns 0 for an invalid timer; the setter does
    /// nothing on one, repositions the timer in each of its modes (O(modes × log n)) and, from another thread, wakes
    /// its loop as CF does (rule timer.set-next-fire-date). Any thread.
    public var nextFireDate: Double {
        get { state.withLocked { validLocked ? $0.fireDate : 0 } }
        set { setNextFireDate(newValue) }
    }

    /// CFRunLoopTimerGetTolerance / SetTolerance with Darwin's clamp (``TimerTolerance/clamped(_:interval:)``).
    /// The timer fires within [fire date, fire date + tolerance], never early. O(modes). Any thread.
    public var tolerance: Double {
        get { state.withLocked { $0.storedTolerance } }
        set { setTolerance(newValue) }
    }

    private func setNextFireDate(_ date: Double) {
        let clamped = date.isNaN ? RefClock.dateLimit : min(date, RefClock.dateLimit)
        let newDeadline = RefClock.deadline(forFireDate: clamped)
        while true {
            let holder: RefRunLoop? = state.withLocked { state in
                guard validLocked else { return nil }
                if state.binding.isUnbound {
                    state.fireDate = clamped
                    state.deadline = newDeadline
                }
                return state.binding.loop
            }
            guard let holder else { return }
            if holder.rescheduleTimer(self, fireDate: clamped, deadline: newDeadline) {
                if !holder.isCurrentThread { holder.wakeUp() }
                return
            }
            // The timer left that loop in the meantime: try again with its new state.
        }
    }

    private func setTolerance(_ value: Double) {
        while true {
            let interval = interval
            let holder: RefRunLoop? = state.withLocked { state in
                if state.binding.isUnbound { state.storedTolerance = TimerTolerance.clamped(value, interval: interval) }
                return state.binding.loop
            }
            guard let holder else { return }
            if holder.setTimerTolerance(self, value) { return }
        }
    }
}

/// A run-loop observer (CFRunLoopObserver).
///
/// An observer belongs to at most one loop at a time (rule observer.modes) but can be in several of its modes.
public final class RefRunLoopObserver: @unchecked Sendable {
    /// The activities it is called for.
    public let activities: RefRunLoopActivity
    /// Whether it stays valid after its first callout (rule observer.non-repeating).
    public let repeats: Bool
    /// Observers with a lower order are called first; equal orders in the order they were added (rule observer.order).
    public let order: Int
    let callout: ObserverCallout
    /// The loop whose modes hold the observer, if any, and its creator's hold (``SharedLoopBinding``: any thread reads
    /// it; only that loop changes the loop, under its lock).
    let binding: SharedLoopBinding
    /// The observer's handle in each mode's observer store. Protected by the lock of the loop in `binding`, and reached
    /// only while the observer is bound (``places``, which asserts both): only that loop's "...Locked" functions read
    /// and change it, after checking the binding under their lock. Not checked for exclusivity at run time: every
    /// access is under that one lock and none overlaps another, and the check (a thread-local access-set insertion and
    /// removal) would cost more on every add and remove than the lock it replaces.
    @exclusivity(unchecked) private var storedPlaces = Places()
    typealias Places = InlineList<ModeHandle<OrderedStore<Unmanaged<RefRunLoopObserver>>.Handle>>

    /// ``storedPlaces``. Caller holds the lock of the loop in `binding`.
    var places: Places {
        _read {
            binding.assertBoundLoopHeld()
            yield storedPlaces
        }
        _modify {
            binding.assertBoundLoopHeld()
            yield &storedPlaces
        }
    }

    /// Records that `mode`'s store moved the observer to `handle`. Caller holds the lock of the loop in `binding`.
    func relocate(in mode: LoopMode, to handle: OrderedStore<Unmanaged<RefRunLoopObserver>>.Handle) {
        guard let slot = places.firstIndex(where: { $0.isIn(mode) }) else {
            preconditionFailure("internal bug: an observer stored in mode \(mode.name) has no handle there")
        }
        places[slot].handle = handle
    }

    /// Whether it was invalidated. Only ever set, by ``invalidate()``; read by any thread. Set before the binding is
    /// read, both sequentially consistent, so that an add racing the invalidation either sees the mark or is seen
    /// (``SharedLoopBinding``).
    let invalidated = Atomic<Bool>(false)
    /// Whether a callout of it is running (rule observer.firing-not-reentered: nested runs do not re-enter it). Written
    /// only by the thread of the loop calling it out, around the callout; a separate word from `invalidated`, so that
    /// both marks are plain loads and stores (no read-modify-write, no lock prefix: on x86 a relaxed atomic store is
    /// one `mov`). Atomic only because an observer removed from one loop in its own callout may be added to another
    /// loop, whose thread may then read the mark while the first callout is still running.
    let firing = Atomic<Bool>(false)

    /// CFRunLoopObserverCreate.
    public convenience init(
        activities: RefRunLoopActivity, repeats: Bool = true, order: Int = 0,
        callout: @escaping @Sendable (RefRunLoopObserver, RefRunLoopActivity) -> Void
    ) {
        self.init(activities: activities, repeats: repeats, order: order, callout: .swift(callout), creatorHolds: false)
    }

    /// CFRunLoopObserverCreate with the callout stored as given (the C ABI's). `creatorHolds`: the reference the caller
    /// makes is the C ABI's, given back only through ``releaseCreatorsReference(_:)`` (``SharedLoopBinding``).
    init(activities: RefRunLoopActivity, repeats: Bool, order: Int, callout: ObserverCallout, creatorHolds: Bool) {
        self.activities = activities
        self.repeats = repeats
        self.order = order
        self.callout = callout
        self.binding = SharedLoopBinding(creatorHolds: creatorHolds)
    }

    /// CFRunLoopObserverInvalidate: never called again, removed from every mode. O(modes × log n). Any thread.
    public func invalidate() {
        guard !invalidated.exchange(true, ordering: .sequentiallyConsistent) else { return }
        binding.retainedLoop()?.removeEverywhere(.observer(self))
    }

    /// CFRunLoopObserverIsValid. Any thread, no lock.
    public var isValid: Bool { valid }

    /// Whether the observer is still valid. Any thread, no lock.
    @inline(__always)
    var valid: Bool { !invalidated.load(ordering: .acquiring) }

    /// Marks the observer firing if it is valid and not firing already; returns whether it did (the caller then
    /// calls out and ends with ``endFiring()``). Loads and a store, no lock; the thread of the loop calling it only.
    @inline(__always)
    func beginFiring() -> Bool {
        guard valid, !firing.load(ordering: .relaxed) else { return false }
        firing.store(true, ordering: .relaxed)
        return true
    }

    /// Clears the firing mark set by ``beginFiring()``.
    @inline(__always)
    func endFiring() {
        firing.store(false, ordering: .relaxed)
    }
}

// The one reference for the places (CreatorHold.swift), read from each item's binding word.
extension RefRunLoopSource: HeldByPlaces {
    static func isHeld(_ word: UInt) -> Bool { SourceBinding.isHeld(word) }
    func clearCreatorMark() -> (before: UInt, after: UInt) { binding.releaseCreator() }
    var creatorStillHolds: Bool { binding.creatorStillHolds }
}

extension RefRunLoopObserver: HeldByPlaces {
    static func isHeld(_ word: UInt) -> Bool { SharedLoopBinding.isHeld(word) }
    func clearCreatorMark() -> (before: UInt, after: UInt) { binding.releaseCreator() }
    var creatorStillHolds: Bool { binding.creatorStillHolds }
}

/// Any item a mode can hold.
enum LoopItem {
    case source(RefRunLoopSource)
    case timer(RefRunLoopTimer)
    case observer(RefRunLoopObserver)

    var identifier: ObjectIdentifier {
        switch self {
        case .source(let source): return ObjectIdentifier(source)
        case .timer(let timer): return ObjectIdentifier(timer)
        case .observer(let observer): return ObjectIdentifier(observer)
        }
    }

    /// Whether adding the item to `loop` can do anything: it is valid and, for a timer or an observer, in no loop or
    /// in this one. CFRunLoopAddSource, AddTimer and AddObserver return before they look a mode up otherwise, so no
    /// mode is created (rule common.add-common-mode). Takes a source's or a timer's lock (an observer's mark and
    /// binding are atomics).
    func canJoin(_ loop: RefRunLoop) -> Bool {
        switch self {
        case .source(let source): return source.isValid
        case .timer(let timer): return timer.state.withLocked { timer.validLocked && $0.binding.admits(loop) }
        case .observer(let observer): return observer.valid && observer.binding.admits(loop)
        }
    }
}

/// One mode of a loop other than the source's home that holds the source (``RefRunLoopSource/otherMemberships``), and
/// where the source is in that mode's source list (``LoopMode/sources``).
///
/// Both references are unretained, so copying a membership (a pass's check and a signal read them) costs no
/// reference counting: a membership never outlives its loop or its mode. Loops are made only by `LoopRegistry`, which
/// holds each thread's loop until the thread exits and tears it down then (``RefRunLoop/tearDown()`` removes every
/// membership in it) before letting it go, and never lets the main loop go; a loop keeps its modes for its whole life
/// (modes are never removed). The loop's deinit asserts, in debug builds, that no mode of it still holds an item.
struct SourceMembership {
    /// The loop, unretained.
    let reference: Unmanaged<RefRunLoop>
    /// One of the loop's modes, unretained.
    let modeReference: Unmanaged<LoopMode>
    /// The source's position in `mode.sources`.
    var slot: Int

    init(loop: RefRunLoop, mode: LoopMode, slot: Int) {
        self.reference = Unmanaged.passUnretained(loop)
        self.modeReference = Unmanaged.passUnretained(mode)
        self.slot = slot
    }

    /// The mode.
    var mode: LoopMode { modeReference.takeUnretainedValue() }

    /// Whether the membership is in `loop` (compared by identity, without retaining either).
    @inline(__always)
    func isIn(_ loop: RefRunLoop) -> Bool { reference.toOpaque() == Unmanaged.passUnretained(loop).toOpaque() }

    /// Whether the membership is `mode`'s (compared by identity, without retaining either: an `unowned(unsafe)`
    /// reference compared with `===` was retained and released for it).
    @inline(__always)
    func isIn(_ mode: LoopMode) -> Bool { modeReference.toOpaque() == Unmanaged.passUnretained(mode).toOpaque() }
}

extension [SourceMembership] {
    /// The holding loops, each once, in the order they first appear.
    var loops: [RefRunLoop] {
        var result: [RefRunLoop] = []
        for membership in self where !result.contains(where: { membership.isIn($0) }) {
            result.append(membership.reference.takeUnretainedValue())
        }
        return result
    }
}
