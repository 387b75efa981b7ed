// Random scenarios in the spec's own model (SpecCase), built only from constructions whose trace is fixed on a correct
// engine, so that two engines that disagree on one have a real difference. FUZZING.md says which constructions are
// left out and why.

import ConformanceKit
import EngineKit

/// Parts of the format a campaign may use (`--areas`). A scenario uses a random mix of the enabled ones.
public enum FuzzArea: String, CaseIterable, Sendable {
    /// Version-0 sources, with and without schedule/cancel callouts; `signal`.
    case source0
    /// Version-1 sources over an eventfd; `write`.
    case source1
    /// Timers already due or far away; `setNextFireDate`, `setTolerance`.
    case timer
    /// Observers of every activity, repeating or not, with tied orders.
    case observer
    /// Blocks queued with `perform`.
    case block
    /// Poll runs made from inside callouts.
    case nested
    /// `stop`, `stopMode`, `wakeup`.
    case stop
    /// A second mode (`work`), `common`, `addCommonMode`, runs in other modes.
    case modes
    /// State queries (`currentMode`, `allModes`, `nextTimerFireDate`, `fireDate`, `isValid`, `contains`).
    case query
    /// A last run with an infinite timeout that sleeps, ended by a stop from a BeforeWaiting observer, or by a helper
    /// thread that waits for `isWaiting` and then stops it.
    case sleep
    /// (1.1) That last sleeping run made with CFRunLoopRun (`runForever`) instead, when it does not return after a
    /// handled source.
    case forever
    /// (1.1) Items created by a step (`created: later`, `create`): before their first use, or inside a callout that
    /// then adds them.
    case create
    /// (1.1) A second loop, `bg`, on its own host thread: items added to it, removed, looked up or signalled from the
    /// case thread (`target`), and zero-timeout runs of it on its thread that the case thread waits for (`post` then
    /// `join`), so that only one thread runs at a time.
    case loops
    /// (1.1, 1.2) Main-thread scenarios: the case's loop is the main loop, each scenario in a worker of its own; blocks
    /// sent to the main dispatch queue (`dispatchMain`) from steps and callouts of scenarios that only poll, from the
    /// helper thread or the ending timer's callout of sleeping ones; a run nested in a main-queue block; the main-loop
    /// and main-thread queries.
    case main
    /// (1.2) Time: a sleeping run ended by a timer that becomes due while it sleeps (dated a little after its
    /// creation, its callout stops the run), a sleeping run ended by its own short timeout (`took: atLeastTimeout`),
    /// a timer made, added and then stalled past so that it is due from then on, and stalls in callouts.
    case time
    /// Many items of one kind (17 or more observers, timers or sources) added and removed in patterns that leave holes
    /// at the front, middle and end of their stores, survivors removed again, then run; the first perform of a batch
    /// removing or invalidating later ones; blocks kept for another mode while more are queued; an observer freed from
    /// every mode offered to the second loop; a sleeping run whose last source or timer leaves in a callout
    /// (FuzzGenerator+Churn.swift).
    case churn
    /// Nested runs made in the last run's first callouts, with stops, mode stops and queries inside them; the literal
    /// "kCFRunLoopCommonModes" name as a mode; CFRunLoopAddCommonMode of a mode already common; `isWaiting` asked on
    /// the loop's own thread; a second loop's thread ended with sources in it (FuzzGenerator+Nesting.swift).
    case nesting
    /// (1.1, 1.2) Deadlines and timer dates that decide the trace, in modes of their own (FuzzGenerator+Deadlines.swift):
    /// runs that only their timeout ends, deadlines that pass during a pass's callouts or over a nested run, NaN
    /// timeouts, repeating timers made late, timers re-dated in their callout or from another thread, due timers with
    /// a tolerance, and runs nested in a firing timer's callout.
    case deadline
}

/// What a generator may build.
public struct FuzzShape: Sendable {
    /// Most steps of a scenario (the final run included).
    public var maxSteps: Int
    public var areas: Set<FuzzArea>

    /// 16 steps leave room, after the adds of a typical scenario's five or six items, for about ten actions and runs.
    public init(maxSteps: Int = 16, areas: Set<FuzzArea> = Set(FuzzArea.allCases)) {
        self.maxSteps = maxSteps
        self.areas = areas
    }
}

/// Builds the scenario of one seed. The same seed and shape give the same scenario, always: the only source of
/// randomness is a ``SplitMix64`` seeded with the scenario's seed.
///
/// Determinism on a correct engine comes from what is left out (FUZZING.md, "What the generator never makes"):
/// every run but the last is a zero-timeout poll. The last may sleep, and then one of four things ends it: an
/// observer of BeforeWaiting in the default mode stops it at its first wait; or, in a "quiet" scenario where the loop
/// has nothing to do when it first waits (no signal, write, nested run, wakeup or stop in callouts, no timer due, no
/// block left on the main queue), so that no poll pass (during which CF reports `isWaiting` briefly) and no early
/// wake-up can race it, a helper thread that waits for `isWaiting` stops it (or sends the stop to the main queue), a
/// timer made just before the run and due a little after its creation fires after the first wait, whenever it became
/// due, and its callout stops the run, or its own short timeout ends it. Timers are already due, far away, or made
/// due by a stall that follows their add at once (a stall lasts at least what it says; nothing is timed from above).
/// No `isWaiting` query but on the loop's own thread; no `fireDate` or `nextTimerFireDate` query on a case that moves
/// a timer to "now + S" or has a timer dated from its creation (the answer would depend on when the action ran); each
/// trigger fires once.
public struct FuzzGenerator: Sendable {
    public var shape: FuzzShape

