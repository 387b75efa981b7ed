// The process's main thread as a place to run main-thread cases (feature mainThread): a worker keeps its main thread
// here, idle on a condition variable, while the case-id protocol runs on another thread (WorkerService.swift).
//
// Idle means blocked in pthread_cond_wait: the main thread neither runs a loop nor drains the main dispatch queue
// between cases, so a block sent to the main queue runs only when a case's main loop services it.

import Foundation

/// Runs closures on the thread that called ``serve()`` (a worker's main thread), one at a time.
///
/// Thread safety: `jobs` and `finished` are protected by `condition` (an NSCondition, i.e. a pthread mutex and
/// condition variable).
public final class MainThreadExecutor: @unchecked Sendable {
    private let condition = NSCondition()
    /// Protected by `condition`.
    private var jobs: [() -> Void] = []
    /// Protected by `condition`.
    private var finished = false

    public init() {}

    /// Runs jobs on the calling thread as they come, until ``finish()`` is called and the jobs queued before it have
    /// run. Call it on the main thread.
    public func serve() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }

    /// Makes ``serve()`` return once the queued jobs have run. Any thread.
    public func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Runs `body` on the serving thread and returns when it has returned. No deadline here: a worker's runner holds
    /// the watchdog and ends the whole process when a case overruns. Not from the serving thread itself.
    func run(_ body: @escaping () -> Void) {
        let done = DispatchSemaphore(value: 0)
        condition.lock()
        jobs.append {
            body()
            done.signal()
        }
        condition.signal()
        condition.unlock()
        done.wait()
    }
}
