// The conformance spec as data: cases, the items they declare, the actions they perform and the trace they expect.
// The YAML spelling of each type is documented in Sources/ConformanceSpec/INTERPRETING.md.

import EngineKit
import YAMLKit

/// The versions of the spec format this package reads, oldest first. A file's `spec_version` names one; a case
/// that uses a construct of a later version than its file's is refused (INTERPRETING.md, "Versions").
public enum SpecFormatVersion: String, Sendable, Comparable, CaseIterable {
    /// The first format: one loop, on the case thread, items created before the first step.
    case v1 = "1"
    /// Adds items created by a step, CFRunLoopRun, timing assertions, a second loop and main-thread cases.
    case v1_1 = "1.1"
    /// Adds a run's upper bound relative to its own timeout, timers dated from their creation, `waitUntilSlept`,
    /// the `isMainThread` query and `sleep`.
    case v1_2 = "1.2"
    /// Adds the Foundation verbs: Foundation's run methods, limitDate, acceptInput, perform(inModes:) and timers of
    /// Foundation's block forms (feature `foundation`).
    case v1_3 = "1.3"
    /// Adds the query `[isSignalled, source]` (feature `isSignalled`).
    case v1_4 = "1.4"

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The newest version, which the fuzzer's output and new files use.
    public static let latest = SpecFormatVersion.v1_4
}

/// Where something was written: a spec file and a line in it.
public typealias SpecLocation = YAMLLocation

/// A problem in a spec or expectations file. Its description names file, line, case and field.
public typealias SpecError = YAMLError

/// One conformance case.
public struct SpecCase: Sendable {
    package init(
        id: String, rule: String, source: String, rules: [String] = [], features: [EngineFeature],
        allowances: Set<Allowance>, timeout: Double? = nil, loops: [String] = [], items: [ItemDeclaration],
        steps: [Action], triggers: [Trigger], expectedTrace: [String], unorderedRanges: [Range<Int>] = [],
        location: SpecLocation
    ) {
        self.id = id
        self.rule = rule
        self.source = source
        self.rules = rules
        self.features = features
        self.allowances = allowances
        self.timeout = timeout
        self.loops = loops
        self.items = items
        self.steps = steps
        self.triggers = triggers
        self.expectedTrace = expectedTrace
        self.unorderedRanges = unorderedRanges
        self.location = location
    }

    /// Stable id, `area.behaviour[.detail]`, e.g. `stop.in-entry-observer`.
    public var id: String
    /// The one-sentence rule the case checks.
    public var rule: String
    /// Where the rule comes from: CF function and source lines, or "observed".
    public var source: String
    /// The ids of the catalogue rules the case pins (catalogue.yaml), in the order written; empty if not given.
    public var rules: [String] = []
    /// The most specific level of those rules (``RuleLevel/of(_:)``), from the catalogue the loader checked them
    /// against; nil when the case cites none or the loader checked none (`runloop rules`).
    public var level: RuleLevel?
    /// Engine features the case needs; an engine without one reports SKIP.
    public var features: [EngineFeature]
    /// Narrow allowances in trace matching (see ``Allowance``).
    public var allowances: Set<Allowance>
    /// Watchdog for this case, in seconds, overriding the runner's default.
    public var timeout: Double?
    /// The case's second (and further) loops, in declaration order (format 1.1, `loops:`): each is the loop of its
    /// own host thread (see ``LoopName``). Empty for a case with one loop.
    public var loops: [String] = []
    /// The items, in declaration order (they are created in this order).
    public var items: [ItemDeclaration]
    /// What the case thread does, in order.
    public var steps: [Action]
    /// Actions run from inside callouts when a trace event happens.
    public var triggers: [Trigger]
    /// The exact trace the engine must produce.
    public var expectedTrace: [String]
    /// Ranges of `expectedTrace` whose lines may come in any order (an `any-order` group: CF iterates a set, so
    /// the order of, say, schedule callouts across several modes is unspecified).
    public var unorderedRanges: [Range<Int>] = []
    /// Where the case starts.
    public var location: SpecLocation