    public init(shape: FuzzShape = FuzzShape()) {
        self.shape = shape
    }

    /// The name of the item that ends a sleeping run (never touched by other actions): the guard observer, or the
    /// ending timer (area `time`).
    static let guardName = "w"
    /// The name of the timer every mode of a main-thread scenario keeps (see Builder.build), never touched by other
    /// actions.
    static let keeperName = "k"
    /// The names of the items only the generator's own constructions use.
    static let reservedNames: Set<String> = Set([guardName, keeperName]).union(deadlineNames)
    /// The name of the timer made, added and stalled past (area `time`).
    static let stalledTimerName = "e1"
    /// A mode no action uses: the next-fire-date query of a mode with no timer (which creates no mode).
    static let unusedMode = "idle"
    /// The second mode's name.
    static let otherMode = "work"
    /// The second loop's name (area `loops`).
    static let secondLoop = "bg"

    public func scenario(seed: UInt64) -> SpecCase {
        var builder = Builder(shape: shape, random: SplitMix64(seed: seed))
        return builder.build(id: FuzzGenerator.caseID(seed: seed), seed: seed)
    }

    /// `fuzz.seed-N`: the id of the scenario of seed N, and of the case written for it.
    public static func caseID(seed: UInt64) -> String { "fuzz.seed-\(seed)" }
}

/// How a scenario's last run ends (FUZZING.md, "What the generator never makes").
enum Ending {
    /// A poll.
    case poll
    /// A sleeping run stopped at its first wait by the guard observer.
    case guardObserver
    /// A sleeping run of a quiet scenario stopped by a helper thread once the loop waits (on the main thread,
    /// sometimes by a block the helper sends to the main queue, which wakes the loop).
    case helper
    /// (time) A sleeping run of a quiet scenario stopped in the callout of a timer made just before it and due a
    /// little after its creation: the loop has nothing else to do, so the timer fires after the first wait whenever
    /// it becomes due (before that wait or during it), and the trace does not depend on when.
    case timer
    /// (time) A run of a quiet scenario with a short timeout, which nothing else ends.
    case timeout

    var sleeps: Bool { self != .poll }
    /// Whether the loop must have nothing to do when it first waits in the last run (see FuzzGenerator).
    var quiet: Bool { self == .helper || self == .timer || self == .timeout }
}

/// The state of one scenario being built; confined to the generating thread.
struct Builder {
    let shape: FuzzShape
    var random: SplitMix64
    var items: [ItemDeclaration] = []
    /// Timers that some action moves to "now + S": their dates are not queried.
    var movesTimers = false
    /// A scenario with a timer dated from its creation (the ending timer, the stalled-past timer): dates relative
    /// to the case's start depend on when it was made, so no date is queried (but the next fire date of the unused
    /// mode, which has no timer).
    var datesVary = false
    var ending = Ending.poll
    /// A scenario whose last run sleeps in a quiet scenario: nothing may make the loop poll or wake before it first
    /// waits in that run (see FuzzGenerator).
    var quiet = false
    /// A scenario that calls addCommonMode. CF copies the common items into the new mode in the iteration order of a
    /// set (RL 1976-93), which varies from process to process, so items whose order ties (observers of one order,
    /// timers of one date) would be called in a different order from run to run: such a scenario gives its observers
    /// distinct orders and its timers distinct dates, and adds no version-1 source to the common modes (the order of
    /// ready ports, ``addMode(for:)``).
    var copiesCommonItems = false
    /// A scenario whose last run is stopped by the guard observer: no nested run in a callout, since a nested run
    /// made after the guard's stop in the same pass loses that stop on both engines (`cf.stop-then-nested-run`), and
    /// the run would then sleep until the watchdog.
    var guarded = false
    /// (main) A main-thread scenario: its loop is the main loop.
    var mainThread = false
    /// Whether an action being drawn is inside a block sent to the main queue (no further block is sent from it).
    var inMainQueueBlock = false
    /// (nesting) The area's constructions this scenario gets, drawn before the steps so that their steps are kept free.
    var nesting = NestingPlan()

    init(shape: FuzzShape, random: SplitMix64) {
        self.shape = shape
        self.random = random
    }

    func has(_ area: FuzzArea) -> Bool { shape.areas.contains(area) }

    /// Whether actions may send blocks to the main queue: on the main thread, in a scenario that only polls. A block
    /// left queued when a sleeping run starts would be serviced at its first wait, which the helper thread or the
    /// guard's stop would race.
    var sendsToMainQueue: Bool { mainThread && ending == .poll }

