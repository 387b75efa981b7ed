// Interprets one case against one engine: creates its items on the case thread, performs its steps, records every
// callout as a trace line, and runs trigger actions from inside the callouts that match them.

import CRunLoopSystem
import EngineKit
import Foundation

/// One run of one case. Created by the runner, driven on the case thread.
///
/// Thread safety: `state` (the trace, and the handles of the items made so far, which `create` steps add to from any
/// thread) is protected by `lock`. `loop`, `epoch`, `hosts` and `loops` are written once on the case thread before any
/// callout can happen and before anything is posted to a host thread, and only read afterwards (a host reads them
/// after taking a posted list under its own lock, which orders the reads after the writes); `engine` and `specCase`
/// are immutable.
final class CaseExecution: @unchecked Sendable {
    let engine: any RunLoopEngine
    let specCase: SpecCase
    private let triggersByEvent: [String: [Trigger]]
    /// Sees every trace line as it is recorded (a worker streams them to its parent, so that a case whose process
    /// dies still has its last lines reported). Called on the recording thread under `lock`, so lines reach it in the
    /// trace's order; it must not call back into this execution.
    private let onTrace: (@Sendable (String) -> Void)?

    private(set) var loop: (any EngineLoop)?
    private var epoch: Double = 0
    /// The case's helper loops (format 1.1) by name, with their host threads.
    private var hosts: [String: LoopHost] = [:]
    /// Every loop of the case by name: `here` (the case thread's) and each helper loop.
    private var loops: [String: any EngineLoop] = [:]
    /// How long a `join`, a `waitUntilWaiting` or the start and end of a host thread may take: the case's watchdog.
    private var waitLimit: Double { specCase.timeout ?? 5 }

    private let lock = NSLock()
    /// Protected by `lock`.
    private var state = State()

    private struct State {
        var trace: [String] = []
        var counts: [String: Int] = [:]
        /// Set when the steps are done and helper threads have finished: later callouts (a loop torn down at
        /// thread exit, say) are not part of the case.
        var closed = false
        /// Set when the steps are done, so helper threads stop waiting for a state that will not come.
        var stepsDone = false
        var runtimeError: String?
        /// (1.3) The case's flag: set by `setFlag`, read by `runBefore` with `untilFlag` between its calls.
        var flag = false
        /// What each item made so far became in the engine: those created before the first step, then those made by
        /// `create` actions.
        var handles: [String: Handle] = [:]
        /// The helper loops, for `abandon` (which runs on the watchdog's thread).
        var helperLoops: [any EngineLoop] = []
    }

    /// What a declared item became in the engine.
    private enum Handle {
        case source(any EngineSource, fd: Int32?)
        case timer(any EngineTimer)
        case observer(any EngineObserver)
        case block

        var item: EngineItem? {
            switch self {
            case .source(let source, _): return .source(source)
            case .timer(let timer): return .timer(timer)
            case .observer(let observer): return .observer(observer)
            case .block: return nil
            }
        }
    }

    private let helpers = DispatchGroup()

    /// No case of the spec records more than a few hundred lines. An engine whose callouts fire in a loop (a timer in
    /// a busy loop, a source that performs forever) would otherwise fill memory and the worker's pipe; past this the
    /// trace is closed, the case is ERROR, and the loop is asked to stop.
    static let maxTraceLines = 10_000

    init(engine: any RunLoopEngine, specCase: SpecCase, onTrace: (@Sendable (String) -> Void)? = nil) {
        self.engine = engine
        self.specCase = specCase
        self.onTrace = onTrace
        self.triggersByEvent = Dictionary(grouping: specCase.triggers, by: \.event)
    }

    /// The trace so far and any runtime error.
    var result: (trace: [String], error: String?) {
        lock.lock()
        defer { lock.unlock() }
        return (state.trace, state.runtimeError)
    }

