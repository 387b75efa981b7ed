// The `ref` engine: the reference run loop behind the engine contract. Each member is one call of RefRunLoop's
// public API; nothing here adds behaviour, so the spec observes the library users embed.

import EngineKit
import RefRunLoop

/// The reference engine, `ref`.
public struct ReferenceEngine: RunLoopEngine {
    public init() {}

    public var name: String { "ref" }

    public var summary: String {
        let base = "the reference run loop: CFRunLoop semantics in Swift on epoll, eventfd and timerfd"
        let policy = RefRunLoop.defaultWaitPolicy
        return policy == .park ? base : base + "; wait policy \(policy) (\(RefRunLoop.WaitPolicy.environmentVariable))"
    }

    /// What is wrong with the environment this engine reads (REF_RUNLOOP_SPIN, the wait policy of its loops), or nil.
    public static var environmentProblem: String? {
        if case .failure(let error) = RefRunLoop.WaitPolicy.fromEnvironment() { return error.description }
        return nil
    }

    public var features: Set<EngineFeature> {
        [.source1, .stopMode, .timerTolerance, .blocks, .mainThread, .mainQueue, .isSignalled]
    }

    public func whyLacking(_ feature: EngineFeature) -> String? {
        feature == .foundation ? "the reference loop has no Foundation RunLoop over it" : nil
    }

    public func currentLoop() -> any EngineLoop { RefLoopAdapter(RefRunLoop.current) }
}

/// A RefRunLoop behind the EngineLoop contract. Immutable; the loop's own lock makes it shareable.
final class RefLoopAdapter: EngineLoop, @unchecked Sendable {
    let loop: RefRunLoop

    init(_ loop: RefRunLoop) { self.loop = loop }

    var now: Double { RefClock.now }

    var isMainLoop: Bool { loop.isMain }

    func makeSource0(order: Int, callbacks: Source0Callbacks) -> any EngineSource {
        RefSourceItem(
            RefRunLoopSource(
                order: order, perform: callbacks.perform,
                schedule: callbacks.schedule, cancel: callbacks.cancel))
    }

    func makeSource1(order: Int, fd: Int32, perform: @escaping @Sendable () -> Void) -> any EngineSource {
        RefSourceItem(RefRunLoopSource(order: order, fileDescriptor: fd, perform: perform))
    }

    func makeTimer(
        fireDate: Double, interval: Double, order: Int,
        callout: @escaping @Sendable () -> Void
    ) -> any EngineTimer {
        RefTimerItem(RefRunLoopTimer(fireDate: fireDate, interval: interval, order: order) { _ in callout() })
    }

    func makeObserver(
        activities: ActivitySet, repeats: Bool, order: Int,
        callout: @escaping @Sendable (Activity) -> Void
    ) -> any EngineObserver {
        let observer = RefRunLoopObserver(
            activities: RefRunLoopActivity(rawValue: activities.rawValue),
            repeats: repeats, order: order
        ) { _, activity in
            guard let known = Activity(bit: activity.rawValue) else {
                fatalError("internal bug: RefRunLoop reported an unknown activity \(activity.rawValue)")
            }
            callout(known)
        }
        return RefObserverItem(observer)
    }

    func add(_ item: EngineItem, mode: ModeName) {
        let mode = Self.mode(mode)
        switch item {
        case .source(let source): loop.add(Self.unwrap(source), mode: mode)
        case .timer(let timer): loop.add(Self.unwrap(timer), mode: mode)
        case .observer(let observer): loop.add(Self.unwrap(observer), mode: mode)
        }
    }

    func remove(_ item: EngineItem, mode: ModeName) {
        let mode = Self.mode(mode)
        switch item {
        case .source(let source): loop.remove(Self.unwrap(source), mode: mode)
        case .timer(let timer): loop.remove(Self.unwrap(timer), mode: mode)
        case .observer(let observer): loop.remove(Self.unwrap(observer), mode: mode)
        }
    }

