// Area `nesting`: the constructions that put stops, mode stops and queries inside nested runs whose outer run goes on,
// the literal "kCFRunLoopCommonModes" name as a mode, CFRunLoopAddCommonMode of a mode already common, and a second
// loop's thread that exits with sources in it. Each is deterministic on a correct engine by construction; FUZZING.md
// ("What the generator makes", "What the generator never makes, and why") says why.

import ConformanceKit
import EngineKit

extension FuzzGenerator {
    /// The observer whose callouts make the nested run (area `nesting`). CF never calls an observer again while its
    /// callout runs, so it is not called in that nested run.
    static let probeName = "v"
    /// The observer whose callouts act inside the nested run (area `nesting`), with an order below `v`'s.
    static let insideName = "u"
    /// A version-0 source with callouts that keeps the nested run's mode from being empty (area `nesting`).
    static let probeSourceName = "x"
    /// A literal mode whose name is the characters of kCFRunLoopCommonModes, not the constant: items can be added
    /// to it (as to any plain mode), and CF refuses to run it (rules common.by-identity, run.common-modes-refused).
    static let literalCommonModes = "kCFRunLoopCommonModes"
}

/// Which of the area's constructions a scenario gets (drawn before its steps, so that the steps they need are kept
/// free of the budget).
struct NestingPlan {
    var probe = false
    var commonAgain = false
    var threadExit = false

    /// The most steps the constructions insert.
    var steps: Int { (probe ? 5 : 0) + (commonAgain ? 6 : 0) + (threadExit ? 6 : 0) }
}

extension Builder {
    /// Draws the area's constructions: the nested-run probe only where the scenario is not quiet (see
    /// addNestedRunProbe).
    mutating func planNesting() {
        nesting.probe = !quiet && has(.nested) && random.chance(40)
        nesting.commonAgain = has(.modes) && random.chance(15)
        nesting.threadExit = has(.loops) && !names("source0").isEmpty && random.chance(20)
    }

    /// Makes the planned constructions, after everything else is drawn. The probe comes last: its adds are the steps
    /// just before the last run. Each keeps within the most steps a scenario may have.
    mutating func addNesting(
        steps: inout [Action], triggers: inout [Trigger], loops: inout [String],
        location: SpecLocation
    ) {
        if nesting.commonAgain { addCommonModeAgain(steps: &steps) }
        if nesting.threadExit { addThreadExit(steps: &steps, triggers: triggers, loops: &loops) }
        if nesting.probe { addNestedRunProbe(steps: &steps, triggers: &triggers, location: location) }
    }

    // MARK: Nested runs in the last run's first callouts

