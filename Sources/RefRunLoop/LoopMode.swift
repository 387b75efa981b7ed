// One mode of one loop: its sources, timers and observers, and its persistent stop request.

import Synchronization

/// A mode. Every property is protected by the owning loop's lock unless it says otherwise.
///
/// Modes are created by adding an item to a concrete name, by performing a block for it, or by stop(mode:), and are
/// never destroyed (rules common.default-is-common, mode.created-never-destroyed).
final class LoopMode {
    let name: String
    /// Immutable. The mode's wait set (CF's `_portSet` and `_timerPort`): an epoll set holding the loop's wake-up
    /// eventfd, the mode's timerfd and the descriptors of the mode's version-1 sources, with its edge accounting
    /// (WaitSet.swift). The timerfd is armed at the coalesced wake-up time of the mode's timers whenever they change
    /// (RefRunLoop+TimerArming.swift), and disarmed when the mode has no timer left (fixing CF, whose timerfd stays
    /// armed then: __CFArmNextTimerInMode 2451-63, CFRunLoop.c at swift-6.3.1-RELEASE).
    let waitSet: WaitSet.ModeSet

    /// The stores every add and remove changes, protected by the owning loop's lock (every function that reaches them
    /// is a "...Locked" one, which asserts it): gathered in one struct at a stable address that the mode allocates
    /// once and frees in its deinit, and reached through the accessors below, which yield the field in place. An
    /// access is then a pointer access, which Swift checks for exclusivity at compile time; as stored properties of
    /// this class, each access was checked at run time (a thread-local access-set insertion and removal).
    struct Tables {
        /// How many batches of timer fires in this mode are under way (nested runs can fire one inside another).
        /// While one is, the wake-up time is the earliest cap even for a timer that is due already: the batch's own
        /// callouts make timers due one after another, and waking for each would undo the coalescing
        /// (``RefRunLoop/wakeTimeLocked(for:)``).
        var timerBatches = 0
        /// The mode's sources, of both versions, in the order they were added (a pass sorts the signalled ones by
        /// (order, first signal)). Each source's place for this mode records its position here
        /// (``RefRunLoopSource/homePlaces``, or ``SourceMembership/slot`` for a source held by a second loop): adding
        /// appends, removing leaves a hole and moves no other source (except when the holes are squeezed out), and
        /// neither hashes. Unretained: the source's one reference for its places keeps it alive while it is here
        /// (SourceBinding.swift), so adding and removing count no reference.
        var sources = SlotArray<Unmanaged<RefRunLoopSource>>()
        /// Timers by (deadline, insertion).
        var timers = TimerQueue<RefRunLoopTimer>()
        /// Observers by (order, insertion). Every change must call ``LoopMode/observersChanged()``. Unretained, as the
        /// sources are: the observer's one reference for its places keeps it alive while it is here
        /// (``SharedLoopBinding``).
        var observers = OrderedStore<Unmanaged<RefRunLoopObserver>>()
    }
    /// The mode's ``Tables``; the mode owns it (allocated in init, freed in deinit).
    private let tables: UnsafeMutablePointer<Tables>

    /// ``Tables/timerBatches``. Protected by the owning loop's lock.
    var timerBatches: Int {
        _read { yield tables.pointee.timerBatches }
        _modify { yield &tables.pointee.timerBatches }
    }
    /// ``Tables/sources``. Protected by the owning loop's lock.
    var sources: SlotArray<Unmanaged<RefRunLoopSource>> {
        _read { yield tables.pointee.sources }
        _modify { yield &tables.pointee.sources }
    }
    /// ``Tables/timers``. Protected by the owning loop's lock.
    var timers: TimerQueue<RefRunLoopTimer> {
        _read { yield tables.pointee.timers }
        _modify { yield &tables.pointee.timers }
    }
    /// ``Tables/observers``. Protected by the owning loop's lock.
    var observers: OrderedStore<Unmanaged<RefRunLoopObserver>> {
        _read { yield tables.pointee.observers }
        _modify { yield &tables.pointee.observers }
    }
    /// Version-1 sources by descriptor (CF's `_portToV1SourceMap`: one source per descriptor, the last added).
    var sourcesByDescriptor: [Int32: RefRunLoopSource] = [:] {
        didSet { waitSet.hasDescriptors = !sourcesByDescriptor.isEmpty }
    }
    /// Bumped (with the loop's lock held) after every change to `observers`; read without the lock by the loop's
    /// thread to tell whether `observerSnapshots` is still current.
    let observersVersion = Atomic<UInt64>(1)
    /// Confined to the loop's thread (only a run pass reads or writes it). Per activity bit (index = bit number),
    /// the mode's observers watching that activity in call order, as of `snapshotVersion`.
    var observerSnapshots: [ObserverBatch] = Array(repeating: ObserverBatch(owners: []), count: 8)
    /// Confined to the loop's thread. The `observersVersion` that `observerSnapshots` were built at (0: never).
    var snapshotVersion: UInt64 = 0
    /// Confined to the loop's thread. The activities some observer of the mode watches, as of `snapshotVersion`: an
    /// activity nobody watches costs a pass one comparison, no array copy.
    var observedActivities: RefRunLoopActivity = []
    /// _CFRunLoopStopMode's request: one Stopped result at the next check in this mode (rule stop.mode-flag).
    var stopped = false

