// The host thread of a case's second loop (format 1.1, `loops:`): a thread that asks the engine for its own loop
// (CFRunLoopGetCurrent) and then performs the action lists posted to it, in order, until the case ends.

import CRunLoopSystem
import EngineKit
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One helper loop of a case and the thread that owns it.
///
/// Thread safety: everything mutable is in `state`, protected by `condition` (an NSCondition, which is also the lock
/// the waits below sleep on). The host thread performs posted actions with the lock released, so a callout that
/// posts or joins cannot deadlock on it. Every wait has a deadline.
final class LoopHost: @unchecked Sendable {
    let name: String
    private let condition = NSCondition()
    /// Protected by `condition`.
    private var state = State()

    private struct State {
        /// The host thread's loop, once it has asked for it.
        var loop: (any EngineLoop)?
        /// The host thread, once started: callouts on it address this loop.
        var thread: pthread_t?
        /// Action lists posted and not yet taken.
        var queue: [[Action]] = []
        /// How many lists were posted, and how many the host has finished performing.
        var posted = 0
        var done = 0
        /// Set when the case's steps are done: the host finishes its queue, then ends.
        var finishing = false
        var ended = false
        /// Set once the thread has been joined (true) or detached (false): it must be one of the two, once.
        var joined: Bool?
    }

    /// The host thread, written by `start` before any other member is called; read by `exit` and `release`, which
    /// only the case thread calls.
    private var pthread: pthread_t?

    /// The body of a thread made with pthread_create (so that the case thread can join it: ``exit(deadline:)``).
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    init(name: String) {
        self.name = name
    }

    /// Starts the host thread: it calls `engine.currentLoop()` (a loop of its own), then performs each posted list
    /// with `perform`. Returns the loop, or nil if the thread did not report it before `deadline`. The thread ends
    /// when told to (``finish(deadline:)``) or, at the latest, at `lifetime`, leaving what is still queued.
    func start(
        engine: any RunLoopEngine, deadline: Date, lifetime: Date,
        perform: @escaping @Sendable (_ actions: [Action]) -> Void
    ) -> (any EngineLoop)? {
        let body = Body { [self] in
            let loop = engine.currentLoop()
            condition.withLock {
                state.loop = loop
                state.thread = pthread_self()
                condition.broadcast()
            }
            serve(perform, lifetime: lifetime)
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(body).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        guard created == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        pthread = thread
        return condition.withLock {
            while state.loop == nil {
                if !condition.wait(until: deadline) { break }
            }
            return state.loop
        }
    }

    private func serve(_ perform: @Sendable ([Action]) -> Void, lifetime: Date) {
        while true {
            let next: [Action]? = condition.withLock {
                // The case thread finishes every host when its steps are done; `lifetime` bounds the wait for a case
                // thread that never gets there (the runner's watchdog has given up on it by then).
                while state.queue.isEmpty && !state.finishing {
                    if !condition.wait(until: lifetime) { return nil }
                }
                return state.queue.isEmpty ? nil : state.queue.removeFirst()
            }
            guard let next else { break }
            perform(next)
            condition.withLock {
                state.done += 1
                condition.broadcast()
            }
        }
        condition.withLock {
            state.ended = true
            condition.broadcast()
        }
    }

    /// Whether the calling thread is this host's thread.
    var isCurrentThread: Bool {
        condition.withLock { state.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Hands `actions` to the host thread; returns at once.
    func post(_ actions: [Action]) {
        condition.withLock {
            state.queue.append(actions)
            state.posted += 1
            condition.broadcast()
        }
    }

    /// Waits until everything posted so far has been performed, or `deadline`. Returns whether it was.
    func join(deadline: Date) -> Bool {
        condition.withLock {
            let target = state.posted
            while state.done < target {
                if !condition.wait(until: deadline) { return state.done >= target }
            }
            return true
        }
    }

    /// Whether the host has been told to end (``finish(deadline:)``, ``exit(deadline:)``).
    var isFinishing: Bool { condition.withLock { state.finishing } }

    /// Tells the host to end once its queue is empty and waits, until `deadline`, for it to. Returns whether it did.
    /// The thread may still be exiting (the engine's thread-exit teardown runs after this); see ``exit(deadline:)``.
    func finish(deadline: Date) -> Bool {
        condition.withLock {
            state.finishing = true
            condition.broadcast()
            while !state.ended {
                if !condition.wait(until: deadline) { return state.ended }
            }
            return true
        }
    }

    /// Ends the host (as ``finish(deadline:)``) and waits, until `deadline`, for its thread to have exited: what the
    /// engine does at thread exit (CF tears the thread's loop down) is then done. Returns whether it was.
    func exit(deadline: Date) -> Bool {
        guard finish(deadline: deadline) else { return false }
        return release(deadline: deadline)
    }

    /// Joins the host thread by `deadline`, or detaches it if it has not exited by then; later calls return whether
    /// the first one joined. Call after ``finish(deadline:)``, on the case thread only.
    @discardableResult
    func release(deadline: Date) -> Bool {
        guard let thread = pthread else { return true }
        if let joined = condition.withLock({ state.joined }) { return joined }
        // pthread_timedjoin_np measures against CLOCK_REALTIME, as Date does.
        let joined = csystem_pthread_timedjoin(thread, deadline.timeIntervalSince1970) == 0
        if !joined { pthread_detach(thread) }
        condition.withLock { state.joined = joined }
        return joined
    }
}
