// The C ABI declared in Sources/RefRunLoopABI/include/RefRunLoopABI.h: thin `@_cdecl` wrappers, one Swift call each.
// Opaque C pointers are Unmanaged Swift objects: loops borrowed, items retained once by their _create function.
// Each function takes the optional types the header imports as, so checkAgainstHeader() below can hold them to it.

import Glibc
import RefRunLoopABI

/// A pointer the header says must not be NULL.
@inline(__always)
private func nonNull<P>(_ pointer: P?, _ what: StaticString = "a loop, source, timer or observer") -> P {
    guard let pointer else { preconditionFailure("RefRunLoopABI: NULL passed for \(what)") }
    return pointer
}

@inline(__always)
private func object<T: AnyObject>(_ pointer: OpaquePointer?) -> T {
    Unmanaged<T>.fromOpaque(UnsafeRawPointer(nonNull(pointer))).takeUnretainedValue()
}

/// Calls `body` with the object behind `pointer` borrowed: no retain and release around the call (the C caller
/// holds the object for the duration). For the calls made once per wake-up or timer fire.
@inline(__always)
private func borrowing<T: AnyObject, R>(_ pointer: OpaquePointer?, as type: T.Type, _ body: (T) -> R) -> R {
    Unmanaged<T>.fromOpaque(UnsafeRawPointer(nonNull(pointer)))._withUnsafeGuaranteedRef(body)
}

/// Calls `body` with a loop and an item borrowed, as ``borrowing(_:as:_:)`` does: the add and remove functions,
/// which a churning caller makes once per item.
@inline(__always)
private func changing<T: AnyObject>(
    _ loop: OpaquePointer?, _ item: OpaquePointer?, as type: T.Type,
    _ body: (RefRunLoop, T) -> Void
) {
    borrowing(loop, as: RefRunLoop.self) { loop in borrowing(item, as: type) { body(loop, $0) } }
}

@inline(__always)
private func retained(_ object: AnyObject) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(object).toOpaque())
}

@inline(__always)
private func release<T: AnyObject>(_ pointer: OpaquePointer?, as type: T.Type) {
    Unmanaged<T>.fromOpaque(UnsafeRawPointer(nonNull(pointer))).release()
}

/// A C mode argument: NULL is kCFRunLoopCommonModes. The default mode's name maps to the shared constant, so the
/// usual call allocates no string (its 21 bytes do not fit Swift's inline small-string storage).
private func mode(_ name: UnsafePointer<CChar>?) -> RefRunLoopMode {
    guard let name else { return .common }
    if isDefaultModeName(name) { return .default }
    return .named(String(cString: name))
}

/// Whether a C string is "kCFRunLoopDefaultMode": REF_RUNLOOP_DEFAULT_MODE itself by its address, any other pointer
/// by libc's strcmp (vectorised, unlike a byte loop).
@inline(__always)
private func isDefaultModeName(_ name: UnsafePointer<CChar>) -> Bool {
    name == ref_runloop_default_mode || strcmp(name, ref_runloop_default_mode) == 0
}

/// Calls `defaultMode` when the C mode argument is the default mode (the usual call: no mode value is made), and
/// `other` with the mode otherwise. Going through `mode(_:)` and the public add and remove, which recognise the
/// default mode too, would make a mode value and look the default mode up again for every item added and removed.
@inline(__always)
private func withMode(_ name: UnsafePointer<CChar>?, defaultMode: () -> Void, other: (RefRunLoopMode) -> Void) {
    if let name, isDefaultModeName(name) { defaultMode() } else { other(mode(name)) }
}

// MARK: Loops

@_cdecl("ref_runloop_current")
public func refRunLoopCurrent() -> OpaquePointer {
    OpaquePointer(Unmanaged.passUnretained(RefRunLoop.current).toOpaque())
}

@_cdecl("ref_runloop_main")
public func refRunLoopMain() -> OpaquePointer {
    OpaquePointer(Unmanaged.passUnretained(RefRunLoop.main).toOpaque())
}

@_cdecl("ref_runloop_now")
public func refRunLoopNow() -> Double { RefClock.now }

@_cdecl("ref_runloop_run")
public func refRunLoopRun(
    _ loop: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ seconds: Double,
    _ returnAfterSourceHandled: Int32
) -> Int32 {
    let loop: RefRunLoop = object(loop)
    return loop.run(mode: mode(name), seconds: seconds, returnAfterSourceHandled: returnAfterSourceHandled != 0)
        .rawValue
}

