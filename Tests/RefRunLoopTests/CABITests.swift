// The C ABI's items (CABI.swift) keep their C callouts inline (Callouts.swift): each kind calls its C function with
// its info pointer, and an observer's also with the activity. The spec runs ref through the Swift API, so these paths
// are tested here. Deterministic: the source is signalled and the timer already due before the loop's one
// non-blocking run.

import RefRunLoopABI
import Testing

@testable import RefRunLoop

/// What the C callouts record: every callout appends its tag, or the activity bits for an observer. Confined to the
/// test's loop thread (every callout runs there).
private final class CalloutLog {
    var entries: [String] = []
}

private func recordTag(_ info: UnsafeMutableRawPointer?) {
    Unmanaged<CalloutLog>.fromOpaque(info!).takeUnretainedValue().entries.append("called")
}

private func recordActivity(_ activity: UInt32, _ info: UnsafeMutableRawPointer?) {
    Unmanaged<CalloutLog>.fromOpaque(info!).takeUnretainedValue().entries.append("activity \(activity)")
}

@Test func cCalloutsReceiveTheirInfoAndTheActivity() {
    let entries: [[String]] = onFreshLoopThread { _ in
        let logs = (source: CalloutLog(), timer: CalloutLog(), observer: CalloutLog())
        let loop = refRunLoopCurrent()
        let source = refRunLoopSource0Create(0, recordTag, Unmanaged.passUnretained(logs.source).toOpaque())
        let timer = refRunLoopTimerCreate(0, 0, 0, recordTag, Unmanaged.passUnretained(logs.timer).toOpaque())
        let entryOrExit = UInt32(RefRunLoopActivity.entry.rawValue | RefRunLoopActivity.exit.rawValue)
        let observer = refRunLoopObserverCreate(
            entryOrExit, 1, 0, recordActivity,
            Unmanaged.passUnretained(logs.observer).toOpaque())
        "kCFRunLoopDefaultMode".withCString { mode in
            refRunLoopAddSource(loop, source, mode)
            refRunLoopAddTimer(loop, timer, mode)
            refRunLoopAddObserver(loop, observer, mode)
            refRunLoopSourceSignal(source)
            _ = refRunLoopRun(loop, mode, 0, 0)
            refRunLoopRemoveSource(loop, source, mode)
            refRunLoopRemoveObserver(loop, observer, mode)
        }
        refRunLoopSourceRelease(source)
        refRunLoopTimerRelease(timer)
        refRunLoopObserverRelease(observer)
        return [logs.source.entries, logs.timer.entries, logs.observer.entries]
    }
    #expect(entries[0] == ["called"], "the source's perform")
    #expect(entries[1] == ["called"], "the due timer's callout")
    #expect(
        entries[2] == [
            "activity \(RefRunLoopActivity.entry.rawValue)", "activity \(RefRunLoopActivity.exit.rawValue)",
        ],
        "the observer's callouts, with the activity")
}

@Test func anObserverCreatedWithoutTheActivityCallsItsCalloutWithItsInfo() {
    // ref_runloop_observer_create_without_activity: the callout has the source perform's type and gets only `info`,
    // once per activity watched (Entry and Exit of one non-blocking run; the unsignalled source keeps the mode from
    // being empty, which would end the run before its Entry).
    let entries: [String] = onFreshLoopThread { _ in
        let log = CalloutLog()
        let loop = refRunLoopCurrent()
        let source = refRunLoopSource0Create(0, recordTag, nil)
        let entryOrExit = UInt32(RefRunLoopActivity.entry.rawValue | RefRunLoopActivity.exit.rawValue)
        let observer = refRunLoopObserverCreateWithoutActivity(
            entryOrExit, 1, 0, recordTag, Unmanaged.passUnretained(log).toOpaque())
        "kCFRunLoopDefaultMode".withCString { mode in
            refRunLoopAddSource(loop, source, mode)
            refRunLoopAddObserver(loop, observer, mode)
            _ = refRunLoopRun(loop, mode, 0, 0)
            refRunLoopRemoveObserver(loop, observer, mode)
            refRunLoopRemoveSource(loop, source, mode)
        }
        refRunLoopObserverRelease(observer)
        refRunLoopSourceRelease(source)
        return log.entries
    }
    #expect(entries == ["called", "called"], "one callout for Entry and one for Exit, each with the observer's info")
}

