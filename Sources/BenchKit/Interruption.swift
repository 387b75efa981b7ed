// SIGINT and SIGTERM during `runloop bench`: noted, not acted on in the handler. The process that waits for a child
// sees the note on its next poll (ChildProcess), ends the child's process group, and the run writes what it has.
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether the run was asked to stop, and by which signal.
public final class Interruption: @unchecked Sendable {
    /// Protects `received` and `sources`: the signal sources' handlers run on `queue`, the run's thread reads.
    private let lock = NSLock()
    /// The first signal received, if any (protected by `lock`).
    private var received: Int32?
    /// The installed signal sources, kept alive (protected by `lock`).
    private var sources: [DispatchSourceSignal] = []
    /// Where the signal handlers run.
    private let queue = DispatchQueue(label: "runloop.bench.signals")

    public init() {}

    /// From now on SIGINT and SIGTERM are noted here instead of ending the process. Their default action is turned
    /// off (SIG_IGN) so that the dispatch sources see them; ChildProcess restores the default in every child.
    public func install() {
        let installed = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            _ = Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.note(number) }
            source.resume()
            return source
        }
        lock.withLock { sources += installed }
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