@_cdecl("ref_runloop_stop")
public func refRunLoopStop(_ loop: OpaquePointer?) { (object(loop) as RefRunLoop).stop() }

@_cdecl("ref_runloop_stop_mode")
public func refRunLoopStopMode(_ loop: OpaquePointer?, _ name: UnsafePointer<CChar>?) {
    (object(loop) as RefRunLoop).stop(mode: String(cString: nonNull(name, "a mode name")))
}

@_cdecl("ref_runloop_wake_up")
public func refRunLoopWakeUp(_ loop: OpaquePointer?) { borrowing(loop, as: RefRunLoop.self) { $0.wakeUp() } }

@_cdecl("ref_runloop_is_waiting")
public func refRunLoopIsWaiting(_ loop: OpaquePointer?) -> Int32 { (object(loop) as RefRunLoop).isWaiting ? 1 : 0 }

@_cdecl("ref_runloop_add_common_mode")
public func refRunLoopAddCommonMode(_ loop: OpaquePointer?, _ name: UnsafePointer<CChar>?) {
    (object(loop) as RefRunLoop).addCommonMode(String(cString: nonNull(name, "a mode name")))
}

@_cdecl("ref_runloop_perform")
public func refRunLoopPerform(
    _ loop: OpaquePointer?, _ name: UnsafePointer<CChar>?,
    _ callout: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
    _ info: UnsafeMutableRawPointer?
) {
    let call = CCallout(function: nonNull(callout, "a callout"), info: info)
    (object(loop) as RefRunLoop).perform(modes: .one(mode(name))) { call() }
}

@_cdecl("ref_runloop_wakeup_count")
public func refRunLoopWakeUpCount(_ loop: OpaquePointer?) -> UInt64 { (object(loop) as RefRunLoop).wakeUpCount }

@_cdecl("ref_runloop_pass_count")
public func refRunLoopPassCount(_ loop: OpaquePointer?) -> UInt64 { (object(loop) as RefRunLoop).passCount }

@_cdecl("ref_runloop_set_wait_policy")
public func refRunLoopSetWaitPolicy(_ loop: OpaquePointer?, _ maxSpinNanoseconds: UInt64) {
    (object(loop) as RefRunLoop).waitPolicy = RefRunLoop.WaitPolicy(maxSpinNanoseconds: maxSpinNanoseconds)
}

@_cdecl("ref_runloop_wait_policy")
public func refRunLoopWaitPolicy(_ loop: OpaquePointer?) -> UInt64 {
    (object(loop) as RefRunLoop).waitPolicy.maxSpinNanoseconds
}

@_cdecl("ref_runloop_default_max_spin_ns")
public func refRunLoopDefaultMaxSpinNanoseconds() -> UInt64 {
    RefRunLoop.WaitPolicy.spinThenPark(maxSpin: RefRunLoop.WaitPolicy.defaultMaxSpin).maxSpinNanoseconds
}

@_cdecl("ref_runloop_spin_caught_count")
public func refRunLoopSpinCaughtCount(_ loop: OpaquePointer?) -> UInt64 {
    (object(loop) as RefRunLoop).spinCaughtWakeUpCount
}

@_cdecl("ref_runloop_set_hand_off_hold_ns")
public func refRunLoopSetHandOffHold(_ loop: OpaquePointer?, _ holdNanoseconds: UInt64) {
    (object(loop) as RefRunLoop).handOffHold = .nanoseconds(Int64(clamping: holdNanoseconds))
}

@_cdecl("ref_runloop_hand_off_hold_ns")
public func refRunLoopHandOffHold(_ loop: OpaquePointer?) -> UInt64 {
    RefRunLoop.WaitPolicy.nanoseconds((object(loop) as RefRunLoop).handOffHold)
}

@_cdecl("ref_runloop_default_hand_off_hold_ns")
public func refRunLoopDefaultHandOffHold() -> UInt64 {
    RefRunLoop.WaitPolicy.nanoseconds(RefRunLoop.WaitPolicy.handOffHold)
}

// MARK: Sources

@_cdecl("ref_runloop_source0_create")
public func refRunLoopSource0Create(
    _ order: Int, _ perform: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
    _ info: UnsafeMutableRawPointer?
) -> OpaquePointer {
    let call = CCallout(function: nonNull(perform, "a perform callout"), info: info)
    return retained(RefRunLoopSource(order: order, kind: .version0(nil), perform: .c(call), creatorHolds: true))
}