    /// The scenario, phase by phase. The order of the phases is the order of the random draws, which fixes the
    /// scenario of each seed: a phase moved, or a draw added before another, changes every seed's scenario.
    mutating func build(id: String, seed: UInt64) -> SpecCase {
        let here = SpecLocation(file: "fuzz", line: 0)
        if has(.churn), FuzzGenerator.makesChurn(seed: seed), let churn = buildChurn(id: id, seed: seed, location: here)
        {
            return churn
        }
        let sleeps = drawEnding()
        mainThread = has(.main) && random.chance(4)
        datesVary = ending == .timer
        copiesCommonItems = has(.modes) && random.chance(40)
        makeItems(location: here)
        var steps = addKeeperTimer(location: here)
        movesTimers = has(.timer) && !names("timer").isEmpty && random.chance(40)
        // The timer made, added and stalled past: only where a due timer cannot race a helper thread.
        let stallsPastTimer = has(.time) && !quiet && random.chance(15)
        if stallsPastTimer { datesVary = true }
        if has(.nesting) { planNesting() }
        let budget = max(
            1,
            shape.maxSteps - (ending == .timer ? 3 : sleeps ? 2 : 1) - (stallsPastTimer ? 3 : 0)
                - nesting.steps)
        addOpeningSteps(steps: &steps, budget: budget)
        addInvalidatedItem(steps: &steps, budget: budget)
        if stallsPastTimer { addStalledPastTimer(steps: &steps, location: here) }
        var triggers = randomTriggers(location: here)
        var allowances = addLastRun(steps: &steps, triggers: &triggers, location: here)
        let loops = addLaterConstructions(
            sleeps: sleeps, steps: &steps, triggers: &triggers,
            allowances: &allowances, location: here)
        var specCase = SpecCase(
            id: id, rule: "Fuzzer scenario of seed \(seed) (runloop fuzz).", source: "observed",
            features: mainThread ? [.mainThread] : [], allowances: allowances, timeout: nil,
            items: items, steps: steps, triggers: triggers, expectedTrace: [], location: here)
        specCase.loops = loops
        specCase.features = FuzzScenario.features(of: specCase)
        return specCase
    }

    /// Draws how the last run ends (``Ending``) and sets what follows from it; returns whether that run sleeps.
    mutating func drawEnding() -> Bool {
        let sleeps = has(.sleep) && random.chance(30)
        if sleeps {
            ending = random.chance(50) ? .helper : .guardObserver
            if ending == .helper, has(.time) {
                let draw = random.below(20)
                ending = draw < 7 ? .timer : draw < 10 ? .timeout : .helper
            }
        }
        quiet = ending.quiet
        guarded = ending == .guardObserver
        return sleeps
    }

    /// (main) In half the main-thread scenarios, a timer 100 s away in every mode, so that no mode loses its last
    /// timer: on the main loop the stale timerfd wake-up CF leaves when it does (fuzz-known.yaml,
    /// cf.stale-timer-wake-hides-port) hides the main queue's port, a known defect that main-thread scenarios would
    /// otherwise hit over and over. Not in all: a common mode of the main loop with nothing in it must not be empty
    /// (rule main.common-mode-never-empty), which a mode that always holds a timer never shows. Returns the steps that
    /// add it.
    mutating func addKeeperTimer(location: SpecLocation) -> [Action] {
        guard mainThread && random.chance(50) else { return [] }
        items.append(
            ItemDeclaration(
                name: FuzzGenerator.keeperName,
                kind: .timer(fire: 100, interval: 0, tolerance: nil, order: 0),
                location: location))
        var steps: [Action] = [.add(item: FuzzGenerator.keeperName, mode: .common)]
        if has(.modes) {
            steps.append(.add(item: FuzzGenerator.keeperName, mode: .named(FuzzGenerator.otherMode)))
        }
        return steps
    }

    /// Most items are added before anything else happens, as in the hand-written cases, some to a second mode; then
    /// random actions, within `budget` steps.
    mutating func addOpeningSteps(steps: inout [Action], budget: Int) {
        for item in items
        where item.kind.isModeItem && !FuzzGenerator.reservedNames.contains(item.name)
            && steps.count < budget && random.chance(85)
        {
            steps.append(.add(item: item.name, mode: addMode(for: item.name)))
            if has(.modes), steps.count < budget, random.chance(15) {
                steps.append(.add(item: item.name, mode: addMode(for: item.name)))
            }
        }
        while steps.count < budget, random.chance(88) {
            steps.append(randomAction(inCallout: false))
        }
    }

    /// Sometimes, first of all, an item invalidated before it is added (CF adds nothing, and creates no mode, for an
    /// invalid item).
    mutating func addInvalidatedItem(steps: inout [Action], budget: Int) {
        let invalidatable = names("source0", "source1", "timer", "observer")
        guard steps.count < budget, !invalidatable.isEmpty, random.chance(12) else { return }
        let sources = names("source0", "source1")
        let item = !sources.isEmpty && random.chance(50) ? random.pick(sources) : random.pick(invalidatable)
        var first: [Action] = [.invalidate(item)]
        // Sometimes added at once to the common modes, or to a mode that does not exist yet, and asked: CF returns
        // before it looks a mode up for an invalid item (rule common.add-common-mode), so it is not a common item
        // and no mode is made.
        if has(.modes), has(.query), random.chance(50) {
            first +=
                random.chance(50)
                ? [.add(item: item, mode: .common), .contains(item: item, mode: .common)]
                : [.add(item: item, mode: .named(FuzzGenerator.otherMode)), .query(.allModes)]
        }
        steps.insert(contentsOf: first, at: 0)
    }