    /// Runs the case on the calling thread, which must be a fresh thread (for a main-thread case, the process's main
    /// thread, in a worker that has run no case). Returns when the steps are done and every helper thread has finished
    /// (blocks sent to the main queue are not waited for).
    func execute() {
        let loop = engine.currentLoop()
        self.loop = loop
        loops[LoopName.here] = loop
        epoch = loop.now
        if !startHosts() { return }
        for declaration in specCase.items where !declaration.createdByStep {
            let handle = makeHandle(declaration, loop: loop)
            lock.withLock { state.handles[declaration.name] = handle }
        }
        for step in specCase.steps { perform(step, on: LoopName.here) }
        lock.withLock { state.stepsDone = true }
        // What was posted to a host thread is part of the case; what its loop does when the thread ends (CF tears the
        // loop down at thread exit, cancelling its sources) is not, like the case thread's own teardown.
        for name in specCase.loops {
            guard let host = hosts[name] else { continue }
            if !host.join(deadline: Date(timeIntervalSinceNow: waitLimit)) {
                record(Trace.mark("loop \(name) did not finish what was posted to it"))
            }
        }
        helpers.wait()
        lock.withLock { state.closed = true }
        for host in hosts.values {
            let deadline = Date(timeIntervalSinceNow: waitLimit)
            if host.finish(deadline: deadline) {
                host.release(deadline: deadline)
            } else {
                host.release(deadline: Date())
            }
        }
    }

    /// Starts a host thread for each of the case's helper loops and waits for each to have its loop. False (and a
    /// runtime error) if one did not report its loop in time.
    private func startHosts() -> Bool {
        for name in specCase.loops {
            let host = LoopHost(name: name)
            let started = host.start(
                engine: engine, deadline: Date(timeIntervalSinceNow: waitLimit),
                lifetime: Date(timeIntervalSinceNow: 4 * waitLimit + 5)
            ) { [self] actions in
                for action in actions { perform(action, on: name) }
            }
            hosts[name] = host
            guard let started else {
                fail("the host thread of loop \(name) did not get its loop within \(waitLimit) s")
                for started in hosts.values {
                    _ = started.finish(deadline: Date(timeIntervalSinceNow: waitLimit))
                    started.release(deadline: Date())
                }
                lock.withLock { state.closed = true }
                return false
            }
            loops[name] = started
            lock.withLock { state.helperLoops.append(started) }
        }
        return true
    }

    /// The loop a callout on the calling thread belongs to: a host thread's loop, else the case thread's (callouts
    /// happen only on loop threads; a trigger's actions address the loop whose callout ran them).
    private var calloutLoopName: String {
        if hosts.isEmpty { return LoopName.here }
        return hosts.first { $0.value.isCurrentThread }?.key ?? LoopName.here
    }

    /// Called by the runner when the watchdog gives up: no further events are recorded, and the loop is asked to
    /// stop so that an abandoned thread has a chance to finish.
    func abandon() {
        lock.withLock {
            state.closed = true
            state.stepsDone = true
        }
        loop?.stop()
        loop?.wakeUp()
        for helper in lock.withLock({ state.helperLoops }) {
            helper.stop()
            helper.wakeUp()
        }
    }

    /// Closes the eventfds of version-1 sources. Only after the case thread has finished.
    func releaseResources() {
        for case .source(let source, let fd?) in lock.withLock({ state.handles.values }) {
            source.invalidate()
            close(fd)
        }
    }

    // MARK: Items

