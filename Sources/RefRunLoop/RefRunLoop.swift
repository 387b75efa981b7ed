// The loop object: its mode tables and the operations that change them from any thread. The run pass is in
// RefRunLoop+Run.swift, its phases in RefRunLoop+Phases.swift, waiting and waking in RefRunLoop+Wait.swift, their
// kernel objects (epoll, the eventfd, the timerfds) in WaitSet.swift, the invariants in RefRunLoop+Invariants.swift.

import CRunLoopSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A run loop with CFRunLoop's semantics, on epoll, an eventfd and a timerfd.
///
/// Each thread has one, created on first use (``current``); ``main`` is the main thread's. Running happens on the
/// loop's own thread; adding, removing, signalling, waking and stopping work from any thread. As CF's, the main loop
/// services libdispatch's main queue in its common modes, which are therefore never empty on the main thread
/// (RefRunLoop+MainQueue.swift).
///
/// Thread safety: one lock (`lock`) protects the mode tables, the block queue, the run stack and the arming state;
/// it is never held during a callout. Sources and timers have their own locks, always taken after the loop's (an
/// observer's modes are under its loop's lock alone, ``SharedLoopBinding``); the signalled list's
/// (`signalledSources`) comes last. Waking takes no lock (one atomic step on the wait set's gate), and a pass's exit
/// check takes `lock` only when something that could end the run changed (`exitEpoch`).
public final class RefRunLoop: @unchecked Sendable {
    enum Lifecycle {
        /// Usable.
        case open
        /// Torn down when its thread exited: every operation is a no-op and the descriptors are closed.
        case closed
    }

    let lock = Lock("RefRunLoop.lock")
    /// Immutable. The kernel side of waiting and waking: the wake-up eventfd with its gate, and the factory of the
    /// modes' sets (WaitSet.swift). Its eventfd stays open until deinit: ``wakeUp()`` writes it after releasing
    /// `lock`, so it must stay valid as long as anyone holds the loop.
    let waitSet = WaitSet()

    /// What `lock` protects that every add and remove reads, and the run frames every wait reads, gathered in one
    /// struct at a stable address that the loop allocates once and frees in its deinit, reached through the accessors
    /// below (as ``LoopMode/Tables``, and for the same reason: a pointer access is checked for exclusivity at compile
    /// time, a class's stored `var` at run time on every access).
    struct Tables {
        var lifecycle = Lifecycle.open
        /// Every mode ever created, by name.
        var modes: [String: LoopMode] = [:]
        /// One frame per active (possibly nested) run, innermost last.
        var frames: [RunFrame] = []
    }
    /// The loop's ``Tables``; the loop owns it (allocated in init, freed in deinit).
    private let tables: UnsafeMutablePointer<Tables> = {
        let tables = UnsafeMutablePointer<Tables>.allocate(capacity: 1)
        tables.initialize(to: Tables())
        return tables
    }()
    /// ``Tables/lifecycle``. Protected by `lock`.
    var lifecycle: Lifecycle {
        _read { yield tables.pointee.lifecycle }
        _modify { yield &tables.pointee.lifecycle }
    }
    /// ``Tables/modes``. Protected by `lock`.
    var modes: [String: LoopMode] {
        _read { yield tables.pointee.modes }
        _modify { yield &tables.pointee.modes }
    }
    /// Immutable. The default mode, also in `modes`: ``modeLocked(_:create:)`` finds it without hashing its name.
    let defaultMode: LoopMode
    /// Protected by `lock`. The common modes; `commonModeOrder` lists them in the order they became common.
    var commonModes: Set<String> = []
    /// Protected by `lock`.
    var commonModeOrder: [String] = []
    /// Protected by `lock`. Items added to `.common` (CF's `_commonModeItems`), with an insertion sequence so that a
    /// new common mode receives them in a stable order.
    var commonItems: [ObjectIdentifier: (item: LoopItem, sequence: UInt64)] = [:]
    /// Protected by `lock`. Blocks waiting for a pass in a matching mode, in FIFO order.
    var blocks: [PendingBlock] = [] {
        didSet {
            hasBlocks.store(!blocks.isEmpty, ordering: .releasing)
            exitConditionsChangedLocked()  // taking blocks can leave a mode empty
        }
    }
    /// Whether `blocks` is non-empty: written with `lock` held (by `blocks`' didSet), read without it by the loop's
    /// thread so that the block phases of an idle pass take no lock. A block queued just after the read waits for
    /// the next pass, as it would had it been queued a moment later.
    let hasBlocks = Atomic<Bool>(false)
    /// ``Tables/frames``. Protected by `lock`, and written only by the loop's thread: other threads read it under
    /// `lock`; the loop's thread may read it without (``waitForLivePort(_:in:poll:afterHandledSource:)``, which
    /// asserts it runs there).
    var frames: [RunFrame] {
        _read { yield tables.pointee.frames }
        _modify { yield &tables.pointee.frames }
    }
    /// The signalled list and its lock, a leaf lock taken last (after `lock` and after
    /// ``RefRunLoopSource/otherLoopsLock``), so that an add can push onto the list under those. Every version-0 source of
    /// this loop that is valid and signalled is on the list (possibly with stale entries: sources performed,
    /// invalidated or removed since, and duplicates, which a pass drops): pushed by the first signal and by adding a
    /// signalled source to a mode. A pass reads this instead of scanning every source of its mode.
    let signalledSources = Guarded<SignalledList>("RefRunLoop.signalledSources", SignalledList())
    /// Whether `signalledSources` is non-empty: written with the list's lock held, after every change to the list
    /// (``withSignalledLocked(_:)``, the only way the list is changed), read without it by the loop's thread so that
    /// a pass with nothing signalled takes no lock (``performSources0(in:stopAfterHandle:)`` says why no signal is
    /// missed). Under the list's lock it always equals `!signalledSources.isEmpty`.
    let hasSignalled = Atomic<Bool>(false)
    /// Confined to the loop's thread (only ``performSources0(in:stopAfterHandle:)`` uses it). Storage reused by
    /// each pass that finds two or more sources listed, to take them into, so a pass allocates nothing once the
    /// buffers have grown; empty between passes.
    var sources0Taken: [RefRunLoopSource] = []
    /// Confined to the loop's thread (as `sources0Taken`). Storage reused for a pass's sources to perform.
    var sources0Candidates: [(source: RefRunLoopSource, order: Int, sequence: UInt64)] = []
    /// Bumped, with `lock` held, by every change that can make a pass's exit check end its run: a stop request, a
    /// source or a timer leaving a mode (``itemLeftLocked()``), the block queue changing, the loop closing. Read
    /// without the lock by the loop's thread, whose exit check skips `lock` while it equals the value its run last
    /// checked under the lock (``RunFrame/checkedEpoch``).
    let exitEpoch = Atomic<UInt64>(0)