    /// Up to four triggers on events the items can produce, each acting once (on the first or second occurrence).
    mutating func randomTriggers(location: SpecLocation) -> [Trigger] {
        var triggers: [Trigger] = []
        for _ in 0..<random.within(0...4) {
            guard let event = randomEvent() else { break }
            let count = random.within(1...2)
            var actions: [Action] = []
            for _ in 0..<count { actions.append(randomAction(inCallout: true)) }
            actions = Self.withoutStopThenRun(actions)
            triggers.append(
                Trigger(
                    event: event, occurrence: .nth(random.chance(75) ? 1 : 2), actions: actions,
                    location: location))
        }
        return triggers
    }

    /// The last run, and what ends it as `ending` says; returns the allowances the case needs.
    mutating func addLastRun(
        steps: inout [Action], triggers: inout [Trigger],
        location: SpecLocation
    ) -> Set<Allowance> {
        switch ending {
        case .helper:
            addHelperEnding(steps: &steps)
        case .guardObserver:
            addGuardEnding(steps: &steps, triggers: &triggers, location: location)
        case .timer:
            addTimerEnding(steps: &steps, triggers: &triggers, location: location)
        case .timeout:
            // Nothing else ends it: it waits until its timeout and returns timedOut. (No `took: atLeastTimeout`: a
            // mode left empty, or a stopMode made before, ends it at once, and the failed assertion's line would hold
            // the measured time.)
            steps.append(
                .run(
                    RunRequest(
                        mode: .default, seconds: random.pick([0.005, 0.01]),
                        returnAfterSourceHandled: random.chance(30))))
        case .poll:
            steps.append(.run(RunRequest(mode: .default, seconds: 0, returnAfterSourceHandled: random.chance(30))))
            return []
        }
        // A wake-up that handles nothing gives a callout-free pass (rule wakeup.idle-pass); CF makes them.
        return [.idleWakes]
    }

    /// The helper thread acts once the loop waits; with nothing to do, the loop first waits in the sleeping run's
    /// first pass, so the stop lands there (stop.from-other-thread-while-waiting). On the main thread it may send the
    /// stop in a block to the main queue instead, which wakes the loop and runs in that pass
    /// (main.queue-wakes-waiting-loop).
    mutating func addHelperEnding(steps: inout [Action]) {
        var ender: Action = has(.stop) && random.chance(30) ? .stopMode(ModeName.defaultModeName) : .stop
        if mainThread, random.chance(50) { ender = .dispatchMain([.mark("main queue"), .stop]) }
        steps.append(.thread(wait: .waiting, actions: [ender]))
        steps.append(.run(sleepingRun()))
    }

    /// The guard: an observer of BeforeWaiting in the default mode stops every run that reaches a wait, so the
    /// infinite run ends at its first wait (stop.in-before-waiting-observer) and nothing races it.
    mutating func addGuardEnding(steps: inout [Action], triggers: inout [Trigger], location: SpecLocation) {
        addGuardObserver(steps: &steps, triggers: &triggers, location: location)
        steps.append(
            .run(
                RunRequest(
                    mode: .default, seconds: .infinity,
                    returnAfterSourceHandled: random.chance(30))))
    }

    /// The ending timer, made and added just before the run, so no earlier run can fire it; the run's first pass
    /// handles no source (the scenario is quiet), so the timer fires after the first wait whether it became due before
    /// that wait or during it. Its callout stops the run (on the main thread, sometimes through a block sent to the
    /// main queue, which the next pass services at its top: main.queue-fast-path).
    mutating func addTimerEnding(steps: inout [Action], triggers: inout [Trigger], location: SpecLocation) {
        items.append(
            ItemDeclaration(
                name: FuzzGenerator.guardName,
                kind: .timer(
                    fire: random.pick([0.002, 0.01]),
                    interval: random.pick([0.0, 0.0, -1.0, 0.001, 0.2]),
                    tolerance: nil, order: 0),
                location: location, createdByStep: true, firesFromCreation: true))
        var actions: [Action] = random.chance(40) ? [randomAction(inCallout: true)] : []
        actions.append(mainThread && random.chance(50) ? .dispatchMain([.mark("main queue"), .stop]) : .stop)
        triggers.append(
            Trigger(
                event: "fire \(FuzzGenerator.guardName)", occurrence: .nth(1),
                actions: actions, location: location))
        steps.append(.create(FuzzGenerator.guardName))
        let mode: ModeName = has(.modes) && random.chance(30) ? .common : .default
        steps.append(.add(item: FuzzGenerator.guardName, mode: mode))
        steps.append(.run(sleepingRun()))
    }

