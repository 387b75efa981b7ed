// Engine `foundation`: the toolchain's run loop driven as Swift code drives it, through swift-corelibs-foundation's
// RunLoop and Timer, behind bench_engine.h. The table is Benchmarks/Shims/engine_foundation.c; these are its
// functions, exported with @_cdecl as NIOShim/NIOEngine.swift exports nio's. Opaque C pointers are Unmanaged Swift
// objects, retained once by their _add or _create function and released by _remove or _destroy. The conformance
// engine of the same name is Sources/FoundationEngine; this is its benchmark twin.
//
// - Through Foundation: the loop (RunLoop.current of the calling thread), `run` (Swift's idiom: `while !stopped &&
//   run(mode: .default, before: .distantFuture)`; RunLoop.run() cannot be ended), `poll_once`
//   (run(mode:before: .distantPast)), timers (Timer(fire:interval:repeats:block:), add(_:forMode: .default), fireDate
//   set from the callout, invalidate), and the resident hand-off (RunLoop.perform(inModes: [.default]) of one block per
//   item, Swift's way to run code on another thread's loop).
// - Through CF's C API of the same loop (CFLoader's table of the toolchain's CoreFoundation), where Foundation has no
//   call: sources (version 0, signalled and woken like `cf`'s), observers, the wake-up counter (an AfterWaiting
//   observer, as `cf` counts), CFRunLoopStop and CFRunLoopWakeUp (perform(inModes:) does not wake the loop).
// Everything is in the default mode of the calling thread's loop, as for `cf`.
import BenchShims
import CFLoader
import Foundation
import Synchronization

/// kCFRunLoopAfterWaiting and kCFRunLoopAllActivities (CFRunLoop.h).
private let afterWaiting: UInt = 1 << 6
private let allActivities: UInt = 0x0FFF_FFFF

/// The toolchain's CoreFoundation table, opened once (this process links libFoundation.so); written once by
/// cfl_open_toolchain and only read afterwards.
nonisolated(unsafe) private let toolchainCF: UnsafeMutablePointer<cfl_library>? = {
    var error: UnsafeMutablePointer<CChar>?
    let table = cfl_open_toolchain(&error)
    free(error)
    return table
}()

/// A C pointer carried into a block or a timer's closure; the harness's contexts and items, used on the loop thread.
struct CPointer: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer?
}

/// One loop. Immutable but for `stopRequested` and `wakeups` (atomics) and `wakeCounter` (written once by create,
/// before the loop is handed out); `runLoop` is used on the loop thread only, except `perform(inModes:block:)`,
/// which Foundation allows from any thread.
final class FoundationBenchLoop: @unchecked Sendable {
    let cf: UnsafeMutablePointer<cfl_library>
    nonisolated(unsafe) let runLoop: RunLoop
    let cfLoop: cfl_ref
    let defaultMode: cfl_ref
    let stopRequested = Atomic<Bool>(false)
    let wakeups = Atomic<UInt64>(0)
    var wakeCounter: cfl_ref?
    /// The loop's thread, the one that called create: the items' mutable fields are confined to it.
    let thread = pthread_self()

    /// Checks that the caller is the loop's thread (bench_engine.h: items are added, re-dated and removed there).
    func assertOnLoopThread() { assert(pthread_equal(pthread_self(), thread) != 0, "foundation: off the loop thread") }

    /// On the loop's thread: RunLoop.current there and CFRunLoopGetCurrent() are the same loop.
    init(cf: UnsafeMutablePointer<cfl_library>) {
        self.cf = cf
        runLoop = RunLoop.current
        cfLoop = cf.pointee.CFRetain(cf.pointee.CFRunLoopGetCurrent()!)!
        defaultMode = cf.pointee.CFStringCreateWithCString(nil, "kCFRunLoopDefaultMode", CFL_UTF8)!
    }

    deinit {
        cf.pointee.CFRelease(defaultMode)
        cf.pointee.CFRelease(cfLoop)
    }

    var fn: cfl_library { cf.pointee }
}

/// A source or observer (a CF object), or a Foundation timer, with the harness's callout. Its `var`s are confined to
/// the loop's thread (FoundationBenchLoop.assertOnLoopThread).
final class FoundationBenchItem {
    let callout: bench_callout
    let context: UnsafeMutableRawPointer?
    var object: cfl_ref?
    var timer: Timer?
    /// Timers: the date Foundation's repeat gives next (old date + interval), as engine_cf.c keeps it.
    var naturalNext: UInt64 = 0
    var interval: UInt64 = 0