    /// The area: the id's first component.
    public var area: String { String(id.split(separator: ".").first ?? Substring(id)) }
}

/// Ways a trace may differ from the expected one without the case failing. Each is as narrow as its rule.
public enum Allowance: String, Sendable, CaseIterable {
    /// Callout-free passes caused by wake-ups that handled nothing (rule wakeup.idle-pass): after a BeforeWaiting,
    /// extra observer events AfterWaiting, BeforeTimers, BeforeSources, BeforeWaiting, in that order and with
    /// nothing else between them, are ignored.
    case idleWakes = "idle-wakes"
}

/// A named item of a case.
public struct ItemDeclaration: Sendable {
    package init(
        name: String, kind: ItemKind, location: SpecLocation, createdByStep: Bool = false,
        firesFromCreation: Bool = false
    ) {
        self.name = name
        self.kind = kind
        self.location = location
        self.createdByStep = createdByStep
        self.firesFromCreation = firesFromCreation
    }

    public var name: String
    public var kind: ItemKind
    public var location: SpecLocation
    /// (1.1) Created by a `create` action rather than before the first step (`created: later`).
    public var createdByStep = false
    /// (1.2) For a timer created by a step: its `fire` counts from its creation (`from: creation`) instead of from the
    /// case's start.
    public var firesFromCreation = false
    /// (1.3) For a timer: made by Foundation's Timer in this form instead of CFRunLoopTimerCreate (feature
    /// `foundation`); nil for CF's.
    public var foundationForm: FoundationTimerForm?
    /// (1.3) For a timer of a Foundation form: the `repeats` argument (default: whether `interval` is above 0).
    public var repeats: Bool?
}

/// (1.3) How Foundation makes a timer: its block forms.
public enum FoundationTimerForm: String, Sendable, CaseIterable {
    /// `Timer(fire:interval:repeats:block:)`: first due at `fire`, not added to any mode.
    case fire
    /// `Timer(timeInterval:repeats:block:)`: its fire date is its creation (swift-corelibs), not added to any mode.
    case timeInterval
    /// `Timer.scheduledTimer(withTimeInterval:repeats:block:)`: due `interval` after its creation, added by
    /// Foundation to the creating thread's loop.
    case scheduled
}

/// What an item is, with its creation parameters.
public enum ItemKind: Sendable {
    /// A version-0 source; with `callouts`, its schedule and cancel callouts are traced.
    case source0(order: Int, callouts: Bool)
    /// A version-1 source over an eventfd the runner creates; `write` makes it readable.
    case source1(order: Int)
    /// A timer whose first fire date is `fire` seconds after the case starts (negative: already due).
    case timer(fire: Double, interval: Double, tolerance: Double?, order: Int)
    /// An observer of `activities`.
    case observer(activities: ActivitySet, repeats: Bool, order: Int)
    /// A block: a name for the closure that `perform` queues.
    case block

    /// The spec's word for the kind, for messages.
    public var word: String {
        switch self {
        case .source0: return "source0"
        case .source1: return "source1"
        case .timer: return "timer"
        case .observer: return "observer"
        case .block: return "block"
        }
    }

    /// Whether the item can be added to, removed from or looked up in a mode.
    public var isModeItem: Bool {
        if case .block = self { return false }
        return true
    }
}

/// The parameters of a run.
public struct RunRequest: Sendable, Equatable {
    package init(mode: ModeName, seconds: Double, returnAfterSourceHandled: Bool, took: TimingAssertion? = nil) {
        self.mode = mode
        self.seconds = seconds
        self.returnAfterSourceHandled = returnAfterSourceHandled
        self.took = took
    }

    public var mode: ModeName
    public var seconds: Double
    public var returnAfterSourceHandled: Bool
    /// (1.1) What the run's duration must satisfy; traced as a `took` line after `return`.
    public var took: TimingAssertion? = nil
}