    private func makeHandle(_ declaration: ItemDeclaration, loop: any EngineLoop) -> Handle {
        let name = declaration.name
        switch declaration.kind {
        case .source0(let order, let callouts):
            var callbacks = Source0Callbacks(perform: { [self] in record(Trace.perform(name)) })
            if callouts {
                callbacks.schedule = { [self] mode in record(Trace.schedule(name, mode)) }
                callbacks.cancel = { [self] mode in record(Trace.cancel(name, mode)) }
            }
            return .source(loop.makeSource0(order: order, callbacks: callbacks), fd: nil)
        case .source1(let order):
            let fd = csystem_eventfd(0)
            if fd < 0 { fail("eventfd for source1 '\(name)' failed: errno \(errno)") }
            return .source(
                loop.makeSource1(order: order, fd: fd, perform: { [self] in record(Trace.perform(name)) }), fd: fd)
        case .timer(let fire, let interval, let tolerance, _) where declaration.foundationForm != nil:
            guard let foundation = foundationLayer(loop) else { return .block }
            let callout: @Sendable () -> Void = { [self] in record(Trace.fire(name)) }
            let repeats = declaration.repeats ?? (interval > 0)
            let timer: any EngineTimer
            switch declaration.foundationForm {
            case .scheduled?:
                timer = foundation.scheduledTimer(interval: interval, repeats: repeats, callout: callout)
            case .timeInterval?:
                timer = foundation.makeFoundationTimer(
                    fireDate: nil, interval: interval, repeats: repeats, callout: callout)
            case .fire?, nil:
                let origin = declaration.firesFromCreation ? loop.now : epoch
                timer = foundation.makeFoundationTimer(
                    fireDate: origin + fire, interval: interval, repeats: repeats, callout: callout)
            }
            if let tolerance { timer.tolerance = tolerance }
            return .timer(timer)
        case .timer(let fire, let interval, let tolerance, let order):
            // (1.2) `from: creation` counts from now, the create step; else from the case's start.
            let origin = declaration.firesFromCreation ? loop.now : epoch
            let timer = loop.makeTimer(
                fireDate: origin + fire, interval: interval, order: order,
                callout: { [self] in record(Trace.fire(name)) })
            if let tolerance { timer.tolerance = tolerance }
            return .timer(timer)
        case .observer(let activities, let repeats, let order):
            return .observer(
                loop.makeObserver(
                    activities: activities, repeats: repeats, order: order,
                    callout: { [self] activity in record(Trace.observer(name, activity)) }))
        case .block:
            return .block
        }
    }

    // MARK: Trace and triggers

    /// Appends a trace line and runs the actions of every trigger that matches this occurrence, on this thread.
    private func record(_ line: String) {
        var flooded = false
        let matched: [Trigger]? = lock.withLock {
            guard !state.closed else { return nil }
            guard state.trace.count < Self.maxTraceLines else {
                state.closed = true
                state.runtimeError =
                    state.runtimeError
                    ?? "the case recorded \(Self.maxTraceLines) trace lines and was cut off there (a callout made over "
                    + "and over?); last line: \(state.trace.last ?? "")"
                flooded = true
                return nil
            }
            state.trace.append(line)
            onTrace?(line)
            let count = (state.counts[line] ?? 0) + 1
            state.counts[line] = count
            return (triggersByEvent[line] ?? []).filter { $0.fires(onOccurrence: count) }
        }
        if flooded { loop?.stop() }
        guard let matched, !matched.isEmpty else { return }
        let context = calloutLoopName
        for trigger in matched {
            for action in trigger.actions { perform(action, on: context) }
        }
    }

    /// (1.3) The loop's Foundation layer, or nil (failing the case): the runner gives Foundation's verbs only to
    /// engines with feature `foundation`, whose loops have it.
    private func foundationLayer(_ loop: any EngineLoop) -> (any FoundationLayerLoop)? {
        if let layer = loop as? any FoundationLayerLoop { return layer }
        fail("engine \(engine.name) lists feature foundation, but its loop has no Foundation layer")
        return nil
    }

    /// The handle of a declared item, or nil (failing the case) if it has not been created yet.
    private func handle(_ name: String) -> Handle? {
        let found = lock.withLock { state.handles[name] }
        if found == nil { fail("item '\(name)' was used before a create step made it") }
        return found
    }

    private func fail(_ message: String) {
        lock.withLock {
            if state.runtimeError == nil { state.runtimeError = message }
        }
    }

    // MARK: Actions

