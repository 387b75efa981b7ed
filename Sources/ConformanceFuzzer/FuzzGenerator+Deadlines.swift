// Area `deadline`: constructions in which a finite timeout or a timer's date decides the trace, each deterministic on
// a correct engine by construction (FUZZING.md, "What the generator never makes, and why", says why each one is).
//
// They run in modes of their own, `lab` and `deep`, which no other item, block or observer of a scenario is ever
// in and which are never common, with items of their own (FuzzGenerator.deadlineNames) that no random action names and
// no random trigger listens to: nothing but the construction acts in its runs. A scenario gets at most one of them.
//
// CF's timeout on Linux is a dispatch timer that calls CFRunLoopWakeUp once at the deadline (CFRunLoop.c at
// swift-6.3.1-RELEASE, __CFRunLoopRun 2969-89), from another thread, at a time only bounded from below: a wake-up left
// in flight would land in a later run, at a point that depends on scheduling. And a wake-up that a wait of one mode
// consumes leaves its edge on the ready lists of the other modes' epoll sets, ahead of later edges, which changes what
// their later waits report first. So every construction that makes a wake-up is the scenario's last step.
// Every stall lasts at least what it says; nothing is timed from above.

import ConformanceKit
import EngineKit

extension FuzzGenerator {
    /// The mode the area's constructions run in.
    static let labMode = "lab"
    /// Their second mode: for runs nested in a lab run's callouts, and for the timers the phase construction compares.
    static let deepMode = "deep"
    /// A mode only polled, to take a pending wake-up before a construction that must start with none.
    static let sinkMode = "sink"
    /// A one-shot timer 100 s away that keeps `lab` (and `deep`) from being empty, and from losing its last timer (CF
    /// leaves a mode's timerfd armed when its last armable timer goes: fuzz-known.yaml, cf.stale-timer-wake-hides-port).
    static let labKeeper = "zk"
    /// An observer of every activity in `lab`: its lines show the lab run's passes, its triggers act in them.
    static let labObserver = "zo"
    /// An observer of every activity in `deep`, for a nested run.
    static let deepObserver = "zp"
    /// A version-0 source of `lab`, signalled just before the lab run.
    static let labSource = "zs"
    /// The timer a construction is about.
    static let labTimer = "zt"
    /// A second timer: fired before it in one batch, or compared with it.
    static let labOtherTimer = "zq"
    /// Blocks queued for `lab` by the construction's callouts.
    static let labBlocks = ["zb", "zc"]
    /// The items only the area's constructions use; no random action names them.
    static let deadlineNames: Set<String> = Set(
        [
            labKeeper, labObserver, deepObserver, labSource, labTimer,
            labOtherTimer,
        ] + labBlocks)
}

/// The constructions of area `deadline`.
enum DeadlineConstruction: CaseIterable {
    // Before the scenario's first run (polls and stalls, no wake-up): ``repeatAfterStall``, ``redateInCallout``,
    // ``toleranceDue``. The others as its last step, after an ending with no helper thread; ``outerOverNested``,
    // ``outerOverTimedNested``, ``firingNested`` and ``redateCrossThread`` after a poll of `sink` that takes any
    // pending wake-up.
    /// A lab run that nothing but its timeout ends (`took: atLeastTimeout`).
    case onlyTimeout
    /// A lab run whose deadline passes while a BeforeTimers or BeforeSources observer stalls: the pass still waits.
    case deadlineInObserver
    /// A lab run with a deadline over a run nested in a source's perform that sleeps with no deadline of its own (or a
    /// NaN one): the outer deadline wakes it once, and its AfterWaiting observer stops it.
    case outerOverNested
    /// A repeating timer made late by a stall of several intervals, then compared with a timer dated between the date
    /// catching up would give it and the one CF gives it.
    case repeatAfterStall
    /// A repeating timer that gives itself a new date in its own callout, earlier or later than its next grid date.
    case redateInCallout
    /// A due timer with a tolerance, found due when it is added or re-dated.
    case toleranceDue
    /// A timer whose callout runs a nested lab run with a short timeout: that run must not be woken for the timer.
    case firingNested
    /// A sleeping lab run woken by another thread that sets a timer's date far ahead.
    case redateCrossThread
    /// A lab run whose deadline passes while a source's perform or a block stalls: the pass still polls, runs its
    /// end-of-pass blocks and only then returns.
    case deadlineInSource
    /// A lab run with a deadline over a run nested in a source's perform that has a longer deadline of its own: the
    /// outer deadline wakes it once, not again.
    case outerOverTimedNested
}

