// The wrappers of the Linux calls the loop waits and wakes with (epoll, eventfd, timerfd, close) and its clock. Each
// kernel API is a caseless enum named after it (grep for the C name finds the wrapper). Every call retries on EINTR,
// reads errno at once, crashes on the errnos that can only mean a bug in this library (EBADF, EFAULT), and throws a
// typed error otherwise. (The thread and process lookups of LoopRegistry and RefRunLoop.isCurrentThread, and fcntl in
// a check of an internal bug, call their C functions directly.)

import CRunLoopSystem

#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: the function and the errno it reported.
public struct SystemCallError: Error, CustomStringConvertible, Sendable {
    public let function: String
    public let errno: Int32

    public var description: String { "\(function) failed: errno \(errno) (\(String(cString: strerror(errno))))" }
}

/// The shared retry/crash policy of every wrapper below.
enum Syscall {
    /// Runs `body` until it does not fail with EINTR. Returns its non-negative result; crashes on errnos that mean a
    /// bug here; throws ``SystemCallError`` for anything else.
    @inline(__always)
    static func call(_ function: StaticString, _ body: () -> Int32) throws(SystemCallError) -> Int32 {
        while true {
            let result = body()
            if result >= 0 { return result }
            try checkFailure(function, errno: csystem_errno())
        }
    }

    /// ``call(_:_:)`` for a call whose first attempt the caller made and saw fail with errno `code` (read at once
    /// after it): the same policy from that errno on.
    @inline(__always)
    static func call(_ function: StaticString, failedWith code: Int32, _ body: () -> Int32) throws(SystemCallError)
        -> Int32
    {
        try checkFailure(function, errno: code)
        return try call(function, body)
    }

    /// The policy for one failure's errno `code`: returns on EINTR (the call is made again), crashes on errnos that
    /// mean a bug here, throws ``SystemCallError`` otherwise.
    @inline(__always)
    private static func checkFailure(_ function: StaticString, errno code: Int32) throws(SystemCallError) {
        switch code {
        case EINTR:
            return
        case EBADF, EFAULT:
            fatalError(
                "internal bug: \(function) failed with errno \(code): a descriptor or buffer of the run loop is wrong")
        default:
            throw SystemCallError(function: "\(function)", errno: code)
        }
    }

    /// For calls that cannot fail on descriptors this library owns: a failure is a bug or resource exhaustion, and a
    /// run loop cannot continue without its kernel objects, so it stops the process with the reason.
    @inline(__always)
    static func mustSucceed(_ function: StaticString, _ body: () -> Int32) -> Int32 {
        do { return try call(function, body) } catch { fatalError("RefRunLoop: \(error)") }
    }
}

/// futex(2), private to the process: the sleeping and waking of ``FutexLock``'s contended paths.
enum Futex {
    /// FUTEX_WAIT_PRIVATE: sleeps while the 32-bit word at `word` holds `expected`, until a ``wakeOne(_:)`` on it. Returns
    /// at once when the word holds another value (EAGAIN), and early on a signal (EINTR) or a spurious wake-up: the
    /// caller looks at the word again in every case.
    static func wait(_ word: UnsafeMutableRawPointer, whileHolding expected: UInt32) {
        if csystem_futex_wait(word, expected) == 0 { return }
        let code = csystem_errno()
        if code != EAGAIN && code != EINTR {
            fatalError("internal bug: futex wait failed with errno \(code)")
        }
    }

    /// FUTEX_WAKE_PRIVATE for one waiter on the word at `word` (none is fine).
    static func wakeOne(_ word: UnsafeMutableRawPointer) {
        if csystem_futex_wake(word, 1) < 0 {
            fatalError("internal bug: futex wake failed with errno \(csystem_errno())")
        }
    }
}

/// eventfd(2): the loop's wake-up counter.
///
/// The wake-up eventfd is registered edge-triggered and never read: each write that finds no wake-up pending is one
/// edge, epoll reports it once, and the loop saves the `read` CoreFoundation pays on every wake.
enum EventFD {
    /// eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK).
    static func create() -> Int32 {
        Syscall.mustSucceed("eventfd") { csystem_eventfd(0) }
    }

    /// eventfd_write(fd, 1). EAGAIN (the counter is at its maximum, after 2^64-2 unread wake-ups) is ignored: the
    /// descriptor is readable already.
    /// Inlined up to the write: a failure, which needs a retry or a diagnosis, is handled out of line.
    @inline(__always)
    static func signal(_ fd: Int32) {
        if csystem_eventfd_signal(fd) == 0 { return }
        signalAfterFailure(fd)
    }

    /// ``signal(_:)`` after its write failed, errno still set: retried on EINTR, done on EAGAIN, fatal otherwise.
    @inline(never)
    private static func signalAfterFailure(_ fd: Int32) {
        do {
            _ = try Syscall.call("eventfd_write", failedWith: csystem_errno()) { csystem_eventfd_signal(fd) }
        } catch  where error.errno == EAGAIN {
            return
        } catch {
            fatalError("RefRunLoop: \(error)")
        }
    }

    /// Reads 8 bytes (the whole counter of a normal eventfd). Returns nil when nothing was readable (EAGAIN).
    static func read(_ fd: Int32) throws(SystemCallError) -> UInt64? {
        var value: UInt64 = 0
        do {
            _ = try Syscall.call("read") { csystem_read_u64(fd, &value) }
            return value
        } catch  where error.errno == EAGAIN {
            return nil
        }
    }
}

/// timerfd(2) on CLOCK_MONOTONIC: the loop's one timer descriptor, armed at the coalesced wake-up time of the running
/// mode's timers. It is registered edge-triggered and never read: re-arming clears its expiry count.
enum TimerFD {
    /// timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK).
    static func create() -> Int32 {
        Syscall.mustSucceed("timerfd_create") { csystem_timerfd_create() }
    }