    /// CFRunLoopIsWaiting: set around the OS wait (rule wakeup.is-waiting). Atomic so that other threads can poll it
    /// cheaply.
    let sleeping = Atomic<Bool>(false)
    /// Returns from the OS wait so far (benchmark counter). Written only by the loop's thread (``count(_:)``), read
    /// by any.
    let wakeUpCounter = Atomic<UInt64>(0)
    /// Passes run so far (benchmark counter). Written only by the loop's thread, read by any.
    let passCounter = Atomic<UInt64>(0)
    /// Wake-ups reported without an eventfd write (deferred claims, ``WakeGate``): counted among ``wakeUpCount`` too.
    /// Written only by the loop's thread, read by any (the tests check that the deferred path ran).
    let deferredWakeUpCounter = Atomic<UInt64>(0)
    /// The wait policy's spin cap in nanoseconds, 0 to park (``waitPolicy``, WaitPolicy.swift). Any thread writes it;
    /// the loop's thread reads it before each wait.
    let maxSpinNanoseconds = Atomic<UInt64>(RefRunLoop.defaultWaitPolicy.maxSpinNanoseconds)
    /// Confined to the loop's thread. The recent hand-offs that decide whether a wait spins (``SpinGovernor``).
    var spinGovernor = SpinGovernor()
    /// Wake-ups a spin saw claimed before the loop slept (``spinCaughtWakeUpCount``). Written only by the loop's
    /// thread, read by any.
    let spinCaughtCounter = Atomic<UInt64>(0)
    /// The hand-off hold in nanoseconds, 0 for none (``handOffHold``). Any thread writes it; the loop's thread reads
    /// it after each handled source.
    let handOffHoldNanoseconds = Atomic<UInt64>(WaitPolicy.nanoseconds(WaitPolicy.handOffHold))
    /// Polls that the loop held (``handOffHoldCount``). Written only by the loop's thread, read by any.
    let holdCounter = Atomic<UInt64>(0)
    /// Immutable. ``WaitPolicy/spinsEveryWait``, copied at creation: the global's lazy initialisation costs every
    /// read a call, and the loop's thread reads it before each poll that follows a handled source.
    let spinsEveryWait = WaitPolicy.spinsEveryWait
    #if DEBUG
    /// Whether every change under `lock` ends with a check of the loop's invariants (``checkInvariantsAfterChangeLocked()``,
    /// RefRunLoop+Invariants.swift): off unless REF_RUNLOOP_CHECK_INVARIANTS=1 or a test turns it on for its loop
    /// (``checkInvariantsAfterEveryChange(_:)``). Any thread. Debug builds only.
    let checksInvariants = Atomic<Bool>(RefRunLoop.invariantChecksByDefault)
    #endif

