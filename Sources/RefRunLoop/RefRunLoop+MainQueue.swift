// The main loop and the main dispatch queue. CF's main loop services libdispatch's main queue through the hooks
// libdispatch exports for it (rule main.queue-serviced): in a run on the main thread, of the main loop, in a common
// mode, and not inside a main-queue callout, the queue's eventfd joins the mode's wait set for each wait, a pass that
// finds it readable at its top services it without waiting (except right after a pass that serviced it), and the
// mode is never empty (rule main.common-mode-never-empty). Servicing it counts as handling a source. (__CFRunLoopRun
// 2946-49, 3036-58, 3070, 3127, 3219-40; __CFRunLoopModeIsEmpty 1170-73; CFRunLoop.c at swift-6.3.1-RELEASE.)

import CRunLoopSystem

extension RefRunLoop {
    /// Whether a run of this loop in `mode` services the main dispatch queue, and the mode counts as non-empty: CF's
    /// `libdispatchQSafe && CFRunLoopGetMain() == rl && the mode is common`. Runs happen on the loop's own thread
    /// only, so "on the main thread" is "this is the main loop". Caller holds `lock`; loop thread.
    func servesMainQueueLocked(_ mode: LoopMode) -> Bool {
        lock.assertHeld()
        return isMain && !servicingMainQueue && commonModes.contains(mode.name)
    }

    /// The main queue's eventfd for a run in `mode` (CF's `dispatchPort`, fixed for the run when it starts), or -1.
    /// Loop thread.
    func mainQueueDescriptor(for mode: LoopMode) -> Int32 {
        guard isMain, lock.withLock({ servesMainQueueLocked(mode) }) else { return -1 }
        return MainQueue.descriptor
    }

    /// Step f of a pass, the main-queue fast path: whether the queue's eventfd is readable now (then its count is
    /// read, as CF's __CFRunLoopServiceFileDescriptors does). Loop thread.
    func mainQueueReadyNow(_ fd: Int32) -> Bool {
        guard csystem_poll_readable(fd) == 1 else { return false }
        let drained: UInt64?
        do { drained = try EventFD.read(fd) } catch { drained = nil }
        return drained != nil
    }

    /// Step k for the main queue: runs the blocks queued on it so far (libdispatch's drain), with the main-queue
    /// exception off meanwhile, so that a run nested in one of them neither services the queue nor counts it (rule
    /// main.nested-in-queue-callout). Loop thread (the main thread); no lock held.
    func serviceMainQueue() {
        servicingMainQueue = true
        csystem_main_queue_callback()
        servicingMainQueue = false
    }
}

/// libdispatch's main queue as the main loop sees it.
enum MainQueue {
    /// The queue's eventfd, created by libdispatch on first request. Asked for only from the main thread (by a run of
    /// the main loop), as CF does.
    static let descriptor: Int32 = csystem_main_queue_handle()
}