@Test func theWaitPolicyFunctionsSetAndReadTheSpinCap() {
    let (defaultCap, set, cleared, clamped): (UInt64, UInt64, UInt64, UInt64) = onFreshLoopThread { _ in
        let loop = refRunLoopCurrent()
        refRunLoopSetWaitPolicy(loop, 30_000)
        let set = refRunLoopWaitPolicy(loop)
        refRunLoopSetWaitPolicy(loop, 0)
        let cleared = refRunLoopWaitPolicy(loop)
        refRunLoopSetWaitPolicy(loop, .max)
        let clamped = refRunLoopWaitPolicy(loop)
        refRunLoopSetWaitPolicy(loop, 0)
        return (refRunLoopDefaultMaxSpinNanoseconds(), set, cleared, clamped)
    }
    #expect(defaultCap == RefRunLoop.WaitPolicy.nanoseconds(RefRunLoop.WaitPolicy.defaultMaxSpin))
    #expect(set == 30_000)
    #expect(cleared == 0)
    #expect(clamped == RefRunLoop.WaitPolicy.nanoseconds(RefRunLoop.WaitPolicy.maxSpinLimit))
}

@Test func aSourceJoinsAndLeavesThroughEveryKindOfModeArgument() {
    // ref_runloop_add_source and ref_runloop_remove_source compare the mode argument with REF_RUNLOOP_DEFAULT_MODE's
    // pointer first; a copy of its name, another mode's name and NULL (the common modes) take the other path. Each
    // add is seen by contains, and each remove undoes it.
    let seen: [Bool] = onFreshLoopThread { _ in
        let loopPointer = refRunLoopCurrent()
        let loop = Unmanaged<RefRunLoop>.fromOpaque(UnsafeRawPointer(loopPointer)).takeUnretainedValue()
        let source = refRunLoopSource0Create(0, recordTag, nil)
        let swiftSource = Unmanaged<RefRunLoopSource>.fromOpaque(UnsafeRawPointer(source)).takeUnretainedValue()
        var seen: [Bool] = []
        func addAndRemove(_ name: UnsafePointer<CChar>?, _ mode: RefRunLoopMode) {
            refRunLoopAddSource(loopPointer, source, name)
            seen.append(loop.contains(swiftSource, mode: mode))
            refRunLoopRemoveSource(loopPointer, source, name)
            seen.append(loop.contains(swiftSource, mode: mode))
        }
        addAndRemove(ref_runloop_default_mode, .default)
        "kCFRunLoopDefaultMode".withCString { addAndRemove($0, .default) }
        "other".withCString { addAndRemove($0, .named("other")) }
        addAndRemove(nil, .common)
        refRunLoopSourceRelease(source)
        return seen
    }
    #expect(seen == [true, false, true, false, true, false, true, false], "in after each add, out after each remove")
}

@Test func aTimerAndAnObserverJoinAndLeaveThroughEveryKindOfModeArgument() {
    // ref_runloop_add_timer, ref_runloop_add_observer and their removes compare the mode argument with
    // REF_RUNLOOP_DEFAULT_MODE's pointer, each in its own order of checks (CABI.swift); a copy of its name, another
    // mode's name and NULL (the common modes) take the other path. Each add is seen by contains, and each remove undoes
    // it. The timer is far in the future and the loop never runs, so neither fires.
    let seen: [Bool] = onFreshLoopThread { _ in
        let loopPointer = refRunLoopCurrent()
        let loop = Unmanaged<RefRunLoop>.fromOpaque(UnsafeRawPointer(loopPointer)).takeUnretainedValue()
        let timer = refRunLoopTimerCreate(refRunLoopNow() + 3_600, 0, 0, recordTag, nil)
        let swiftTimer = Unmanaged<RefRunLoopTimer>.fromOpaque(UnsafeRawPointer(timer)).takeUnretainedValue()
        let everyActivity = UInt32(truncatingIfNeeded: RefRunLoopActivity.allActivities.rawValue)
        let observer = refRunLoopObserverCreate(everyActivity, 1, 0, recordActivity, nil)
        let swiftObserver = Unmanaged<RefRunLoopObserver>.fromOpaque(UnsafeRawPointer(observer))
            .takeUnretainedValue()
        var seen: [Bool] = []
        func addAndRemove(_ name: UnsafePointer<CChar>?, _ mode: RefRunLoopMode) {
            refRunLoopAddTimer(loopPointer, timer, name)
            refRunLoopAddObserver(loopPointer, observer, name)
            seen.append(loop.contains(swiftTimer, mode: mode))
            seen.append(loop.contains(swiftObserver, mode: mode))
            refRunLoopRemoveTimer(loopPointer, timer, name)
            seen.append(loop.contains(swiftTimer, mode: mode))
            seen.append(loop.contains(swiftObserver, mode: mode))
            refRunLoopRemoveObserver(loopPointer, observer, name)
            seen.append(loop.contains(swiftObserver, mode: mode))
        }
        addAndRemove(ref_runloop_default_mode, .default)
        "kCFRunLoopDefaultMode".withCString { addAndRemove($0, .default) }
        "other".withCString { addAndRemove($0, .named("other")) }
        addAndRemove(nil, .common)
        refRunLoopTimerRelease(timer)
        refRunLoopObserverRelease(observer)
        return seen
    }
    let once = [true, true, false, true, false]
    #expect(seen == once + once + once + once, "in after each add, out after each remove, the other kind unaffected")
}