    /// A nested run made in one of the first callouts of the last run (its Entry, or the BeforeTimers or
    /// BeforeSources of its first pass), by observer `v`, which is added just before that run, so its first Entry is
    /// that run's. `v` observes the nested run too when its mode is the last run's or `work`, and its callouts there
    /// stop it (`stop`, `stopMode` of either mode, or both), wake it or ask the current mode or isWaiting; the Entry
    /// callout asks the current mode again once the nested run has returned.
    ///
    /// Whatever leaks out of the nested run is seen by the last run: one made in its Entry checks its stop flags
    /// before its first pass (rule stop.before-first-pass), so a stop or a mode stop that reaches it ends it there,
    /// poll or not; one made later is seen at the end of that pass, which, for a sleeping run whose pass handled a
    /// source (the pass then polls), is not the last. Why it is deterministic:
    /// - only in a scenario that is not quiet (a nested poll reports isWaiting briefly, which a helper thread could
    ///   take for the sleep it waits for, and a stop in a callout could wake the run before the ending timer's fire);
    /// - the guard stops the last run at its first BeforeWaiting, and the nested run comes before any BeforeWaiting
    ///   of that run, so no nested run follows the guard's stop in its pass (FUZZING.md, the guard); a stop made in
    ///   the nested run that leaves a wake-up behind only makes a wait return that the guard's stop ends anyway;
    /// - the trigger events are counted from `v`'s add, which is the last step before the run, and a nested run
    ///   runs no BeforeWaiting (it is a poll), so each names one callout, of the nested run or the outer one, on every
    ///   engine that keeps the rules.
    mutating func addNestedRunProbe(steps: inout [Action], triggers: inout [Trigger], location: SpecLocation) {
        guard let last = steps.indices.last else { return }
        let outer: ModeName
        switch steps[last] {
        case .run(let request): outer = request.mode
        case .runForever: outer = .default
        default: return
        }
        guard case .named(let outerName) = outer, steps.count + 5 <= shape.maxSteps else { return }
        let work = ModeName.named(FuzzGenerator.otherMode)
        let literal = ModeName.named(FuzzGenerator.literalCommonModes)
        var modes: [ModeName] = [outer, outer]
        if has(.modes) { modes += [work, work, work, literal, .common] }
        let inner = random.pick(modes)
        // `u` observes the nested run (in its mode) when that runs: the last run's mode or `work`.
        let observesInner = inner == outer || inner == work
        // The probe observers, `u`'s order below `v`'s, so that in the last run `u` is called before `v`'s callout
        // makes the nested run; distinct from the others' where common items are copied in set order
        // (copiesCommonItems).
        var activities: [Activity] = [.entry, .beforeTimers, .beforeSources, .exit]
        if guarded { activities += [.beforeWaiting, .afterWaiting] }
        let usedOrders = Set(
            items.compactMap { item -> Int? in
                if case .observer(_, _, let order) = item.kind, item.name != FuzzGenerator.guardName { return order }
                return nil
            })
        let freeOrders = (0...5).filter { !usedOrders.contains($0) }
        let insideOrder = copiesCommonItems ? freeOrders[0] : random.within(0...1)
        let order = copiesCommonItems ? freeOrders[1] : random.within((insideOrder + 1)...2)
        let probe = FuzzGenerator.probeName
        let inside = FuzzGenerator.insideName
        items.append(
            ItemDeclaration(
                name: probe,
                kind: .observer(activities: ActivitySet(activities), repeats: true, order: order),
                location: location))
        if observesInner {
            items.append(
                ItemDeclaration(
                    name: inside,
                    kind: .observer(
                        activities: ActivitySet([
                            .entry, .beforeTimers,
                            .beforeSources, .exit,
                        ]),
                        repeats: true, order: insideOrder),
                    location: location))
        }
        var added: [Action] = []
        // The probe source keeps `work` from being empty, and makes the literal mode one that a wrong engine would
        // run (an empty mode is not run either). Order 3: no tie with the other sources (orders 0-2).
        var sourceMode: ModeName?
        if inner == work || inner == literal {
            sourceMode = inner
        } else if has(.modes), random.chance(30) {
            sourceMode = literal
        }
        // Sometimes the source is in the last run's mode too and the Entry callout signals it once the nested run has
        // returned: the last run's first pass then handles it, so a sleeping one polls and makes a second pass, where
        // a stop that leaked into it at the end of the first would be missing.
        let secondPass = random.chance(35)
        let source = FuzzGenerator.probeSourceName
        var signalled = false
        if sourceMode != nil || secondPass {
            items.append(ItemDeclaration(name: source, kind: .source0(order: 3, callouts: true), location: location))
        }
        if let sourceMode {
            added.append(.add(item: source, mode: sourceMode))
            if random.chance(35) {
                added.append(.signal(source))
                signalled = true
            }
        }
        if secondPass { added.append(.add(item: source, mode: outer)) }
        if observesInner { added.append(.add(item: inside, mode: inner)) }
        added.append(.add(item: probe, mode: outer))
        steps.insert(contentsOf: added, at: last)

        // Where the nested run is made: mostly the outer run's Entry, else its first pass's BeforeTimers or
        // BeforeSources.
        let host = random.pick([Activity.entry, .entry, .beforeTimers, .beforeSources])
        var outerActions: [Action] = []
        if has(.query), random.chance(15) { outerActions.append(.query(.currentMode)) }
        outerActions.append(.run(RunRequest(mode: inner, seconds: 0, returnAfterSourceHandled: random.chance(30))))
        if secondPass { outerActions.append(.signal(source)) }
        if has(.query), random.chance(50) {
            outerActions.append(.query(.currentMode))
        } else if random.chance(25) {
            // Not one that names an item a callout creates (createSomeLater): it may not exist yet.
            let action = randomAction(inCallout: true)
            let madeByCallouts = Set(items.filter(\.createdByStep).map(\.name)).subtracting(
                steps.compactMap { step in
                    if case .create(let name) = step { return name }
                    return nil
                })
            if FuzzScenario.references(of: action).isDisjoint(with: madeByCallouts) { outerActions.append(action) }
        }
        triggers.append(
            Trigger(
                event: "\(probe).\(host.rawValue)", occurrence: .nth(1),
                actions: Self.withoutStopThenRun(outerActions), location: location))

        // What is done inside the nested run, on the n-th callout of `v` that is the nested run's (counted from the
        // outer run's Entry; the outer run's first BeforeTimers or BeforeSources comes before the nested run when
        // that is where it is made).
        // `u` in the last run's mode is called there first (its order is below `v`'s), so its callouts of the nested
        // run come second for each activity the last run has had by then.
        let both = inner == outer
        var events: [(event: String, nth: Int)] = []
        if observesInner {
            events.append(("\(inside).exit", 1))
            events.append(("\(inside).entry", both ? 2 : 1))
            events.append(("\(inside).entry", both ? 2 : 1))
            events.append(("\(inside).beforeTimers", both && host != .entry ? 2 : 1))
            events.append(("\(inside).beforeSources", both && host == .beforeSources ? 2 : 1))
        } else {
            // No nested run to act in (a refused one): the last run's Exit.
            events.append(("\(probe).exit", 1))
        }
        if signalled { events.append(("perform \(FuzzGenerator.probeSourceName)", 1)) }
        let (event, nth) = random.pick(events)
        let innerName: String
        if case .named(let name) = inner, inner != literal { innerName = name } else { innerName = outerName }
        var innerActions: [Action] = []
        switch random.below(8) {
        case 0, 1: if has(.stop) { innerActions = [.stop] }
        case 2: if has(.stop) { innerActions = [.stopMode(innerName)] }
        case 3:
            if has(.stop) {
                innerActions = [.stopMode(random.pick([outerName] + (has(.modes) ? [FuzzGenerator.otherMode] : [])))]
            }
        case 4:
            // Both stops at one check: the run's own flag ranks first, and the mode's stays for its next run
            // (rule stop.mode-flag).
            if has(.stop) {
                innerActions = random.shuffle([Action.stop, .stopMode(random.pick([innerName, outerName]))])
            }
        case 5: if has(.stop) { innerActions = [.wakeUp] }
        case 6: if has(.query) { innerActions = [.query(.isWaiting)] }
        default: break
        }
        if has(.query), innerActions.isEmpty || random.chance(40) { innerActions.append(.query(.currentMode)) }
        if !innerActions.isEmpty {
            triggers.append(Trigger(event: event, occurrence: .nth(nth), actions: innerActions, location: location))
        }
        // A nested run of the last run's mode in that run's Exit, after its result is settled: a mode stop left
        // pending ends it before its first pass (rule stop.mode-flag: a mode's stop survives runs that end another
        // way, and ranks below the run's own flag, which the guard sets at every wait, so a mode stop made in the
        // last run's first pass is still pending here). Not on the callout the stops above are made in (a run after
        // a stop in one callout: cf.stop-then-nested-run).
        // (`v` is not called in the nested runs its callouts make, so its first Exit is the last run's.)
        let outerExit = 1
        if random.chance(40), !(event == "\(probe).exit" && nth == outerExit) {
            var exitActions: [Action] = [.run(RunRequest(mode: outer, seconds: 0, returnAfterSourceHandled: false))]
            if has(.query), random.chance(30) { exitActions.append(.query(.currentMode)) }
            triggers.append(
                Trigger(
                    event: "\(probe).exit", occurrence: .nth(outerExit), actions: exitActions,
                    location: location))
        }
        // In a run the guard ends: its first BeforeWaiting and AfterWaiting, where isWaiting is false too.
        if guarded, has(.query), random.chance(50) {
            let activity = random.pick([Activity.beforeWaiting, .beforeWaiting, .afterWaiting])
            triggers.append(
                Trigger(
                    event: "\(probe).\(activity.rawValue)", occurrence: .nth(1),
                    actions: [.query(.isWaiting)], location: location))
        }
    }

