// One CFRunLoop behind the EngineLoop contract.

import CFPrivate
import CoreFoundation
import EngineKit

/// A CFRunLoop. Immutable wrapper: CF's own lock protects the loop, so it is safe to share across threads.
final class CFLoop: EngineLoop, @unchecked Sendable {
    let loop: CFRunLoop

    init(_ loop: CFRunLoop) { self.loop = loop }

    var now: Double { CFAbsoluteTimeGetCurrent() }

    var isMainLoop: Bool { CFRunLoopGetMain() === loop }

    func makeSource0(order: Int, callbacks: Source0Callbacks) -> any EngineSource {
        CFSource0(order: order, callbacks: callbacks)
    }

    func makeSource1(order: Int, fd: Int32, perform: @escaping @Sendable () -> Void) -> any EngineSource {
        CFSource1(order: order, fd: fd, perform: perform)
    }

    func makeTimer(fireDate: Double, interval: Double, order: Int,
                   callout: @escaping @Sendable () -> Void) -> any EngineTimer {
        CFTimerItem(fireDate: fireDate, interval: interval, order: order, callout: callout)
    }

    func makeObserver(activities: ActivitySet, repeats: Bool, order: Int,
                      callout: @escaping @Sendable (Activity) -> Void) -> any EngineObserver {
        CFObserverItem(activities: activities, repeats: repeats, order: order, callout: callout)
    }

    func add(_ item: EngineItem, mode: ModeName) {
        let name = CFModes.cfString(mode)
        switch item {
        case .source(let source): CFRunLoopAddSource(loop, cfSource(source), name)
        case .timer(let timer): CFRunLoopAddTimer(loop, cfTimer(timer), name)
        case .observer(let observer): CFRunLoopAddObserver(loop, cfObserver(observer), name)
        }
    }

    func remove(_ item: EngineItem, mode: ModeName) {
        let name = CFModes.cfString(mode)
        switch item {
        case .source(let source): CFRunLoopRemoveSource(loop, cfSource(source), name)
        case .timer(let timer): CFRunLoopRemoveTimer(loop, cfTimer(timer), name)
        case .observer(let observer): CFRunLoopRemoveObserver(loop, cfObserver(observer), name)
        }
    }

    func contains(_ item: EngineItem, mode: ModeName) -> Bool {
        let name = CFModes.cfString(mode)
        switch item {
        case .source(let source): return CFRunLoopContainsSource(loop, cfSource(source), name)
        case .timer(let timer): return CFRunLoopContainsTimer(loop, cfTimer(timer), name)
        case .observer(let observer): return CFRunLoopContainsObserver(loop, cfObserver(observer), name)
        }
    }

    func addCommonMode(_ name: String) { CFRunLoopAddCommonMode(loop, CFModes.cfString(name)) }

    func performBlock(modes: BlockModes, _ block: @escaping @Sendable () -> Void) {
        let argument: CFTypeRef
        switch modes {
        case .one(let mode):
            argument = CFModes.cfString(mode)
        case .list(let list):
            let strings = list.map(CFModes.cfString)
            var values = strings.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) as UnsafeRawPointer? }
            var callbacks = kCFTypeArrayCallBacks
            // The strings stay alive until CFArrayCreate has retained them.
            argument = withExtendedLifetime(strings) {
                values.withUnsafeMutableBufferPointer { CFArrayCreate(nil, $0.baseAddress, $0.count, &callbacks) }
            }
        }
        CFRunLoopPerformBlock(loop, argument, block)
    }

    func run(mode: ModeName, seconds: Double, returnAfterSourceHandled: Bool) -> RunResult {
        let code = CFRunLoopRunInMode(CFModes.cfString(mode), seconds, returnAfterSourceHandled)
        guard let result = RunResult(rawValue: Int(code.rawValue)) else {
            fatalError("CFRunLoopRunInMode returned \(code.rawValue), which is not a CFRunLoopRunResult")
        }
        return result
    }

    func runForever() { CFRunLoopRun() }

    func stop() { CFRunLoopStop(loop) }

    func stopMode(_ name: String) {
        let mode = CFModes.cfString(name)
        _CFRunLoopStopMode(Unmanaged.passUnretained(loop).toOpaque(), Unmanaged.passUnretained(mode).toOpaque())
        withExtendedLifetime(mode) {}
    }

    func wakeUp() { CFRunLoopWakeUp(loop) }

    var isWaiting: Bool { CFRunLoopIsWaiting(loop) }

    var currentMode: String? {
        guard let mode = CFRunLoopCopyCurrentMode(loop) else { return nil }
        return CFModes.string(mode)
    }

    var allModes: [String] {
        guard let array = CFRunLoopCopyAllModes(loop) else { return [] }
        return (0..<CFArrayGetCount(array)).map { index in
            let value = CFArrayGetValueAtIndex(array, index)
            return CFModes.string(Unmanaged<CFString>.fromOpaque(value!).takeUnretainedValue())
        }
    }

    func nextTimerFireDate(mode: ModeName) -> Double {
        CFRunLoopGetNextTimerFireDate(loop, CFModes.cfString(mode))
    }

    func isSameLoop(as other: any EngineLoop) -> Bool {
        guard let other = other as? CFLoop else { fatalError("a loop from another engine was given to cf") }
        return other.loop === loop
    }

    private func cfSource(_ source: any EngineSource) -> CFRunLoopSource {
        guard let wrapped = source as? CFSourceItem else { fatalError("a source from another engine was given to cf") }
        return wrapped.source
    }

    private func cfTimer(_ timer: any EngineTimer) -> CFRunLoopTimer {
        guard let wrapped = timer as? CFTimerItem else { fatalError("a timer from another engine was given to cf") }
        return wrapped.timer
    }

    private func cfObserver(_ observer: any EngineObserver) -> CFRunLoopObserver {
        guard let wrapped = observer as? CFObserverItem else { fatalError("an observer from another engine was given to cf") }
        return wrapped.observer
    }
}
