// The wait policy: whether the loop's thread sleeps in its wait at once (park, CF's behaviour and the default) or first
// spins for a moment, polling the wake-up gate, when wake-ups have been arriving (spin-then-park). A hand-off from
// another CPU that lands during the spin then costs a cache-line transfer instead of a kernel wake-up of a sleeping
// thread (on a virtual machine, the hypervisor's wake-up of a halted vCPU as well). The spin itself is
// ``WaitSet/spin(_:until:)``; where it sits in the pass is
// ``RefRunLoop/waitForLivePort(_:in:poll:afterHandledSource:)``.
// Apart from the policy, and with either, while work keeps being handed over from another CPU the loop holds the poll
// that follows a handled source for a moment (``RefRunLoop/handOffHold``), so that the hand-offs gather into batches
// and the loop stays awake between them.
//
// Semantics are unchanged: the spin is part of the wait (after BeforeWaiting, before AfterWaiting, with
// CFRunLoopIsWaiting true), it only reads the gate, and it ends no later than the run's deadline and the time the mode's
// timerfd is armed for, so every port is reported by the same wait, in the same order, at the same time or earlier.
// The hold is part of the poll, with the same bounds: it only delays the poll, as a descheduled thread would.

import CRunLoopSystem
import Glibc
import Synchronization

extension RefRunLoop {
    /// How the loop's thread waits when a pass has nothing left to do (steps h-i of a pass).
    public enum WaitPolicy: Sendable, Equatable, CustomStringConvertible {
        /// Sleep in the kernel's wait at once. The default, and what CF does.
        case park
        /// When wake-ups have been arriving, poll the wake-up state for a while before sleeping, `maxSpin` at most;
        /// how long is decided per wait from the recent hand-offs (``SpinGovernor``). A policy with a spin of zero is
        /// ``park``; one longer than ``maxSpinLimit`` is clamped to it.
        case spinThenPark(maxSpin: Duration)

        /// The spin cap of ``spinThenPark(maxSpin:)`` when none is chosen (REF_RUNLOOP_SPIN=1, the C ABI's
        /// ref_runloop_default_max_spin_ns): about twice a cross-vCPU wake-up on the KVM hosts the benchmarks ran on,
        /// so a reply that needs one such wake-up on the other side still lands in the spin.
        public static let defaultMaxSpin: Duration = .microseconds(50)
        /// The longest spin a policy may ask for: past a millisecond a spin is a busy loop, not a hand-off window.
        public static let maxSpinLimit: Duration = .milliseconds(1)
        /// How long a loop holds the poll that follows a handled source while work keeps being handed over from
        /// another CPU, unless told otherwise (``RefRunLoop/handOffHold``, ``RefRunLoop/holdBeforePoll(_:_:)``), with
        /// either policy. Without the hold, a loop that drains a
        /// queue faster than other threads fill it comes back to it at once, drains it nearly empty each pass (every
        /// pass costs its producers a signal and a wake-up claim, and the queue's lock moves between CPUs), and
        /// falls asleep as soon as a pass finds nothing, so the next hand-off pays a kernel wake-up of its thread;
        /// held, the hand-offs gather into batches and the loop stays awake while they keep coming. The price is
        /// hand-off latency: up to this much more per item. About the time CF's pass spends in the system calls of
        /// its poll after a handled source (ppoll, epoll_wait and a read, on the KVM hosts the benchmarks ran on),
        /// which is where CF's larger batches come from (journal/2026-12-07-resident-throughput.md).
        public static let handOffHold: Duration = .microseconds(4)

        /// The policy with a spin cap in nanoseconds: 0 is ``park``; above ``maxSpinLimit`` is clamped to it.
        public init(maxSpinNanoseconds: UInt64) {
            let capped = min(maxSpinNanoseconds, Self.nanoseconds(Self.maxSpinLimit))
            self = capped == 0 ? .park : .spinThenPark(maxSpin: .nanoseconds(Int64(capped)))
        }

        /// The spin cap in nanoseconds, clamped to ``maxSpinLimit``; 0 for ``park`` or a cap of zero or less.
        public var maxSpinNanoseconds: UInt64 {
            switch self {
            case .park: return 0
            case .spinThenPark(let maxSpin): return min(Self.nanoseconds(maxSpin), Self.nanoseconds(Self.maxSpinLimit))
            }
        }

        public var description: String {
            switch self {
            case .park: return "park"
            case .spinThenPark: return "spinThenPark(maxSpin: \(maxSpinNanoseconds / 1000) us)"
            }
        }