    // MARK: CFRunLoopAddCommonMode of a mode already common

    /// An item added to the common modes and removed from one of them (it stays a common item, rule common.remove),
    /// then CFRunLoopAddCommonMode of that mode, which is already common, so it does nothing (rule
    /// common.add-common-mode): the item is not back in it. The mode is `default` (common from the loop's creation),
    /// or `work`, made common by the group first where common items are copied (copiesCommonItems: no ties), else by
    /// the first step, when there is no common item to copy (CF copies them in set order).
    /// Where common items are copied, the item is not a version-1 source (``Builder/addMode(for:)``).
    mutating func addCommonModeAgain(steps: inout [Action]) {
        let candidates = items.filter { item in
            item.kind.isModeItem && !item.createdByStep && !FuzzGenerator.reservedNames.contains(item.name)
                && !(copiesCommonItems && item.kind.word == "source1")
        }.map(\.name)
        guard !candidates.isEmpty else { return }
        let item = random.pick(candidates)
        var group: [Action] = [.add(item: item, mode: .common)]
        var mode = ModeName.defaultModeName
        var first = false
        if copiesCommonItems, random.chance(60) {
            mode = FuzzGenerator.otherMode
            group.insert(.addCommonMode(mode), at: random.within(0...1))
        } else if !copiesCommonItems, random.chance(50) {
            mode = FuzzGenerator.otherMode
            first = true
        }
        group += [.remove(item: item, mode: .named(mode)), .addCommonMode(mode)]
        if has(.query) { group.append(.contains(item: item, mode: .named(mode))) }
        let positions = insertionPositions(in: steps, after: 0)
        guard !positions.isEmpty, steps.count + group.count + (first ? 1 : 0) <= shape.maxSteps else { return }
        steps.insert(contentsOf: group, at: random.pick(positions))
        if first { steps.insert(.addCommonMode(mode), at: 0) }
    }