extension Builder {
    /// Area `deadline`'s draws, made after everything else so that the rest of a seed's scenario stays as it was: a NaN
    /// timeout for some last sleeping runs, `took: atLeastTimeout` for some timeout endings, and (in about a third of
    /// the scenarios) one construction of ``DeadlineConstruction``.
    mutating func addDeadlineConstruction(
        steps: inout [Action], triggers: inout [Trigger],
        allowances: inout Set<Allowance>, location: SpecLocation
    ) {
        // A NaN timeout sets no deadline, as +infinity (rule timeout.infinite): every sleeping run with an infinite
        // timeout ends by a stop, so a NaN one must too.
        if case .run(var request)? = steps.last, request.seconds == .infinity, random.chance(25) {
            request.seconds = .nan
            steps[steps.count - 1] = .run(request)
        }
        if ending == .timeout { keepTimeoutRunFull(steps: &steps, triggers: triggers) }
        // Main-thread scenarios are left alone: their loop services the main queue in its common modes, which the
        // constructions' modes are not, but their checks (no block queued before a sleeping run) would need telling
        // the lab runs apart.
        guard !mainThread else { return }
        // Where a construction may go. A wake-up that one of the loop's waits consumes leaves its edge on the ready
        // list of every other mode's epoll set, ahead of edges that come later, so it changes which port a later wait
        // of another mode reports first (a campaign found ref reporting a readable version-1 source where CF reported
        // the wake-up): a construction that makes a wake-up is the last step, after the scenario's own last run, and
        // only after an ending with no helper thread, which would still be waiting for the loop to wait if the last
        // run had ended before it did. Those that need no wake-up pending when they start begin with a poll of a mode
        // of their own (`sink`), which takes a pending one, if any (no thread is left to send one, and no run with a
        // deadline is left whose timeout could). The constructions without wake-ups (polls and stalls) come before the
        // first run.
        let helper = steps.contains {
            if case .thread = $0 { return true }
            return false
        }
        var choices: [DeadlineConstruction] = [.repeatAfterStall, .redateInCallout, .toleranceDue]
        if !helper {
            choices += [
                .onlyTimeout, .deadlineInObserver, .deadlineInSource, .outerOverNested, .outerOverNested,
                .outerOverTimedNested, .firingNested, .firingNested, .redateCrossThread,
            ]
        }
        guard random.chance(40) else { return }
        var lab = LabBlock()
        switch random.pick(choices) {
        case .onlyTimeout: onlyTimeout(&lab)
        case .deadlineInObserver: deadlineInObserver(&lab)
        case .outerOverNested:
            lab.drain()
            outerOverNested(&lab)
        case .repeatAfterStall: repeatAfterStall(&lab)
        case .redateInCallout: redateInCallout(&lab)
        case .toleranceDue: toleranceDue(&lab)
        case .firingNested:
            lab.drain()
            firingNested(&lab)
        case .redateCrossThread:
            lab.drain()
            redateCrossThread(&lab)
        case .deadlineInSource: deadlineInSource(&lab)
        case .outerOverTimedNested:
            lab.drain()
            outerOverTimedNested(&lab)
        }
        // The keeper may be declared already (keepTimeoutRunFull).
        for item in lab.items where !items.contains(where: { $0.name == item.name }) {
            items.append(
                ItemDeclaration(
                    name: item.name, kind: item.kind, location: location,
                    createdByStep: item.later))
        }
        for trigger in lab.triggers {
            triggers.append(
                Trigger(
                    event: trigger.event, occurrence: .nth(trigger.nth), actions: trigger.actions,
                    location: location))
        }
        if lab.last {
            steps += lab.steps
        } else {
            // Before the first step that runs this loop, or another loop, or starts a helper thread, so that no run
            // has left a wake-up pending and no other thread acts while the lab runs (and not between a post and its
            // join): every step that creates an item comes before it, and the lab's own runs before any other.
            let first =
                steps.firstIndex { step in
                    switch step {
                    case .run, .runForever, .post, .thread: return true
                    default: return false
                    }
                } ?? steps.count
            steps.insert(contentsOf: lab.steps, at: first)
        }
        if lab.sleeps { allowances.insert(.idleWakes) }
    }

