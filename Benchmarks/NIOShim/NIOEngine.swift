// Engine `nio`: SwiftNIO's SelectableEventLoop, the loop of MultiThreadedEventLoopGroup(numberOfThreads: 1), behind
// bench_engine.h. The table is Benchmarks/Shims/engine_nio.c; these are its functions, exported with @_cdecl as
// Sources/RefRunLoop/CABI.swift exports ref's C ABI. Opaque C pointers are Unmanaged Swift objects, retained once by
// their _add or _create function and released by _remove or _destroy.
//
// - The loop runs on the thread the group starts (NIO's own), not on the thread that called `create`: that thread
//   reaches it through NIO's thread-safe calls (bench_engine.h: the threading contract). At `create` the loop's
//   thread takes the creating thread's CPU affinity, so it is pinned where every other engine's loop thread is.
// - Sources: a trigger is `EventLoop.execute` of the source's callout (NIO's task queue, under its lock, and its own
//   eventfd wake-up when the loop sleeps). Triggers never coalesce.
// - Timers: `scheduleTask(deadline:)`, re-scheduled from the callout for the harness's next date. NIODeadline is
//   CLOCK_MONOTONIC nanoseconds on Linux (NIODeadline.timeNow), the harness's clock, so a date converts exactly. No
//   tolerance: NIO has none (the tolerance is ignored). `scheduleRepeatedTask` is not used: its delay runs from the end
//   of one run to the start of the next, so the phase drifts, unlike the harness's schedule.
// - Observers and the lag monitor's activity observer: none (engine_nio.c says why).
// - Resident hand-off: `execute` per item (one task per item, NIO's own queue; no batches the shim can count).
// - Wake-ups (`wakeups`, when the loop is created with BENCH_COUNT_WAKEUPS): the loop's ticks, from the group's
//   NIOEventLoopMetricsDelegate (one per return from its epoll wait, blocking or not), counted with a relaxed atomic.
//   `loop_switches` and `loop_cpu_ns`: the loop thread's kernel figures (getrusage on it, /proc and its CPU clock
//   elsewhere).
// - run and stop: NIO's loop runs from `create` to `destroy`; `run` blocks the calling thread until `stop`, and the
//   shim holds back the callouts outside `run`, as a loop that is not running does not call out: a timer due before
//   `run` fires when `run` starts (or at a `poll_once`), and when `run` returns no callout runs any more (the gate is
//   the loop thread's own flag, closed by a task `run` waits for). poll_once: a task the caller waits for, which runs
//   the held-back callouts (one pass of the loop, no wait).
import BenchShims
import Glibc
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Synchronization

/// Counts the loop's ticks (the metrics delegate runs on the loop thread after each).
final class TickCounter: NIOEventLoopMetricsDelegate {
    let ticks = Atomic<UInt64>(0)
    func processedTick(info: NIOEventLoopTickInfo) { ticks.add(1, ordering: .relaxed) }
}

/// A C pointer carried into a task: the harness's contexts and items, used on the loop thread only.
struct CPointer: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer?
}

final class NIOBenchLoop: @unchecked Sendable {
    let group: MultiThreadedEventLoopGroup
    let loop: EventLoop
    let ticks: TickCounter?
    /// 1 once `stop` was asked, 0 otherwise: `run` waits for 1.
    let stopRequested = ConditionLock<Int>(value: 0)
    /// The loop thread's kernel id and CPU clock, set by a task `create` waits for, read-only afterwards.
    private(set) var threadID: pid_t = 0
    private(set) var cpuClock = clockid_t()
    /// Confined to the loop thread: whether callouts may run, and the ones held back while they may not.
    private var open = false
    private var heldBack: [() -> Void] = []

    init(counting: Bool, cpus: bench_cpu_mask) throws {
        let ticks = counting ? TickCounter() : nil
        self.ticks = ticks
        self.group =
            ticks.map { MultiThreadedEventLoopGroup(numberOfThreads: 1, metricsDelegate: $0) }
            ?? MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.loop = group.next()
        let pin = CPUMask(value: cpus)
        let (id, clock) = try loop.submit { () -> (pid_t, clockid_t) in
            var cpus = pin.value
            bench_thread_set_affinity(&cpus)
            var clock = clockid_t()
            _ = pthread_getcpuclockid(pthread_self(), &clock)
            return (pid_t(bench_thread_id()), clock)
        }.wait()
        threadID = id
        cpuClock = clock
    }

    /// Whether callouts may run now. Loop thread.
    var isOpen: Bool { open }

    /// Keeps a callout for when the gate next opens (or the next poll). Loop thread.
    func holdBack(_ callout: @escaping () -> Void) { heldBack.append(callout) }