    /// The constructions of the later formats (1.1 and after), drawn last so that they leave the rest of a seed's
    /// scenario as it was before them; returns the case's other loops.
    mutating func addLaterConstructions(
        sleeps: Bool, steps: inout [Action], triggers: inout [Trigger],
        allowances: inout Set<Allowance>, location: SpecLocation
    ) -> [String] {
        if sleeps, ending != .timeout, has(.forever), case .run(let request)? = steps.last, request.mode == .default,
            !request.returnAfterSourceHandled, random.chance(50)
        {
            // CFRunLoopRun ends when an inner run returns Stopped or Finished; the sleeping run above can return
            // nothing else (no timeout, no returnAfterSourceHandled), so the same stop ends both.
            steps[steps.count - 1] = .runForever(took: nil)
        }
        if has(.create) { createSomeLater(steps: &steps, triggers: &triggers) }
        var loops = has(.loops) ? addSecondLoop(steps: &steps) : []
        let beforeNesting = steps.count + triggers.count
        if has(.nesting) { addNesting(steps: &steps, triggers: &triggers, loops: &loops, location: location) }
        // One of the two last-run constructions per scenario: a nesting probe works on the last run, which a deadline
        // construction (appended as the last steps) would no longer be.
        if has(.deadline), steps.count + triggers.count == beforeNesting {
            addDeadlineConstruction(steps: &steps, triggers: &triggers, allowances: &allowances, location: location)
        }
        if sendsToMainQueue, has(.nested), random.chance(50) { addRunNestedInMainQueueBlock(steps: &steps) }
        return loops
    }

    /// The last run of a helper's or a timer's ending: an infinite timeout, or (area `time`) a finite one of 10 s
    /// that the stop must end before half of it has passed.
    mutating func sleepingRun() -> RunRequest {
        let returnAfterSourceHandled = random.chance(30)
        if has(.time), random.chance(30) {
            return RunRequest(
                mode: .default, seconds: 10, returnAfterSourceHandled: returnAfterSourceHandled,
                took: .underTimeout(fraction: 0.5))
        }
        return RunRequest(mode: .default, seconds: .infinity, returnAfterSourceHandled: returnAfterSourceHandled)
    }

    /// A timer dated a little after its creation, made, added and then stalled past by three steps in a row before
    /// the first run: no run comes between its add and the stall, and after the stall it is due (a stall lasts at
    /// least what it says), so every later run finds it due, and how the engine learns that a timer it armed for later
    /// has become due is on trial. Actions and triggers may name it from then on.
    mutating func addStalledPastTimer(steps: inout [Action], location: SpecLocation) {
        let name = FuzzGenerator.stalledTimerName
        items.append(
            ItemDeclaration(
                name: name,
                kind: .timer(
                    fire: 0.002, interval: random.pick([0.0, 0.0, -1.0, 100.0]),
                    tolerance: nil, order: random.within(0...1)),
                location: location, createdByStep: true, firesFromCreation: true))
        let firstRun = FuzzGenerator.firstRunIndex(in: steps)
        steps.insert(
            contentsOf: [.create(name), .add(item: name, mode: randomMode()), .stall(0.005)],
            at: random.within(0...firstRun))
    }

    /// Sometimes gives the case a second loop and inserts, within the step budget and before the last run (and before
    /// a helper thread that waits for it), actions that address it: any-thread calls from the case thread (`target`),
    /// and poll runs on its host thread bracketed by `post` and `join`, so the case thread waits while that loop runs
    /// and its callouts' triggers act on it. Items made later are left out of the calls (they may not exist yet), and
    /// the posted runs come after the steps that make them.
    mutating func addSecondLoop(steps: inout [Action]) -> [String] {
        guard random.chance(35) else { return [] }
        let loop = FuzzGenerator.secondLoop
        let made = items.filter { item in
            item.kind.isModeItem && !item.createdByStep && !FuzzGenerator.reservedNames.contains(item.name)
        }
        let sources = made.filter { ["source0", "source1"].contains($0.kind.word) }.map(\.name)
        let modeItems = made.map(\.name)
        var inserted = false
        for _ in 0..<random.within(1...4) {
            var group: [Action]
            if !modeItems.isEmpty, random.chance(60) {
                let item = random.pick(modeItems)
                let call: Action
                switch random.below(5) {
                case 0, 1: call = .add(item: item, mode: addMode(for: item))
                case 2: call = .remove(item: item, mode: randomMode())
                case 3:
                    call = has(.query) ? .contains(item: item, mode: randomMode()) : .add(item: item, mode: .default)
                default: call = sources.isEmpty || quiet ? .wakeUp : .signal(random.pick(sources))
                }
                group = [.target(loop: loop, actions: [call])]
            } else {
                let mode: ModeName = has(.modes) && random.chance(30) ? .named(FuzzGenerator.otherMode) : .default
                group = [
                    .post(
                        loop: loop,
                        actions: [
                            .run(
                                RunRequest(
                                    mode: mode, seconds: 0,
                                    returnAfterSourceHandled: random.chance(30)))
                        ]),
                    .join(loop),
                ]
            }
            let limit =
                steps.firstIndex { step in
                    if case .thread = step { return true }
                    return false
                } ?? steps.count - 1
            guard steps.count + group.count <= shape.maxSteps else { break }
            // A posted run calls out, so the triggers act there: after every step that creates an item, which a
            // trigger may name (createSomeLater puts those steps before the case thread's first run only).
            let runs = group.contains {
                if case .post = $0 { return true }
                return false
            }
            let lastCreate = steps.lastIndex {
                if case .create = $0 { return true }
                return false
            }
            // Never between a post and its join, where the case thread would act while the other loop runs.
            let positions = (0...max(0, limit)).filter { position in
                if runs, let lastCreate, position <= lastCreate { return false }
                // Nor between the make of a timer dated from its creation and its add, or the stall that makes it
                // due (addStalledPastTimer): a trigger of a posted run could add it to that loop.
                if position < steps.count, case .stall = steps[position] { return false }
                if position > 0, case .create(let made) = steps[position - 1],
                    items.contains(where: { $0.name == made && $0.firesFromCreation })
                {
                    return false
                }
                guard position > 0, case .post = steps[position - 1] else { return true }
                return false
            }
            guard !positions.isEmpty else { continue }
            steps.insert(contentsOf: group, at: random.pick(positions))
            inserted = true
        }
        return inserted ? [loop] : []
    }