@_cdecl("ref_runloop_source1_create")
public func refRunLoopSource1Create(
    _ order: Int, _ fd: Int32,
    _ perform: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
    _ info: UnsafeMutableRawPointer?
) -> OpaquePointer {
    let call = CCallout(function: nonNull(perform, "a perform callout"), info: info)
    return retained(
        RefRunLoopSource(order: order, kind: .version1(fileDescriptor: fd), perform: .c(call), creatorHolds: true))
}

@_cdecl("ref_runloop_source_signal")
public func refRunLoopSourceSignal(_ source: OpaquePointer?) {
    borrowing(source, as: RefRunLoopSource.self) { $0.signal() }
}

@_cdecl("ref_runloop_source_invalidate")
public func refRunLoopSourceInvalidate(_ source: OpaquePointer?) {
    // Held for the call: after its creator's release the source may live by the modes' reference alone, which leaving
    // them lets go.
    let source = Unmanaged<RefRunLoopSource>.fromOpaque(UnsafeRawPointer(nonNull(source))).retain()
    defer { source.release() }
    source._withUnsafeGuaranteedRef { $0.invalidate() }
}

/// The creator's reference goes to the modes holding the source, when any does (CreatorHold.swift).
@_cdecl("ref_runloop_source_release")
public func refRunLoopSourceRelease(_ source: OpaquePointer?) {
    RefRunLoopSource.releaseCreatorsReference(Unmanaged.fromOpaque(UnsafeRawPointer(nonNull(source))))
}

// A source's add and remove, the calls a churning caller makes per source: the C function compares the mode argument
// with the default mode's pointer and, for it, tail-calls a free function holding the loop's method with the loop and
// the source borrowed (no reference counting; the borrowing functions are inlined, and the release build shows no
// retain or release around the call), or for any other mode argument one out-of-line function. They do not go through
// ``changing(_:_:as:_:)``: the optimizer outlines and merges its nested closures (a thunk, an indirect call and a
// six-register frame per call), and once those are inlined into a C function the borrow is lost and both references
// are retained and released (journal/2026-12-06-source-churn-third-step.md,
// journal/2026-12-07-source-churn-fourth-step.md).

@_cdecl("ref_runloop_add_source")
public func refRunLoopAddSource(_ loop: OpaquePointer?, _ source: OpaquePointer?, _ name: UnsafePointer<CChar>?) {
    let loop = Unmanaged<RefRunLoop>.fromOpaque(UnsafeRawPointer(nonNull(loop)))
    let source = Unmanaged<RefRunLoopSource>.fromOpaque(UnsafeRawPointer(nonNull(source)))
    if isDefaultModePointer(name) {
        addToDefaultMode(loop, source)
    } else {
        addSource(loop, source, name)
    }
}

@_cdecl("ref_runloop_remove_source")
public func refRunLoopRemoveSource(_ loop: OpaquePointer?, _ source: OpaquePointer?, _ name: UnsafePointer<CChar>?) {
    // The source checked before the loop, the add's order reversed, so the two bodies differ: identical ones are
    // folded by LLVM's function merging into one function that each reaches through a thunk passing its two targets
    // as pointers, called indirectly (about 8 instructions per call more than the direct form).
    let source = Unmanaged<RefRunLoopSource>.fromOpaque(UnsafeRawPointer(nonNull(source)))
    let loop = Unmanaged<RefRunLoop>.fromOpaque(UnsafeRawPointer(nonNull(loop)))
    if isDefaultModePointer(name) && source._withUnsafeGuaranteedRef({ $0.creatorStillHolds }) {
        removeFromDefaultMode(loop, source)
    } else {
        removeSource(loop, source, name)
    }
}

/// Whether `name` is the default mode's own pointer: compared as addresses, so that NULL (the common modes) needs no
/// test of its own (the constant is never NULL, so NULL never equals it), and the optional constant no nil test.
@inline(__always)
private func isDefaultModePointer(_ name: UnsafePointer<CChar>?) -> Bool {
    UInt(bitPattern: name) == UInt(bitPattern: ref_runloop_default_mode)
}