    /// Immutable. Whether this is the main thread's loop (``main``; CFRunLoopGetMain() == this loop), which services
    /// the main dispatch queue (RefRunLoop+MainQueue.swift). Any thread.
    public let isMain: Bool
    /// Confined to the loop's thread (for the main loop, the main thread). Set while the main dispatch queue is being
    /// serviced (CF's __CFTSDKeyIsInGCDMainQ): nested runs then neither service the queue nor count it.
    var servicingMainQueue = false

    init(isMain: Bool = false) {
        self.isMain = isMain
        defaultMode = LoopMode(name: RefRunLoopMode.defaultModeName, waitSet: waitSet.makeModeSet())
        modes = [RefRunLoopMode.defaultModeName: defaultMode]
        commonModes = [RefRunLoopMode.defaultModeName]
        commonModeOrder = [RefRunLoopMode.defaultModeName]
        waitSet.recordsWakerCPU.store(maxSpinNanoseconds.load(ordering: .relaxed) > 0, ordering: .relaxed)
        defaultMode.belong(to: self)
    }

    deinit {
        // The items' records of this loop and its modes are unretained (a source's word and places, a timer's entries
        // and binding, an observer's places and binding: SourceBinding, ModeHandle, LoopBinding), so none may
        // outlive it: a loop is let go only after its teardown emptied every mode (LoopRegistry), and an item in a
        // mode would still hold such a record. Checked here in debug builds (a loop that no thread owns, made by a
        // test, must be emptied before it goes).
        assert(
            modes.values.allSatisfy { $0.holdsNoItem },
            "internal bug: a loop was let go while a mode held an item, whose unretained records of it would dangle")
        if lifecycle == .open { closeModeDescriptors() }
        tables.deinitialize(count: 1)
        tables.deallocate()
    }

    /// Closes every mode's set (the wake-up eventfd stays open until the wait set's deinit). Caller holds `lock` (or
    /// is deinit, when no other reference to the loop is left).
    func closeModeDescriptors() {
        for mode in modes.values { mode.waitSet.close() }
    }

    /// Whether the caller runs on the loop's thread: the thread whose ``current`` loop this is. O(1): a thread-specific
    /// read, plus one gettid system call on a thread that has no loop yet (the main-loop case below).
    public var isCurrentThread: Bool {
        if LoopRegistry.registered() == Unmanaged.passUnretained(self).toOpaque() { return true }
        // The main loop may have been created from another thread before the main thread asked for it.
        return LoopRegistry.registered() == nil && csystem_gettid() == getpid() && self === LoopRegistry.mainIfCreated()
    }

    #if DEBUG
    /// Stops the process unless the caller runs on the loop's thread (``isCurrentThread``): the check of the functions
    /// documented "loop thread only". Debug builds only; nothing in release builds.
    @inline(__always)
    func assertOnLoopThread(_ file: StaticString = #fileID, line: UInt = #line) {
        if !isCurrentThread {
            fatalError(
                "internal bug: assertOnLoopThread: called from a thread other than the loop's", file: file, line: line)
        }
    }
    #else
    /// Checked in debug builds only (see above).
    @inline(__always)
    func assertOnLoopThread() {}
    #endif

    // MARK: Adding and removing items (any thread)

    /// CFRunLoopAddSource. A version-0 source gets a schedule callout per mode it newly joins (rule
    /// source.schedule-once-per-mode). Adding to `.common` adds to every common mode. O(1) per mode (plus one epoll_ctl
    /// for a new descriptor). Any thread.
    public func add(_ source: RefRunLoopSource, mode: RefRunLoopMode) {
        if mode.isDefault { addToDefaultMode(source) } else { add(.source(source), mode: mode) }
    }
    /// CFRunLoopAddTimer. Ignored if the timer is invalid or in another loop. Does not wake the loop; a timer added
    /// from another thread while the loop waits in that mode still fires on time (rule timer.port-in-wait-set). O(log
    /// n), and one timerfd_settime when the mode's coalesced wake-up time moves. Any thread.
    public func add(_ timer: RefRunLoopTimer, mode: RefRunLoopMode) {
        if mode.isDefault { addToDefaultMode(timer) } else { add(.timer(timer), mode: mode) }
    }
    /// CFRunLoopAddObserver. Ignored if the observer is invalid or in another loop. O(1) amortised when the mode has an
    /// observer of the same order already, O(log g) expected for g distinct orders otherwise (OrderedStore.swift). Any
    /// thread.
    public func add(_ observer: RefRunLoopObserver, mode: RefRunLoopMode) {
        if mode.isDefault { addToDefaultMode(observer) } else { add(.observer(observer), mode: mode) }
    }