/// (1.1) A deterministic assertion on how long a run took, measured on the monotonic clock from just before the call
/// to just after it returns. Its margins are wide enough to hold on a loaded machine: an upper bound is at least one
/// second, and a lower bound is never later than the engine may legitimately return.
public enum TimingAssertion: Sendable, Equatable {
    /// The run lasted at least its own timeout (`atLeastTimeout`).
    case atLeastTimeout
    /// The run lasted at least `atLeast` seconds (if given) and less than `under` seconds (if given).
    case window(atLeast: Double?, under: Double?)
    /// (1.2) The run returned before `fraction` of its own finite timeout had passed (`{underTimeout: 0.5}`, "before
    /// half its timeout"). The bound, `fraction` times the timeout, is at least ``minimumUpperBound``.
    case underTimeout(fraction: Double)

    /// The smallest `under` the loader accepts: a bound that would not hold on a busy two-core machine is a flake.
    public static let minimumUpperBound = 1.0

    /// The assertion as written in the spec and traced when it holds: `atLeastTimeout`, `under 1`, `atLeast 0.2 under 2`.
    public var spelling: String {
        switch self {
        case .atLeastTimeout: return "atLeastTimeout"
        case .window(let atLeast, let under):
            return [atLeast.map { "atLeast \(Self.number($0))" }, under.map { "under \(Self.number($0))" }]
                .compactMap { $0 }.joined(separator: " ")
        case .underTimeout(let fraction):
            return "underTimeout \(Self.number(fraction))"
        }
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }
}

/// A state query whose answer is written into the trace.
public enum Query: Sendable, Equatable {
    case currentMode
    case isWaiting
    case allModes
    case nextTimerFireDate(ModeName)
    case fireDate(String)
    case tolerance(String)
    case isValid(String)
    /// (1.4) Whether a source is signalled (CFRunLoopSourceIsSignalled; feature `isSignalled`).
    case isSignalled(String)
    /// (1.1) Whether the loop the action addresses is the loop named here (``LoopName``), `current` included.
    case sameLoop(String)
    /// Whether the loop of the thread performing the query is the main loop (CFRunLoopGetCurrent() ==
    /// CFRunLoopGetMain()). Format 1.1.
    case isMainLoop
    /// Whether the case's loop is the main loop, asked on the performing thread: CFRunLoopGetMain(), called there, is
    /// the case's loop. Spelled `[isMainLoop, case]`. Format 1.1.
    case caseLoopIsMain
    /// (1.2) Whether the performing thread is the process's main thread (pthread_main_np, which CF's main-queue
    /// checks use).
    case isMainThread
}

/// The names of loops in a case (format 1.1). The case thread's loop is `here`; each name of a case's `loops:` is the
/// loop of a host thread the runner starts for it; `current` (only in a `sameLoop` query) is CFRunLoopGetCurrent
/// called at that moment on the thread that performs the query.
public enum LoopName {
    /// The case thread's loop.
    public static let here = "here"
    /// The performing thread's own loop, asked for anew.
    public static let current = "current"
    public static let reserved: Set<String> = [here, current]
}

/// What a helper thread waits for before it acts.
public enum ThreadWait: String, Sendable {
    /// Act at once.
    case none
    /// Act once the loop reports it is waiting (CFRunLoopIsWaiting), i.e. it is asleep or about to be.
    case waiting
}