/// ``RefRunLoop/addToDefaultMode(_:)`` with both borrowed (the C caller holds them for the call). Inlined into the C
/// function, with the borrow kept.
@inline(__always)
private func addToDefaultMode(_ loop: Unmanaged<RefRunLoop>, _ source: Unmanaged<RefRunLoopSource>) {
    loop._withUnsafeGuaranteedRef { loop in source._withUnsafeGuaranteedRef { addToDefaultMode(loop, $0) } }
}

/// ``RefRunLoop/removeFromDefaultMode(_:)`` with both borrowed.
@inline(__always)
private func removeFromDefaultMode(_ loop: Unmanaged<RefRunLoop>, _ source: Unmanaged<RefRunLoopSource>) {
    loop._withUnsafeGuaranteedRef { loop in source._withUnsafeGuaranteedRef { removeFromDefaultMode(loop, $0) } }
}

/// ``RefRunLoop/addToDefaultMode(_:)`` as a free function, with the method inlined: the C function reaches it with a
/// tail call (a method takes the loop in a callee-saved register, which the C function would have to save around the
/// call).
@inline(never)
private func addToDefaultMode(_ loop: RefRunLoop, _ source: RefRunLoopSource) { loop.addToDefaultMode(source) }

/// ``RefRunLoop/removeFromDefaultMode(_:)`` as a free function (see the add's).
@inline(never)
private func removeFromDefaultMode(_ loop: RefRunLoop, _ source: RefRunLoopSource) {
    loop.removeFromDefaultMode(source)
}

/// A source added to the mode of any other C mode argument (another pointer to the default mode's name included).
@inline(never)
private func addSource(
    _ loop: Unmanaged<RefRunLoop>, _ source: Unmanaged<RefRunLoopSource>, _ name: UnsafePointer<CChar>?
) {
    changing(OpaquePointer(loop.toOpaque()), OpaquePointer(source.toOpaque()), as: RefRunLoopSource.self) {
        loop, source in
        withMode(name, defaultMode: { loop.addToDefaultMode(source) }, other: { loop.add(source, mode: $0) })
    }
}

/// A source removed from the mode of any other C mode argument, or by a caller that gave back its reference (the
/// source then lives by the modes' reference, which its last removal lets go: it is held for the call).
@inline(never)
private func removeSource(
    _ loop: Unmanaged<RefRunLoop>, _ source: Unmanaged<RefRunLoopSource>, _ name: UnsafePointer<CChar>?
) {
    RefRunLoopSource.holdingIfGivenBack(source) {
        changing(OpaquePointer(loop.toOpaque()), OpaquePointer(source.toOpaque()), as: RefRunLoopSource.self) {
            loop, source in
            withMode(
                name, defaultMode: { loop.removeFromDefaultMode(source) }, other: { loop.remove(source, mode: $0) })
        }
    }
}

// MARK: Timers

@_cdecl("ref_runloop_timer_create")
public func refRunLoopTimerCreate(
    _ fireDate: Double, _ interval: Double, _ order: Int,
    _ callout: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
    _ info: UnsafeMutableRawPointer?
) -> OpaquePointer {
    let call = CCallout(function: nonNull(callout, "a callout"), info: info)
    return retained(RefRunLoopTimer(fireDate: fireDate, interval: interval, order: order, callout: .c(call)))
}

@_cdecl("ref_runloop_timer_set_tolerance")
public func refRunLoopTimerSetTolerance(_ timer: OpaquePointer?, _ tolerance: Double) {
    (object(timer) as RefRunLoopTimer).tolerance = tolerance
}

@_cdecl("ref_runloop_timer_set_next_fire_date")
public func refRunLoopTimerSetNextFireDate(_ timer: OpaquePointer?, _ date: Double) {
    borrowing(timer, as: RefRunLoopTimer.self) { $0.nextFireDate = date }
}

@_cdecl("ref_runloop_timer_next_fire_date")
public func refRunLoopTimerNextFireDate(_ timer: OpaquePointer?) -> Double {
    (object(timer) as RefRunLoopTimer).nextFireDate
}

@_cdecl("ref_runloop_timer_invalidate")
public func refRunLoopTimerInvalidate(_ timer: OpaquePointer?) { (object(timer) as RefRunLoopTimer).invalidate() }

@_cdecl("ref_runloop_timer_release")
public func refRunLoopTimerRelease(_ timer: OpaquePointer?) { release(timer, as: RefRunLoopTimer.self) }