    /// ``loopReference``: set once, by the loop, before another thread can reach the mode (``belong(to:)``), and only
    /// read after.
    @exclusivity(unchecked) private var storedLoop: Unmanaged<RefRunLoop>? = nil

    /// The loop the mode belongs to, unretained: a loop keeps its modes for its whole life.
    @inline(__always)
    var loopReference: Unmanaged<RefRunLoop> { storedLoop.unsafelyUnwrapped }

    /// Records the mode's loop. Called once, by the loop, as it makes the mode.
    func belong(to loop: RefRunLoop) {
        precondition(storedLoop == nil, "internal bug: a mode given a second loop")
        // A source's word names a mode by its address (SourceBinding).
        precondition(
            SourceBinding.canName(wordAddress(of: self)),
            "a run-loop mode's address does not fit a source's word (48-bit user addresses are assumed)")
        storedLoop = Unmanaged.passUnretained(loop)
    }

    init(name: String, waitSet: WaitSet.ModeSet) {
        self.name = name
        self.waitSet = waitSet
        tables = .allocate(capacity: 1)
        tables.initialize(to: Tables())
    }

    deinit {
        tables.deinitialize(count: 1)
        tables.deallocate()
    }

    /// Call with the loop's lock held after changing `observers`: the loop thread rebuilds its snapshots. A load and a
    /// store, not an atomic read-modify-write (a locked instruction on every observer added and removed): every bump is
    /// made with the loop's lock held, so none is lost, and the loop's thread only compares the value with the one its
    /// snapshots were built at (as ``RefRunLoop/itemLeftLocked()`` bumps `exitEpoch`).
    @inline(__always)
    func observersChanged() {
        observersVersion.store(observersVersion.load(ordering: .relaxed) &+ 1, ordering: .releasing)
    }

    /// The observers watching `activity` (a single activity bit) in call order, as a ready array, or nil when there
    /// are none: O(1) and lockless while the observers do not change; after a change, one O(n) rebuild of every
    /// activity's array under `lock` (the loop's). Loop thread only.
    @inline(__always)
    func observers(watching activity: RefRunLoopActivity, lock: borrowing Lock) -> ObserverBatch? {
        if observersVersion.load(ordering: .acquiring) != snapshotVersion { rebuildSnapshots(lock: lock) }
        guard observedActivities.contains(activity) else { return nil }
        return observerSnapshots[activity.rawValue.trailingZeroBitCount]
    }

    private func rebuildSnapshots(lock: borrowing Lock) {
        lock.withLock {
            snapshotVersion = observersVersion.load(ordering: .relaxed)
            let all = observers.elementsInOrder().map { $0.takeUnretainedValue() }
            observedActivities = []
            for index in observerSnapshots.indices {
                let bit = RefRunLoopActivity(rawValue: 1 << UInt(index))
                observerSnapshots[index] = ObserverBatch(owners: all.filter { $0.activities.contains(bit) })
                if !observerSnapshots[index].owners.isEmpty { observedActivities.insert(bit) }
            }
        }
    }

    /// Whether the mode has a source, a timer or (checked by the loop) a pending block. Observers do not count
    /// (rule empty.what-counts).
    var hasSourcesOrTimers: Bool { !sources.isEmpty || !timers.isEmpty }

    /// Whether the mode holds no source, timer or observer. Caller holds the owning loop's lock (or is its deinit).
    var holdsNoItem: Bool { sources.isEmpty && timers.isEmpty && observers.isEmpty }