    /// Opens the gate (and runs what it held back) or closes it. Loop thread.
    func setOpen(_ value: Bool) {
        open = value
        guard value else { return }
        while !heldBack.isEmpty && open {
            let pending = heldBack
            heldBack = []
            for callout in pending { callout() }
        }
    }

    /// Runs the held-back callouts once, leaving the gate as it was. Loop thread.
    func runHeldBack() {
        let wasOpen = open
        setOpen(true)
        open = wasOpen
    }
}

struct CPUMask: @unchecked Sendable {
    let value: bench_cpu_mask
}

final class NIOBenchItem: @unchecked Sendable {
    unowned let owner: NIOBenchLoop
    let callout: bench_callout
    let context: CPointer
    /// Timers: the scheduled task; set by `timer_add` (the creating thread) and by `timer_set_next` (the loop thread,
    /// from the callout), cancelled by `timer_remove`: protected by its own lock.
    let scheduled = Mutex<Scheduled<Void>?>(nil)

    init(owner: NIOBenchLoop, callout: bench_callout, context: UnsafeMutableRawPointer?) {
        self.owner = owner
        self.callout = callout
        self.context = CPointer(raw: context)
    }

    /// Set by `_remove` (the creating thread, or a callout): a held-back callout of a removed item is dropped.
    let removed = Atomic<Bool>(false)

    func call() { callout(context.raw) }

    /// Calls out now if the loop's gate is open, else holds the call back. Loop thread.
    func callOut() {
        if owner.isOpen {
            call()
        } else {
            owner.holdBack { [self] in if !removed.load(ordering: .acquiring) { call() } }
        }
    }

    /// Schedules the next fire at `dueNanoseconds` (CLOCK_MONOTONIC). Any thread.
    func schedule(at dueNanoseconds: UInt64) {
        let task = owner.loop.scheduleTask(deadline: .uptimeNanoseconds(dueNanoseconds)) { [self] in
            scheduled.withLock { $0 = nil }  // fired: nothing left to cancel
            callOut()
        }
        scheduled.withLock { $0 = task }
    }
}

final class NIOBenchChannel: @unchecked Sendable {
    let callout: bench_item_callout
    let context: CPointer
    init(callout: bench_item_callout, context: UnsafeMutableRawPointer?) {
        self.callout = callout
        self.context = CPointer(raw: context)
    }
}

@inline(__always)
private func unretained<T: AnyObject>(_ pointer: OpaquePointer?, as type: T.Type) -> T {
    Unmanaged<T>.fromOpaque(UnsafeRawPointer(pointer!)).takeUnretainedValue()
}

@inline(__always)
private func retained(_ object: AnyObject) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(object).toOpaque())
}

@inline(__always)
private func release<T: AnyObject>(_ pointer: OpaquePointer?, as type: T.Type) {
    Unmanaged<T>.fromOpaque(UnsafeRawPointer(pointer!)).release()
}

// MARK: the loop

/// A new loop, or nil if NIO's loop did not start (engine_nio.c gives the reason).
@_cdecl("nio_shim_create")
public func nioShimCreate(_ flags: UInt32) -> OpaquePointer? {
    var cpus = bench_cpu_mask()
    bench_thread_affinity(&cpus)
    return (try? NIOBenchLoop(counting: flags & UInt32(BENCH_COUNT_WAKEUPS) != 0, cpus: cpus)).map { retained($0) }
}

@_cdecl("nio_shim_destroy")
public func nioShimDestroy(_ loop: OpaquePointer?) {
    let owner = unretained(loop, as: NIOBenchLoop.self)
    try? owner.group.syncShutdownGracefully()
    release(loop, as: NIOBenchLoop.self)
}

@_cdecl("nio_shim_run")
public func nioShimRun(_ loop: OpaquePointer?) {
    let owner = unretained(loop, as: NIOBenchLoop.self)
    owner.loop.execute { owner.setOpen(true) }
    owner.stopRequested.lock(whenValue: 1)
    owner.stopRequested.unlock(withValue: 0)
    // After this task has run, the loop thread calls nothing of the harness's until the next run or poll.
    try? owner.loop.submit { owner.setOpen(false) }.wait()
}

@_cdecl("nio_shim_stop")
public func nioShimStop(_ loop: OpaquePointer?) {
    let owner = unretained(loop, as: NIOBenchLoop.self)
    owner.stopRequested.lock()
    owner.stopRequested.unlock(withValue: 1)
}

@_cdecl("nio_shim_poll_once")
public func nioShimPollOnce(_ loop: OpaquePointer?) {
    let owner = unretained(loop, as: NIOBenchLoop.self)
    try? owner.loop.submit { owner.runHeldBack() }.wait()
}

