// The loop's invariants as code: what its tables must agree on between changes. Tests call ``checkInvariants(sources:)``;
// debug builds also check after every change made under the loop's lock when the loop's `checksInvariants` is on
// (REF_RUNLOOP_CHECK_INVARIANTS=1 in the environment, read once, or a test's ``checkInvariantsAfterEveryChange(_:)``).
// Release builds compile the per-change check to nothing.

#if canImport(Glibc)
import Glibc
#endif

extension RefRunLoop {
    /// REF_RUNLOOP_CHECK_INVARIANTS=1: every loop checks its invariants after each change (debug builds). Read once.
    static let invariantChecksByDefault: Bool =
        getenv("REF_RUNLOOP_CHECK_INVARIANTS").map { strcmp($0, "1") == 0 } ?? false

    /// Turns the per-change check on or off for this loop (debug builds; nothing in release builds). Any thread.
    public func checkInvariantsAfterEveryChange(_ on: Bool) {
        #if DEBUG
        checksInvariants.store(on, ordering: .relaxed)
        #endif
    }

    /// The first broken invariant, or nil. `sources` are also checked from their side: each membership a source
    /// records in this loop points at a mode that lists it there. Takes `lock`.
    /// O(items). Any thread.
    func checkInvariants(sources: [RefRunLoopSource] = []) -> String? {
        lock.withLock { invariantViolationLocked(sources: sources) }
    }

    #if DEBUG
    /// Called at the end of every change made under `lock`: in debug builds with `checksInvariants` on, stops the
    /// process at the first broken invariant, naming it. Caller holds `lock` and no item's lock.
    @inline(__always)
    func checkInvariantsAfterChangeLocked() {
        lock.assertHeld()
        if checksInvariants.load(ordering: .relaxed), let broken = invariantViolationLocked(sources: []) {
            fatalError("internal bug: a RefRunLoop invariant does not hold after a change: \(broken)")
        }
    }
    #else
    /// Checked in debug builds only (see above).
    @inline(__always)
    func checkInvariantsAfterChangeLocked() {}
    #endif

    /// The checks. Caller holds `lock` and no item's lock.
    func invariantViolationLocked(sources: [RefRunLoopSource]) -> String? {
        lock.assertHeld()
        if hasBlocks.load(ordering: .relaxed) == blocks.isEmpty { return "hasBlocks disagrees with the block queue" }
        if signalledSources.withLocked({ hasSignalled.load(ordering: .relaxed) == $0.isEmpty }) {
            return "hasSignalled disagrees with the signalled list"
        }
        guard modes[RefRunLoopMode.defaultModeName] === defaultMode else {
            return "the default mode is not in the table"
        }
        for name in commonModeOrder where !commonModes.contains(name) {
            return "common mode \(name) is listed but not in the set"
        }
        if commonModes.count != commonModeOrder.count { return "the common modes' set and list differ" }
        for frame in frames where modes[frame.mode.name] !== frame.mode {
            return "a run frame's mode \(frame.mode.name) is not the loop's"
        }
        for mode in modes.values {
            if let broken = modeViolationLocked(mode) { return "mode \(mode.name): \(broken)" }
        }
        for source in sources {
            for mode in modes.values {
                guard let slot = source.slotLocked(in: mode, of: self) else { continue }
                guard mode.sources.element(at: slot)?.takeUnretainedValue() === source else {
                    return "a source records slot \(slot) of mode \(mode.name), which lists another"
                }
            }
        }
        return nil
    }

    /// One mode's tables: its source list and the sources' records of it, its descriptor map, its timer queue and the
    /// timers' records of it, its observer store, and the wait-set state derived from them. Caller holds `lock`.
    private func modeViolationLocked(_ mode: LoopMode) -> String? {
        lock.assertHeld()
        let position = { (source: Unmanaged<RefRunLoopSource>) in
            source.takeUnretainedValue().slotLocked(in: mode, of: self) ?? -1
        }
        if let broken = mode.sources.checkInvariants(position: position) { return broken }
        for (fd, source) in mode.sourcesByDescriptor {
            let listed = source.slotLocked(in: mode, of: self) != nil
            if !listed || source.fileDescriptor != fd {
                return "descriptor \(fd) maps to a source the mode does not hold for it"
            }
        }
        if let broken = mode.timers.checkInvariants() { return "timers: \(broken)" }
        for entry in mode.timers.unorderedEntries
        where !entry.payload.state.withLocked({ $0.entries.contains(where: { $0.isIn(mode) }) }) {
            return "a queued timer has no entry for the mode"
        }
        if let broken = mode.observers.checkInvariants() { return "observers: \(broken)" }
        let set = mode.waitSet
        if set.hasDescriptors == mode.sourcesByDescriptor.isEmpty {
            return "the wait set disagrees on having descriptors"
        }
        let quiet = set.quietUntil.load(ordering: .relaxed)
        let expected: UInt64 = set.hasDescriptors ? 0 : set.armedDeadline.flatMap { $0 == 0 ? nil : $0 } ?? .max
        if quiet != expected { return "quietUntil is \(quiet), its descriptors and arming say \(expected)" }
        // A settled queue's wake-up time is the one its timerfd is armed at, or deferred to by the loop's thread
        // (rearmTimerLocked skips its work on that).
        if lifecycle == .open, mode.timers.isSettled, set.armedDeadline != 0 {
            let desired = wakeTimeLocked(for: mode, changed: true)
            let armed = set.armedDeadline
            var deferred = false
            if let armed, let desired { deferred = armed < desired && set.rearmPending.load(ordering: .relaxed) }
            if desired != armed && !deferred {
                return "the timers are settled at \(String(describing: desired)), armed at \(String(describing: armed))"
            }
        }
        // No check that a mode without timers has its timerfd disarmed: a timer firing in another mode leaves this
        // mode's arming as it was until its timers change (as CF, RefRunLoop+Phases.swift `fire`), and a stale arming
        // costs one wake-up, not a missed timer; the stress tests met that state under load.
        return nil
    }
}
