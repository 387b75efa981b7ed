// One run loop of a CoreFoundation library behind the EngineLoop contract.

import CFLoader
import EngineKit

/// The calling thread's loop of a CoreFoundation library (CFRunLoopGetCurrent, retained here: the thread's own reference ends
/// when the thread exits, and a case may still address the loop of a thread that has ended, as a CFRunLoop reference
/// allows). Immutable; the library's own lock protects the loop.
final class CFLoop: EngineLoop, @unchecked Sendable {
    let library: CFLibrary
    let loop: cfl_ref
    /// The library's function table, read in place (``CFLibrary/fn``).
    private var fn: cfl_library { unsafeAddress { UnsafePointer(library.table) } }

    init(library: CFLibrary, loop: cfl_ref) {
        self.library = library
        _ = library.fn.CFRetain(loop)
        self.loop = loop
    }

    deinit { fn.CFRelease(loop) }

    var now: Double { fn.CFAbsoluteTimeGetCurrent() }

    var isMainLoop: Bool { fn.CFRunLoopGetMain.map { $0() == loop } ?? false }

    func makeSource0(order: Int, callbacks: Source0Callbacks) -> any EngineSource {
        CFSourceItem(library: library, order: order, callbacks: callbacks)
    }

    func makeSource1(order: Int, fd: Int32, perform: @escaping @Sendable () -> Void) -> any EngineSource {
        CFSourceItem(library: library, order: order, fd: fd, perform: perform)
    }

    func makeTimer(
        fireDate: Double, interval: Double, order: Int,
        callout: @escaping @Sendable () -> Void
    ) -> any EngineTimer {
        CFTimerItem(library: library, fireDate: fireDate, interval: interval, order: order, callout: callout)
    }

    func makeObserver(
        activities: ActivitySet, repeats: Bool, order: Int,
        callout: @escaping @Sendable (Activity) -> Void
    ) -> any EngineObserver {
        CFObserverItem(library: library, activities: activities, repeats: repeats, order: order, callout: callout)
    }

    func add(_ item: EngineItem, mode: ModeName) {
        library.withMode(mode) { name in
            switch item {
            case .source(let source): fn.CFRunLoopAddSource(loop, object(source), name)
            case .timer(let timer): fn.CFRunLoopAddTimer(loop, object(timer), name)
            case .observer(let observer): fn.CFRunLoopAddObserver(loop, object(observer), name)
            }
        }
    }

    func remove(_ item: EngineItem, mode: ModeName) {
        library.withMode(mode) { name in
            switch item {
            case .source(let source): fn.CFRunLoopRemoveSource(loop, object(source), name)
            case .timer(let timer): fn.CFRunLoopRemoveTimer(loop, object(timer), name)
            case .observer(let observer): fn.CFRunLoopRemoveObserver(loop, object(observer), name)
            }
        }
    }

    func contains(_ item: EngineItem, mode: ModeName) -> Bool {
        library.withMode(mode) { name in
            switch item {
            case .source(let source): return fn.CFRunLoopContainsSource(loop, object(source), name) != 0
            case .timer(let timer): return fn.CFRunLoopContainsTimer(loop, object(timer), name) != 0
            case .observer(let observer): return fn.CFRunLoopContainsObserver(loop, object(observer), name) != 0
            }
        }
    }

    func addCommonMode(_ name: String) {
        library.withMode(.named(name)) { fn.CFRunLoopAddCommonMode(loop, $0) }
    }

    /// Only called when the engine has the blocks feature (CFRunLoopPerformBlock, CFArrayCreate and
    /// kCFTypeArrayCallBacks present).
    func performBlock(modes: BlockModes, _ block: @escaping @Sendable () -> Void) {
        guard fn.CFRunLoopPerformBlock != nil, let createArray = fn.CFArrayCreate else { return }
        let modeArgument: cfl_ref
        switch modes {
        case .one(let mode):
            let (string, owned) = library.modeString(mode)
            if !owned { _ = fn.CFRetain(string) }  // released below like a created one
            modeArgument = string
        case .list(let list):
            let strings = list.map(library.modeString)
            var values: [UnsafeRawPointer?] = strings.map(\.ref)
            let array = values.withUnsafeMutableBufferPointer {
                createArray(nil, $0.baseAddress, $0.count, fn.typeArrayCallBacks)
            }
            guard let array else { fatalError("\(library.path): CFArrayCreate returned NULL") }
            modeArgument = array
            for (string, owned) in strings where owned { fn.CFRelease(string) }
        }
        // A block of the suite's own making, flagged global, so the library's blocks runtime, whichever it is, neither
        // copies nor frees it (cfl_perform_block); the closure's box is released after its one call.
        let box = Unmanaged.passRetained(BlockBox(block)).toOpaque()
        cfl_perform_block(
            library.table, loop, modeArgument,
            { context in
                Unmanaged<BlockBox>.fromOpaque(context!).takeRetainedValue().body()
            }, box)
        fn.CFRelease(modeArgument)
    }

    func run(mode: ModeName, seconds: Double, returnAfterSourceHandled: Bool) -> RunResult {
        let code = library.withMode(mode) { fn.CFRunLoopRunInMode($0, seconds, returnAfterSourceHandled ? 1 : 0) }
        guard let result = RunResult(rawValue: Int(code)) else {
            fatalError("\(library.path): CFRunLoopRunInMode returned \(code), which is not a CFRunLoopRunResult")
        }
        return result
    }

    func runForever() { fn.CFRunLoopRun() }

    func stop() { fn.CFRunLoopStop(loop) }

    /// Only called when the engine has the stopMode feature.
    func stopMode(_ name: String) {
        library.withMode(.named(name)) { fn._CFRunLoopStopMode?(loop, $0) }
    }

    func wakeUp() { fn.CFRunLoopWakeUp(loop) }

    var isWaiting: Bool { fn.CFRunLoopIsWaiting(loop) != 0 }

    var currentMode: String? {
        guard let mode = fn.CFRunLoopCopyCurrentMode(loop) else { return nil }
        defer { fn.CFRelease(mode) }
        return library.string(mode)
    }

    var allModes: [String] {
        guard let array = fn.CFRunLoopCopyAllModes(loop) else { return [] }
        defer { fn.CFRelease(array) }
        return (0..<fn.CFArrayGetCount(array)).map { library.string(fn.CFArrayGetValueAtIndex(array, $0)) }
    }

    func nextTimerFireDate(mode: ModeName) -> Double {
        library.withMode(mode) { fn.CFRunLoopGetNextTimerFireDate(loop, $0) }
    }

    func isSameLoop(as other: any EngineLoop) -> Bool {
        guard let other = other as? CFLoop else { fatalError("\(library.path): a loop from another engine was given") }
        // CFEqual of two run loops is pointer identity (CF's run loop class has no equal callback).
        return other.loop == loop
    }

    private func object(_ item: AnyObject) -> cfl_ref {
        guard let wrapped = item as? CFObject, wrapped.library === library else {
            fatalError("an item of another engine was given to \(library.path)")
        }
        return wrapped.ref
    }
}

/// A block's closure, passed to the library as the context of the suite's own block (CFLoader's cfl_perform_block).
private final class BlockBox {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
