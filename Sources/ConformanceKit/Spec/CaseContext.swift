// The contexts a case pins its rules in, derived from the case itself: what kind of run it makes (a poll, a sleeping
// run with a finite timeout, one that sleeps until something ends it), whether a run is nested in a callout, which
// kinds of callout act, whether returnAfterSourceHandled is on or off, and whether a callout takes time. A rule
// checked only where a violation cannot change the trace (a stop leaked out of a poll is hidden because TimedOut
// outranks Stopped) is not pinned: `runloop rules` shows each rule's contexts so that such rules stand out.

import EngineKit

/// What kind of run a case makes at its outer level (not nested in a callout).
public enum RunKind: String, Sendable, Codable, CaseIterable, Comparable {
    /// A timeout of 0 or less: one pass, no sleep.
    case poll
    /// A timeout above 0 that CF keeps: the loop may sleep, and the timeout can end the run.
    case finite
    /// A timeout CF treats as none (rule timeout.infinite: +inf, NaN, above 504911232 s), or CFRunLoopRun: only a
    /// stop, a handled source or an empty mode ends the run.
    case infinite

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The longest timeout CF keeps as a deadline (rule timeout.finite).
    static let longestFiniteTimeout = 504_911_232.0

    static func of(seconds: Double) -> RunKind {
        if seconds.isNaN || seconds > longestFiniteTimeout { return .infinite }
        return seconds <= 0 ? .poll : .finite
    }
}

/// Who performs a case's actions besides its steps: a callout of one kind, or another thread.
public enum Actor: String, Sendable, Codable, CaseIterable, Comparable {
    case entry = "Entry"
    case beforeTimers = "BeforeTimers"
    case beforeSources = "BeforeSources"
    case perform
    case block
    case beforeWaiting = "BeforeWaiting"
    case afterWaiting = "AfterWaiting"
    case timer
    /// A block on the main dispatch queue (`dispatchMain`), serviced by the main loop.
    case mainQueue = "main-queue block"
    case exit = "Exit"
    /// A source's schedule or cancel callout.
    case scheduleOrCancel = "schedule/cancel"
    /// Another thread: a `thread` helper, or a list posted to a helper loop acting on the case's loops.
    case otherThread = "another thread"

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The callout kind of a trigger's event, or nil for a line no callout records (a run, a mark, a query answer).
    static func of(event: String) -> Actor? {
        let words = event.split(separator: " ")
        guard let head = words.first else { return nil }
        if words.count == 1, let dot = head.firstIndex(of: ".") {
            switch Activity(rawValue: String(head[head.index(after: dot)...])) {
            case .entry?: return .entry
            case .beforeTimers?: return .beforeTimers
            case .beforeSources?: return .beforeSources
            case .beforeWaiting?: return .beforeWaiting
            case .afterWaiting?: return .afterWaiting
            case .exit?: return .exit
            case nil: return nil
            }
        }
        switch head {
        case "perform": return .perform
        case "fire": return .timer
        case "block": return .block
        case "schedule", "cancel": return .scheduleOrCancel
        default: return nil
        }
    }
}

/// The contexts of one case.
public struct CaseContext: Sendable, Equatable {
    /// The kinds of the case's outer runs (in steps, helper threads, lists posted to helper loops, main-queue blocks
    /// queued by a step); empty if it makes none.
    public var runKinds: Set<RunKind> = []
    /// Whether a run (or CFRunLoopRun) is made from inside a callout.
    public var nested = false
    /// The callout kinds (and other threads) whose actions the case performs.
    public var actors: Set<Actor> = []
    /// The returnAfterSourceHandled values of its runs (CFRunLoopRun counts as off).
    public var returnAfterSourceHandled: Set<Bool> = []
    /// Whether a callout takes time (a `stall` or `sleep` among a callout's actions).
    public var slowCallout = false

    /// Whether every outer run of the case is a poll: a stop, a wake-up or a timeout leaked or lost there cannot
    /// make the run sleep, so much of what a rule forbids cannot show.
    public var onlyPolls: Bool { runKinds == [.poll] }

    public init(_ specCase: SpecCase) {
        for step in specCase.steps { visit(step, inCallout: false) }
        for trigger in specCase.triggers {
            if let actor = Actor.of(event: trigger.event) { actors.insert(actor) }
            for action in trigger.actions { visit(action, inCallout: true) }
        }
    }