    /// CFRunLoopRemoveSource, with a cancel callout for a version-0 source (rule source.cancel-on-remove). O(1) per
    /// mode. Any thread.
    public func remove(_ source: RefRunLoopSource, mode: RefRunLoopMode) {
        if mode.isDefault { removeFromDefaultMode(source) } else { remove(.source(source), mode: mode) }
    }
    /// CFRunLoopRemoveTimer. O(log n), plus a coalescing rescan (as for adding) when it was among the next to
    /// fire. Any thread.
    public func remove(_ timer: RefRunLoopTimer, mode: RefRunLoopMode) {
        if mode.isDefault { removeFromDefaultMode(timer) } else { remove(.timer(timer), mode: mode) }
    }
    /// CFRunLoopRemoveObserver. O(1) amortised, O(log g) expected when it was the last of its order. Any thread.
    public func remove(_ observer: RefRunLoopObserver, mode: RefRunLoopMode) {
        if mode.isDefault { removeFromDefaultMode(observer) } else { remove(.observer(observer), mode: mode) }
    }

    // The default mode, the usual argument, directly: no item enum (whose payload is retained and released), no mode
    // look-up by name and no list of callouts. The same per-kind functions as every other mode's add and remove
    // (joinLocked, leaveLocked), so the two paths cannot differ.

    @inline(__always)
    func addToDefaultMode(_ source: RefRunLoopSource) {
        let schedule = lock.withLock {
            defer { checkInvariantsAfterChangeLocked() }
            return lifecycle == .open ? joinLocked(source, defaultMode) : nil
        }
        schedule?(RefRunLoopMode.defaultModeName)
    }

    @inline(__always)
    func addToDefaultMode(_ timer: RefRunLoopTimer) {
        lock.withLock {
            if lifecycle == .open { joinLocked(timer, defaultMode) }
            checkInvariantsAfterChangeLocked()
        }
    }

    @inline(__always)
    func addToDefaultMode(_ observer: RefRunLoopObserver) {
        lock.withLock {
            if lifecycle == .open { joinLocked(observer, defaultMode) }
            checkInvariantsAfterChangeLocked()
        }
    }

    @inline(__always)
    func removeFromDefaultMode(_ source: RefRunLoopSource) {
        let cancel = lock.withLock {
            defer { checkInvariantsAfterChangeLocked() }
            return lifecycle == .open ? leaveLocked(source, defaultMode) : nil
        }
        cancel?(RefRunLoopMode.defaultModeName)
    }

    @inline(__always)
    func removeFromDefaultMode(_ timer: RefRunLoopTimer) {
        lock.withLock {
            if lifecycle == .open { leaveLocked(timer, defaultMode) }
            checkInvariantsAfterChangeLocked()
        }
    }

    @inline(__always)
    func removeFromDefaultMode(_ observer: RefRunLoopObserver) {
        lock.withLock {
            if lifecycle == .open { leaveLocked(observer, defaultMode) }
            checkInvariantsAfterChangeLocked()
        }
    }

    /// CFRunLoopContainsSource. For `.common`: whether it was added to common modes (rule
    /// common.contains-common-items). O(1). Any thread.
    public func contains(_ source: RefRunLoopSource, mode: RefRunLoopMode) -> Bool {
        contains(.source(source), mode: mode)
    }
    /// CFRunLoopContainsTimer. O(modes of the timer). Any thread.
    public func contains(_ timer: RefRunLoopTimer, mode: RefRunLoopMode) -> Bool { contains(.timer(timer), mode: mode) }
    /// CFRunLoopContainsObserver. O(modes of the observer). Any thread.
    public func contains(_ observer: RefRunLoopObserver, mode: RefRunLoopMode) -> Bool {
        contains(.observer(observer), mode: mode)
    }

    func add(_ item: LoopItem, mode: RefRunLoopMode) {
        guard case .common = mode else {
            // addLocked checks the item under its lock.
            changeOneMode { addLocked(item, to: mode.name, callouts: &$0) }
            return
        }
        // An item that cannot join is not recorded as a common item (CF returns before it looks at the mode).
        guard item.canJoin(self) else { return }
        let names: [String] = lock.withLock {
            guard lifecycle == .open else { return [] }
            if commonItems[item.identifier] == nil {
                commonItems[item.identifier] = (item, SequenceNumber.next())
            }
            return commonModeOrder
        }
        for name in names { changeOneMode { addLocked(item, to: name, callouts: &$0) } }
    }

    func remove(_ item: LoopItem, mode: RefRunLoopMode) {
        guard case .common = mode else {
            changeOneMode { removeLocked(item, from: mode.name, callouts: &$0) }
            return
        }
        let names: [String] = lock.withLock {
            guard lifecycle == .open, commonItems.removeValue(forKey: item.identifier) != nil else { return [] }
            return commonModeOrder
        }
        for name in names { changeOneMode { removeLocked(item, from: name, callouts: &$0) } }
    }