    /// A timeout ending whose run must last its whole timeout (rule timeout.never-early): the keeper timer, 100 s away,
    /// added to the default mode just before it, so that no callout can leave the mode empty, and no `stopMode` of the
    /// default mode anywhere (its flag outlives runs and would end this one at once). The scenario is quiet, so no
    /// source is handled and nothing stops the run: only its timeout ends it.
    private mutating func keepTimeoutRunFull(steps: inout [Action], triggers: [Trigger]) {
        guard !mainThread, case .run(var request)? = steps.last, request.mode == .default, request.seconds > 0,
            random.chance(60)
        else { return }
        func stopsDefault(_ actions: [Action]) -> Bool {
            actions.contains { action in
                switch action {
                case .stopMode(ModeName.defaultModeName): return true
                case .thread(_, let inner), .target(_, let inner), .post(_, let inner), .dispatchMain(let inner):
                    return stopsDefault(inner)
                default: return false
                }
            }
        }
        guard !stopsDefault(steps), !triggers.contains(where: { stopsDefault($0.actions) }) else { return }
        if !items.contains(where: { $0.name == FuzzGenerator.labKeeper }) {
            items.append(
                ItemDeclaration(
                    name: FuzzGenerator.labKeeper,
                    kind: .timer(fire: 100, interval: 0, tolerance: nil, order: 0),
                    location: SpecLocation(file: "fuzz", line: 0)))
        }
        request.took = .atLeastTimeout
        steps[steps.count - 1] = .run(request)
        steps.insert(.add(item: FuzzGenerator.labKeeper, mode: .default), at: steps.count - 1)
    }

    // MARK: The constructions

    /// A lab run with a short timeout in a mode that only the keeper timer (100 s away) and an observer are in: it
    /// waits, only its deadline's wake-up ends the wait, and it returns TimedOut no sooner than its timeout (rules
    /// timeout.finite, timeout.never-early).
    private mutating func onlyTimeout(_ lab: inout LabBlock) {
        lab.keeper(in: [FuzzGenerator.labMode])
        if random.chance(70) { lab.observer(FuzzGenerator.labObserver, in: FuzzGenerator.labMode) }
        lab.run(
            FuzzGenerator.labMode, seconds: random.pick([0.001, 0.002]), rash: random.chance(30),
            took: .atLeastTimeout)
        lab.sleeps = true
        lab.last = true
    }

    /// A lab run whose deadline passes while its BeforeTimers or BeforeSources observer stalls (twice the timeout or
    /// more): the deadline is checked only at the end of the pass (rule timeout.end-of-pass-only), so the pass still
    /// calls BeforeWaiting, waits (the deadline's wake-up, sent already or not yet, ends the wait), calls AfterWaiting
    /// and runs a block queued in BeforeWaiting, and only then returns TimedOut. No source is handled (the pass would
    /// poll, and the wake-up could come after the run) and no timer is due (the wait could report it first and leave
    /// the wake-up pending).
    private mutating func deadlineInObserver(_ lab: inout LabBlock) {
        let timeout = random.pick([0.001, 0.002])
        lab.keeper(in: [FuzzGenerator.labMode])
        lab.observer(FuzzGenerator.labObserver, in: FuzzGenerator.labMode)
        let activity = random.pick(["beforeTimers", "beforeSources"])
        lab.on("\(FuzzGenerator.labObserver).\(activity)", do: [.stall(timeout * random.pick([2.0, 3.0]))])
        if random.chance(50) {
            let block = FuzzGenerator.labBlocks[0]
            lab.items.append(LabItem(name: block, kind: .block))
            lab.on(
                "\(FuzzGenerator.labObserver).beforeWaiting",
                do: [.perform(block: block, modes: .one(.named(FuzzGenerator.labMode)))])
        }
        lab.run(
            FuzzGenerator.labMode, seconds: timeout, rash: random.chance(30),
            took: random.chance(50) ? .atLeastTimeout : nil)
        lab.sleeps = true
        lab.last = true
    }

