// The main loop away from the main thread. Servicing the main dispatch queue needs the process's main thread, which
// the test process keeps for itself: the conformance cases of 140-main.yaml check it, on ref too, in worker processes
// (ShippedSpecTests). Here: which loop is the main one, and that nothing of the main-thread exception leaks into
// another thread's loop.

import Testing

@testable import RefRunLoop

@Suite("Main loop")
struct MainLoopTests {
    @Test func onlyTheMainLoopIsMain() {
        let (freshIsMain, mainIsMain, sameMain, freshIsNotMain) = onFreshLoopThread { loop in
            (loop.isMain, RefRunLoop.main.isMain, RefRunLoop.main === RefRunLoop.main, loop !== RefRunLoop.main)
        }
        #expect(!freshIsMain)
        #expect(mainIsMain)
        #expect(sameMain)
        #expect(freshIsNotMain)
    }

    @Test func anotherThreadsDefaultModeIsEmpty() {
        // On the main loop, on the main thread, the default mode would stand for the main queue and a run would poll
        // (rule main.common-mode-never-empty); on any other loop it is empty, and the run finishes at once.
        let (result, descriptor) = onFreshLoopThread { loop in
            let frameDescriptor = loop.mainQueueDescriptor(
                for: loop.lock.withLock { loop.modes[RefRunLoopMode.defaultModeName]! })
            return (loop.run(mode: .default, seconds: 0, returnAfterSourceHandled: false), frameDescriptor)
        }
        #expect(result == .finished)
        #expect(descriptor == -1)
    }
}