    /// One mode's change under the lock, then its schedule or cancel callouts without it: as CF's add and remove
    /// functions do one mode at a time, a callout for one mode runs before the next mode changes.
    private func changeOneMode(_ change: (inout [() -> Void]) -> Void) {
        var callouts: [() -> Void] = []
        lock.withLock {
            guard lifecycle == .open else { return }
            change(&callouts)
            checkInvariantsAfterChangeLocked()
        }
        for callout in callouts { callout() }
    }

    func contains(_ item: LoopItem, mode: RefRunLoopMode) -> Bool {
        if case .timer(let timer) = item, !timer.state.withLocked({ $0.binding.isBound(to: self) }) { return false }
        return lock.withLock {
            switch mode {
            case .common: return commonItems[item.identifier] != nil
            case .named(let name): return modeLocked(name, create: false)?.contains(item, in: self) ?? false
            }
        }
    }

    /// Removes an item from every mode and from the common items: the loop's half of an invalidation.
    func removeEverywhere(_ item: LoopItem) {
        let names: [String] = lock.withLock {
            guard lifecycle == .open else { return [] }
            switch item {
            case .source: return Array(modes.keys)
            case .timer(let timer): return timer.state.withLocked { $0.entries.map { $0.mode.name } }
            case .observer(let observer):
                return observer.binding.isBound(to: self) ? observer.places.map { $0.mode.name } : []
            }
        }
        for name in names { changeOneMode { removeLocked(item, from: name, callouts: &$0) } }
        lock.withLock { _ = commonItems.removeValue(forKey: item.identifier) }
    }

    /// The mode of that name, created if asked. Caller holds `lock`. The default mode's name, which every caller
    /// passing `RefRunLoopMode.default` shares, is recognised by String's equality check on identical storage, with
    /// no hashing: a dictionary look-up hashed its 21 bytes on every add and remove.
    func modeLocked(_ name: String, create: Bool) -> LoopMode? {
        lock.assertHeld()
        if name == RefRunLoopMode.defaultModeName { return defaultMode }
        if let mode = modes[name] { return mode }
        guard create else { return nil }
        disallowDeferralLocked()  // the new set gets the eventfd's edge if it was written
        let mode = LoopMode(name: name, waitSet: waitSet.makeModeSet())
        mode.belong(to: self)
        modes[name] = mode
        return mode
    }

    /// Whether `address` is the address of one of this loop's modes (a source's word names its home by a mode,
    /// ``SourceBinding/isHome(_:)``). O(1) for the default mode, O(modes) for another. Caller holds `lock`.
    @inline(__always)
    func hasModeLocked(at address: UInt) -> Bool {
        lock.assertHeld()
        if address == wordAddress(of: defaultMode) { return true }
        return hasNamedModeLocked(at: address)
    }

    /// ``hasModeLocked(at:)`` for a mode other than the default one.
    @inline(never)
    private func hasNamedModeLocked(at address: UInt) -> Bool {
        modes.values.contains { wordAddress(of: $0) == address }
    }

    /// Adds to one concrete mode. Caller holds `lock`; schedule callouts are appended to `callouts`.
    ///
    /// The item's validity, its membership of the mode and its binding to this loop are checked and changed under one
    /// acquisition of the item's lock when the mode exists (the default mode always does; an observer has no lock, and
    /// its binding and validity are read in the order ``SharedLoopBinding`` gives). An item that cannot join
    /// creates no mode (CFRunLoopAddSource, AddTimer and AddObserver return before they look a mode up, rule
    /// common.add-common-mode), also when a new common mode receives the common items, which may still list an item
    /// invalidated while it was in no mode; so a missing mode is created only after a check of its own.
    func addLocked(_ item: LoopItem, to name: String, callouts: inout [() -> Void]) {
        lock.assertHeld()
        // The default mode, a stored constant, is passed on borrowed: no reference counting for the usual case.
        if name == RefRunLoopMode.defaultModeName {
            addLocked(item, to: defaultMode, named: name, callouts: &callouts)
        } else if let existing = modes[name] {
            addLocked(item, to: existing, named: name, callouts: &callouts)
        } else if item.canJoin(self), let created = modeLocked(name, create: true) {
            addLocked(item, to: created, named: name, callouts: &callouts)
        }
    }

    /// Adds to `mode`, which exists. Caller holds `lock`.
    private func addLocked(_ item: LoopItem, to mode: LoopMode, named name: String, callouts: inout [() -> Void]) {
        lock.assertHeld()
        switch item {
        case .source(let source):
            if let schedule = joinLocked(source, mode) { callouts.append { schedule(name) } }
        case .timer(let timer): joinLocked(timer, mode)
        case .observer(let observer): joinLocked(observer, mode)
        }
    }