// A timer's add and remove, direct as a source's are (see above), with the checks in other orders: the C functions
// of the three kinds' add (and of their remove) would otherwise have bodies that differ only in the functions they
// call, which LLVM's function merging folds into one function reached through a thunk and called indirectly. The
// timer's compare the mode argument first and check the loop and the timer on the default mode's path only; on the
// other path ``changing(_:_:as:_:)`` checks them.

@_cdecl("ref_runloop_add_timer")
public func refRunLoopAddTimer(_ loop: OpaquePointer?, _ timer: OpaquePointer?, _ name: UnsafePointer<CChar>?) {
    if isDefaultModePointer(name) {
        let loop = Unmanaged<RefRunLoop>.fromOpaque(UnsafeRawPointer(nonNull(loop)))
        let timer = Unmanaged<RefRunLoopTimer>.fromOpaque(UnsafeRawPointer(nonNull(timer)))
        loop._withUnsafeGuaranteedRef { loop in timer._withUnsafeGuaranteedRef { addToDefaultMode(loop, $0) } }
    } else {
        addTimer(loop, timer, name)
    }
}

@_cdecl("ref_runloop_remove_timer")
public func refRunLoopRemoveTimer(_ loop: OpaquePointer?, _ timer: OpaquePointer?, _ name: UnsafePointer<CChar>?) {
    if isDefaultModePointer(name) {
        let timer = Unmanaged<RefRunLoopTimer>.fromOpaque(UnsafeRawPointer(nonNull(timer)))
        let loop = Unmanaged<RefRunLoop>.fromOpaque(UnsafeRawPointer(nonNull(loop)))
        loop._withUnsafeGuaranteedRef { loop in timer._withUnsafeGuaranteedRef { removeFromDefaultMode(loop, $0) } }
    } else {
        removeTimer(loop, timer, name)
    }
}

/// ``RefRunLoop/addToDefaultMode(_:)`` as a free function, with the method inlined: the C function reaches it with a
/// tail call (a method takes the loop in a callee-saved register, which the C function would have to save around the
/// call).
@inline(never)
private func addToDefaultMode(_ loop: RefRunLoop, _ timer: RefRunLoopTimer) { loop.addToDefaultMode(timer) }

/// ``RefRunLoop/removeFromDefaultMode(_:)`` as a free function (see the add's).
@inline(never)
private func removeFromDefaultMode(_ loop: RefRunLoop, _ timer: RefRunLoopTimer) { loop.removeFromDefaultMode(timer) }

/// A timer added to the mode of any other C mode argument (another pointer to the default mode's name included).
@inline(never)
private func addTimer(_ loop: OpaquePointer?, _ timer: OpaquePointer?, _ name: UnsafePointer<CChar>?) {
    changing(loop, timer, as: RefRunLoopTimer.self) { loop, timer in
        withMode(name, defaultMode: { loop.addToDefaultMode(timer) }, other: { loop.add(timer, mode: $0) })
    }
}

/// A timer removed from the mode of any other C mode argument.
@inline(never)
private func removeTimer(_ loop: OpaquePointer?, _ timer: OpaquePointer?, _ name: UnsafePointer<CChar>?) {
    changing(loop, timer, as: RefRunLoopTimer.self) { loop, timer in
        withMode(name, defaultMode: { loop.removeFromDefaultMode(timer) }, other: { loop.remove(timer, mode: $0) })
    }
}

// MARK: Observers

@_cdecl("ref_runloop_observer_create")
public func refRunLoopObserverCreate(
    _ activities: UInt32, _ repeats: Int32, _ order: Int,
    _ callout: (@convention(c) (UInt32, UnsafeMutableRawPointer?) -> Void)?,
    _ info: UnsafeMutableRawPointer?
) -> OpaquePointer {
    let call = CObserverCallout(function: nonNull(callout, "a callout"), info: info)
    return createdObserver(activities, repeats, order, .c(call))
}

@_cdecl("ref_runloop_observer_create_without_activity")
public func refRunLoopObserverCreateWithoutActivity(
    _ activities: UInt32, _ repeats: Int32, _ order: Int,
    _ callout: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
    _ info: UnsafeMutableRawPointer?
) -> OpaquePointer {
    let call = CCallout(function: nonNull(callout, "a callout"), info: info)
    return createdObserver(activities, repeats, order, .cWithoutActivity(call))
}

