// The thread a case runs on: a fresh POSIX thread with a large stack, joined rather than signalled, so that what an
// engine does at thread exit (CF releases the thread's loop in a thread-specific-data destructor) belongs to the case
// that created the loop and not to whatever runs next.

import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// One case's thread. Start it once; then join it, with or without a deadline.
final class CaseThread: @unchecked Sendable {
    /// Nested runs recurse through callouts, several frames of engine code per level.
    static let stackSize = 8 << 20

    // Written by `start` on the starting thread before any other member is used; read-only afterwards.
    private var thread = pthread_t()
    /// Signalled by the thread when its body has returned (its thread-exit destructors are still to come).
    private let bodyReturned = DispatchSemaphore(value: 0)

    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new thread. Returns false (and runs nothing) when the thread cannot be created.
    func start(_ body: @escaping () -> Void) -> Bool {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, Self.stackSize)
        let box = Unmanaged.passRetained(
            Box { [bodyReturned] in
                body()
                bodyReturned.signal()
            }
        ).toOpaque()
        let created = pthread_create(
            &thread, &attributes,
            { argument in
                let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
                box.body()
                return nil
            }, box)
        if created != 0 {
            Unmanaged<Box>.fromOpaque(box).release()
            return false
        }
        return true
    }

    /// Waits until the thread has exited, its thread-exit destructors included.
    func join() {
        pthread_join(thread, nil)
    }

    /// Waits until the thread's body has returned, then until the thread has exited, or until `seconds` have passed.
    /// True if it exited; false leaves it running (it can be neither killed nor joined later: only the in-process
    /// runner does this, and says so in its report).
    func join(seconds: Double) -> Bool {
        guard bodyReturned.wait(timeout: .now() + min(seconds, 1e6)) == .success else { return false }
        pthread_join(thread, nil)
        return true
    }
}
