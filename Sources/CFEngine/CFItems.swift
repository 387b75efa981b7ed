// Sources, timers and observers of a CoreFoundation library behind the engine contract. Each wrapper owns one reference to
// its object (released with the library's CFRelease) and is immutable; the library's locks protect the objects.

import CFLoader
import EngineKit

/// What a context's `info` points at: the callouts, kept alive by the library through retain/release.
private final class CalloutInfo {
    let library: CFLibrary
    let perform: @Sendable () -> Void
    let schedule: @Sendable (String) -> Void
    let cancel: @Sendable (String) -> Void
    let activity: @Sendable (Activity) -> Void
    let fd: Int32

    init(
        library: CFLibrary, perform: @escaping @Sendable () -> Void = {},
        schedule: @escaping @Sendable (String) -> Void = { _ in },
        cancel: @escaping @Sendable (String) -> Void = { _ in },
        activity: @escaping @Sendable (Activity) -> Void = { _ in }, fd: Int32 = -1
    ) {
        self.library = library
        self.perform = perform
        self.schedule = schedule
        self.cancel = cancel
        self.activity = activity
        self.fd = fd
    }

    static func from(_ info: UnsafeRawPointer?) -> CalloutInfo {
        Unmanaged<CalloutInfo>.fromOpaque(info!).takeUnretainedValue()
    }

    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

private let retainInfo: @convention(c) (UnsafeRawPointer?) -> UnsafeRawPointer? = { info in
    _ = Unmanaged<CalloutInfo>.fromOpaque(info!).retain()
    return info
}

private let releaseInfo: @convention(c) (UnsafeRawPointer?) -> Void = { info in
    Unmanaged<CalloutInfo>.fromOpaque(info!).release()
}

/// One owned reference to an object of the library.
class CFObject: @unchecked Sendable {
    let library: CFLibrary
    let ref: cfl_ref

    init(library: CFLibrary, ref: cfl_ref?, creator: String) {
        guard let ref else { fatalError("\(library.path): \(creator) returned NULL") }
        self.library = library
        self.ref = ref
    }

    deinit { library.fn.CFRelease(ref) }
}

final class CFSourceItem: CFObject, EngineSource, @unchecked Sendable {
    /// A version-0 source whose perform, schedule and cancel callouts call `callbacks`.
    convenience init(library: CFLibrary, order: Int, callbacks: Source0Callbacks) {
        let info = CalloutInfo(
            library: library, perform: callbacks.perform, schedule: callbacks.schedule,
            cancel: callbacks.cancel)
        var context = cfl_source_context0()
        context.version = 0
        context.info = info.pointer
        context.retain = retainInfo
        context.release = releaseInfo
        context.schedule = { info, _, mode in
            let info = CalloutInfo.from(info)
            info.schedule(info.library.string(mode))
        }
        context.cancel = { info, _, mode in
            let info = CalloutInfo.from(info)
            info.cancel(info.library.string(mode))
        }
        context.perform = { info in CalloutInfo.from(info).perform() }
        let ref = withExtendedLifetime(info) { library.fn.CFRunLoopSourceCreate(nil, order, &context) }
        self.init(library: library, ref: ref, creator: "CFRunLoopSourceCreate")
    }

    /// A version-1 source on `fd`, in swift-corelibs-foundation's layout off Darwin (CFLoader.h).
    convenience init(library: CFLibrary, order: Int, fd: Int32, perform: @escaping @Sendable () -> Void) {
        let info = CalloutInfo(library: library, perform: perform, fd: fd)
        var context = cfl_source_context1()
        context.version = 1
        context.info = info.pointer
        context.retain = retainInfo
        context.release = releaseInfo
        context.getPort = { info in CalloutInfo.from(info).fd }
        context.perform = { info in CalloutInfo.from(info).perform() }
        let ref = withExtendedLifetime(info) { library.fn.CFRunLoopSourceCreate(nil, order, &context) }
        self.init(library: library, ref: ref, creator: "CFRunLoopSourceCreate")
    }

    func signal() { library.fn.CFRunLoopSourceSignal(ref) }
    func invalidate() { library.fn.CFRunLoopSourceInvalidate(ref) }
    var isValid: Bool { library.fn.CFRunLoopSourceIsValid(ref) != 0 }
    var isSignalled: Bool? { library.fn.CFRunLoopSourceIsSignalled.map { $0(ref) != 0 } }
}

final class CFTimerItem: CFObject, EngineTimer, @unchecked Sendable {
    convenience init(
        library: CFLibrary, fireDate: Double, interval: Double, order: Int,
        callout: @escaping @Sendable () -> Void
    ) {
        let info = CalloutInfo(library: library, perform: callout)
        var context = cfl_context(
            version: 0, info: info.pointer, retain: retainInfo, release: releaseInfo,
            copyDescription: nil)
        let ref = withExtendedLifetime(info) {
            library.fn.CFRunLoopTimerCreate(
                nil, fireDate, interval, 0, order,
                { _, info in
                    CalloutInfo.from(info).perform()
                }, &context)
        }
        self.init(library: library, ref: ref, creator: "CFRunLoopTimerCreate")
    }

    func invalidate() { library.fn.CFRunLoopTimerInvalidate(ref) }
    var isValid: Bool { library.fn.CFRunLoopTimerIsValid(ref) != 0 }

    var nextFireDate: Double {
        get { library.fn.CFRunLoopTimerGetNextFireDate(ref) }
        set { library.fn.CFRunLoopTimerSetNextFireDate(ref, newValue) }
    }

    /// Only asked for when the engine has the timerTolerance feature (both functions present).
    var tolerance: Double {
        get { library.fn.CFRunLoopTimerGetTolerance?(ref) ?? 0 }
        set { library.fn.CFRunLoopTimerSetTolerance?(ref, newValue) }
    }
}

final class CFObserverItem: CFObject, EngineObserver, @unchecked Sendable {
    convenience init(
        library: CFLibrary, activities: ActivitySet, repeats: Bool, order: Int,
        callout: @escaping @Sendable (Activity) -> Void
    ) {
        let info = CalloutInfo(library: library, activity: callout)
        var context = cfl_context(
            version: 0, info: info.pointer, retain: retainInfo, release: releaseInfo,
            copyDescription: nil)
        let ref = withExtendedLifetime(info) {
            library.fn.CFRunLoopObserverCreate(
                nil, activities.rawValue, repeats ? 1 : 0, order,
                { _, activity, info in
                    let info = CalloutInfo.from(info)
                    guard let known = Activity(bit: activity) else {
                        fatalError("\(info.library.path) reported an unknown activity bit \(activity)")
                    }
                    info.activity(known)
                }, &context)
        }
        self.init(library: library, ref: ref, creator: "CFRunLoopObserverCreate")
    }

    func invalidate() { library.fn.CFRunLoopObserverInvalidate(ref) }
    var isValid: Bool { library.fn.CFRunLoopObserverIsValid(ref) != 0 }
}
