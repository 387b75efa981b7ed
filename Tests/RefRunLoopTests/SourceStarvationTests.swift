// A version-0 source that never stays unsignalled (its perform signals it again, as producers that keep its queue
// non-empty would) does not starve a timer that is due: the pass performs the source once, its poll then reports the
// timerfd, and the timer fires in that pass, as CF's does (a perform makes the next wait a poll, and the poll reports
// every port that is ready). This is the guard for a pass that drains the version-0 sources again while they stay
// signalled: such a drain has to stop as soon as another port is ready, or it would delay this timer.
//
// The other tests here guard the rest of what such a drain must leave as it is, each with a source that signals
// itself again in every perform and wakes the loop, as the resident-thread benchmark's producers do: a ready
// descriptor is performed after one perform; BeforeTimers and BeforeSources observers are called before every
// perform, and blocks queued in a perform run before the next; a stop or a timeout ends the run after the perform in
// whose pass it came; with returnAfterSourceHandled the run returns after one perform; and the wake-up a perform
// makes is consumed by the poll of its own pass.

import Testing

@testable import RefRunLoop

/// What the callouts record. Confined to the loop's thread (every callout runs there).
private final class Tally: @unchecked Sendable {
    var performs = 0
    /// The performs made when the timer fired; nil until it fires.
    var performsAtFire: Int?
}

@Test func aDueTimerFiresWhileASourceKeepsItselfSignalled() {
    let report = onFreshLoopThread { loop -> String? in
        let tally = Tally()
        let holder = ResultBox<RefRunLoopSource>()  // set before the run, read only in the perform
        let source = RefRunLoopSource(perform: {
            tally.performs += 1
            holder.value?.signal()  // signalled again at once: the queue is never empty
        })
        holder.value = source
        loop.add(source, mode: .default)
        source.signal()
        let timer = RefRunLoopTimer(fireDate: RefClock.now) { _ in
            if tally.performsAtFire == nil { tally.performsAtFire = tally.performs }
            loop.stop()
        }
        loop.add(timer, mode: .default)
        let result = loop.run(mode: .default, seconds: testHangLimit, returnAfterSourceHandled: false)
        guard result == .stopped, let atFire = tally.performsAtFire else {
            return "the due timer did not fire (the run ended \(result) after \(tally.performs) performs)"
        }
        return atFire == 1 ? nil : "the due timer fired after \(atFire) performs of the source, not after the first"
    }
    #expect(report == nil, "\(report ?? "")")
}

/// How each test that uses ``SelfSignalling`` runs its loop: parking and spin-then-park, both with the hand-off hold,
/// which delays the poll after each perform that woke the loop (RefRunLoop.handOffHold) and must change nothing here,
/// and parking without it.
struct WaitSetting: Sendable, CustomTestStringConvertible {
    let policy: RefRunLoop.WaitPolicy
    let holds: Bool

    func apply(to loop: RefRunLoop) {
        loop.waitPolicy = policy
        if !holds { loop.handOffHold = .zero }
    }

    var testDescription: String { "\(policy)\(holds ? " with the hold" : " without the hold")" }
}

private let settings: [WaitSetting] = [
    WaitSetting(policy: .park, holds: false), WaitSetting(policy: .park, holds: true),
    WaitSetting(policy: .spinThenPark(maxSpin: .milliseconds(1)), holds: true),
]

/// A source whose perform signals it again and wakes the loop (as a producer that finds the queue empty does), after
/// calling `body` with the number of performs so far (1 for the first), unless `body` returns false. The wake-up is
/// then noted as made on another CPU, as a producer's is, so that the loop holds the poll after the perform.
/// Confined to the loop's thread: every perform runs there.
private final class SelfSignalling: @unchecked Sendable {
    private(set) var performs = 0
    private(set) var source: RefRunLoopSource!

    init(loop: RefRunLoop, _ body: @escaping @Sendable (Int) -> Bool) {
        source = RefRunLoopSource(perform: { [unowned self] in
            performs += 1
            guard body(performs) else { return }
            source.signal()
            loop.wakeUp()
            loop.waitSet.lastWakerCPU.store(-1, ordering: .relaxed)
        })
        loop.add(source, mode: .default)
        source.signal()
    }
}

@Test(arguments: settings)
func aReadyDescriptorIsPerformedWhileASourceKeepsItselfSignalled(setting: WaitSetting) {
    let report = onFreshLoopThread { loop -> String? in
        setting.apply(to: loop)
        let fd = EventFD.create()
        defer { Descriptor.close(fd) }
        let atDescriptor = ResultBox<Int>()
        let performs = ResultBox<SelfSignalling>()
        let port = RefRunLoopSource(fileDescriptor: fd) {
            if atDescriptor.value == nil { atDescriptor.value = performs.value?.performs }
            loop.stop()
        }
        loop.add(port, mode: .default)
        EventFD.signal(fd)  // readable before the run: its edge precedes every wake-up of the performs
        performs.value = SelfSignalling(loop: loop) { _ in true }
        let result = loop.run(mode: .default, seconds: testHangLimit, returnAfterSourceHandled: false)
        guard result == .stopped, let at = atDescriptor.value else {
            return "the ready descriptor was not performed (the run ended \(result))"
        }
        return at == 1
            ? nil : "the ready descriptor was performed after \(at) performs of the source, not after the first"
    }
    #expect(report == nil, "\(report ?? "")")
}