    /// A lab run with a short deadline whose source's perform runs a nested run of `deep` with no deadline (infinite,
    /// NaN, or 10 s that must end before half of it): only the outer deadline's single wake-up can end the nested
    /// run's first wait (CF's timeout timer wakes the loop once; rule timeout.finite), sent before that wait or during
    /// it (nothing before the perform ignores wake-ups: no nested run, no timer callout), and the nested AfterWaiting
    /// observer stops it (a stop made there sends no wake-up: wake-ups are ignored after a wait), or starts a helper
    /// thread that stops it in its second wait. The outer pass then polls (a source was handled) and returns
    /// TimedOut, its deadline past.
    private mutating func outerOverNested(_ lab: inout LabBlock) {
        let timeout = random.pick([0.001, 0.002])
        let labObserver = random.chance(50)
        let nested: RunRequest
        switch random.below(3) {
        case 0:
            nested = RunRequest(
                mode: .named(FuzzGenerator.deepMode), seconds: .infinity, returnAfterSourceHandled: false)
        case 1:
            nested = RunRequest(mode: .named(FuzzGenerator.deepMode), seconds: .nan, returnAfterSourceHandled: false)
        default:
            nested = RunRequest(
                mode: .named(FuzzGenerator.deepMode), seconds: 10, returnAfterSourceHandled: false,
                took: .underTimeout(fraction: 0.5))
        }
        labRunOverNested(&lab, timeout: timeout, nested: nested, labObserver: labObserver)
        if random.chance(50) {
            lab.on("\(FuzzGenerator.deepObserver).afterWaiting", do: [.stop])
        } else {
            // Or a helper thread started there stops it once it waits again: CF clears the waiting flag before
            // AfterWaiting, so the helper acts in the second wait, which nothing else ends (the outer deadline woke
            // the loop once). Two passes; an engine that the outer deadline keeps waking makes a third, marked.
            lab.on("\(FuzzGenerator.deepObserver).afterWaiting", do: [.thread(wait: .waiting, actions: [.stop])])
            lab.on("\(FuzzGenerator.deepObserver).beforeSources", nth: 3, do: [.mark("woken again")])
        }
    }

    /// The lab run of ``outerOverNested`` and ``outerOverTimedNested`` and its set-up: the keeper in `lab` and `deep`,
    /// the lab source, whose perform runs `nested` (a run of `deep`), the `deep` observer (and, if asked, the lab
    /// observer), the source's signal and the lab run with the outer deadline `timeout`, last in the scenario (the
    /// deadline makes a wake-up). The constructions add the triggers that end the nested run, or mark its passes.
    private mutating func labRunOverNested(
        _ lab: inout LabBlock, timeout: Double, nested: RunRequest,
        labObserver: Bool
    ) {
        lab.keeper(in: [FuzzGenerator.labMode, FuzzGenerator.deepMode])
        lab.source()
        if labObserver { lab.observer(FuzzGenerator.labObserver, in: FuzzGenerator.labMode) }
        lab.observer(FuzzGenerator.deepObserver, in: FuzzGenerator.deepMode)
        lab.on("perform \(FuzzGenerator.labSource)", do: [.run(nested)])
        lab.steps.append(.signal(FuzzGenerator.labSource))
        lab.run(
            FuzzGenerator.labMode, seconds: timeout, rash: random.chance(30),
            took: random.chance(50) ? .atLeastTimeout : nil)
        lab.sleeps = true
        lab.last = true
    }