        /// The policy REF_RUNLOOP_SPIN asks for: unset, empty or `0` is ``park``; `1` spins with
        /// ``defaultMaxSpin``; `N us` (`20us`) spins N microseconds at most; `every` spins with ``defaultMaxSpin``
        /// before every wait the spin may precede, whatever the governor says, and holds every poll the hand-off hold
        /// may precede (``spinsEveryWait``: to check that the spin and the hold change no trace, not for use). Nil for
        /// anything else.
        public init?(environmentValue value: String?) {
            guard let value, !value.isEmpty, value != "0" else {
                self = .park
                return
            }
            if value == "1" || value == Self.everyWaitValue {
                self = .spinThenPark(maxSpin: Self.defaultMaxSpin)
                return
            }
            guard value.hasSuffix("us"), let micros = UInt64(value.dropLast(2)), micros > 0,
                micros <= Self.nanoseconds(Self.maxSpinLimit) / 1000
            else { return nil }
            self = .spinThenPark(maxSpin: .microseconds(Int64(micros)))
        }

        /// The environment variable that sets the policy of every loop created afterwards (read once, at the first
        /// loop): the conformance runner's way to run the whole spec with the spin on.
        public static let environmentVariable = "REF_RUNLOOP_SPIN"
        /// REF_RUNLOOP_SPIN's value that spins before every wait (``spinsEveryWait``).
        static let everyWaitValue = "every"

        /// Whether REF_RUNLOOP_SPIN is `every`: each wait that may spin spins for the whole cap, without the
        /// governor's choice, and each poll after a handled source that may be held is held for the loop's whole
        /// hold (``RefRunLoop/handOffHold``, unless 0), pending wake-up or not, from any CPU (read once). A check, not a policy: with the governor the spec's
        /// cases seldom spin (few of them hand work over from another CPU), so this is how `runloop conform` shows
        /// that a spin before any wait, or a hold before any such poll, of any case changes no trace.
        static let spinsEveryWait: Bool = getenv(environmentVariable).map { strcmp($0, everyWaitValue) == 0 } ?? false

        /// The policy REF_RUNLOOP_SPIN asks for, ``park`` when it is unset, or nil with the value when it is not
        /// one ``init(environmentValue:)`` reads.
        public static func fromEnvironment() -> Result<WaitPolicy, InvalidEnvironmentValue> {
            let value = getenv(environmentVariable).map { String(cString: $0) }
            guard let policy = WaitPolicy(environmentValue: value) else {
                return .failure(InvalidEnvironmentValue(value: value ?? ""))
            }
            return .success(policy)
        }

        /// REF_RUNLOOP_SPIN has a value the policy cannot be read from.
        public struct InvalidEnvironmentValue: Error, CustomStringConvertible {
            public let value: String
            public var description: String {
                "\(WaitPolicy.environmentVariable)='\(value)' is not a wait policy: use 0 (park), 1 (spin up to "
                    + "\(WaitPolicy.nanoseconds(WaitPolicy.defaultMaxSpin) / 1000) us), Nus (spin up to N "
                    + "microseconds, at most \(WaitPolicy.nanoseconds(WaitPolicy.maxSpinLimit) / 1000)) or "
                    + "\(WaitPolicy.everyWaitValue) (spin before every wait, to check the spin changes no trace)"
            }
        }

        /// A duration in whole nanoseconds, 0 when negative.
        static func nanoseconds(_ duration: Duration) -> UInt64 {
            let (seconds, attoseconds) = duration.components
            guard seconds >= 0, attoseconds >= 0 else { return 0 }
            let whole = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
            guard !whole.overflow else { return .max }
            return whole.partialValue &+ UInt64(attoseconds / 1_000_000_000)
        }
    }

    /// The policy new loops start with: REF_RUNLOOP_SPIN's (read once), or ``WaitPolicy/park``. An unreadable value
    /// parks, with one message on stderr; `runloop conform` refuses such a value before it starts (exit 2).
    public static let defaultWaitPolicy: WaitPolicy = {
        switch WaitPolicy.fromEnvironment() {
        case .success(let policy):
            return policy
        case .failure(let error):
            let message = "RefRunLoop: \(error); waiting with the park policy\n"
            _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            return .park
        }
    }()

    /// How this loop's thread waits (``WaitPolicy``). Takes effect at the loop's next wait. Any thread.
    public var waitPolicy: WaitPolicy {
        get { WaitPolicy(maxSpinNanoseconds: maxSpinNanoseconds.load(ordering: .relaxed)) }
        set {
            let nanoseconds = newValue.maxSpinNanoseconds
            maxSpinNanoseconds.store(nanoseconds, ordering: .relaxed)
            waitSet.recordsWakerCPU.store(nanoseconds > 0, ordering: .relaxed)
        }
    }