    /// Adds a source to `mode`, which exists, and returns its schedule callout to make once the lock is released (nil
    /// when it did not join, or has none). Caller holds `lock`.
    private func joinLocked(_ source: RefRunLoopSource, _ mode: LoopMode) -> (@Sendable (String) -> Void)? {
        lock.assertHeld()
        guard source.joinLocked(self, mode) else { return nil }
        if let fd = source.fileDescriptor { registerDescriptorLocked(fd, source: source, in: mode) }
        return source.scheduleCallout
    }

    /// Adds a timer to `mode`, which exists. Caller holds `lock`.
    private func joinLocked(_ timer: RefRunLoopTimer, _ mode: LoopMode) {
        lock.assertHeld()
        // One acquisition of the timer's lock checks, binds and records the mode's entry.
        let joined: Bool = timer.state.withLocked { state in
            guard !state.entries.contains(where: { $0.isIn(mode) }), timer.validLocked, state.binding.admits(self)
            else {
                return false
            }
            state.binding.bind(self)
            let hard = TimerTolerance.hardDeadline(deadline: state.deadline, window: state.windowNanoseconds)
            // The timer is its own entry in the queue of a mode that holds it; while that place is taken (the timer is
            // in another mode too), a shadow stands for it (`queuePlace` is this loop's, bound now).
            if timer.isQueued {
                let shadow = RefRunLoopTimer(shadowOf: timer)
                mode.timers.insert(shadow, deadline: state.deadline, hardDeadline: hard)
                state.entries.append(ModeHandle(mode, Unmanaged.passUnretained(shadow)))
            } else {
                mode.timers.insert(timer, deadline: state.deadline, hardDeadline: hard)
                state.entries.append(ModeHandle(mode, Unmanaged.passUnretained(timer)))
            }
            return true
        }
        guard joined else { return }
        rearmTimerLocked(mode, changed: true)
    }

    /// Adds an observer to `mode`, which exists. Caller holds `lock`.
    ///
    /// No lock of the observer's: its places are this loop's to change once it is bound here (``SharedLoopBinding``).
    /// The binding is made before the validity is read, as ``RefRunLoopObserver/invalidate()`` does the reverse (both
    /// sequentially consistent): an invalidation that this add does not see sees the binding and removes the observer
    /// once this lock is released.
    private func joinLocked(_ observer: RefRunLoopObserver, _ mode: LoopMode) {
        lock.assertHeld()
        let binding: (before: UInt, after: UInt)?
        if observer.binding.isBound(to: self) {
            guard !observer.places.contains(where: { $0.isIn(mode) }) else { return }
            binding = nil
        } else {
            // In another loop's modes, it stays there (rule loop.observer-one-loop).
            guard let bound = observer.binding.bindIfUnbound(self) else { return }
            binding = bound
        }
        guard !observer.invalidated.load(ordering: .sequentiallyConsistent) else {
            // Bound and unbound with no place between: the hold is as it was.
            if binding != nil { _ = observer.binding.unbind(from: self) }
            return
        }
        let handle = mode.observers.insert(Unmanaged.passUnretained(observer), order: observer.order)
        observer.places.append(ModeHandle(mode, handle))
        if let binding { observer.adjustHold(binding) }
        mode.observersChanged()
    }

    /// Removes from one concrete mode. Caller holds `lock`; cancel callouts are appended to `callouts`.
    private func removeLocked(_ item: LoopItem, from name: String, callouts: inout [() -> Void]) {
        lock.assertHeld()
        // As for adding, the default mode is passed on borrowed.
        if name == RefRunLoopMode.defaultModeName {
            removeLocked(item, from: defaultMode, named: name, callouts: &callouts)
        } else if let mode = modes[name] {
            removeLocked(item, from: mode, named: name, callouts: &callouts)
        }
    }

    /// Removes from `mode`. Caller holds `lock`.
    private func removeLocked(_ item: LoopItem, from mode: LoopMode, named name: String, callouts: inout [() -> Void]) {
        lock.assertHeld()
        switch item {
        case .source(let source):
            if let cancel = leaveLocked(source, mode) { callouts.append { cancel(name) } }
        case .timer(let timer): leaveLocked(timer, mode)
        case .observer(let observer): leaveLocked(observer, mode)
        }
    }

    /// Removes a source from `mode` and returns its cancel callout to make once the lock is released (nil when it was
    /// not there, or has none). Caller holds `lock`. Inlined: the default mode's remove called it with a frame of its
    /// own.
    @inline(__always)
    private func leaveLocked(_ source: RefRunLoopSource, _ mode: LoopMode) -> (@Sendable (String) -> Void)? {
        lock.assertHeld()
        itemLeftLocked()
        guard let slot = source.leaveLocked(self, mode) else { return nil }
        removeSourceLocked(at: slot, from: mode)
        if let fd = source.fileDescriptor { unregisterDescriptorLocked(fd, in: mode) }
        return source.cancelCallout
    }