    func contains(_ item: EngineItem, mode: ModeName) -> Bool {
        let mode = Self.mode(mode)
        switch item {
        case .source(let source): return loop.contains(Self.unwrap(source), mode: mode)
        case .timer(let timer): return loop.contains(Self.unwrap(timer), mode: mode)
        case .observer(let observer): return loop.contains(Self.unwrap(observer), mode: mode)
        }
    }

    func addCommonMode(_ name: String) { loop.addCommonMode(name) }

    func performBlock(modes: BlockModes, _ block: @escaping @Sendable () -> Void) {
        switch modes {
        case .one(let mode): loop.perform(modes: .one(Self.mode(mode)), block)
        case .list(let list): loop.perform(modes: .list(list.map(Self.mode)), block)
        }
    }

    func run(mode: ModeName, seconds: Double, returnAfterSourceHandled: Bool) -> RunResult {
        let result = loop.run(
            mode: Self.mode(mode), seconds: seconds, returnAfterSourceHandled: returnAfterSourceHandled)
        guard let mapped = RunResult(rawValue: Int(result.rawValue)) else {
            fatalError("internal bug: RefRunLoop returned \(result.rawValue)")
        }
        return mapped
    }

    func runForever() { loop.run() }

    func stop() { loop.stop() }
    func stopMode(_ name: String) { loop.stop(mode: name) }
    func wakeUp() { loop.wakeUp() }
    var isWaiting: Bool { loop.isWaiting }
    var currentMode: String? { loop.currentMode }
    var allModes: [String] { loop.allModes }
    func nextTimerFireDate(mode: ModeName) -> Double { loop.nextTimerFireDate(mode: Self.mode(mode)) }

    func isSameLoop(as other: any EngineLoop) -> Bool {
        guard let other = other as? RefLoopAdapter else { fatalError("a loop from another engine was given to ref") }
        return other.loop === loop
    }

    static func mode(_ mode: ModeName) -> RefRunLoopMode {
        switch mode {
        case .common: return .common
        case .named(let name): return .named(name)
        }
    }

    static func unwrap(_ source: any EngineSource) -> RefRunLoopSource {
        guard let item = source as? RefSourceItem else { fatalError("a source from another engine was given to ref") }
        return item.source
    }

    static func unwrap(_ timer: any EngineTimer) -> RefRunLoopTimer {
        guard let item = timer as? RefTimerItem else { fatalError("a timer from another engine was given to ref") }
        return item.timer
    }

    static func unwrap(_ observer: any EngineObserver) -> RefRunLoopObserver {
        guard let item = observer as? RefObserverItem else {
            fatalError("an observer from another engine was given to ref")
        }
        return item.observer
    }
}

/// A RefRunLoopSource behind EngineSource. Immutable.
final class RefSourceItem: EngineSource, @unchecked Sendable {
    let source: RefRunLoopSource
    init(_ source: RefRunLoopSource) { self.source = source }
    func signal() { source.signal() }
    func invalidate() { source.invalidate() }
    var isValid: Bool { source.isValid }
    var isSignalled: Bool? { source.isSignalled }
}

/// A RefRunLoopTimer behind EngineTimer. Immutable (the setters forward to the timer, which locks).
final class RefTimerItem: EngineTimer, @unchecked Sendable {
    let timer: RefRunLoopTimer
    init(_ timer: RefRunLoopTimer) { self.timer = timer }
    func invalidate() { timer.invalidate() }
    var isValid: Bool { timer.isValid }
    var nextFireDate: Double {
        get { timer.nextFireDate }
        set { timer.nextFireDate = newValue }
    }
    var tolerance: Double {
        get { timer.tolerance }
        set { timer.tolerance = newValue }
    }
}

/// A RefRunLoopObserver behind EngineObserver. Immutable.
final class RefObserverItem: EngineObserver, @unchecked Sendable {
    let observer: RefRunLoopObserver
    init(_ observer: RefRunLoopObserver) { self.observer = observer }
    func invalidate() { observer.invalidate() }
    var isValid: Bool { observer.isValid }
}