    /// A repeating timer `zt` (interval 1 or 2 ms, due from its creation) added to `lab` and made late by a stall of
    /// three intervals or more; a one-shot timer `zq` made after that stall (due from its own creation, so dated after
    /// `zt`'s first date plus one interval) and added to `deep`. A poll of `lab` fires `zt` once, and CF reschedules it
    /// to the first date of its grid after now (rule timer.repeat-keeps-phase), after `zq`'s date; catching up would
    /// give it one interval after the date that fired, before `zq`'s. Then `zt` joins `deep`, a stall of more than an
    /// interval makes it due again whatever its date, and a poll of `deep` fires the two in date order: `zq` first.
    /// Both orders are fixed by the stalls, which only make things later. `zt` is invalidated after, so no later run
    /// depends on how late it is.
    private mutating func repeatAfterStall(_ lab: inout LabBlock) {
        // The interval, the stall that makes `zt` late (three intervals or more), the one before the second poll.
        let (interval, late, again) = random.pick([
            (0.001, 0.003, 0.0015), (0.001, 0.005, 0.0015),
            (0.002, 0.006, 0.003), (0.002, 0.009, 0.003),
        ])
        lab.items.append(
            LabItem(
                name: FuzzGenerator.labTimer,
                kind: .timer(fire: -1, interval: interval, tolerance: nil, order: 0)))
        lab.items.append(
            LabItem(
                name: FuzzGenerator.labOtherTimer,
                kind: .timer(fire: -1, interval: 0, tolerance: nil, order: 0), later: true))
        lab.steps += [
            .add(item: FuzzGenerator.labTimer, mode: .named(FuzzGenerator.labMode)),
            .stall(late),
            .create(FuzzGenerator.labOtherTimer),
            .add(item: FuzzGenerator.labOtherTimer, mode: .named(FuzzGenerator.deepMode)),
        ]
        lab.run(FuzzGenerator.labMode, seconds: 0, rash: false)
        lab.steps += [
            .add(item: FuzzGenerator.labTimer, mode: .named(FuzzGenerator.deepMode)),
            .stall(again),
        ]
        lab.run(FuzzGenerator.deepMode, seconds: 0, rash: random.chance(30))
        lab.steps.append(.invalidate(FuzzGenerator.labTimer))
    }

    /// A repeating timer `zt`, due, whose callout (its first) gives it a new date (rule timer.set-date-in-callout): to
    /// the past (it counts as now, later than the date that fired, so it is honoured) when its interval is 60 or 100 s,
    /// so that the next poll fires it again; or 100 s ahead when its interval is 1 ms, so that a poll after a stall of
    /// 2 ms, by which its grid date has passed, does not fire it. `zt` is in `lab` only (CF re-arms only the firing
    /// mode for a date set in the callout: fuzz-known.yaml, cf.timer-redated-while-firing-not-armed). Or a one-shot
    /// `zt` whose callout dates it 100 s ahead: it is invalidated after its callout all the same (rule
    /// timer.one-shot-invalidated), which `isValid` and `contains` tell.
    private mutating func redateInCallout(_ lab: inout LabBlock) {
        if random.chance(30) {
            lab.items.append(
                LabItem(
                    name: FuzzGenerator.labTimer,
                    kind: .timer(
                        fire: -1, interval: random.pick([0.0, -1.0]), tolerance: nil,
                        order: 0)))
            lab.keeper(in: [FuzzGenerator.labMode])
            if random.chance(40) { lab.observer(FuzzGenerator.labObserver, in: FuzzGenerator.labMode) }
            lab.steps.append(.add(item: FuzzGenerator.labTimer, mode: .named(FuzzGenerator.labMode)))
            lab.on(
                "fire \(FuzzGenerator.labTimer)",
                do: [.setNextFireDate(timer: FuzzGenerator.labTimer, seconds: 100)])
            lab.run(FuzzGenerator.labMode, seconds: 0, rash: false)
            lab.steps += [
                .query(.isValid(FuzzGenerator.labTimer)),
                .contains(item: FuzzGenerator.labTimer, mode: .named(FuzzGenerator.labMode)),
            ]
            lab.run(FuzzGenerator.labMode, seconds: 0, rash: random.chance(30))
            lab.steps.append(.invalidate(FuzzGenerator.labTimer))
            return
        }
        let earlier = random.chance(60)
        let interval = earlier ? random.pick([60.0, 100.0]) : 0.001
        lab.items.append(
            LabItem(
                name: FuzzGenerator.labTimer,
                kind: .timer(fire: -1, interval: interval, tolerance: nil, order: 0)))
        if random.chance(40) { lab.observer(FuzzGenerator.labObserver, in: FuzzGenerator.labMode) }
        lab.steps.append(.add(item: FuzzGenerator.labTimer, mode: .named(FuzzGenerator.labMode)))
        var actions: [Action] = [.setNextFireDate(timer: FuzzGenerator.labTimer, seconds: earlier ? -1 : 100)]
        if random.chance(30) { actions.insert(.mark("redate"), at: 0) }
        lab.on("fire \(FuzzGenerator.labTimer)", do: actions)
        lab.run(FuzzGenerator.labMode, seconds: 0, rash: false)
        if !earlier { lab.steps.append(.stall(0.002)) }
        lab.run(FuzzGenerator.labMode, seconds: 0, rash: random.chance(30))
        lab.steps.append(.invalidate(FuzzGenerator.labTimer))
    }

