// SIGINT and SIGTERM during `runloop bench`: noted, not acted on where they arrive. The thread that waits for a child
// sees the note on its next poll (ChildProcess), ends the child's process group, and the run writes what it has.
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether the run was asked to stop, and by which signal.
public final class Interruption: @unchecked Sendable {
    /// Protects `received`: the signal thread writes it, the run's thread reads it.
    private let lock = NSLock()
    /// The first signal received, if any (protected by `lock`).
    private var received: Int32?
    /// The signals noted.
    static let signals = [SIGINT, SIGTERM]

    public init() {}

    /// From now on SIGINT and SIGTERM are noted here instead of ending the process: they are blocked in the calling
    /// thread (call it before any other thread starts: threads inherit the mask) and taken by a thread of their own
    /// with `sigtimedwait`, a second at a time. ChildProcess unblocks them in every child.
    public func install() {
        var set = sigset_t()
        sigemptyset(&set)
        for number in Interruption.signals { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let watched = set
        let thread = Thread { [weak self] in
            var set = watched
            var second = timespec(tv_sec: 1, tv_nsec: 0)
            while self != nil {
                let number = sigtimedwait(&set, nil, &second)
                if number > 0 { self?.note(number) }
            }
        }
        thread.name = "runloop-bench-signals"
        thread.start()
    }

    /// Records `signal` (the first one counts).
    public func note(_ signal: Int32) {
        lock.withLock {
            if received == nil { received = signal }
        }
    }

    /// The signal that interrupted the run, if one did.
    public var signal: Int32? { lock.withLock { received } }

    /// Whether the run was interrupted.
    public var isSet: Bool { signal != nil }
}
