// A program of another package that depends on RunLoopSuite's RefRunLoop product by version (scripts/consumer-check.sh
// builds it): a one-shot timer already due fires in the first pass of the default mode and stops the loop from its
// callout. (The mode does not become empty when the timer is gone: this is the main thread's loop, whose common modes
// hold the main queue.) It exits 0 when the timer fired once and the run returned "stopped", 1 otherwise.
import Glibc
import RefRunLoop
import Synchronization

let fired = Atomic<Int>(0)
let loop = RefRunLoop.current
let timer = RefRunLoopTimer(fireDate: RefClock.now - 1) { _ in
    fired.add(1, ordering: .relaxed)
    RefRunLoop.current.stop()
}
loop.add(timer, mode: .default)
let result = loop.run(mode: .default, seconds: 10, returnAfterSourceHandled: false)
let count = fired.load(ordering: .relaxed)
print("consumer: the timer fired \(count) time(s); the run returned \(result)")
exit(count == 1 && result == .stopped ? 0 : 1)