    /// A timer with a tolerance (declared with it: no `setTolerance`, which CF on Linux ignores and fuzz-known.yaml
    /// explains) found due when the timers change: added to `lab` dated in the past, or re-dated to the past by a
    /// step. It fires in the next poll of `lab`, as on CF, which arms at the fire date alone; a tolerance only delays a
    /// wake-up still to come. Not in a batch of fires nor a nested run, where a tolerance may delay it on ref (the
    /// known divergence cf.timer-tolerance-ignored). A re-dated one is sometimes in `deep` too, added after `lab`,
    /// and the poll is of `deep`: a new date moves the timer in every mode it is in (rule timer.set-next-fire-date).
    private mutating func toleranceDue(_ lab: inout LabBlock) {
        let redated = random.chance(60)
        let twoModes = redated && random.chance(50)
        let polled = twoModes ? FuzzGenerator.deepMode : FuzzGenerator.labMode
        lab.items.append(
            LabItem(
                name: FuzzGenerator.labTimer,
                kind: .timer(
                    fire: redated ? 100 : -1, interval: random.pick([0.0, 100.0]),
                    tolerance: random.pick([0.05, 0.2]), order: 0)))
        lab.keeper(in: twoModes ? [FuzzGenerator.labMode, FuzzGenerator.deepMode] : [FuzzGenerator.labMode])
        if random.chance(40) { lab.observer(FuzzGenerator.labObserver, in: FuzzGenerator.labMode) }
        lab.steps.append(.add(item: FuzzGenerator.labTimer, mode: .named(FuzzGenerator.labMode)))
        if twoModes { lab.steps.append(.add(item: FuzzGenerator.labTimer, mode: .named(FuzzGenerator.deepMode))) }
        if redated { lab.steps.append(.setNextFireDate(timer: FuzzGenerator.labTimer, seconds: -1)) }
        lab.run(polled, seconds: 0, rash: random.chance(30))
    }

