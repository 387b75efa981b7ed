// A loop that passes every call to another: the test worker's engines (faulty, planted) override the one member
// they change, so each says only what it does differently.

import EngineKit

/// Forwards every member to `inner`. Subclasses override what they change.
///
/// Thread safety: `inner` is immutable and is itself Sendable, and subclasses add only immutable state, so the class
/// is Sendable; it is not final (so that it can be subclassed), hence `@unchecked`.
class ForwardingLoop: EngineLoop, @unchecked Sendable {
    let inner: any EngineLoop

    init(_ inner: any EngineLoop) {
        self.inner = inner
    }

    func run(mode: ModeName, seconds: Double, returnAfterSourceHandled: Bool) -> RunResult {
        inner.run(mode: mode, seconds: seconds, returnAfterSourceHandled: returnAfterSourceHandled)
    }

    var now: Double { inner.now }
    var isMainLoop: Bool { inner.isMainLoop }
    func makeSource0(order: Int, callbacks: Source0Callbacks) -> any EngineSource {
        inner.makeSource0(order: order, callbacks: callbacks)
    }
    func makeSource1(order: Int, fd: Int32, perform: @escaping @Sendable () -> Void) -> any EngineSource {
        inner.makeSource1(order: order, fd: fd, perform: perform)
    }
    func makeTimer(
        fireDate: Double, interval: Double, order: Int,
        callout: @escaping @Sendable () -> Void
    ) -> any EngineTimer {
        inner.makeTimer(fireDate: fireDate, interval: interval, order: order, callout: callout)
    }
    func makeObserver(
        activities: ActivitySet, repeats: Bool, order: Int,
        callout: @escaping @Sendable (Activity) -> Void
    ) -> any EngineObserver {
        inner.makeObserver(activities: activities, repeats: repeats, order: order, callout: callout)
    }
    func add(_ item: EngineItem, mode: ModeName) { inner.add(item, mode: mode) }
    func remove(_ item: EngineItem, mode: ModeName) { inner.remove(item, mode: mode) }
    func contains(_ item: EngineItem, mode: ModeName) -> Bool { inner.contains(item, mode: mode) }
    func addCommonMode(_ name: String) { inner.addCommonMode(name) }
    func performBlock(modes: BlockModes, _ block: @escaping @Sendable () -> Void) {
        inner.performBlock(modes: modes, block)
    }
    func runForever() { inner.runForever() }

    func stop() { inner.stop() }
    func stopMode(_ name: String) { inner.stopMode(name) }
    func wakeUp() { inner.wakeUp() }
    var isWaiting: Bool { inner.isWaiting }
    var currentMode: String? { inner.currentMode }
    var allModes: [String] { inner.allModes }
    func nextTimerFireDate(mode: ModeName) -> Double { inner.nextTimerFireDate(mode: mode) }
    func isSameLoop(as other: any EngineLoop) -> Bool {
        inner.isSameLoop(as: (other as? ForwardingLoop)?.inner ?? other)
    }
}