    init(callout: @escaping bench_callout, context: UnsafeMutableRawPointer?) {
        self.callout = callout
        self.context = context
    }
}

/// A channel: one block per posted item, queued by RunLoop.perform(inModes:) and woken with CFRunLoopWakeUp.
final class FoundationBenchChannel {
    let callout: bench_item_callout
    let context: UnsafeMutableRawPointer?
    init(callout: @escaping bench_item_callout, context: UnsafeMutableRawPointer?) {
        self.callout = callout
        self.context = context
    }
}

private func loopOf(_ pointer: OpaquePointer?) -> FoundationBenchLoop {
    Unmanaged<FoundationBenchLoop>.fromOpaque(UnsafeRawPointer(pointer!)).takeUnretainedValue()
}

private func itemOf(_ pointer: OpaquePointer?) -> FoundationBenchItem {
    Unmanaged<FoundationBenchItem>.fromOpaque(UnsafeRawPointer(pointer!)).takeUnretainedValue()
}

private func retained(_ object: AnyObject) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(object).toOpaque())
}

/// A CLOCK_MONOTONIC date as a Date, the conversion engine_cf.c makes (1 us late rather than early).
private func date(_ dueNS: UInt64) -> Date {
    let nowNS = bench_now_ns()
    let now = Date().timeIntervalSinceReferenceDate
    return Date(timeIntervalSinceReferenceDate: now + Double(Int64(bitPattern: dueNS &- nowNS)) / 1e9 + 1e-6)
}

@_cdecl("foundation_shim_available")
public func foundationShimAvailable() -> Int32 { toolchainCF == nil ? 0 : 1 }

@_cdecl("foundation_shim_create")
public func foundationShimCreate(_ flags: UInt32) -> OpaquePointer? {
    guard let cf = toolchainCF else { return nil }
    let loop = FoundationBenchLoop(cf: cf)
    if flags & UInt32(BENCH_COUNT_WAKEUPS) != 0 {
        var context = cfl_context(
            version: 0, info: Unmanaged.passUnretained(loop).toOpaque(), retain: nil, release: nil,
            copyDescription: nil)
        let observer = loop.fn.CFRunLoopObserverCreate(
            nil, afterWaiting, 1, 0,
            { _, _, info in
                Unmanaged<FoundationBenchLoop>.fromOpaque(info!).takeUnretainedValue().wakeups.add(
                    1, ordering: .relaxed)
            }, &context)
        loop.fn.CFRunLoopAddObserver(loop.cfLoop, observer, loop.defaultMode)
        loop.wakeCounter = observer
    }
    return retained(loop)
}

@_cdecl("foundation_shim_destroy")
public func foundationShimDestroy(_ pointer: OpaquePointer?) {
    let loop = loopOf(pointer)
    if let counter = loop.wakeCounter {
        loop.fn.CFRunLoopObserverInvalidate(counter)
        loop.fn.CFRelease(counter)
    }
    Unmanaged<FoundationBenchLoop>.fromOpaque(UnsafeRawPointer(pointer!)).release()
}

/// Swift's idiom for a loop that can be ended: run(mode:before:) while no stop was asked.
@_cdecl("foundation_shim_run")
public func foundationShimRun(_ pointer: OpaquePointer?) {
    let loop = loopOf(pointer)
    while !loop.stopRequested.load(ordering: .acquiring) {
        _ = loop.runLoop.run(mode: .default, before: .distantFuture)
    }
    loop.stopRequested.store(false, ordering: .relaxed)
}

@_cdecl("foundation_shim_stop")
public func foundationShimStop(_ pointer: OpaquePointer?) {
    let loop = loopOf(pointer)
    loop.stopRequested.store(true, ordering: .releasing)
    loop.fn.CFRunLoopStop(loop.cfLoop)
}

/// One pass that does not wait: run(mode:before:) with a date already past.
@_cdecl("foundation_shim_poll_once")
public func foundationShimPollOnce(_ pointer: OpaquePointer?) {
    _ = loopOf(pointer).runLoop.run(mode: .default, before: .distantPast)
}