    /// Wake-ups that a spin saw claimed before the loop slept (counted among ``wakeUpCount`` too). Any thread.
    public var spinCaughtWakeUpCount: UInt64 { spinCaughtCounter.load(ordering: .relaxed) }

    /// How long this loop holds the poll that follows a handled source while another CPU keeps handing work over
    /// (``holdBeforePoll(_:_:)``), whatever the wait policy: ``WaitPolicy/handOffHold`` unless set; zero never holds
    /// (the poll runs at once, as CF's does); more than ``WaitPolicy/maxSpinLimit`` is clamped to it. Takes effect at
    /// the loop's next poll. Any thread.
    public var handOffHold: Duration {
        get { .nanoseconds(Int64(handOffHoldNanoseconds.load(ordering: .relaxed))) }
        set {
            let nanoseconds = min(WaitPolicy.nanoseconds(newValue), WaitPolicy.nanoseconds(WaitPolicy.maxSpinLimit))
            handOffHoldNanoseconds.store(nanoseconds, ordering: .relaxed)
        }
    }

    /// Polls after a handled source that the loop held (``handOffHold``). Any thread.
    public var handOffHoldCount: UInt64 { holdCounter.load(ordering: .relaxed) }
}

/// The adaptive half of spin-then-park: whether a wait spins, and for how long, from the hand-offs seen so far.
/// Confined to the loop's thread (a value in the loop, ``RefRunLoop/spinGovernor``).
///
/// A spin pays only if a wake-up arrives during it, so the governor spins only while wake-ups keep coming soon after
/// the loop starts waiting:
/// - not unless the last wake-up ended a wait within ``recentWindow(maxSpin:)`` (a loop that has been idle sleeps at
///   once);
/// - not when the last thread to wake the loop ran on the loop's own CPU: it could not run while the loop spun, so the
///   spin would only delay it;
/// - for twice the smoothed gap between a wait's start and the wake-up that ended it (``gap``), at least
///   ``minimumSpin`` and at most the policy's cap, and not at all while that gap exceeds the cap (the hand-offs come
///   later than any spin would wait).
/// A wake-up that came after the spin ended raises the gap, so the spin grows towards the hand-off interval; a long
/// idle stretch raises it past the cap (each sample is capped at ``sampleCap(maxSpin:)``, so a few prompt hand-offs
/// bring it back).
struct SpinGovernor {
    /// The shortest spin worth starting: a clock read and a few polls of the gate.
    static let minimumSpin: UInt64 = 2_000

    /// How recent the last wake-up must be for a wait to spin: 20 times the cap (1 ms at the default 50 us).
    static func recentWindow(maxSpin: UInt64) -> UInt64 { maxSpin &* 20 }

    /// The largest gap sample: one long idle stretch weighs as four caps, not as its whole length.
    static func sampleCap(maxSpin: UInt64) -> UInt64 { maxSpin &* 4 }

    /// When the last wait that a wake-up ended returned (monotonic ns; 0: none yet).
    private(set) var lastWakeUpAt: UInt64 = 0
    /// The gap from a wait's start to the wake-up that ended it, smoothed over recent wake-ups (weight 1/4 each);
    /// nil before the first.
    private(set) var gap: UInt64? = nil

    /// How long a wait starting at `now` spins (0: it parks at once), under a cap of `maxSpin` nanoseconds (0: the
    /// policy is park). `wakerOnThisCPU`: the last thread to wake the loop ran on the CPU the loop runs on now.
    func spinBudget(now: UInt64, maxSpin: UInt64, wakerOnThisCPU: Bool) -> UInt64 {
        guard maxSpin > 0, !wakerOnThisCPU, lastWakeUpAt != 0, let gap, gap <= maxSpin else { return 0 }
        guard now &- lastWakeUpAt <= Self.recentWindow(maxSpin: maxSpin) else { return 0 }
        return min(maxSpin, max(Self.minimumSpin, gap &* 2))
    }

    /// A wait that began at `waitStart` was ended by a wake-up at `now`.
    mutating func noteWakeUp(waitStart: UInt64, now: UInt64, maxSpin: UInt64) {
        let sample = min(now &- waitStart, Self.sampleCap(maxSpin: maxSpin))
        if let gap {
            self.gap = gap - gap / 4 + sample / 4
        } else {
            gap = sample
        }
        lastWakeUpAt = now
    }
}