    /// Removes a timer from `mode`. Caller holds `lock`.
    private func leaveLocked(_ timer: RefRunLoopTimer, _ mode: LoopMode) {
        lock.assertHeld()
        itemLeftLocked()
        // One acquisition of the timer's lock takes the node out of its list and out of the mode's queue (and unbinds
        // the timer from its last mode). Out of the queue before the lock is released: a timer is unbound only when it
        // is in no queue, so another loop that finds it unbound never meets its `queuePlace` still being changed here.
        let left: Bool = timer.state.withLocked { state in
            guard let index = state.entries.firstIndex(where: { $0.isIn(mode) }) else { return false }
            let node = state.entries.remove(at: index).handle
            if node.toOpaque() == Unmanaged.passUnretained(timer).toOpaque() {
                // The caller holds the timer: no reference counting for it.
                mode.timers.remove(timer)
            } else {
                // The queue holds a shadow's last reference: kept here until the removal is done with it.
                let shadow = node.takeUnretainedValue()
                mode.timers.remove(shadow)
            }
            if state.entries.isEmpty { state.binding.unbind() }
            return true
        }
        guard left else { return }
        rearmTimerLocked(mode, changed: true)
    }

    /// Removes an observer from `mode`. Caller holds `lock`, and a reference to the observer: leaving its last place may
    /// let go of the one reference for its places (``SharedLoopBinding``).
    private func leaveLocked(_ observer: RefRunLoopObserver, _ mode: LoopMode) {
        lock.assertHeld()
        // No exit condition changes: observers do not keep a mode from being empty (rule empty.what-counts).
        // Its places are this loop's while it is bound here (``SharedLoopBinding``), under this lock alone.
        guard observer.binding.isBound(to: self),
            let index = observer.places.firstIndex(where: { $0.isIn(mode) })
        else { return }
        let handle = observer.places.remove(at: index).handle
        // When the store squeezes its holes out, the observers it moved get their new handles (each bound here, so
        // under this lock too). The closure holds `mode` unretained: the caller holds it for the call (a strong
        // capture cost a retain and a release of the mode on every removal, as the store is one of its properties).
        mode.observers.remove(handle) { [unowned(unsafe) mode] moved, handle in
            moved.takeUnretainedValue().relocate(in: mode, to: handle)
        }
        // Unbound last, once nothing here touches it: another loop may bind it as soon as this store is seen.
        if observer.places.isEmpty { observer.adjustHold(observer.binding.unbind(from: self)) }
        mode.observersChanged()
    }

    /// Takes the source at `slot` out of the mode's source list; when that squeezes the list's holes out, each moved
    /// source records its new place (under this lock). Caller holds `lock`. The closure holds `mode` unretained, as
    /// in ``leaveLocked(_:_:)`` for an observer.
    private func removeSourceLocked(at slot: Int, from mode: LoopMode) {
        lock.assertHeld()
        mode.sources.remove(at: slot) { [unowned(unsafe) mode] moved, position in
            moved.takeUnretainedValue().moveLocked(in: mode, of: self, to: position)
        }
    }

    /// Puts a version-1 descriptor in the mode's wait set (CF: __CFPortSetInsert). A descriptor already there (two
    /// sources with one descriptor) stays registered once; the map points at the last source, as CF's does.
    private func registerDescriptorLocked(_ fd: Int32, source: RefRunLoopSource, in mode: LoopMode) {
        lock.assertHeld()
        waitSet.register(fd, in: mode.waitSet, modeName: mode.name)
        mode.sourcesByDescriptor[fd] = source
    }

    /// Takes a version-1 descriptor out of the mode's wait set (CF: __CFPortSetRemove).
    private func unregisterDescriptorLocked(_ fd: Int32, in mode: LoopMode) {
        lock.assertHeld()
        mode.sourcesByDescriptor[fd] = nil
        mode.waitSet.unregister(fd)
        updateDeferralLocked()
    }

    /// Makes the next exit check of every run take `lock` (see `exitEpoch`). Caller holds `lock`.
    @inline(__always)
    func exitConditionsChangedLocked() {
        lock.assertHeld()
        exitEpoch.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }

    /// The same after a source or a timer left a mode, which may now be empty, with a plain store instead of an
    /// atomic read-modify-write (a locked instruction on every removal). Sequential consistency is for a change
    /// followed by a wake-up (a stop), which must not be slept through; nothing wakes the loop for a removal (CF's
    /// remove functions do not either), so the loop's thread sees this one at its next exit check after it takes
    /// `lock` or consumes a wake-up made after it (the wake gate's steps order the two). Every bump is made under
    /// `lock`, so none is lost. Caller holds `lock`.
    @inline(__always)
    func itemLeftLocked() {
        lock.assertHeld()
        exitEpoch.store(exitEpoch.load(ordering: .relaxed) &+ 1, ordering: .releasing)
    }