@_cdecl("foundation_shim_source_add")
public func foundationShimSourceAdd(
    _ pointer: OpaquePointer?, _ callout: @escaping bench_callout, _ context: UnsafeMutableRawPointer?
) -> OpaquePointer? {
    let loop = loopOf(pointer)
    var sourceContext = cfl_source_context0()
    sourceContext.info = context
    sourceContext.perform = callout
    let item = FoundationBenchItem(callout: callout, context: context)
    item.object = loop.fn.CFRunLoopSourceCreate(nil, 0, &sourceContext)
    loop.fn.CFRunLoopAddSource(loop.cfLoop, item.object, loop.defaultMode)
    return retained(item)
}

@_cdecl("foundation_shim_source_signal")
public func foundationShimSourceSignal(_ pointer: OpaquePointer?, _ source: OpaquePointer?) {
    let loop = loopOf(pointer)
    loop.fn.CFRunLoopSourceSignal(itemOf(source).object)
    loop.fn.CFRunLoopWakeUp(loop.cfLoop)
}

@_cdecl("foundation_shim_source_remove")
public func foundationShimSourceRemove(_ pointer: OpaquePointer?, _ source: OpaquePointer?) {
    let loop = loopOf(pointer)
    let item = itemOf(source)
    loop.fn.CFRunLoopRemoveSource(loop.cfLoop, item.object, loop.defaultMode)
    loop.fn.CFRelease(item.object)
    Unmanaged<FoundationBenchItem>.fromOpaque(UnsafeRawPointer(source!)).release()
}

/// A Foundation Timer that calls `item`'s callout, not yet added to a loop. Out of line, so that every allocation
/// Foundation makes for the timer has this function on its stack, whatever the compiler inlines: Foundation leaks every
/// Timer with its block, and scripts/lsan-foundation.supp suppresses that leak by this function's name and Timer's,
/// not the rest of foundation_shim_timer_add (its item must not leak).
@inline(never)
private func makeShimTimer(dueNS: UInt64, intervalNS: UInt64, firing item: FoundationBenchItem) -> Timer {
    let carried = CPointer(raw: Unmanaged.passUnretained(item).toOpaque())
    return Timer(
        fire: date(dueNS), interval: Double(intervalNS) / 1e9, repeats: intervalNS > 0,
        block: { _ in
            // The item outlives its timer: timer_remove invalidates the timer before it releases the item.
            let item = Unmanaged<FoundationBenchItem>.fromOpaque(carried.raw!).takeUnretainedValue()
            item.naturalNext &+= item.interval
            item.callout(item.context)
        })
}

@_cdecl("foundation_shim_timer_add")
public func foundationShimTimerAdd(
    _ pointer: OpaquePointer?, _ dueNS: UInt64, _ intervalNS: UInt64, _ toleranceNS: UInt64,
    _ callout: @escaping bench_callout, _ context: UnsafeMutableRawPointer?
) -> OpaquePointer? {
    let loop = loopOf(pointer)
    let item = FoundationBenchItem(callout: callout, context: context)
    item.naturalNext = dueNS
    item.interval = intervalNS
    let timer = makeShimTimer(dueNS: dueNS, intervalNS: intervalNS, firing: item)
    timer.tolerance = Double(toleranceNS) / 1e9
    loop.runLoop.add(timer, forMode: .default)
    item.timer = timer
    return retained(item)
}

@_cdecl("foundation_shim_timer_set_next")
public func foundationShimTimerSetNext(_ pointer: OpaquePointer?, _ timer: OpaquePointer?, _ dueNS: UInt64) {
    loopOf(pointer).assertOnLoopThread()
    let item = itemOf(timer)
    if item.interval != 0 && dueNS == item.naturalNext && dueNS > bench_now_ns() { return }
    item.timer?.fireDate = date(dueNS)
    item.naturalNext = dueNS
}

/// Foundation has no call that removes a timer from a mode; invalidate removes it from every mode.
@_cdecl("foundation_shim_timer_remove")
public func foundationShimTimerRemove(_ pointer: OpaquePointer?, _ timer: OpaquePointer?) {
    loopOf(pointer).assertOnLoopThread()
    let item = itemOf(timer)
    item.timer?.invalidate()
    item.timer = nil
    Unmanaged<FoundationBenchItem>.fromOpaque(UnsafeRawPointer(timer!)).release()
}

