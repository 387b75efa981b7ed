// CF sources, timers and observers behind the engine contract. Each wrapper is immutable; CF's own locks protect
// the objects, so the wrappers are shared across threads freely.

import CoreFoundation
import EngineKit

/// What a CF source context's `info` points at: the callouts, kept alive by CF through retain/release.
private final class SourceInfo {
    let callbacks: Source0Callbacks
    let fd: Int32
    init(callbacks: Source0Callbacks, fd: Int32 = -1) {
        self.callbacks = callbacks
        self.fd = fd
    }

    static func from(_ info: UnsafeRawPointer?) -> SourceInfo {
        Unmanaged<SourceInfo>.fromOpaque(info!).takeUnretainedValue()
    }
}

private let retainInfo: @convention(c) (UnsafeRawPointer?) -> UnsafeRawPointer? = { info in
    _ = Unmanaged<SourceInfo>.fromOpaque(info!).retain()
    return info
}

private let releaseInfo: @convention(c) (UnsafeRawPointer?) -> Void = { info in
    Unmanaged<SourceInfo>.fromOpaque(info!).release()
}

/// Common base of the two source versions.
class CFSourceItem: EngineSource, @unchecked Sendable {
    let source: CFRunLoopSource

    init(source: CFRunLoopSource) { self.source = source }

    func signal() { CFRunLoopSourceSignal(source) }
    func invalidate() { CFRunLoopSourceInvalidate(source) }
    var isValid: Bool { CFRunLoopSourceIsValid(source) }
}

/// A version-0 source whose perform, schedule and cancel callouts call the given closures.
final class CFSource0: CFSourceItem, @unchecked Sendable {
    init(order: Int, callbacks: Source0Callbacks) {
        let info = SourceInfo(callbacks: callbacks)
        var context = CFRunLoopSourceContext()
        context.version = 0
        context.info = Unmanaged.passUnretained(info).toOpaque()
        context.retain = retainInfo
        context.release = releaseInfo
        context.schedule = { info, _, mode in
            SourceInfo.from(info).callbacks.schedule(mode.map(CFModes.string) ?? "?")
        }
        context.cancel = { info, _, mode in
            SourceInfo.from(info).callbacks.cancel(mode.map(CFModes.string) ?? "?")
        }
        context.perform = { info in SourceInfo.from(info).callbacks.perform() }
        let source = withExtendedLifetime(info) { CFRunLoopSourceCreate(nil, CFIndex(order), &context)! }
        super.init(source: source)
    }
}

/// A version-1 source: CF waits on `fd`, reads 8 bytes from it when readable, then calls perform.
final class CFSource1: CFSourceItem, @unchecked Sendable {
    init(order: Int, fd: Int32, perform: @escaping @Sendable () -> Void) {
        let info = SourceInfo(callbacks: Source0Callbacks(perform: perform), fd: fd)
        var context = CFRunLoopSourceContext1()
        context.version = 1
        context.info = Unmanaged.passUnretained(info).toOpaque()
        context.retain = retainInfo
        context.release = releaseInfo
        context.getPort = { info in SourceInfo.from(info).fd }
        context.perform = { info in SourceInfo.from(info).callbacks.perform() }
        let source = withExtendedLifetime(info) {
            withUnsafeMutablePointer(to: &context) { pointer in
                pointer.withMemoryRebound(to: CFRunLoopSourceContext.self, capacity: 1) {
                    CFRunLoopSourceCreate(nil, CFIndex(order), $0)!
                }
            }
        }
        super.init(source: source)
    }
}

/// A CFRunLoopTimer created with a handler block.
final class CFTimerItem: EngineTimer, @unchecked Sendable {
    let timer: CFRunLoopTimer

    init(fireDate: Double, interval: Double, order: Int, callout: @escaping @Sendable () -> Void) {
        timer = CFRunLoopTimerCreateWithHandler(nil, fireDate, interval, 0, CFIndex(order)) { _ in callout() }
    }

    func invalidate() { CFRunLoopTimerInvalidate(timer) }
    var isValid: Bool { CFRunLoopTimerIsValid(timer) }

    var nextFireDate: Double {
        get { CFRunLoopTimerGetNextFireDate(timer) }
        set { CFRunLoopTimerSetNextFireDate(timer, newValue) }
    }

    var tolerance: Double {
        get { CFRunLoopTimerGetTolerance(timer) }
        set { CFRunLoopTimerSetTolerance(timer, newValue) }
    }
}

/// A CFRunLoopObserver created with a handler block.
final class CFObserverItem: EngineObserver, @unchecked Sendable {
    let observer: CFRunLoopObserver

    init(activities: ActivitySet, repeats: Bool, order: Int, callout: @escaping @Sendable (Activity) -> Void) {
        observer = CFRunLoopObserverCreateWithHandler(nil, CFOptionFlags(activities.rawValue), repeats, CFIndex(order)) { _, activity in
            guard let known = Activity(bit: UInt(activity.rawValue)) else {
                fatalError("CF reported an unknown activity bit \(activity.rawValue)")
            }
            callout(known)
        }
    }

    func invalidate() { CFRunLoopObserverInvalidate(observer) }
    var isValid: Bool { CFRunLoopObserverIsValid(observer) }
}