/// One thing a case does, as a step or from a trigger.
public indirect enum Action: Sendable {
    case add(item: String, mode: ModeName)
    case remove(item: String, mode: ModeName)
    case contains(item: String, mode: ModeName)
    case addCommonMode(String)
    case signal(String)
    case write(String)
    case wakeUp
    case stop
    case stopMode(String)
    case invalidate(String)
    /// CFRunLoopTimerSetNextFireDate to now + seconds.
    case setNextFireDate(timer: String, seconds: Double)
    case setTolerance(timer: String, seconds: Double)
    case run(RunRequest)
    case perform(block: String, modes: BlockModes)
    case mark(String)
    /// Busy-wait (never sleep) for this many seconds, keeping the loop thread occupied.
    case stall(Double)
    /// (1.2) Sleeps this many seconds (nanosleep): a callout that takes time without taking a CPU.
    case sleep(Double)
    case query(Query)
    case thread(wait: ThreadWait, actions: [Action])
    /// (1.1) Creates an item declared `created: later`; traced as `create ITEM`.
    case create(String)
    /// (1.1) CFRunLoopRun on the current thread's loop; traced as `runForever` and `runForever returned`, then the
    /// `took` line if there is an assertion.
    case runForever(took: TimingAssertion?)
    /// (1.1) Performs `actions` on the current thread, addressed to loop `loop` instead of the current one: only
    /// actions the engine contract allows from any thread.
    case target(loop: String, actions: [Action])
    /// (1.1) Hands `actions` to the host thread of loop `loop`, which performs them, addressed to its loop, after
    /// whatever was posted to it before; does not wait.
    case post(loop: String, actions: [Action])
    /// (1.1) Waits (with a deadline) until the host thread of `loop` has performed everything posted to it so far.
    case join(String)
    /// (1.1) Waits (with a deadline) until loop `loop` reports that it is waiting (CFRunLoopIsWaiting).
    case waitUntilWaiting(String)
    /// (1.2) Waits (with a deadline) until loop `loop` has gone to sleep for the `nth` time: observer `observer` (which
    /// observes BeforeWaiting, in that loop) has recorded its BeforeWaiting `nth` times, and then the loop reports
    /// that it is waiting.
    case waitUntilSlept(loop: String, nth: Int, observer: String)
    /// (1.1) Ends the host thread of `loop` once it has performed what was posted to it, and waits (with a deadline)
    /// until the thread has exited, so that what the engine does at thread exit has happened. The loop object stays
    /// usable by `target`; nothing more can be posted to it.
    case end(String)
    /// (1.3) Foundation's `RunLoop.current.run()`; traced as `foundationRun` and `foundationRun returned`.
    case foundationRun
    /// (1.3) `RunLoop.current.run(until: now + seconds)`; traced as `runUntil` and `runUntil returned`.
    case runUntil(seconds: Double)
    /// (1.3) `RunLoop.current.run(mode:before: now + seconds)`; traced as `runBefore MODE` and
    /// `runBefore returned BOOL`. With `untilFlag`, Swift's idiom `while !flag && run(mode:before:) {}`: repeated,
    /// each call traced, until the case's flag is set (`setFlag`) or a call returns false.
    case runBefore(mode: ModeName, seconds: Double, untilFlag: Bool)
    /// (1.3) Sets the case's flag, which `runBefore` with `untilFlag` reads between calls; traced as `setFlag`.
    case setFlag
    /// (1.3) `RunLoop.current.limitDate(forMode:)`; traced as `limitDate MODE ANSWER`.
    case limitDate(ModeName)
    /// (1.3) `RunLoop.current.acceptInput(forMode:before: now + seconds)`; traced as `acceptInput MODE` and
    /// `acceptInput returned`.
    case acceptInput(mode: ModeName, seconds: Double)
    /// (1.3) `RunLoop.perform(inModes:block:)` on the addressed loop, or `perform(_:)` when `modes` is nil. From
    /// another thread (a `target` list), how Swift performs a block on that thread's loop.
    case performInModes(block: String, modes: [ModeName]?)
    /// Queues a block on the main dispatch queue (DispatchQueue.main.async) that performs the actions, on the thread
    /// that services the queue. Format 1.1; the case must list feature `mainThread`.
    case dispatchMain([Action])
}

/// Runs `actions` inside the callout that produced the `nth` occurrence of `event` (or every occurrence).
public struct Trigger: Sendable {
    package init(event: String, occurrence: Occurrence, actions: [Action], location: SpecLocation) {
        self.event = event
        self.occurrence = occurrence
        self.actions = actions
        self.location = location
    }

    public enum Occurrence: Sendable, Equatable {
        case nth(Int)
        case every
    }

    public var event: String
    public var occurrence: Occurrence
    public var actions: [Action]
    public var location: SpecLocation

    func fires(onOccurrence count: Int) -> Bool {
        switch occurrence {
        case .every: return true
        case .nth(let n): return n == count
        }
    }
}

/// A spec file after loading: its cases in file order.
public struct SpecFile: Sendable {
    public var path: String
    /// The file's `spec_version`.
    public var version: SpecFormatVersion = .v1
    public var cases: [SpecCase]
}