private func addObserver(_ loop: FoundationBenchLoop, _ item: FoundationBenchItem, reportsActivity: Bool) {
    var context = cfl_context(
        version: 0, info: Unmanaged.passUnretained(item).toOpaque(), retain: nil, release: nil, copyDescription: nil)
    let callout: cfl_observer_callout =
        reportsActivity
        ? { _, activity, info in
            let item = Unmanaged<FoundationBenchItem>.fromOpaque(info!).takeUnretainedValue()
            unsafeBitCast(item.callout, to: bench_activity_callout.self)(item.context, UInt32(activity))
        }
        : { _, _, info in
            let item = Unmanaged<FoundationBenchItem>.fromOpaque(info!).takeUnretainedValue()
            item.callout(item.context)
        }
    item.object = loop.fn.CFRunLoopObserverCreate(nil, allActivities, 1, 0, callout, &context)
    loop.fn.CFRunLoopAddObserver(loop.cfLoop, item.object, loop.defaultMode)
}

@_cdecl("foundation_shim_observer_add")
public func foundationShimObserverAdd(
    _ pointer: OpaquePointer?, _ callout: @escaping bench_callout, _ context: UnsafeMutableRawPointer?
) -> OpaquePointer? {
    let item = FoundationBenchItem(callout: callout, context: context)
    addObserver(loopOf(pointer), item, reportsActivity: false)
    return retained(item)
}

/// The activity callout is kept in the item's `callout` field and converted back before the call (engine_cf.c does
/// the same).
@_cdecl("foundation_shim_activity_observer_add")
public func foundationShimActivityObserverAdd(
    _ pointer: OpaquePointer?, _ callout: @escaping bench_activity_callout, _ context: UnsafeMutableRawPointer?
) -> OpaquePointer? {
    let item = FoundationBenchItem(callout: unsafeBitCast(callout, to: bench_callout.self), context: context)
    addObserver(loopOf(pointer), item, reportsActivity: true)
    return retained(item)
}

@_cdecl("foundation_shim_observer_remove")
public func foundationShimObserverRemove(_ pointer: OpaquePointer?, _ observer: OpaquePointer?) {
    let loop = loopOf(pointer)
    let item = itemOf(observer)
    loop.fn.CFRunLoopRemoveObserver(loop.cfLoop, item.object, loop.defaultMode)
    loop.fn.CFRelease(item.object)
    Unmanaged<FoundationBenchItem>.fromOpaque(UnsafeRawPointer(observer!)).release()
}

@_cdecl("foundation_shim_wakeups")
public func foundationShimWakeups(_ pointer: OpaquePointer?) -> UInt64 {
    loopOf(pointer).wakeups.load(ordering: .relaxed)
}

@_cdecl("foundation_shim_channel_add")
public func foundationShimChannelAdd(
    _ pointer: OpaquePointer?, _ callout: @escaping bench_item_callout, _ context: UnsafeMutableRawPointer?
) -> OpaquePointer? {
    retained(FoundationBenchChannel(callout: callout, context: context))
}

/// One block per item on the loop's default mode, then a wake-up (perform(inModes:) does not wake the loop).
@_cdecl("foundation_shim_channel_post")
public func foundationShimChannelPost(
    _ pointer: OpaquePointer?, _ channel: OpaquePointer?, _ item: UnsafeMutableRawPointer?
) {
    let loop = loopOf(pointer)
    let carried = CPointer(raw: UnsafeMutableRawPointer(channel))
    let posted = CPointer(raw: item)
    loop.runLoop.perform(inModes: [.default]) {
        let channel = Unmanaged<FoundationBenchChannel>.fromOpaque(carried.raw!).takeUnretainedValue()
        channel.callout(channel.context, posted.raw)
    }
    loop.fn.CFRunLoopWakeUp(loop.cfLoop)
}

/// After every posted item has run (bench_engine.h), so no queued block refers to the channel.
@_cdecl("foundation_shim_channel_remove")
public func foundationShimChannelRemove(_ pointer: OpaquePointer?, _ channel: OpaquePointer?) {
    Unmanaged<FoundationBenchChannel>.fromOpaque(UnsafeRawPointer(channel!)).release()
}