    // MARK: A second loop's thread that exits

    /// Version-0 sources added to the second loop (`bg`) from the case thread, sometimes also to this loop and
    /// signalled, then `end: bg`: bg's thread exits, and CF removes every source from its loop, with a cancel callout
    /// per mode; the sources stay valid, keep their signal (this loop's next run performs one that is in it), and are
    /// no longer in bg (rule loop.thread-exit-removes-sources). The group comes after every other step that addresses
    /// bg, so nothing is posted to bg after its thread ended. Only where bg never holds a timer or an observer: CF
    /// leaves those in the loop of an exited thread, which ref does not model (the rule's note), so an add of one to
    /// this loop afterwards would differ.
    mutating func addThreadExit(steps: inout [Action], triggers: [Trigger], loops: inout [String]) {
        let loop = FuzzGenerator.secondLoop
        let sources = items.filter { item in
            item.kind.word == "source0" && !item.createdByStep && !FuzzGenerator.reservedNames.contains(item.name)
        }.map(\.name)
        guard !sources.isEmpty else { return }
        if !loops.isEmpty, mayHoldTimersOrObservers(loop, steps: steps, triggers: triggers) { return }
        let chosen = Array(random.shuffle(sources).prefix(random.within(1...2)))
        var group: [Action] = []
        var modes: [String: ModeName] = [:]
        for source in chosen {
            let mode = randomMode()
            modes[source] = mode
            group.append(.target(loop: loop, actions: [.add(item: source, mode: mode)]))
        }
        let kept = random.pick(chosen)
        if random.chance(50) { group.insert(.add(item: kept, mode: .default), at: random.within(0...group.count)) }
        // A pending signal outlives the thread's exit; only where a signal may be made (not in a quiet scenario).
        if !quiet, random.chance(60) { group.append(.signal(kept)) }
        group.append(.end(loop))
        if has(.query), random.chance(60) {
            let asked = random.pick(chosen)
            // A concrete mode: CF's exit removes a source from each mode by name, and leaves it among the loop's
            // common items (__CFFinalizeRunLoop, RL 1820-26), which no rule states.
            let mode = modes[asked] == .common ? .default : modes[asked] ?? .default
            group.append(.target(loop: loop, actions: [.contains(item: asked, mode: mode)]))
        }
        let lastAddressing = steps.lastIndex { step in
            switch step {
            case .target(loop, _), .post(loop, _), .join(loop): return true
            default: return false
            }
        }
        let positions = insertionPositions(in: steps, after: lastAddressing.map { $0 + 1 } ?? 0)
        guard !positions.isEmpty, steps.count + group.count <= shape.maxSteps else { return }
        steps.insert(contentsOf: group, at: random.pick(positions))
        if loops.isEmpty { loops = [loop] }
    }

    /// Whether loop `loop` may hold a timer or an observer: a step adds one to it from the case thread, or a run of it
    /// is posted (its callouts' triggers act on it) and some trigger adds one.
    func mayHoldTimersOrObservers(_ loop: String, steps: [Action], triggers: [Trigger]) -> Bool {
        let kinds: Set<String> = ["timer", "observer"]
        func addsOne(_ actions: [Action]) -> Bool {
            actions.contains { action in
                switch action {
                case .add(let item, _): return items.contains { $0.name == item && kinds.contains($0.kind.word) }
                case .dispatchMain(let inner), .thread(_, let inner), .post(_, let inner), .target(_, let inner):
                    return addsOne(inner)
                default: return false
                }
            }
        }
        let targeted = steps.contains { step in
            if case .target(loop, let inner) = step { return addsOne(inner) }
            return false
        }
        let posted = steps.contains { step in
            if case .post(loop, _) = step { return true }
            return false
        }
        return targeted || (posted && triggers.contains { addsOne($0.actions) })
    }

    /// The positions, from `start` on, where steps may be inserted: before the last run and the steps that prepare
    /// it (the helper thread, the guard's or the ending timer's make and add), never between a post and its join,
    /// nor between the make of a timer dated from its creation and its add or the stall that makes it due.
    func insertionPositions(in steps: [Action], after start: Int) -> [Int] {
        let ending = steps.firstIndex { step in
            switch step {
            case .thread: return true
            case .create(FuzzGenerator.guardName), .add(FuzzGenerator.guardName, _): return true
            default: return false
            }
        }
        let limit = min(ending ?? steps.count - 1, steps.count - 1)
        guard start <= limit else { return [] }
        return (start...limit).filter { position in
            if position < steps.count, case .stall = steps[position] { return false }
            guard position > 0 else { return true }
            switch steps[position - 1] {
            case .post: return false
            case .create(let made): return !items.contains { $0.name == made && $0.firesFromCreation }
            default: return true
            }
        }
    }
}