    /// Drops any `run` after a `stop` in one callout's list: CF loses such a stop (fuzz-known.yaml,
    /// `cf.stop-then-nested-run`), so the generator does not make it.
    static func withoutStopThenRun(_ actions: [Action]) -> [Action] {
        guard
            let stop = actions.firstIndex(where: {
                if case .stop = $0 { return true }
                return false
            })
        else {
            return actions
        }
        return actions.enumerated().filter { index, action in
            if index > stop, case .run = action { return false }
            return true
        }.map(\.element)
    }

    /// Makes some items `created: later`. Triggers act only inside callouts of runs, so an item created by a step
    /// before the first run and before its first use is there for every action that names it. An item no action
    /// names may instead be created and added inside a trigger that fires once (rule item.added-mid-pass).
    mutating func createSomeLater(steps: inout [Action], triggers: inout [Trigger]) {
        for index in items.indices
        where items[index].kind.isModeItem
            && !FuzzGenerator.reservedNames.contains(items[index].name) && !items[index].createdByStep
        {
            guard random.chance(25) else { continue }
            let name = items[index].name
            let stepUses = steps.indices.filter { FuzzScenario.references(of: steps[$0]).contains(name) }
            let firstRun = FuzzGenerator.firstRunIndex(in: steps)
            let triggerUses = triggers.contains { trigger in
                trigger.actions.contains { FuzzScenario.references(of: $0).contains(name) }
            }
            let hosts = triggers.indices.filter { host in
                triggers[host].occurrence != .every && FuzzScenario.eventItem(triggers[host].event) != name
            }
            items[index].createdByStep = true
            if stepUses.isEmpty, !triggerUses, !hosts.isEmpty, random.chance(60) {
                let host = random.pick(hosts)
                triggers[host].actions.insert(
                    contentsOf: [.create(name), .add(item: name, mode: addMode(for: name))],
                    at: random.within(0...triggers[host].actions.count))
            } else {
                var position = random.within(0...min(stepUses.first ?? steps.count, firstRun))
                // Not between the make of the stalled-past timer and its stall: CF dates a timer made with a date in
                // the past at its creation (CFRunLoopTimerCreate, RL 4534-41), so one made there could come before or
                // after the stalled-past timer in the order of due timers, by how fast the steps ran.
                if let made = steps.firstIndex(where: { step in
                    if case .create(FuzzGenerator.stalledTimerName) = step { return true }
                    return false
                }),
                    let stall = steps[made...].firstIndex(where: {
                        if case .stall = $0 { return true }
                        return false
                    }),
                    position > made, position <= stall
                {
                    position = made
                }
                steps.insert(.create(name), at: position)
            }
        }
    }

    // MARK: Items

    mutating func makeItems(location: SpecLocation) {
        func add(_ prefix: String, _ count: Int, _ kind: (inout Builder) -> ItemKind) {
            for index in 0..<count {
                let made = kind(&self)
                items.append(ItemDeclaration(name: "\(prefix)\(index + 1)", kind: made, location: location))
            }
        }
        // Distinct orders and dates for a scenario that copies common items (see copiesCommonItems).
        var distinctOrders = random.shuffle([0, 1, 2])
        var distinctDates = random.shuffle([-1.0, -2.0, 100.0])
        if has(.observer) {
            add("o", random.within(1...3)) { builder in
                var activities = ActivitySet.all
                if builder.random.chance(40) {
                    let chosen = Activity.allCases.filter { _ in builder.random.chance(50) }
                    activities = ActivitySet(chosen.isEmpty ? [builder.random.pick(Activity.allCases)] : chosen)
                }
                let order = builder.copiesCommonItems ? distinctOrders.removeFirst() : builder.random.within(0...2)
                return .observer(activities: activities, repeats: builder.random.chance(85), order: order)
            }
        }
        if has(.source0) {
            add("s", random.within(0...3)) { builder in
                .source0(order: builder.random.within(0...2), callouts: builder.random.chance(50))
            }
        }
        if has(.source1), random.chance(30) {
            add("p", 1) { builder in .source1(order: builder.random.within(0...2)) }
        }
        if has(.timer) {
            add("t", random.within(0...2)) { builder in
                // Already due (two dates, so the order of due timers is tested) or far beyond the case.
                var fire =
                    builder.quiet
                    ? 100
                    : builder.copiesCommonItems
                        ? distinctDates.removeFirst()
                        : builder.random.pick([-1.0, -2.0, 100.0])
                // One-shot, repeating far beyond the case, or a negative interval (CFRunLoopTimerCreate makes it 0:
                // one-shot).
                let interval = builder.random.pick([0.0, 0.0, 100.0, 60.0, -1.0])
                // A repeating timer first due long before the case: CF dates it from its creation (rule
                // timer.creation), so its next date is one interval after that, not after the date it was given
                // (fires it missed before it existed are not skipped: there were none).
                if interval > 0, fire < 0, !builder.copiesCommonItems, builder.random.chance(40) {
                    fire = builder.random.pick([-150.0, -250.0])
                }
                return .timer(fire: fire, interval: interval, tolerance: nil, order: builder.random.within(0...1))
            }
        }
        if has(.block) {
            add("b", random.within(0...2)) { _ in .block }
        }
    }