    /// Performs `action` on the calling thread, addressed to the loop named `loopName` (`here` unless the action runs
    /// on a host thread or in a `target`).
    private func perform(_ action: Action, on loopName: String) {
        guard let loop = loops[loopName] else { return }
        switch action {
        case .add(let item, let mode):
            if let engineItem = handle(item)?.item { loop.add(engineItem, mode: mode) }
        case .remove(let item, let mode):
            if let engineItem = handle(item)?.item { loop.remove(engineItem, mode: mode) }
        case .contains(let item, let mode):
            if let engineItem = handle(item)?.item {
                record("contains \(item) \(mode) \(loop.contains(engineItem, mode: mode))")
            }
        case .addCommonMode(let name):
            loop.addCommonMode(name)
        case .signal(let name):
            if case .source(let source, _)? = handle(name) { source.signal() }
        case .write(let name):
            if case .source(_, let fd?)? = handle(name), csystem_eventfd_write(fd, 1) != 0 {
                fail("writing to source1 '\(name)' failed: errno \(errno)")
            }
        case .wakeUp:
            loop.wakeUp()
        case .stop:
            loop.stop()
        case .stopMode(let name):
            loop.stopMode(name)
        case .invalidate(let name):
            switch handle(name) {
            case .source(let source, _)?: source.invalidate()
            case .timer(let timer)?: timer.invalidate()
            case .observer(let observer)?: observer.invalidate()
            case .block?, nil: break
            }
        case .setNextFireDate(let name, let seconds):
            if case .timer(let timer)? = handle(name) { timer.nextFireDate = loop.now + seconds }
        case .setTolerance(let name, let seconds):
            if case .timer(let timer)? = handle(name) { timer.tolerance = seconds }
        case .run(let request):
            record(Trace.run(request.mode))
            let start = Self.monotonicSeconds()
            let result = loop.run(
                mode: request.mode, seconds: request.seconds,
                returnAfterSourceHandled: request.returnAfterSourceHandled)
            let elapsed = Self.monotonicSeconds() - start
            record(Trace.result(result))
            if let took = request.took { recordTiming(took, elapsed: elapsed, timeout: request.seconds) }
        case .runForever(let took):
            record(Trace.runForever)
            let start = Self.monotonicSeconds()
            loop.runForever()
            let elapsed = Self.monotonicSeconds() - start
            record(Trace.runForeverReturned)
            if let took { recordTiming(took, elapsed: elapsed, timeout: nil) }
        case .create(let name):
            guard let declaration = specCase.items.first(where: { $0.name == name }) else { return }
            guard lock.withLock({ state.handles[name] == nil }) else {
                fail("item '\(name)' was created a second time")
                return
            }
            let made = makeHandle(declaration, loop: loop)
            lock.withLock { state.handles[name] = made }
            record(Trace.create(name))
        case .perform(let block, let modes):
            loop.performBlock(modes: modes) { [self] in record(Trace.block(block)) }
        case .mark(let text):
            record(Trace.mark(text))
        case .stall(let seconds):
            // At least `seconds` by the engine's clock and by the monotonic clock, which run deadlines and `took`
            // lines use: an engine's clock that is the wall clock (CF's, Foundation's) runs fast while the system
            // slews or steps it forward, and would end the stall early on the other.
            let end = loop.now + seconds
            let monotonicEnd = Self.monotonicSeconds() + seconds
            while loop.now < end || Self.monotonicSeconds() < monotonicEnd {}
        case .sleep(let seconds):
            Thread.sleep(forTimeInterval: seconds)
        case .query(let query):
            record(answer(query, loop: loop))
        case .thread(let wait, let actions):
            startHelper(wait: wait, actions: actions)
        case .target(let name, let actions):
            for inner in actions { perform(inner, on: name) }
        case .post(let name, let actions):
            guard let host = hosts[name] else { return }
            if host.isFinishing {
                record(Trace.mark("post gave up: loop \(name) has ended"))
            } else {
                host.post(actions)
            }
        case .end(let name):
            if let host = hosts[name], !host.exit(deadline: Date(timeIntervalSinceNow: waitLimit)) {
                record(Trace.mark("end gave up: the thread of loop \(name) did not exit"))
            }
        case .join(let name):
            if let host = hosts[name], !host.join(deadline: Date(timeIntervalSinceNow: waitLimit)) {
                record(Trace.mark("join gave up: loop \(name) did not finish what was posted to it"))
            }
        case .waitUntilWaiting(let name):
            guard let target = loops[name] else { return }
            let deadline = target.now + waitLimit
            while !target.isWaiting {
                if target.now > deadline {
                    record(Trace.mark("waitUntilWaiting gave up: loop \(name) never waited"))
                    return
                }
                sched_yield()
            }
        case .waitUntilSlept(let name, let nth, let observer):
            waitUntilSlept(loopName: name, nth: nth, observer: observer)
        case .setFlag:
            lock.withLock { state.flag = true }
            record("setFlag")
        case .foundationRun, .runUntil, .runBefore, .limitDate, .acceptInput, .performInModes:
            if let layer = foundationLayer(loop) { performFoundationVerb(action, on: layer) }
        case .dispatchMain(let actions):
            // Not waited for: a block the main loop never services (the case ran a mode that is not common) stays
            // queued, and would run, unrecorded, after the case has closed its trace. Main-thread cases run in a
            // worker of their own, so it never reaches another case.
            DispatchQueue.main.async { [self] in
                for action in actions { perform(action, on: LoopName.here) }
            }
        }
    }

