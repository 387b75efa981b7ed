// One loop per thread, created on first use and torn down when the thread exits; the main thread's loop is reachable
// from any thread and never torn down (as CF: __CFFinalizeRunLoop 1797-1838, CFRunLoop.c at swift-6.3.1-RELEASE).

import CRunLoopSystem

#if canImport(Glibc)
import Glibc
#endif

extension RefRunLoop {
    /// The calling thread's loop, created on first use (CFRunLoopGetCurrent). O(1) after the first call.
    public static var current: RefRunLoop { LoopRegistry.current() }

    /// The main thread's loop (CFRunLoopGetMain), from any thread. The main thread is the one whose kernel thread id
    /// is the process id.
    public static var main: RefRunLoop { LoopRegistry.main() }

    /// Thread exit: remove every source (with cancel callouts), detach timers and observers (they stay valid), drop
    /// pending blocks, close the descriptors (as CF: __CFFinalizeRunLoop 1797-1838, __CFRunLoopDeallocate 1572-1632,
    /// CFRunLoop.c at swift-6.3.1-RELEASE). Runs on the exiting thread.
    func tearDown() {
        var callouts: [() -> Void] = []
        var detachedTimers: [RefRunLoopTimer] = []
        var detachedObservers: [RefRunLoopObserver] = []
        lock.withLock {
            guard lifecycle == .open else { return }
            // Every mode's sources, held until all have left: a source's first leaving takes it out of every mode of
            // the loop and may let go of its places' reference, while the other modes' lists still name it.
            let listed = modes.values.map { mode in (mode, mode.sources.elements.map { $0.takeUnretainedValue() }) }
            for (mode, sources) in listed {
                for source in sources {
                    source.leaveEveryModeLocked(of: self)
                    if let cancel = source.cancelCallout {
                        let name = mode.name
                        callouts.append { cancel(name) }
                    }
                }
                mode.sources = SlotArray()
                mode.sourcesByDescriptor = [:]
            }
            for mode in modes.values {
                detachedTimers.append(contentsOf: mode.timers.removeAll().map(\.payload))
                // Held until each is unbound below: its places' reference may be the only one.
                detachedObservers.append(contentsOf: mode.observers.elementsInOrder().map { $0.takeUnretainedValue() })
                mode.observers = OrderedStore()
                mode.observersChanged()
            }
            for timer in detachedTimers {
                timer.state.withLocked { state in
                    state.entries = []
                    state.binding.unbind()
                }
            }
            // An observer in several modes is listed once per mode.
            for observer in detachedObservers where observer.binding.isBound(to: self) {
                observer.places = []
                observer.adjustHold(observer.binding.unbind(from: self))
            }
            commonItems = [:]
            blocks = []
            withSignalledLocked { $0.removeAll() }
            lifecycle = .closed
            exitConditionsChangedLocked()
            closeModeDescriptors()
        }
        for callout in callouts { callout() }
    }
}

/// The per-thread loops.
enum LoopRegistry {
    /// Guards `mainLoop`'s creation.
    private static let lock = Lock("LoopRegistry.lock")
    /// Held by a thread that reads an observer's binding to retain the loop in it
    /// (``SharedLoopBinding/retainedLoop()``), and acquired and released by an exiting thread between its loop's
    /// teardown and the release of the registry's reference: no reader can then be between reading the loop from a
    /// binding and retaining it. Protects nothing else; taken with no other lock held.
    static let retirement = Lock("LoopRegistry.retirement")
    /// Protected by `lock`.
    nonisolated(unsafe) private static var mainLoop: RefRunLoop?
    /// The thread-specific key holding each thread's loop (retained), with a destructor that tears it down.
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            let loop = Unmanaged<RefRunLoop>.fromOpaque(pointer).takeRetainedValue()
            guard loop !== LoopRegistry.mainIfCreated() else { return }
            // The registry's reference is let go only after the retirement lock below, never earlier where the
            // optimizer could otherwise end the reference's lifetime after its last use.
            withExtendedLifetime(loop) {
                loop.tearDown()
                // Every observer is unbound now; wait out any reader still retaining the loop from a binding read
                // before.
                LoopRegistry.retirement.withLock {}
            }
        }
        precondition(result == 0, "pthread_key_create failed: \(result)")
        return key
    }()

    /// The calling thread's loop, nil if it never asked for one.
    @inline(__always)
    static func registered() -> UnsafeMutableRawPointer? { pthread_getspecific(key) }

    static func current() -> RefRunLoop {
        if let pointer = registered() {
            return Unmanaged<RefRunLoop>.fromOpaque(pointer).takeUnretainedValue()
        }
        let loop = csystem_gettid() == getpid() ? main() : RefRunLoop()
        pthread_setspecific(key, Unmanaged.passRetained(loop).toOpaque())
        return loop
    }

    static func main() -> RefRunLoop {
        lock.withLock {
            if let mainLoop { return mainLoop }
            let loop = RefRunLoop(isMain: true)
            mainLoop = loop
            return loop
        }
    }

    static func mainIfCreated() -> RefRunLoop? { lock.withLock { mainLoop } }
}
