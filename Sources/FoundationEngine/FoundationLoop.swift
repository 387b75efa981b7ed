// One loop of the engine `foundation`: Foundation's RunLoop of a thread, and CF's view of the same loop for what
// Foundation has no API for.
//
// Through Foundation: timers (Timer(fire:interval:repeats:block:), RunLoop.add(_:forMode:), Timer's invalidate,
// isValid, fireDate and tolerance), blocks (RunLoop.perform(inModes:block:)), currentMode, the clock (Date), the main
// loop (RunLoop.main) and loop identity. Through CF (Foundation has none of these): sources of version 0 and 1,
// observers, CFRunLoopRunInMode with its result and CFRunLoopRun (Foundation's run methods are other verbs, with
// other contracts: FoundationLoop+Layer.swift), stop, _CFRunLoopStopMode, wake-up, isWaiting, removing a timer or
// asking whether a mode contains one, common modes, allModes and the next timer's fire date (limitDate(forMode:) runs
// the loop first).

import CFEngine
import EngineKit
import Foundation

/// Immutable after init. `runLoop` is a reference to Foundation's loop object, whose members used here lock the CF
/// loop they wrap, so it is used from any thread as the contract allows.
final class FoundationLoop: EngineLoop, @unchecked Sendable {
    let engine: FoundationRunLoopEngine
    /// Foundation's RunLoop of the thread that made this loop.
    nonisolated(unsafe) let runLoop: RunLoop
    /// CFRunLoopGetCurrent() of the same thread, through the toolchain's CoreFoundation.
    let cfLoop: any EngineLoop

    /// Called on the loop's thread: `RunLoop.current` there is the loop `cfLoop` wraps.
    init(engine: FoundationRunLoopEngine, cfLoop: any EngineLoop) {
        self.engine = engine
        self.cfLoop = cfLoop
        runLoop = RunLoop.current
    }

    var now: Double { Date().timeIntervalSinceReferenceDate }

    var isMainLoop: Bool { runLoop === RunLoop.main }

    // MARK: Items

    func makeSource0(order: Int, callbacks: Source0Callbacks) -> any EngineSource {
        cfLoop.makeSource0(order: order, callbacks: callbacks)
    }

    func makeSource1(order: Int, fd: Int32, perform: @escaping @Sendable () -> Void) -> any EngineSource {
        cfLoop.makeSource1(order: order, fd: fd, perform: perform)
    }

    /// `Timer(fire:interval:repeats:block:)`, which has no order: Foundation creates every timer with order 0
    /// (swift-corelibs-foundation Sources/Foundation/Timer.swift 40-56).
    func makeTimer(
        fireDate: Double, interval: Double, order: Int,
        callout: @escaping @Sendable () -> Void
    ) -> any EngineTimer {
        FoundationTimer(
            Timer(
                fire: Date(timeIntervalSinceReferenceDate: fireDate), interval: interval, repeats: interval > 0,
                block: { _ in callout() }))
    }

    func makeObserver(
        activities: ActivitySet, repeats: Bool, order: Int,
        callout: @escaping @Sendable (Activity) -> Void
    ) -> any EngineObserver {
        cfLoop.makeObserver(activities: activities, repeats: repeats, order: order, callout: callout)
    }

    func add(_ item: EngineItem, mode: ModeName) {
        if case .timer(let timer as FoundationTimer) = item {
            runLoop.add(timer.timer, forMode: mode.foundationMode)
        } else {
            cfLoop.add(item, mode: mode)
        }
    }

    func remove(_ item: EngineItem, mode: ModeName) { cfLoop.remove(cfItem(item), mode: mode) }

    func contains(_ item: EngineItem, mode: ModeName) -> Bool { cfLoop.contains(cfItem(item), mode: mode) }

    /// A Foundation timer as CF's, for the calls Foundation has no API for.
    private func cfItem(_ item: EngineItem) -> EngineItem {
        guard case .timer(let timer as FoundationTimer) = item else { return item }
        guard let ref = timer.cfTimer else {
            fatalError("foundation: this Foundation's Timer keeps its CFRunLoopTimer elsewhere than _timerStorage")
        }
        return .timer(engine.cf.timer(wrapping: ref))
    }

    func addCommonMode(_ name: String) { cfLoop.addCommonMode(name) }

    /// `RunLoop.perform(inModes:block:)`: Foundation always passes CF an array of modes, so a single mode string
    /// becomes an array of one.
    func performBlock(modes: BlockModes, _ block: @escaping @Sendable () -> Void) {
        let list: [ModeName]
        switch modes {
        case .one(let mode): list = [mode]
        case .list(let modes): list = modes
        }
        runLoop.perform(inModes: list.map(\.foundationMode), block: block)
    }

    // MARK: Running

    func run(mode: ModeName, seconds: Double, returnAfterSourceHandled: Bool) -> RunResult {
        cfLoop.run(mode: mode, seconds: seconds, returnAfterSourceHandled: returnAfterSourceHandled)
    }

    func runForever() { cfLoop.runForever() }
    func stop() { cfLoop.stop() }
    func stopMode(_ name: String) { cfLoop.stopMode(name) }
    func wakeUp() { cfLoop.wakeUp() }
    var isWaiting: Bool { cfLoop.isWaiting }

    // MARK: State

    var currentMode: String? { runLoop.currentMode?.rawValue }
    var allModes: [String] { cfLoop.allModes }
    func nextTimerFireDate(mode: ModeName) -> Double { cfLoop.nextTimerFireDate(mode: mode) }

    /// Foundation keeps one RunLoop object per CF loop (`_CFRunLoopGet2`), so identity of the objects is identity of
    /// the loops.
    func isSameLoop(as other: any EngineLoop) -> Bool {
        guard let other = other as? FoundationLoop else {
            fatalError("foundation: a loop from another engine was given")
        }
        return other.runLoop === runLoop
    }
}
