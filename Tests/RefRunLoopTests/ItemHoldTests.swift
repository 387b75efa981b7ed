// A mode holds its sources and observers unretained: one counted reference stands for all of an item's places and its
// C creator's hold (SourceBinding.swift, SharedLoopBinding in LoopBinding.swift). These check that an item lives
// exactly as long as a mode or its creator holds it (or a reference of its own), on every path that places it or takes
// its last place: the C ABI's release in and out of modes, a second loop, the common modes' record, an invalidation,
// the loop's thread exiting, an item made in Swift, and the creator's release racing a removal. An item let go too
// early fails the debug build's checks or ThreadSanitizer (tsan-stress.sh); one kept too long is seen through a weak
// reference.

import Foundation
import RefRunLoopABI
import Testing

@testable import RefRunLoop

/// A weak reference to an item, made in a function of its own so that no strong temporary outlives the call.
private final class WeakItem: @unchecked Sendable {
    // Written once, in the initializer; read by the test's threads after the item's uses are ordered.
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
    var isAlive: Bool { object != nil }
}

/// An item pointer handed between threads (the test's threads order their uses through `runTogether`).
private struct CItem: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The C ABI's functions of one kind of item whose modes hold it through one reference.
private struct CKind: Sendable, CustomStringConvertible {
    let description: String
    /// Makes an item whose callout counts on `calls`.
    let create: @Sendable (Counter) -> OpaquePointer
    let add: @Sendable (OpaquePointer, OpaquePointer, UnsafePointer<CChar>?) -> Void
    let remove: @Sendable (OpaquePointer, OpaquePointer, UnsafePointer<CChar>?) -> Void
    let release: @Sendable (OpaquePointer) -> Void
    let invalidate: @Sendable (OpaquePointer) -> Void
    /// Makes a signalled source due (an observer is called by any pass).
    let makeDue: @Sendable (OpaquePointer) -> Void
    /// The Swift object behind a pointer, for a weak reference.
    let object: @Sendable (OpaquePointer) -> AnyObject

    func weak(_ pointer: OpaquePointer) -> WeakItem { WeakItem(object(pointer)) }
}

private func count(_ info: UnsafeMutableRawPointer?) {
    Unmanaged<Counter>.fromOpaque(info!).takeUnretainedValue().increment()
}

private func countActivity(_ activity: UInt32, _ info: UnsafeMutableRawPointer?) { count(info) }

private let kinds: [CKind] = [
    CKind(
        description: "source",
        create: { refRunLoopSource0Create(0, count, Unmanaged.passUnretained($0).toOpaque()) },
        add: { refRunLoopAddSource($0, $1, $2) }, remove: { refRunLoopRemoveSource($0, $1, $2) },
        release: { refRunLoopSourceRelease($0) }, invalidate: { refRunLoopSourceInvalidate($0) },
        makeDue: { refRunLoopSourceSignal($0) },
        object: { Unmanaged<RefRunLoopSource>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }),
    CKind(
        description: "observer",
        create: {
            refRunLoopObserverCreate(
                UInt32(RefRunLoopActivity.entry.rawValue), 1, 0, countActivity,
                Unmanaged.passUnretained($0).toOpaque())
        },
        add: { refRunLoopAddObserver($0, $1, $2) }, remove: { refRunLoopRemoveObserver($0, $1, $2) },
        release: { refRunLoopObserverRelease($0) }, invalidate: { refRunLoopObserverInvalidate($0) },
        makeDue: { _ in },
        object: { Unmanaged<RefRunLoopObserver>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }),
]

private func cLoop(_ loop: RefRunLoop) -> OpaquePointer { OpaquePointer(Unmanaged.passUnretained(loop).toOpaque()) }

/// A timer far ahead in each of `modes`, so that a run of the mode makes its pass whichever kind of item is tested
/// (observers do not keep a mode from being empty, rule empty.what-counts).
private func keepNonEmpty(_ loop: RefRunLoop, _ modes: [RefRunLoopMode]) {
    for mode in modes { loop.add(RefRunLoopTimer(fireDate: RefClock.now + 3_600) { _ in }, mode: mode) }
}

/// A pass keeps its own array of the mode's observers, retained, until the next pass after they change (LoopMode's
/// snapshots, read without the lock): one more pass of `mode` lets go of a removed observer's entry there.
private func dropObserverSnapshot(_ loop: RefRunLoop, _ mode: RefRunLoopMode) {
    _ = loop.run(mode: mode, seconds: 0, returnAfterSourceHandled: false)
}