    /// Arms the timer one-shot at an absolute CLOCK_MONOTONIC time; a time in the past expires at once.
    static func arm(_ fd: Int32, atNanoseconds deadline: UInt64) {
        // 0 would disarm; the monotonic clock is never 0, so 1 ns means "already due".
        _ = Syscall.mustSucceed("timerfd_settime") { csystem_timerfd_set_abs_ns(fd, max(deadline, 1)) }
    }

    /// Disarms the timer, so no stale expiry wakes the loop after its last timer is gone (the fix for catalogue
    /// __CFArmNextTimerInMode 2451-63, CFRunLoop.c at swift-6.3.1-RELEASE).
    static func disarm(_ fd: Int32) {
        _ = Syscall.mustSucceed("timerfd_settime") { csystem_timerfd_set_abs_ns(fd, 0) }
    }
}

/// epoll(7): the loop's wait set.
enum Epoll {
    /// epoll_create1(EPOLL_CLOEXEC).
    static func create() -> Int32 {
        Syscall.mustSucceed("epoll_create1") { csystem_epoll_create() }
    }

    /// EPOLL_CTL_ADD with EPOLLIN | EPOLLET, carrying `token` as the event's data.
    static func add(_ epfd: Int32, fd: Int32, token: UInt64) throws(SystemCallError) {
        _ = try Syscall.call("epoll_ctl(ADD)") { csystem_epoll_add(epfd, fd, token, 1) }
    }

    /// EPOLL_CTL_ADD for a descriptor the caller owns (a version-1 source's): EBADF and EPERM mean the caller gave a
    /// closed or unpollable descriptor, which CF ignores too (__CFPortSetInsert), so they are returned, not fatal.
    static func addForeign(_ epfd: Int32, fd: Int32, token: UInt64) -> Int32 {
        while true {
            if csystem_epoll_add(epfd, fd, token, 1) == 0 { return 0 }
            let code = csystem_errno()
            if code != EINTR { return code }
        }
    }

    /// EPOLL_CTL_DEL. A descriptor the caller already closed is not an error here (the kernel dropped it).
    static func remove(_ epfd: Int32, fd: Int32) {
        let result = csystem_epoll_del(epfd, fd)
        if result < 0 {
            let code = csystem_errno()
            if code == EBADF || code == ENOENT { return }
            fatalError("RefRunLoop: epoll_ctl(DEL) failed: errno \(code)")
        }
    }

    /// Waits for one event (the loop handles one live port per pass, rule order.pass-phases). `timeout` is nil for
    /// "forever" or a relative time in nanoseconds (0 polls). Returns the event's token, or nil on timeout. Inlined
    /// into the wait set's wait, its one caller on a pass.
    @inline(__always)
    static func waitForOne(_ epfd: Int32, timeoutNanoseconds timeout: UInt64?) -> UInt64? {
        var token: UInt64 = 0
        let count = Syscall.mustSucceed("epoll_pwait") {
            csystem_epoll_wait_one(epfd, &token, timeout.map { Int64(min($0, UInt64(Int64.max))) } ?? -1)
        }
        #if DEBUG
        ThreadProbe.current?.noteWait(timeoutNanoseconds: timeout, reportedNothing: count == 0)
        #endif
        return count > 0 ? token : nil
    }
}

/// close(2) for descriptors this library created.
enum Descriptor {
    static func close(_ fd: Int32) {
        // No retry on EINTR: on Linux the descriptor is released even then.
        _ = Glibc.close(fd)
    }
}

/// The clock every deadline uses: CLOCK_MONOTONIC, so wall-clock jumps never move a timer.
public enum RefClock {
    /// Seconds on CLOCK_MONOTONIC. Timer fire dates, ``RefRunLoopTimer/nextFireDate`` and run timeouts use it.
    public static var now: Double { Double(nanoseconds) / 1e9 }

    /// Nanoseconds on CLOCK_MONOTONIC (in a debug build, a test's clock on a thread that has one: ThreadProbes.swift).
    @inline(__always)
    public static var nanoseconds: UInt64 {
        #if DEBUG
        if let probe = ThreadProbe.current, let reading = probe.readClock() { return reading }
        #endif
        return csystem_monotonic_ns()
    }

    /// CF's TIMER_DATE_LIMIT: fire dates above it are clamped to it.
    static let dateLimit = 4039289856.0
    /// CF's TIMER_INTERVAL_LIMIT (about 16 years): longer intervals and timeouts are clamped or treated as infinite.
    static let intervalLimit = 504911232.0

    /// Converts seconds to nanoseconds, rounding up so that a deadline is never earlier than the date it stands for.
    @inline(__always)
    static func nanoseconds(fromSeconds seconds: Double) -> UInt64 {
        guard seconds > 0 else { return 0 }
        let value = (seconds * 1e9).rounded(.up)
        return value >= 1.8e19 ? UInt64.max : UInt64(value)
    }

    /// The deadline of a fire date as CF computes it (CFRunLoopTimerCreate, SetNextFireDate): a date in the past
    /// becomes "now", a date beyond the interval limit becomes now + the limit.
    static func deadline(forFireDate fireDate: Double) -> UInt64 {
        let nowNanos = nanoseconds
        let now = Double(nowNanos) / 1e9
        let date = fireDate.isNaN ? dateLimit : min(fireDate, dateLimit)
        if date < now { return nowNanos }
        if date - now > intervalLimit { return nowNanos &+ nanoseconds(fromSeconds: intervalLimit) }
        return max(nanoseconds(fromSeconds: date), nowNanos)
    }
}