    /// Whether the mode holds `item`. Caller holds the lock of `loop`, the mode's loop.
    func contains(_ item: LoopItem, in loop: RefRunLoop) -> Bool {
        loop.lock.assertHeld()
        switch item {
        case .source(let source):
            return source.slotLocked(in: self, of: loop) != nil
        case .timer(let timer):
            return timer.state.withLocked { $0.entries.contains { $0.isIn(self) } }
        case .observer(let observer):
            // Its places are readable under this loop's lock only while it is bound to this loop.
            return observer.binding.isBound(to: loop) && observer.places.contains { $0.isIn(self) }
        }
    }
}

/// The observers of one activity in call order, ready to walk without reference counting: `owners` keeps every
/// one alive (also one removed during the batch), `references` lists the same observers unretained.
struct ObserverBatch {
    let owners: [RefRunLoopObserver]
    let references: [Unmanaged<RefRunLoopObserver>]

    init(owners: [RefRunLoopObserver]) {
        self.owners = owners
        self.references = owners.map { Unmanaged.passUnretained($0) }
    }
}

/// A block queued by ``RefRunLoop/perform(modes:_:)``.
struct PendingBlock {
    /// The mode names it may run in; ``RefRunLoopMode/commonModesName`` stands for every common mode.
    let modes: Set<String>
    let block: @Sendable () -> Void

    /// CF's matching rule (rule block.mode-match): the block's modes name the current mode, or include the common-modes
    /// string while the current mode is common. CF compares with CFEqual, so the literal string counts as the constant.
    /// `isCommon` is asked only for a block of the common modes, when the block's turn comes: CF reads the loop's live
    /// set of common modes (__CFRunLoopDoBlocks 2040, 2051, CFRunLoop.c at swift-6.3.1-RELEASE), so a mode made common
    /// by an earlier block of the same batch counts.
    func matches(_ mode: String, isCommon: () -> Bool) -> Bool {
        modes.contains(mode) || (modes.contains(RefRunLoopMode.commonModesName) && isCommon())
    }
}

/// The per-run data of one (possibly nested) run: CF's `_per_run_data` plus the run's mode and timeout.
/// Every property is protected by the owning loop's lock; `termination` and `timeoutDelivered` are also written
/// only by the loop's thread, which may read them without the lock.
final class RunFrame {
    let mode: LoopMode
    /// CFRunLoopStop's flag. Only the innermost run's is set (rule stop.innermost-only).
    var stopped = false
    /// Confined to the loop's thread. Set from the return of the wait to the top of the next pass: wake-ups are dropped
    /// then (rule wakeup.ignored-outside-wait). The loop's wake gate (``WaitSet/gate``) mirrors the innermost run's
    /// (``RefRunLoop/ignoreWakeUps(_:_:)``).
    var ignoreWakeUps = false
    /// CLOCK_MONOTONIC nanoseconds after which the run times out; 0 for a poll, `.max` for no timeout. Set when the
    /// first pass starts, after the Entry observers (CF takes its start time in __CFRunLoopRun).
    private(set) var termination: UInt64 = .max
    /// Confined to the loop's thread. The loop's `exitEpoch` when this run's exit conditions were last checked under
    /// the loop's lock; while it is unchanged, none of them can have become true.
    var checkedEpoch: UInt64 = 0
    /// Whether the timeout has woken the loop once already (CF's timeout timer fires once, rule timeout.finite).
    var timeoutDelivered = true
    /// Confined to the loop's thread. The main dispatch queue's eventfd when this run services the queue (CF's
    /// `dispatchPort`, RefRunLoop+MainQueue.swift), else -1. Set when the first pass starts.
    var mainQueueFD: Int32 = -1
    /// Confined to the loop's thread. Whether the last pass serviced the main queue (CF's
    /// `didDispatchPortLastTime`, true before the first pass): the next pass then skips the fast path.
    var servicedMainQueueLastTime = true

    init(mode: LoopMode) {
        self.mode = mode
    }

    func startClock(termination: UInt64) {
        self.termination = termination
        timeoutDelivered = termination == 0 || termination == .max
    }

    /// The passes are over: the timeout no longer wakes the loop (CF cancels its timeout timer before the Exit
    /// observers, so a run nested in one of them is not woken by it).
    func stopClock() {
        timeoutDelivered = true
    }
}