@Test(arguments: kinds)
private func aCItemGivenBackWhileInAModeLivesByItAndGoesWithItsLastPlace(_ kind: CKind) {
    let failure = onFreshLoopThread { loop -> String? in
        loop.checkInvariantsAfterEveryChange(true)
        keepNonEmpty(loop, [.default])
        let calls = Counter()
        let item = kind.create(calls)
        let weak = kind.weak(item)
        // The default mode's own pointer: the add's and remove's usual path.
        kind.add(cLoop(loop), item, ref_runloop_default_mode)
        kind.release(item)
        guard weak.isAlive else { return "an item in a mode went with its creator's reference" }
        kind.makeDue(item)
        _ = loop.run(mode: .default, seconds: 0, returnAfterSourceHandled: false)
        guard calls.current == 1 else { return "an item living by its mode was called \(calls.current) times" }
        kind.remove(cLoop(loop), item, ref_runloop_default_mode)
        dropObserverSnapshot(loop, .default)
        return weak.isAlive ? "an item given back stayed after it left its last mode" : nil
    }
    #expect(failure == nil, "\(kind): \(failure ?? "")")
}

@Test(arguments: kinds)
private func aCItemGivenBackInNoModeGoesAtOnceAndOneInAModeStaysForItsCreator(_ kind: CKind) {
    let failure = onFreshLoopThread { loop -> String? in
        let calls = Counter()
        let never = kind.create(calls)
        let neverAdded = kind.weak(never)
        kind.release(never)
        if neverAdded.isAlive { return "an item never added stayed after its creator's release" }

        let item = kind.create(calls)
        let weak = kind.weak(item)
        "kCFRunLoopDefaultMode".withCString { name in
            // Another pointer to the default mode's name: the general path.
            kind.add(cLoop(loop), item, name)
            kind.remove(cLoop(loop), item, name)
        }
        kind.add(cLoop(loop), item, ref_runloop_default_mode)
        kind.remove(cLoop(loop), item, ref_runloop_default_mode)
        guard weak.isAlive else { return "an item went while its creator held it" }
        kind.release(item)
        return weak.isAlive ? "an item in no mode stayed after its creator's release" : nil
    }
    #expect(failure == nil, "\(kind): \(failure ?? "")")
}

@Test func aCSourceInTwoLoopsGivenBackGoesWithItsLastPlaceInEither() {
    let failure = onFreshLoopThread { loop -> String? in
        loop.checkInvariantsAfterEveryChange(true)
        // A loop no thread runs: adding and removing work from any thread.
        let other = RefRunLoop()
        other.checkInvariantsAfterEveryChange(true)
        let calls = Counter()
        // The home leaves first, then the other loop; and the other way round.
        for homeLeavesFirst in [true, false] {
            let source = kinds[0].create(calls)
            let weak = kinds[0].weak(source)
            refRunLoopAddSource(cLoop(other), source, ref_runloop_default_mode)
            refRunLoopAddSource(cLoop(loop), source, ref_runloop_default_mode)
            refRunLoopSourceRelease(source)
            let order = homeLeavesFirst ? [other, loop] : [loop, other]
            refRunLoopRemoveSource(cLoop(order[0]), source, ref_runloop_default_mode)
            guard weak.isAlive else { return "a source held by a second loop went when the first let it go" }
            refRunLoopRemoveSource(cLoop(order[1]), source, ref_runloop_default_mode)
            if weak.isAlive { return "a source stayed after both loops let it go (home first: \(homeLeavesFirst))" }
        }
        return nil
    }
    #expect(failure == nil, "\(failure ?? "")")
}

@Test(arguments: kinds)
private func aCItemKeptOnlyByTheCommonModesRecordIsHeldAgainWhenAModeBecomesCommon(_ kind: CKind) {
    let failure = onFreshLoopThread { loop -> String? in
        loop.checkInvariantsAfterEveryChange(true)
        let side = RefRunLoopMode.named("side")
        keepNonEmpty(loop, [.default, side])
        let calls = Counter()
        let item = kind.create(calls)
        let weak = kind.weak(item)
        // NULL is the common modes: the item joins the default mode and the loop's record of common items.
        kind.add(cLoop(loop), item, nil)
        "kCFRunLoopDefaultMode".withCString { kind.remove(cLoop(loop), item, $0) }
        // In no mode now: the creator's release lets its reference go, and the record's keeps the item.
        kind.release(item)
        guard weak.isAlive else { return "an item recorded as a common item went with its creator's reference" }
        // The record places it in the new common mode: its one reference for its places is taken again.
        loop.addCommonMode("side")
        kind.makeDue(item)
        _ = loop.run(mode: side, seconds: 0, returnAfterSourceHandled: false)
        guard calls.current == 1 else { return "an item placed by the common modes' record was not called" }
        kind.remove(cLoop(loop), item, nil)
        dropObserverSnapshot(loop, side)
        return weak.isAlive ? "an item stayed after it left the common modes and their record" : nil
    }
    #expect(failure == nil, "\(kind): \(failure ?? "")")
}