@Test(arguments: settings)
func observersAndBlocksSeeEveryPerformOfASourceThatKeepsItselfSignalled(setting: WaitSetting) {
    let trace = onFreshLoopThread { loop -> [String] in
        setting.apply(to: loop)
        let seen = Recorder<String>()
        let observer = RefRunLoopObserver(activities: [.beforeTimers, .beforeSources]) { _, activity in
            seen.append(activity.description)
        }
        loop.add(observer, mode: .default)
        let performs = SelfSignalling(loop: loop) { count in
            seen.append("perform \(count)")
            loop.perform(modes: .one(.default)) { seen.append("block \(count)") }
            if count == 3 { loop.stop() }
            return true
        }
        #expect(loop.run(mode: .default, seconds: testHangLimit, returnAfterSourceHandled: false) == .stopped)
        #expect(performs.performs == 3)
        // Each perform woke the loop from "another CPU": the loop held each pass's poll, unless told not to.
        #expect(loop.handOffHoldCount == (setting.holds ? 3 : 0))
        return seen.all
    }
    let expected = (1...3).flatMap { ["beforeTimers", "beforeSources", "perform \($0)", "block \($0)"] }
    #expect(trace == expected)
}

@Test(arguments: settings)
func aStopInAPerformEndsTheRunAfterThatPerform(setting: WaitSetting) {
    let (result, performs) = onFreshLoopThread { loop -> (RefRunLoopResult, Int) in
        setting.apply(to: loop)
        let source = SelfSignalling(loop: loop) { count in
            if count == 2 { loop.stop() }
            return true
        }
        return (loop.run(mode: .default, seconds: testHangLimit, returnAfterSourceHandled: false), source.performs)
    }
    #expect(result == .stopped)
    #expect(performs == 2)
}

@Test(arguments: settings)
func returnAfterSourceHandledReturnsAfterOnePerformOfASourceThatKeepsItselfSignalled(setting: WaitSetting) {
    let (result, performs, holds) = onFreshLoopThread { loop -> (RefRunLoopResult, Int, UInt64) in
        setting.apply(to: loop)
        let source = SelfSignalling(loop: loop) { _ in true }
        let result = loop.run(mode: .default, seconds: testHangLimit, returnAfterSourceHandled: true)
        return (result, source.performs, loop.handOffHoldCount)
    }
    #expect(result == .handledSource)
    #expect(performs == 1)
    #expect(holds == 0, "the poll of a run that returns after the handled source was held")
}

/// The timeout passes during the first perform, which waits (on the clock, not for a time) until the run's deadline
/// is behind it: the run's clock started before that perform, so its deadline is at most the perform's start plus the
/// run's seconds. A poll (seconds 0) times out after its one pass as well.
@Test(arguments: [0, 0.001], settings)
func aTimeoutThatPassedInAPerformEndsTheRunAfterThatPerform(seconds: Double, setting: WaitSetting) {
    let (result, performs) = onFreshLoopThread { loop -> (RefRunLoopResult, Int) in
        setting.apply(to: loop)
        let source = SelfSignalling(loop: loop) { count in
            guard count == 1 else { return true }
            let start = RefClock.nanoseconds
            while RefClock.nanoseconds <= start + RefClock.nanoseconds(fromSeconds: seconds) + 1 {}
            return true
        }
        return (loop.run(mode: .default, seconds: seconds, returnAfterSourceHandled: false), source.performs)
    }
    #expect(result == .timedOut)
    #expect(performs == 1)
}

/// The wake-up a perform makes is reported, as nothing to handle, by the poll of the same pass, not by a later one:
/// performs 1 and 2 wake the loop, perform 3 only adds a timer that is due already. Its pass's poll then finds no
/// wake-up left and reports the timerfd, so the timer fires in that pass and the loop never prepares to sleep. A
/// wake-up carried over from an earlier perform would be reported by that poll instead, and the timer would fire after
/// BeforeWaiting.
@Test(arguments: settings)
func aWakeUpInAPerformIsConsumedByItsOwnPassPoll(setting: WaitSetting) {
    let (trace, performs) = onFreshLoopThread { loop -> ([String], Int) in
        setting.apply(to: loop)
        let seen = Recorder<String>()
        let observer = RefRunLoopObserver(activities: .beforeWaiting) { _, activity in
            seen.append(activity.description)
        }
        loop.add(observer, mode: .default)
        let source = SelfSignalling(loop: loop) { count in
            guard count == 3 else { return true }
            let timer = RefRunLoopTimer(fireDate: RefClock.now) { _ in
                seen.append("fired")
                loop.stop()
            }
            loop.add(timer, mode: .default)
            return false
        }
        #expect(loop.run(mode: .default, seconds: testHangLimit, returnAfterSourceHandled: false) == .stopped)
        return (seen.all, source.performs)
    }
    #expect(performs == 3)
    #expect(trace == ["fired"])
}