    private mutating func visit(_ action: Action, inCallout: Bool) {
        switch action {
        case .run(let request):
            if inCallout { nested = true } else { runKinds.insert(RunKind.of(seconds: request.seconds)) }
            returnAfterSourceHandled.insert(request.returnAfterSourceHandled)
        case .runForever:
            if inCallout { nested = true } else { runKinds.insert(.infinite) }
            returnAfterSourceHandled.insert(false)
        case .foundationRun:
            // RunLoop.run(): runs of the default mode without a deadline, each returning after one source.
            if inCallout { nested = true } else { runKinds.insert(.infinite) }
            returnAfterSourceHandled.insert(true)
        case .runUntil(let seconds), .runBefore(_, let seconds, _), .acceptInput(_, let seconds):
            if inCallout { nested = true } else { runKinds.insert(RunKind.of(seconds: seconds)) }
            returnAfterSourceHandled.insert(true)
        case .limitDate:
            // limitDate(forMode:) polls the mode first.
            if inCallout { nested = true } else { runKinds.insert(.poll) }
            returnAfterSourceHandled.insert(true)
        case .stall, .sleep:
            if inCallout { slowCallout = true }
        case .thread(_, let inner):
            actors.insert(.otherThread)
            for action in inner { visit(action, inCallout: false) }
        case .post(_, let inner):
            // A posted list runs on a helper loop's own thread: its run is that loop's outer run.
            actors.insert(.otherThread)
            for action in inner { visit(action, inCallout: false) }
        case .target(_, let inner):
            for action in inner { visit(action, inCallout: inCallout) }
        case .dispatchMain(let inner):
            actors.insert(.mainQueue)
            // The block is a callout of the main loop's run.
            for action in inner { visit(action, inCallout: true) }
        default:
            break
        }
    }

    /// The contexts in words, for a table: `runs poll+finite; nested; acts from Entry, perform; returnAfterSourceHandled off; slow`.
    public var summary: String {
        var parts: [String] = []
        parts.append(runKinds.isEmpty ? "no run" : "runs " + runKinds.sorted().map(\.rawValue).joined(separator: "+"))
        if nested { parts.append("nested") }
        if !actors.isEmpty { parts.append("acts from " + actors.sorted().map(\.rawValue).joined(separator: ", ")) }
        if !returnAfterSourceHandled.isEmpty {
            parts.append(
                "returnAfterSourceHandled "
                    + returnAfterSourceHandled.sorted { !$0 && $1 }.map { $0 ? "on" : "off" }
                    .joined(separator: "+"))
        }
        if slowCallout { parts.append("slow callout") }
        return parts.joined(separator: "; ")
    }
}

/// The contexts a rule is pinned in: the union over the cases that cite it.
public struct RuleContexts: Sendable, Codable, Equatable {
    public var runKinds: [RunKind]
    public var nested: Bool
    public var actors: [Actor]
    public var returnAfterSourceHandled: [Bool]
    public var slowCallout: Bool
    /// Every citing case's outer runs are polls (and there is at least one citing case).
    public var onlyPolls: Bool

    enum CodingKeys: String, CodingKey {
        case runKinds = "runs"
        case nested
        case actors = "acts_from"
        case returnAfterSourceHandled = "return_after_source_handled"
        case slowCallout = "slow_callout"
        case onlyPolls = "only_polls"
    }

    public init(_ contexts: [CaseContext]) {
        runKinds = Set(contexts.flatMap(\.runKinds)).sorted()
        nested = contexts.contains(where: \.nested)
        actors = Set(contexts.flatMap(\.actors)).sorted()
        returnAfterSourceHandled = Set(contexts.flatMap(\.returnAfterSourceHandled)).sorted { !$0 && $1 }
        slowCallout = contexts.contains(where: \.slowCallout)
        onlyPolls = !contexts.isEmpty && contexts.allSatisfy(\.onlyPolls)
    }

    /// In words, as ``CaseContext/summary``.
    public var summary: String {
        var context = CaseContext.empty
        context.runKinds = Set(runKinds)
        context.nested = nested
        context.actors = Set(actors)
        context.returnAfterSourceHandled = Set(returnAfterSourceHandled)
        context.slowCallout = slowCallout
        return context.summary
    }
}

extension CaseContext {
    /// No run, no actor: the start of a union.
    static var empty: CaseContext { CaseContext() }

    private init() {}
}