    func names(_ words: String...) -> [String] {
        items.filter { words.contains($0.kind.word) && !FuzzGenerator.reservedNames.contains($0.name) }.map(\.name)
    }

    mutating func randomMode() -> ModeName {
        guard has(.modes) else { return .default }
        if has(.nesting), random.chance(6) { return .named(FuzzGenerator.literalCommonModes) }
        return random.pick([.default, .default, .common, .named(FuzzGenerator.otherMode)])
    }

    /// The mode an add of `item` names: ``randomMode()``, but `default` for a version-1 source drawn into the common
    /// modes of a scenario that copies common items. CF copies them into the new common mode in set order (see
    /// copiesCommonItems), which puts their ports into that mode's epoll set in that order, and a wait reports one
    /// ready port per pass, the first of epoll's ready list: a version-1 source with data pending copied with a due
    /// timer (the mode's timerfd) or with another such source would be handled first in some runs and second in
    /// others. Copied with no version-1 source, a mode gets at most one port from the copy, its timers'.
    mutating func addMode(for item: String) -> ModeName {
        let mode = randomMode()
        let isPort = items.contains { $0.name == item && $0.kind.word == "source1" }
        return copiesCommonItems && isPort && mode == .common ? .default : mode
    }

    mutating func concreteModeName() -> String {
        has(.modes) && random.chance(40) ? FuzzGenerator.otherMode : ModeName.defaultModeName
    }

    // MARK: Actions

    /// One action. Each verb is tried at its weight; a verb without the items it needs gives way to the next draw.
    mutating func randomAction(inCallout: Bool) -> Action {
        for _ in 0..<20 {
            if let action = tryAction(inCallout: inCallout) { return action }
        }
        return .mark("nothing")
    }

    mutating func tryAction(inCallout: Bool) -> Action? {
        let modeItems = names("source0", "source1", "timer", "observer")
        let sources = names("source0", "source1")
        let ports = names("source1")
        let timers = names("timer")
        let blocks = names("block")
        switch random.below(19) {
        case 0, 1:
            guard !modeItems.isEmpty else { return nil }
            let item = random.pick(modeItems)
            return .add(item: item, mode: addMode(for: item))
        case 2:
            guard !modeItems.isEmpty else { return nil }
            return .remove(item: random.pick(modeItems), mode: randomMode())
        case 3:
            guard has(.query), !modeItems.isEmpty else { return nil }
            return .contains(item: random.pick(modeItems), mode: randomMode())
        case 4:
            guard copiesCommonItems else { return nil }
            return .addCommonMode(FuzzGenerator.otherMode)
        case 5, 6:
            guard !quiet, !sources.isEmpty else { return nil }
            return .signal(random.pick(sources))
        case 7:
            guard !quiet, !ports.isEmpty else { return nil }
            return .write(random.pick(ports))
        case 8:
            guard has(.stop), !(quiet && inCallout) else { return nil }
            return random.pick([Action.stop, .wakeUp, .stopMode(concreteModeName())])
        case 9:
            guard !modeItems.isEmpty, random.chance(40) else { return nil }
            return .invalidate(random.pick(modeItems))
        case 10:
            guard !timers.isEmpty else { return nil }
            if movesTimers, random.chance(70) {
                return .setNextFireDate(timer: random.pick(timers), seconds: quiet ? 100 : random.pick([-1.0, 100.0]))
            }
            guard random.chance(20) else { return nil }
            return .setTolerance(timer: random.pick(timers), seconds: 0.05)
        case 11, 12:
            guard !inCallout || (has(.nested) && !quiet && !guarded) else { return nil }
            let mode: ModeName = has(.modes) && random.chance(30) ? .named(FuzzGenerator.otherMode) : .default
            return .run(RunRequest(mode: mode, seconds: 0, returnAfterSourceHandled: random.chance(30)))
        case 13, 14:
            guard !blocks.isEmpty else { return nil }
            let block = random.pick(blocks)
            if has(.modes), random.chance(25) {
                return .perform(block: block, modes: .list([.default, .named(FuzzGenerator.otherMode)]))
            }
            return .perform(block: block, modes: .one(random.pick(has(.modes) ? [.default, .common] : [.default])))
        case 15:
            return has(.query) ? .query(randomQuery(modeItems: modeItems, timers: timers)) : nil
        case 17:
            guard sendsToMainQueue, !inMainQueueBlock else { return nil }
            return mainQueueBlock()
        case 18:
            // A callout that takes time; nothing in a scenario depends on how long (timers are due, far away, or
            // stalled past), so the trace must not change.
            guard has(.time), inCallout, random.chance(25) else { return nil }
            return .stall(random.pick([0.0005, 0.002]))
        default:
            return random.chance(30) ? .mark("m\(random.within(1...3))") : nil
        }
    }