@Test(arguments: kinds)
private func aCItemGivenBackGoesWhenItIsInvalidated(_ kind: CKind) {
    let failure = onFreshLoopThread { loop -> String? in
        loop.checkInvariantsAfterEveryChange(true)
        let item = kind.create(Counter())
        let weak = kind.weak(item)
        kind.add(cLoop(loop), item, ref_runloop_default_mode)
        "side".withCString { kind.add(cLoop(loop), item, $0) }
        kind.release(item)
        kind.invalidate(item)
        return weak.isAlive ? "an invalidated item given back stayed" : nil
    }
    #expect(failure == nil, "\(kind): \(failure ?? "")")
}

@Test(arguments: kinds)
private func aCItemGivenBackGoesWhenItsLoopsThreadExits(_ kind: CKind) {
    let weak = onFreshLoopThread { loop -> WeakItem in
        let item = kind.create(Counter())
        let weak = kind.weak(item)
        kind.add(cLoop(loop), item, ref_runloop_default_mode)
        "side".withCString { kind.add(cLoop(loop), item, $0) }
        kind.release(item)
        return weak
    }
    // The loop's teardown runs as its thread exits, after the body returned.
    waitUntil("the \(kind) to go with its loop's teardown") { !weak.isAlive }
}

/// Adds a Swift item to `modes` of `loop`; returns a weak reference and an unretained one.
private func addedSwiftItem(
    _ loop: RefRunLoop, observer: Bool, _ modes: [RefRunLoopMode]
) -> (weak: WeakItem, pointer: Unmanaged<AnyObject>) {
    let item: AnyObject
    if observer {
        let made = RefRunLoopObserver(activities: .entry) { _, _ in }
        for mode in modes { loop.add(made, mode: mode) }
        item = made
    } else {
        let made = RefRunLoopSource(perform: {})
        for mode in modes { loop.add(made, mode: mode) }
        item = made
    }
    return (WeakItem(item), Unmanaged.passUnretained(item))
}

/// Removes the item behind `pointer` from `mode` of `loop`, holding it for the call.
private func removeSwiftItem(_ loop: RefRunLoop, _ pointer: Unmanaged<AnyObject>, _ mode: RefRunLoopMode) {
    let item = pointer.takeUnretainedValue()
    if let observer = item as? RefRunLoopObserver { loop.remove(observer, mode: mode) }
    if let source = item as? RefRunLoopSource { loop.remove(source, mode: mode) }
}

@Test(arguments: [false, true])
func aSwiftItemIsHeldByItsModesAlone(observer: Bool) {
    let failure = onFreshLoopThread { loop -> String? in
        loop.checkInvariantsAfterEveryChange(true)
        let side = RefRunLoopMode.named("side")
        let added = addedSwiftItem(loop, observer: observer, [.default, side])
        guard added.weak.isAlive else { return "a Swift item in a mode went with its last reference outside" }
        removeSwiftItem(loop, added.pointer, .default)
        guard added.weak.isAlive else { return "a Swift item still in a mode went when it left another" }
        removeSwiftItem(loop, added.pointer, side)
        return added.weak.isAlive ? "a Swift item stayed after its last mode let it go" : nil
    }
    #expect(failure == nil, "observer \(observer): \(failure ?? "")")
}

@Test(arguments: kinds)
private func theCreatorsReleaseRacingTheLastRemovalLetsTheItemGoOnce(_ kind: CKind) {
    // The creator gives its reference back on one thread while another, which holds a reference of its own, removes
    // the item from its one mode: whichever comes second in the word's order lets the one reference go, exactly once.
    let loop = RefRunLoop()
    var failures: [String] = []
    for round in 0..<200 {
        let item = CItem(pointer: kind.create(Counter()))
        let weak = kind.weak(item.pointer)
        kind.add(cLoop(loop), item.pointer, ref_runloop_default_mode)
        // The remover's own reference, taken before the race and let go after it.
        let held = Unmanaged<AnyObject>.passRetained(kind.object(item.pointer))
        let remover = CItem(pointer: OpaquePointer(held.toOpaque()))
        let finished = runTogether([
            { kind.release(item.pointer) },
            { removeSwiftItem(loop, Unmanaged.fromOpaque(UnsafeRawPointer(remover.pointer)), .default) },
        ])
        guard finished else {
            failures.append("round \(round): a release or a removal did not finish")
            break
        }
        guard weak.isAlive else {
            failures.append("round \(round): the item went while the remover held it")
            break
        }
        held.release()
        if weak.isAlive {
            failures.append("round \(round): the item stayed after every reference went")
            break
        }
    }
    #expect(failures.isEmpty, "\(kind): \(failures)")
}