/// A new observer with the C constructors' arguments, retained for the caller.
private func createdObserver(_ activities: UInt32, _ repeats: Int32, _ order: Int, _ callout: ObserverCallout)
    -> OpaquePointer
{
    retained(
        RefRunLoopObserver(
            activities: RefRunLoopActivity(rawValue: UInt(activities)), repeats: repeats != 0, order: order,
            callout: callout, creatorHolds: true))
}

@_cdecl("ref_runloop_observer_invalidate")
public func refRunLoopObserverInvalidate(_ observer: OpaquePointer?) {
    // Held for the call, as a source's invalidation is.
    let observer = Unmanaged<RefRunLoopObserver>.fromOpaque(UnsafeRawPointer(nonNull(observer))).retain()
    defer { observer.release() }
    observer._withUnsafeGuaranteedRef { $0.invalidate() }
}

/// The creator's reference goes to the modes holding the observer, when any does (CreatorHold.swift).
@_cdecl("ref_runloop_observer_release")
public func refRunLoopObserverRelease(_ observer: OpaquePointer?) {
    RefRunLoopObserver.releaseCreatorsReference(Unmanaged.fromOpaque(UnsafeRawPointer(nonNull(observer))))
}

// An observer's add and remove, direct as a source's and a timer's are, in a third order (see the timer's): the loop
// (the add) or the observer (the remove) is checked first, the mode argument compared, and the other checked on the
// default mode's path only.

@_cdecl("ref_runloop_add_observer")
public func refRunLoopAddObserver(_ loop: OpaquePointer?, _ observer: OpaquePointer?, _ name: UnsafePointer<CChar>?) {
    let checkedLoop = nonNull(loop)
    if isDefaultModePointer(name) {
        let loop = Unmanaged<RefRunLoop>.fromOpaque(UnsafeRawPointer(checkedLoop))
        let observer = Unmanaged<RefRunLoopObserver>.fromOpaque(UnsafeRawPointer(nonNull(observer)))
        loop._withUnsafeGuaranteedRef { loop in observer._withUnsafeGuaranteedRef { addToDefaultMode(loop, $0) } }
    } else {
        addObserver(checkedLoop, observer, name)
    }
}

@_cdecl("ref_runloop_remove_observer")
public func refRunLoopRemoveObserver(_ loop: OpaquePointer?, _ observer: OpaquePointer?, _ name: UnsafePointer<CChar>?)
{
    let checkedObserver = nonNull(observer)
    let observer = Unmanaged<RefRunLoopObserver>.fromOpaque(UnsafeRawPointer(checkedObserver))
    if isDefaultModePointer(name) && observer._withUnsafeGuaranteedRef({ $0.creatorStillHolds }) {
        let loop = Unmanaged<RefRunLoop>.fromOpaque(UnsafeRawPointer(nonNull(loop)))
        loop._withUnsafeGuaranteedRef { loop in
            observer._withUnsafeGuaranteedRef { removeFromDefaultMode($0, loop) }
        }
    } else {
        removeObserver(loop, checkedObserver, name)
    }
}

/// ``RefRunLoop/addToDefaultMode(_:)`` as a free function (see the timer's).
@inline(never)
private func addToDefaultMode(_ loop: RefRunLoop, _ observer: RefRunLoopObserver) { loop.addToDefaultMode(observer) }

/// ``RefRunLoop/removeFromDefaultMode(_:)`` as a free function (see the timer's), its arguments in the other order:
/// with the add's order its body differs from the add's only in the function it calls (leaving the mode rather than
/// joining it), and LLVM's function merging folds the two into one that calls that function indirectly.
@inline(never)
private func removeFromDefaultMode(_ observer: RefRunLoopObserver, _ loop: RefRunLoop) {
    loop.removeFromDefaultMode(observer)
}

/// An observer added to the mode of any other C mode argument.
@inline(never)
private func addObserver(_ loop: OpaquePointer?, _ observer: OpaquePointer?, _ name: UnsafePointer<CChar>?) {
    changing(loop, observer, as: RefRunLoopObserver.self) { loop, observer in
        withMode(name, defaultMode: { loop.addToDefaultMode(observer) }, other: { loop.add(observer, mode: $0) })
    }
}