    /// A due timer `zt` (maybe after another, `zq`, made and added before it, so due first in the same batch) whose
    /// callout runs a nested lab run with a 2 ms timeout (rule timer.firing-skipped-by-nested-run): the arming leaves
    /// the firing timer out, and the keeper (100 s) is the mode's next timer, so only the nested run's own deadline
    /// ends its one wait: it makes one pass. An engine woken for the firing timer makes more, and the observer's third
    /// BeforeSources (the outer poll's is the first) marks it.
    private mutating func firingNested(_ lab: inout LabBlock) {
        // The keeper is added first or last: the timers then come to the mode in deadline order or not.
        let keeperLast = random.chance(50)
        if !keeperLast { lab.keeper(in: [FuzzGenerator.labMode]) }
        lab.observer(FuzzGenerator.labObserver, in: FuzzGenerator.labMode)
        // Made before `zt` (items are made in declaration order), so dated before it: it fires first.
        if random.chance(50) {
            lab.items.append(
                LabItem(
                    name: FuzzGenerator.labOtherTimer,
                    kind: .timer(fire: -1, interval: 0, tolerance: nil, order: 0)))
            lab.steps.append(.add(item: FuzzGenerator.labOtherTimer, mode: .named(FuzzGenerator.labMode)))
        }
        lab.items.append(
            LabItem(
                name: FuzzGenerator.labTimer,
                kind: .timer(
                    fire: -1, interval: random.pick([0.0, 100.0]),
                    tolerance: random.chance(40) ? 0.05 : nil, order: 0)))
        lab.steps.append(.add(item: FuzzGenerator.labTimer, mode: .named(FuzzGenerator.labMode)))
        if keeperLast { lab.keeper(in: [FuzzGenerator.labMode]) }
        lab.on(
            "fire \(FuzzGenerator.labTimer)",
            do: [
                .run(
                    RunRequest(
                        mode: .named(FuzzGenerator.labMode), seconds: 0.002,
                        returnAfterSourceHandled: random.chance(30)))
            ])
        lab.on("\(FuzzGenerator.labObserver).beforeSources", nth: 3, do: [.mark("woken for the firing timer")])
        lab.run(FuzzGenerator.labMode, seconds: 0, rash: false)
        lab.sleeps = true
        lab.last = true
    }

    /// A sleeping lab run and a helper thread that, once the loop waits, sets the keeper's date to another one far
    /// ahead (50 or 200 s): CF wakes the loop for it (rule timer.set-next-fire-date), the AfterWaiting observer stops
    /// the run. Nothing else can wake it: the poll of `sink` before it took any wake-up pending, and the keeper is
    /// never due.
    private mutating func redateCrossThread(_ lab: inout LabBlock) {
        lab.keeper(in: random.chance(30) ? [FuzzGenerator.labMode, FuzzGenerator.deepMode] : [FuzzGenerator.labMode])
        lab.observer(FuzzGenerator.labObserver, in: FuzzGenerator.labMode)
        lab.on("\(FuzzGenerator.labObserver).afterWaiting", do: [.stop])
        lab.steps.append(
            .thread(
                wait: .waiting,
                actions: [
                    .setNextFireDate(timer: FuzzGenerator.labKeeper, seconds: random.pick([50.0, 200.0]))
                ]))
        switch random.below(3) {
        case 0: lab.run(FuzzGenerator.labMode, seconds: .infinity, rash: random.chance(30))
        case 1: lab.run(FuzzGenerator.labMode, seconds: .nan, rash: random.chance(30))
        default:
            lab.run(FuzzGenerator.labMode, seconds: 10, rash: random.chance(30), took: .underTimeout(fraction: 0.5))
        }
        lab.sleeps = true
        lab.last = true
    }

    /// A lab run with a short deadline whose signalled source's perform queues a block and stalls, or
    /// whose block stalls (twice the timeout or more): the deadline passes during the sources' callouts, and the pass
    /// still goes on (rule timeout.end-of-pass-only): the block, the poll (a source was handled: the deadline's
    /// wake-up, if sent already, is all it can find, and nothing shows it), the block that block queued (it runs at the
    /// end of the pass), and only then TimedOut (or HandledSource, which ranks above it).
    private mutating func deadlineInSource(_ lab: inout LabBlock) {
        let timeout = random.pick([0.001, 0.002])
        let stall = Action.stall(timeout * random.pick([2.0, 3.0]))
        lab.keeper(in: [FuzzGenerator.labMode])
        lab.source()
        if random.chance(50) { lab.observer(FuzzGenerator.labObserver, in: FuzzGenerator.labMode) }
        let (first, second) = (FuzzGenerator.labBlocks[0], FuzzGenerator.labBlocks[1])
        lab.items += [LabItem(name: first, kind: .block), LabItem(name: second, kind: .block)]
        let inPerform = random.chance(50)
        var perform: [Action] = [.perform(block: first, modes: .one(.named(FuzzGenerator.labMode)))]
        var block: [Action] = [.perform(block: second, modes: .one(.named(FuzzGenerator.labMode)))]
        if inPerform { perform.append(stall) } else { block.insert(stall, at: 0) }
        lab.on("perform \(FuzzGenerator.labSource)", do: perform)
        lab.on("block \(first)", do: block)
        lab.steps.append(.signal(FuzzGenerator.labSource))
        lab.run(
            FuzzGenerator.labMode, seconds: timeout, rash: random.chance(30),
            took: random.chance(50) ? .atLeastTimeout : nil)
        // It polls, but an engine that waited would make idle passes, as a sleeping run.
        lab.sleeps = true
        lab.last = true
    }