    /// (1.3) One of Foundation's verbs (``Action/isFoundationVerb``), on the addressed loop's Foundation layer.
    private func performFoundationVerb(_ action: Action, on layer: any FoundationLayerLoop) {
        switch action {
        case .foundationRun:
            record(Trace.begun("foundationRun"))
            layer.foundationRun()
            record(Trace.returned("foundationRun"))
        case .runUntil(let seconds):
            record(Trace.begun("runUntil"))
            layer.foundationRun(until: layer.now + seconds)
            record(Trace.returned("runUntil"))
        case .runBefore(let mode, let seconds, let untilFlag):
            // `while !flag && run(mode:before:) {}` with untilFlag, one call without; the date is fixed once, as the
            // idiom's `before:` argument is.
            let date = layer.now + seconds
            repeat {
                if untilFlag, lock.withLock({ state.flag }) { break }
                record(Trace.begun("runBefore", mode))
                let result = layer.foundationRun(mode: mode, before: date)
                record(Trace.returned("runBefore", "\(result)"))
                if !result { break }
            } while untilFlag && !lock.withLock({ state.closed })
        case .limitDate(let mode):
            let answer: String
            switch layer.limitDate(mode: mode) {
            case .none: answer = "none"
            case .distantFuture: answer = "distantFuture"
            case .date(let date): answer = Trace.relative(date, epoch: epoch)
            }
            record("limitDate \(mode) \(answer)")
        case .acceptInput(let mode, let seconds):
            record(Trace.begun("acceptInput", mode))
            layer.acceptInput(mode: mode, before: layer.now + seconds)
            record(Trace.returned("acceptInput"))
        case .performInModes(let block, let modes):
            layer.foundationPerform(inModes: modes) { [self] in record(Trace.block(block)) }
        default:
            break
        }
    }

    /// (1.2) Waits until loop `name` has gone to sleep for the `nth` time: the observer's BeforeWaiting line has been
    /// recorded `nth` times (the trace's own count), then the loop reports that it waits (CF sets the flag right after
    /// the BeforeWaiting observers, before the wait). Synchronised on loop state; it gives up, tracing a mark that
    /// fails the case, past the case's timeout, or (for `here`, from a helper thread) once the steps are done, since
    /// the case thread's loop no longer runs then.
    private func waitUntilSlept(loopName name: String, nth: Int, observer: String) {
        guard let target = loops[name] else { return }
        let line = Trace.observer(observer, .beforeWaiting)
        let deadline = target.now + waitLimit
        while true {
            let (count, stepsDone) = lock.withLock { (state.counts[line] ?? 0, state.stepsDone) }
            if count >= nth && target.isWaiting { return }
            if target.now > deadline || (stepsDone && name == LoopName.here) {
                record(Trace.mark("waitUntilSlept gave up: loop \(name) did not go to sleep \(nth) time(s)"))
                return
            }
            sched_yield()
        }
    }