    /// Puts a source on the signalled list. Any thread; the caller may hold `lock` and
    /// ``RefRunLoopSource/otherLoopsLock``.
    @inline(__always)
    func enqueueSignalled(_ source: RefRunLoopSource) {
        withSignalledLocked { $0.append(source) }
    }

    /// Runs `body` with the signalled list, its lock held, then records in `hasSignalled` whether the list is
    /// non-empty. Every change to the list goes through here, so each store of the flag is made under the lock that
    /// orders the list's changes, and the last one stored is the list's state. Any thread.
    @inline(__always)
    func withSignalledLocked<T>(_ body: (inout SignalledList) -> T) -> T {
        signalledSources.withLocked { listed in
            assert(hasSignalled.load(ordering: .relaxed) != listed.isEmpty, "hasSignalled disagrees with the list")
            let result = body(&listed)
            // True sequentially consistent, so that it precedes a later wake-up's claim in the single order of such
            // steps even when that claim only reads the gate (``performSources0(in:stopAfterHandle:)``). False is
            // stored only when a pass or the teardown empties the list, and is read only by the loop's thread.
            if listed.isEmpty {
                hasSignalled.store(false, ordering: .releasing)
            } else {
                hasSignalled.store(true, ordering: .sequentiallyConsistent)
            }
            return result
        }
    }

    /// ``enqueueSignalled(_:)`` out of line, for a source signalled before it joins a mode (rare): inlined, the list's
    /// lock and append weighed on every add's inlining and frame.
    @inline(never)
    func enqueueSignalledOnJoin(_ source: RefRunLoopSource) { enqueueSignalled(source) }

    // MARK: Common modes, blocks, queries (any thread)

    /// CFRunLoopAddCommonMode: makes `name` common and adds every common item to it (rule common.add-common-mode).
    /// There is no way to make a mode uncommon (CF has none either). O(common items). Any thread.
    public func addCommonMode(_ name: String) {
        let items: [LoopItem] = lock.withLock {
            guard lifecycle == .open, !commonModes.contains(name) else { return [] }
            commonModes.insert(name)
            commonModeOrder.append(name)
            return commonItems.values.sorted { $0.sequence < $1.sequence }.map(\.item)
        }
        for item in items { changeOneMode { addLocked(item, to: name, callouts: &$0) } }
    }

    /// CFRunLoopPerformBlock: queues `block` to run in a pass of a matching mode, creating the named modes. Does not
    /// wake the loop (rule block.perform-does-not-wake). O(1) amortised. Any thread.
    public func perform(modes: RefBlockModes, _ block: @escaping @Sendable () -> Void) {
        let names = modes.names
        lock.withLock {
            guard lifecycle == .open else { return }
            for name in names { _ = modeLocked(name, create: true) }
            blocks.append(PendingBlock(modes: names, block: block))
            checkInvariantsAfterChangeLocked()
        }
    }

    /// CFRunLoopCopyCurrentMode: the innermost running mode, nil when not running. Any thread.
    public var currentMode: String? { lock.withLock { frames.last?.mode.name } }

    /// CFRunLoopCopyAllModes, unordered. Any thread.
    public var allModes: [String] { lock.withLock { Array(modes.keys) } }

    /// The common modes, in the order they became common. Any thread.
    public var allCommonModes: [String] { lock.withLock { commonModeOrder } }

    /// CFRunLoopIsWaiting. Any thread.
    public var isWaiting: Bool { sleeping.load(ordering: .acquiring) }

    /// CFRunLoopGetNextTimerFireDate: the fire date of the mode's first timer, 0 if none. `.common` names the literal
    /// mode "kCFRunLoopCommonModes", as in CF. O(1). Any thread.
    public func nextTimerFireDate(mode: RefRunLoopMode) -> Double {
        let timer: RefRunLoopTimer? = lock.withLock { modeLocked(mode.name, create: false)?.timers.first?.payload }
        return timer?.nextFireDate ?? 0
    }

    /// Adds one to a counter that only the loop's thread writes: a load and a store, not a locked read-modify-write
    /// (which costs as much as a lock acquisition here). Loop thread only.
    @inline(__always)
    func count(_ counter: borrowing Atomic<UInt64>) {
        assertOnLoopThread()
        counter.store(counter.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }

    /// Returns from the OS wait so far: the number of times the loop woke up. Any thread.
    public var wakeUpCount: UInt64 { wakeUpCounter.load(ordering: .relaxed) }

    /// Passes of the run loop so far. Any thread.
    public var passCount: UInt64 { passCounter.load(ordering: .relaxed) }
}