@_cdecl("nio_shim_wakeups")
public func nioShimWakeups(_ loop: OpaquePointer?) -> UInt64 {
    unretained(loop, as: NIOBenchLoop.self).ticks?.ticks.load(ordering: .relaxed) ?? 0
}

@_cdecl("nio_shim_loop_switches")
public func nioShimLoopSwitches(_ loop: OpaquePointer?) -> UInt64 {
    let owner = unretained(loop, as: NIOBenchLoop.self)
    return owner.loop.inEventLoop ? bench_thread_switches() : bench_thread_switches_of(Int32(owner.threadID))
}

@_cdecl("nio_shim_loop_cpu_ns")
public func nioShimLoopCPUNanoseconds(_ loop: OpaquePointer?) -> UInt64 {
    let owner = unretained(loop, as: NIOBenchLoop.self)
    var now = timespec()
    guard clock_gettime(owner.cpuClock, &now) == 0 else { return 0 }
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

// MARK: sources

@_cdecl("nio_shim_source_add")
public func nioShimSourceAdd(
    _ loop: OpaquePointer?, _ callout: bench_callout?,
    _ context: UnsafeMutableRawPointer?
) -> OpaquePointer? {
    retained(NIOBenchItem(owner: unretained(loop, as: NIOBenchLoop.self), callout: callout!, context: context))
}

@_cdecl("nio_shim_source_signal")
public func nioShimSourceSignal(_ loop: OpaquePointer?, _ source: OpaquePointer?) {
    let item = unretained(source, as: NIOBenchItem.self)
    item.owner.loop.execute { item.callOut() }
}

@_cdecl("nio_shim_source_remove")
public func nioShimSourceRemove(_ loop: OpaquePointer?, _ source: OpaquePointer?) {
    unretained(source, as: NIOBenchItem.self).removed.store(true, ordering: .releasing)
    release(source, as: NIOBenchItem.self)  // a trigger still queued holds its own reference
}

// MARK: timers

@_cdecl("nio_shim_timer_add")
public func nioShimTimerAdd(
    _ loop: OpaquePointer?, _ due: UInt64, _ interval: UInt64, _ tolerance: UInt64,
    _ callout: bench_callout?, _ context: UnsafeMutableRawPointer?
) -> OpaquePointer? {
    let item = NIOBenchItem(owner: unretained(loop, as: NIOBenchLoop.self), callout: callout!, context: context)
    item.schedule(at: due)  // interval: the harness re-arms from the callout; tolerance: NIO has none
    return retained(item)
}

@_cdecl("nio_shim_timer_set_next")
public func nioShimTimerSetNext(_ loop: OpaquePointer?, _ timer: OpaquePointer?, _ due: UInt64) {
    let item = unretained(timer, as: NIOBenchItem.self)
    item.scheduled.withLock { $0?.cancel() }  // nil when called from the timer's own fire
    item.schedule(at: due)
}

@_cdecl("nio_shim_timer_remove")
public func nioShimTimerRemove(_ loop: OpaquePointer?, _ timer: OpaquePointer?) {
    let item = unretained(timer, as: NIOBenchItem.self)
    item.removed.store(true, ordering: .releasing)
    item.scheduled.withLock {
        $0?.cancel()
        $0 = nil
    }
    release(timer, as: NIOBenchItem.self)  // a fire already queued holds its own reference
}

// MARK: resident-thread hand-off

@_cdecl("nio_shim_channel_add")
public func nioShimChannelAdd(
    _ loop: OpaquePointer?, _ callout: bench_item_callout?,
    _ context: UnsafeMutableRawPointer?
) -> OpaquePointer? {
    retained(NIOBenchChannel(callout: callout!, context: context))
}

@_cdecl("nio_shim_channel_post")
public func nioShimChannelPost(_ loop: OpaquePointer?, _ channel: OpaquePointer?, _ item: UnsafeMutableRawPointer?) {
    let owner = unretained(loop, as: NIOBenchLoop.self)
    let channel = unretained(channel, as: NIOBenchChannel.self)
    let posted = CPointer(raw: item)
    owner.loop.execute {
        if owner.isOpen {
            channel.callout(channel.context.raw, posted.raw)
        } else {
            owner.holdBack { channel.callout(channel.context.raw, posted.raw) }
        }
    }
}

@_cdecl("nio_shim_channel_remove")
public func nioShimChannelRemove(_ loop: OpaquePointer?, _ channel: OpaquePointer?) {
    release(channel, as: NIOBenchChannel.self)
}