    /// (main) A block sent to the main queue by the step just before the last run (a poll, which services the queue),
    /// whose callout makes a zero-timeout run of `default`, one of the main loop's common modes, nested in it. Inside a
    /// main-queue callout the queue is not serviced and does not count for the mode's emptiness (rule
    /// main.nested-in-queue-callout): the nested run returns Finished at once when `default` holds nothing, and it
    /// handles nothing for a block the callout sent before it (which runs in a later pass, or never, as the last run
    /// is a poll), so with returnAfterSourceHandled it returns TimedOut, unless a source of `default` was signalled.
    /// A run that serviced the queue there would return TimedOut for an empty mode and HandledSource for the block.
    mutating func addRunNestedInMainQueueBlock(steps: inout [Action]) {
        guard case .run? = steps.last else { return }
        var actions: [Action] = [.mark("q4")]
        if random.chance(75) { actions.append(.dispatchMain([.mark("q5")])) }
        actions.append(.run(RunRequest(mode: .default, seconds: 0, returnAfterSourceHandled: random.chance(75))))
        steps.insert(.dispatchMain(actions), at: steps.count - 1)
    }

    /// A block sent to the main queue (`dispatchMain`): a mark, so the trace shows where it ran, and sometimes one more
    /// action, drawn as in a callout (a nested run in it does not service the queue: main.nested-in-queue-callout).
    mutating func mainQueueBlock() -> Action {
        var actions: [Action] = [.mark("q\(random.within(1...3))")]
        if random.chance(50) {
            inMainQueueBlock = true
            actions.append(randomAction(inCallout: true))
            inMainQueueBlock = false
        }
        return .dispatchMain(Self.withoutStopThenRun(actions))
    }

    mutating func randomQuery(modeItems: [String], timers: [String]) -> Query {
        var choices: [Query] = [.currentMode, .allModes]
        // Asked on the loop's own thread (steps, callouts, blocks of the main queue): false but in the wait itself.
        if has(.nesting) { choices.append(.isWaiting) }
        if !movesTimers, !datesVary {
            // A repeating timer dated in the past is due from its creation (rule timer.creation), so once it has fired
            // its date is its creation time plus an interval, relative to the case's start: the answer then depends on
            // how long making the items took (under load, 0.01 s or more: a 30-minute campaign found seed 20276902
            // answering differently from run to run). Neither its date nor that of a mode it may come first in is
            // asked; the other timers' dates are fixed (given, or 100 s after the start).
            let fixed = timers.filter { name in
                !items.contains { item in
                    guard item.name == name, case .timer(let fire, let interval, _, _) = item.kind else { return false }
                    return interval > 0 && fire < 0
                }
            }
            if fixed.count == timers.count { choices.append(.nextTimerFireDate(randomMode())) }
            if !fixed.isEmpty { choices.append(.fireDate(random.pick(fixed))) }
        }
        // A mode with no timer (and no item: asking does not create it).
        choices.append(.nextTimerFireDate(.named(FuzzGenerator.unusedMode)))
        if has(.main) { choices += [.isMainThread, .isMainLoop, .caseLoopIsMain] }
        if !timers.isEmpty, random.chance(20) { choices.append(.tolerance(random.pick(timers))) }
        if !modeItems.isEmpty { choices.append(.isValid(random.pick(modeItems))) }
        return random.pick(choices)
    }

    // MARK: Trigger events

    /// A trace line some item of the case can produce.
    mutating func randomEvent() -> String? {
        var events: [String] = []
        for item in items where !FuzzGenerator.reservedNames.contains(item.name) {
            switch item.kind {
            case .observer(let activities, _, _):
                events += Activity.allCases.filter(activities.contains).map { "\(item.name).\($0.rawValue)" }
            case .source0:
                // Not its schedule or cancel callouts: for an add to common modes CF calls them for each mode in set
                // order, which is unspecified, so what a trigger on one does would land at an unspecified point.
                events.append("perform \(item.name)")
            case .source1:
                events.append("perform \(item.name)")
            case .timer:
                events.append("fire \(item.name)")
            case .block:
                events.append("block \(item.name)")
            }
        }
        return events.isEmpty ? nil : random.pick(events)
    }
}

extension FuzzGenerator {
    /// The index of the first run (or run forever) in `steps`, or the end when there is none.
    static func firstRunIndex(in steps: [Action]) -> Int {
        steps.firstIndex { step in
            switch step {
            case .run, .runForever: return true
            default: return false
            }
        } ?? steps.count
    }
}

extension Builder {
    /// The guard: a repeating BeforeWaiting observer of the default mode whose every callout stops the loop, so an
    /// infinite run ends at its first wait (stop.in-before-waiting-observer). Draws its order from `random`.
    mutating func addGuardObserver(steps: inout [Action], triggers: inout [Trigger], location: SpecLocation) {
        items.append(
            ItemDeclaration(
                name: FuzzGenerator.guardName,
                kind: .observer(
                    activities: ActivitySet([.beforeWaiting]), repeats: true,
                    order: random.within(0...2)),
                location: location))
        steps.append(.add(item: FuzzGenerator.guardName, mode: .default))
        triggers.append(
            Trigger(
                event: "\(FuzzGenerator.guardName).beforeWaiting", occurrence: .every,
                actions: [.stop], location: location))
    }
}