    /// Traces whether a run's duration met its assertion (rule timeout.never-early).
    private func recordTiming(_ assertion: TimingAssertion, elapsed: Double, timeout: Double?) {
        let held: Bool
        switch assertion {
        case .atLeastTimeout:
            held = elapsed >= (timeout ?? .infinity)
        case .window(let atLeast, let under):
            held = elapsed >= (atLeast ?? 0) && elapsed < (under ?? .infinity)
        case .underTimeout(let fraction):
            held = elapsed < fraction * (timeout ?? .infinity)
        }
        record(Trace.took(assertion, seconds: elapsed, held: held))
    }

    /// The monotonic clock (CLOCK_MONOTONIC, which CF's and ref's run deadlines use), in seconds. A duration measured
    /// from before a call to after its return includes all of the engine's own.
    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private func answer(_ query: Query, loop: any EngineLoop) -> String {
        switch query {
        case .isMainLoop:
            // The performing thread's loop: the case's on the case thread, a helper's own on a helper thread.
            return "isMainLoop \(engine.currentLoop().isMainLoop)"
        case .caseLoopIsMain:
            // CFRunLoopGetMain() called on the performing thread, compared with the case's loop: `here`, whichever
            // loop the action addresses (a list posted to a helper loop asks about the case's loop all the same).
            return "isMainLoop case \(loops[LoopName.here]?.isMainLoop ?? false)"
        case .isMainThread:
            return "isMainThread \(Thread.isMainThread)"
        case .currentMode:
            return "currentMode \(loop.currentMode.map(ModeName.specName(of:)) ?? "none")"
        case .isWaiting:
            return "isWaiting \(loop.isWaiting)"
        case .allModes:
            return "allModes [\(loop.allModes.map(ModeName.specName(of:)).sorted().joined(separator: ", "))]"
        case .nextTimerFireDate(let mode):
            return "nextTimerFireDate \(mode) \(Trace.relative(loop.nextTimerFireDate(mode: mode), epoch: epoch))"
        case .fireDate(let name):
            guard case .timer(let timer)? = handle(name) else { return "fireDate \(name) ?" }
            return "fireDate \(name) \(Trace.relative(timer.nextFireDate, epoch: epoch))"
        case .tolerance(let name):
            guard case .timer(let timer)? = handle(name) else { return "tolerance \(name) ?" }
            return "tolerance \(name) \(String(format2: timer.tolerance))"
        case .isValid(let name):
            let valid: Bool
            switch handle(name) {
            case .source(let source, _)?: valid = source.isValid
            case .timer(let timer)?: valid = timer.isValid
            case .observer(let observer)?: valid = observer.isValid
            case .block?, nil: valid = false
            }
            return "isValid \(name) \(valid)"
        case .isSignalled(let name):
            // The case needs the feature (the loader adds it), so an engine without it never gets here: nil is an
            // engine that claims the feature and cannot answer, which fails the case.
            guard case .source(let source, _)? = handle(name), let signalled = source.isSignalled else {
                return "isSignalled \(name) ?"
            }
            return "isSignalled \(name) \(signalled)"
        case .sameLoop(let name):
            let other = name == LoopName.current ? engine.currentLoop() : loops[name]
            return "sameLoop \(name) \(other.map { loop.isSameLoop(as: $0) } ?? false)"
        }
    }

    // MARK: Helper threads

    /// Runs `actions` on a new thread once `wait` holds. Waiting is synchronised on loop state (never a sleep): the
    /// thread yields until the condition holds, and gives up, with a `mark` that fails the case, if the steps end
    /// first.
    private func startHelper(wait: ThreadWait, actions: [Action]) {
        helpers.enter()
        let thread = Thread { [self] in
            defer { helpers.leave() }
            if wait == .waiting {
                while !(loop?.isWaiting ?? false) {
                    if lock.withLock({ state.stepsDone }) {
                        record(Trace.mark("thread gave up: the loop never waited"))
                        return
                    }
                    sched_yield()
                }
            }
            for action in actions { perform(action, on: LoopName.here) }
        }
        thread.name = "case helper"
        thread.start()
    }
}