    /// As ``outerOverNested``, but the nested run has a deadline of its own, five
    /// times the outer one from later: the outer deadline's wake-up ends its first wait, its own its second, and it
    /// returns TimedOut (if both came before the first wait returned, that wait's pass ends the run). It makes at most
    /// two passes; an engine that the outer deadline keeps waking makes more, and the nested observer's third
    /// BeforeSources marks it. (Last in any case: the nested run may end by its clock before its own wake-up is sent.)
    private mutating func outerOverTimedNested(_ lab: inout LabBlock) {
        let timeout = random.pick([0.001, 0.002])
        let nested = RunRequest(
            mode: .named(FuzzGenerator.deepMode), seconds: timeout * 5,
            returnAfterSourceHandled: random.chance(30))
        labRunOverNested(&lab, timeout: timeout, nested: nested, labObserver: false)
        lab.on("\(FuzzGenerator.deepObserver).beforeSources", nth: 3, do: [.mark("woken again")])
    }
}

/// An item of a lab construction.
struct LabItem {
    var name: String
    var kind: ItemKind
    /// Made by a `create` step.
    var later = false
}

/// A lab construction as it is being built: its items, steps and triggers (each trigger fires once).
struct LabBlock {
    var items: [LabItem] = []
    var steps: [Action] = []
    var triggers: [(event: String, nth: Int, actions: [Action])] = []
    /// Whether one of its runs has a timeout above zero (the scenario then takes the `idle-wakes` allowance, as the
    /// hand-written sleeping cases do).
    var sleeps = false
    /// Whether it goes after the scenario's last step instead of before its first run: it makes a wake-up (see
    /// addDeadlineConstruction).
    var last = false

    /// A poll of `sink` (with the keeper in it): it takes a wake-up left pending by the scenario's runs, if any, so
    /// that none is pending when the construction begins; it calls out to nothing.
    mutating func drain() {
        keeper(in: [FuzzGenerator.sinkMode])
        run(FuzzGenerator.sinkMode, seconds: 0, rash: false)
    }

    /// The keeper timer, added to each of `modes`.
    mutating func keeper(in modes: [String]) {
        items.append(
            LabItem(
                name: FuzzGenerator.labKeeper,
                kind: .timer(fire: 100, interval: 0, tolerance: nil, order: 0)))
        for mode in modes { steps.append(.add(item: FuzzGenerator.labKeeper, mode: .named(mode))) }
    }

    /// An observer of every activity, added to `mode`.
    mutating func observer(_ name: String, in mode: String) {
        items.append(LabItem(name: name, kind: .observer(activities: .all, repeats: true, order: 0)))
        steps.append(.add(item: name, mode: .named(mode)))
    }

    /// The lab source, added to `lab` (signalled by the construction where it needs).
    mutating func source() {
        items.append(LabItem(name: FuzzGenerator.labSource, kind: .source0(order: 0, callouts: false)))
        steps.append(.add(item: FuzzGenerator.labSource, mode: .named(FuzzGenerator.labMode)))
    }

    mutating func on(_ event: String, nth: Int = 1, do actions: [Action]) {
        triggers.append((event: event, nth: nth, actions: actions))
    }

    mutating func run(_ mode: String, seconds: Double, rash: Bool, took: TimingAssertion? = nil) {
        steps.append(.run(RunRequest(mode: .named(mode), seconds: seconds, returnAfterSourceHandled: rash, took: took)))
    }
}