/// An observer removed from the mode of any other C mode argument.
@inline(never)
private func removeObserver(_ loop: OpaquePointer?, _ observer: OpaquePointer?, _ name: UnsafePointer<CChar>?) {
    // Held for the call when its creator gave it back, as a source's removal is.
    let unmanaged = Unmanaged<RefRunLoopObserver>.fromOpaque(UnsafeRawPointer(nonNull(observer)))
    RefRunLoopObserver.holdingIfGivenBack(unmanaged) {
        changing(loop, observer, as: RefRunLoopObserver.self) { loop, observer in
            withMode(
                name, defaultMode: { loop.removeFromDefaultMode(observer) }, other: { loop.remove(observer, mode: $0) })
        }
    }
}

// MARK: The header

/// Never called: each `@_cdecl` function is passed where the header's declaration of the same C name is expected, so
/// a parameter or result type that drifts from RefRunLoopABI.h is a build error here. (A C name the header lacks is
/// one too: it does not resolve.)
private func checkAgainstHeader() {
    // The header's type is fixed by the first call alone, so the implementation must convert to exactly that type.
    func declared<F>(_ function: F) -> (F) -> Void { { _ in } }
    declared(ref_runloop_current)(refRunLoopCurrent)
    declared(ref_runloop_main)(refRunLoopMain)
    declared(ref_runloop_now)(refRunLoopNow)
    declared(ref_runloop_run)(refRunLoopRun)
    declared(ref_runloop_stop)(refRunLoopStop)
    declared(ref_runloop_stop_mode)(refRunLoopStopMode)
    declared(ref_runloop_wake_up)(refRunLoopWakeUp)
    declared(ref_runloop_is_waiting)(refRunLoopIsWaiting)
    declared(ref_runloop_add_common_mode)(refRunLoopAddCommonMode)
    declared(ref_runloop_perform)(refRunLoopPerform)
    declared(ref_runloop_wakeup_count)(refRunLoopWakeUpCount)
    declared(ref_runloop_pass_count)(refRunLoopPassCount)
    declared(ref_runloop_set_wait_policy)(refRunLoopSetWaitPolicy)
    declared(ref_runloop_wait_policy)(refRunLoopWaitPolicy)
    declared(ref_runloop_default_max_spin_ns)(refRunLoopDefaultMaxSpinNanoseconds)
    declared(ref_runloop_spin_caught_count)(refRunLoopSpinCaughtCount)
    declared(ref_runloop_set_hand_off_hold_ns)(refRunLoopSetHandOffHold)
    declared(ref_runloop_hand_off_hold_ns)(refRunLoopHandOffHold)
    declared(ref_runloop_default_hand_off_hold_ns)(refRunLoopDefaultHandOffHold)
    declared(ref_runloop_source0_create)(refRunLoopSource0Create)
    declared(ref_runloop_source1_create)(refRunLoopSource1Create)
    declared(ref_runloop_source_signal)(refRunLoopSourceSignal)
    declared(ref_runloop_source_invalidate)(refRunLoopSourceInvalidate)
    declared(ref_runloop_source_release)(refRunLoopSourceRelease)
    declared(ref_runloop_add_source)(refRunLoopAddSource)
    declared(ref_runloop_remove_source)(refRunLoopRemoveSource)
    declared(ref_runloop_timer_create)(refRunLoopTimerCreate)
    declared(ref_runloop_timer_set_tolerance)(refRunLoopTimerSetTolerance)
    declared(ref_runloop_timer_set_next_fire_date)(refRunLoopTimerSetNextFireDate)
    declared(ref_runloop_timer_next_fire_date)(refRunLoopTimerNextFireDate)
    declared(ref_runloop_timer_invalidate)(refRunLoopTimerInvalidate)
    declared(ref_runloop_timer_release)(refRunLoopTimerRelease)
    declared(ref_runloop_add_timer)(refRunLoopAddTimer)
    declared(ref_runloop_remove_timer)(refRunLoopRemoveTimer)
    declared(ref_runloop_observer_create)(refRunLoopObserverCreate)
    declared(ref_runloop_observer_create_without_activity)(refRunLoopObserverCreateWithoutActivity)
    declared(ref_runloop_observer_invalidate)(refRunLoopObserverInvalidate)
    declared(ref_runloop_observer_release)(refRunLoopObserverRelease)
    declared(ref_runloop_add_observer)(refRunLoopAddObserver)
    declared(ref_runloop_remove_observer)(refRunLoopRemoveObserver)
}
