// Shrinks a scenario on which engines diverge to a small one on which they still do: greedy, one simplification at a
// time (delta debugging's "one-minimal" result, without its subset splitting, since scenarios are small), biggest
// cuts first. Each round runs the candidates as one batch and keeps the first that still diverges.

import ConformanceKit
import EngineKit

/// Makes the one-step simplifications of a scenario.
public enum FuzzShrinker {
    /// Every scenario one simplification away from `specCase`, biggest cuts first: an item and everything that names
    /// it, a trigger, a step, one action of a trigger, then smaller values (nth 2 to 1, an observer's activity, a
    /// repeating observer or timer made simpler, orders to 0, callouts off, returnAfterSourceHandled off, a sleeping
    /// run made a poll, a step's mode made the default one).
    public static func candidates(_ specCase: SpecCase) -> [SpecCase] {
        var result: [SpecCase] = []
        let sleeps = FuzzScenario.hasSleepingRun(specCase.steps)
        for item in specCase.items {
            // The guard observer ends a sleeping run; without it the run would sleep until the watchdog.
            if sleeps, item.name == FuzzGenerator.guardName { continue }
            // Nor a lab observer that stops a lab run (area `deadline`), nor that trigger, for the same reason.
            if specCase.triggers.contains(where: { stopsLabRun($0) && FuzzScenario.eventItem($0.event) == item.name }) {
                continue
            }
            result.append(removingItem(item.name, from: specCase))
        }
        for index in specCase.triggers.indices {
            // Nor the trigger of the guard (`w.beforeWaiting`) or of the ending timer (`fire w`).
            if sleeps, FuzzScenario.eventItem(specCase.triggers[index].event) == FuzzGenerator.guardName { continue }
            if stopsLabRun(specCase.triggers[index]) { continue }
            var copy = specCase
            copy.triggers.remove(at: index)
            result.append(copy)
        }
        if specCase.steps.count > 1 {
            for index in specCase.steps.indices {
                // Nor the guard's add, nor the helper thread that stops a sleeping run.
                if sleeps, case .add(FuzzGenerator.guardName, _) = specCase.steps[index] { continue }
                if sleeps, case .thread = specCase.steps[index] { continue }
                // A join goes only with the post before it: without it the case thread would run alongside the
                // posted run, and the case would no longer be deterministic.
                if case .join = specCase.steps[index] { continue }
                // Nor the stall that makes a timer dated from its creation due: without it, whether later runs
                // find the timer due would depend on how fast they come.
                if stallsPastTimer(specCase, at: index) { continue }
                var copy = specCase
                if case .post(let loop, _) = specCase.steps[index], index + 1 < specCase.steps.count,
                    case .join(loop) = specCase.steps[index + 1]
                {
                    copy.steps.remove(at: index + 1)
                }
                copy.steps.remove(at: index)
                if copy.steps.isEmpty { continue }
                result.append(copy)
            }
        }
        for (index, trigger) in specCase.triggers.enumerated() where trigger.actions.count > 1 {
            for actionIndex in trigger.actions.indices {
                var copy = specCase
                copy.triggers[index].actions.remove(at: actionIndex)
                result.append(copy)
            }
        }
        // A timer dated from its creation must be made by a step (the loader refuses `from: creation` otherwise).
        for item in specCase.items where item.createdByStep && !item.firesFromCreation {
            result.append(createdFirst(item.name, in: specCase))
        }
        result += smallerValues(specCase)
        // A cut that took away the only `create` of an item made later would not load.
        return result.filter { $0.itemsNeverCreated.isEmpty }.map(withFeatures)
    }

    /// The case with item `name` created before the first step, as in format 1, and its `create` actions gone.
    static func createdFirst(_ name: String, in specCase: SpecCase) -> SpecCase {
        var copy = specCase
        for index in copy.items.indices where copy.items[index].name == name { copy.items[index].createdByStep = false }
        func withoutCreate(_ actions: [Action]) -> [Action] {
            actions.compactMap { action in
                switch action {
                case .create(name): return nil
                case .thread(let wait, let inner):
                    let kept = withoutCreate(inner)
                    return kept.isEmpty ? nil : .thread(wait: wait, actions: kept)
                default: return action
                }
            }
        }
        copy.steps = withoutCreate(copy.steps)
        copy.triggers = copy.triggers.compactMap { trigger in
            var kept = trigger
            kept.actions = withoutCreate(trigger.actions)
            return kept.actions.isEmpty ? nil : kept
        }
        if copy.steps.isEmpty {
            copy.steps = [.run(RunRequest(mode: .default, seconds: 0, returnAfterSourceHandled: false))]
        }
        return copy
    }

    /// The case without item `name`: its declaration, every action that names it, and every trigger on its events
    /// (and triggers left with no action).
    static func removingItem(_ name: String, from specCase: SpecCase) -> SpecCase {
        var copy = specCase
        copy.items.removeAll { $0.name == name }
        copy.steps = without(name, in: copy.steps)
        copy.triggers = copy.triggers.compactMap { trigger in
            guard FuzzScenario.eventItem(trigger.event) != name else { return nil }
            var kept = trigger
            kept.actions = without(name, in: trigger.actions)
            return kept.actions.isEmpty ? nil : kept
        }
        if copy.steps.isEmpty {
            copy.steps = [.run(RunRequest(mode: .default, seconds: 0, returnAfterSourceHandled: false))]
        }
        return copy
    }

    private static func without(_ name: String, in actions: [Action]) -> [Action] {
        actions.compactMap { action in
            switch action {
            case .thread(let wait, let inner):
                let kept = without(name, in: inner)
                return kept.isEmpty ? nil : .thread(wait: wait, actions: kept)
            case .target(let loop, let inner):
                let kept = without(name, in: inner)
                return kept.isEmpty ? nil : .target(loop: loop, actions: kept)
            case .post(let loop, let inner):
                let kept = without(name, in: inner)
                return kept.isEmpty ? nil : .post(loop: loop, actions: kept)
            default: break
            }
            if case .dispatchMain(let inner) = action {
                let kept = without(name, in: inner)
                return kept.isEmpty ? nil : .dispatchMain(kept)
            }
            return FuzzScenario.references(of: action).contains(name) ? nil : action
        }
    }

    private static func smallerValues(_ specCase: SpecCase) -> [SpecCase] {
        var result: [SpecCase] = []
        for (index, trigger) in specCase.triggers.enumerated() where trigger.occurrence == .nth(2) {
            var copy = specCase
            copy.triggers[index].occurrence = .nth(1)
            result.append(copy)
        }
        for (index, item) in specCase.items.enumerated() {
            func with(_ kind: ItemKind) {
                var copy = specCase
                copy.items[index].kind = kind
                result.append(copy)
            }
            switch item.kind {
            case .observer(let activities, let repeats, let order):
                let present = Activity.allCases.filter(activities.contains)
                if present.count > 1 {
                    // Drop an activity only if no trigger listens for it.
                    for activity in present
                    where !specCase.triggers.contains(where: { $0.event == "\(item.name).\(activity.rawValue)" }) {
                        with(
                            .observer(
                                activities: ActivitySet(present.filter { $0 != activity }), repeats: repeats,
                                order: order))
                    }
                }
                if !repeats { with(.observer(activities: activities, repeats: true, order: order)) }
                if order != 0 { with(.observer(activities: activities, repeats: repeats, order: 0)) }
            case .source0(let order, let callouts):
                if callouts { with(.source0(order: order, callouts: false)) }
                if order != 0 { with(.source0(order: 0, callouts: callouts)) }
            case .source1(let order):
                if order != 0 { with(.source1(order: 0)) }
            case .timer(let fire, let interval, let tolerance, let order):
                if interval != 0 { with(.timer(fire: fire, interval: 0, tolerance: tolerance, order: order)) }
                if fire < -1 { with(.timer(fire: -1, interval: interval, tolerance: tolerance, order: order)) }
                if order != 0 { with(.timer(fire: fire, interval: interval, tolerance: tolerance, order: 0)) }
            case .block:
                break
            }
        }
        for (index, step) in specCase.steps.enumerated() {
            func with(_ action: Action) {
                var copy = specCase
                copy.steps[index] = action
                result.append(copy)
            }
            switch step {
            case .run(var request):
                if request.returnAfterSourceHandled {
                    var simpler = request
                    simpler.returnAfterSourceHandled = false
                    with(.run(simpler))
                }
                // A sleeping run made a poll: the guard observer that ends it can then go too. Not a run that a
                // timer made just before it ends: whether a poll finds that timer due depends on how fast it comes.
                if !(request.seconds <= 0), !endsByTimer(specCase) {
                    request.seconds = 0
                    // A poll has no timeout for `underTimeout` to be a fraction of, nor to last (`atLeastTimeout`).
                    if case .underTimeout? = request.took { request.took = nil }
                    if case .atLeastTimeout? = request.took { request.took = nil }
                    with(.run(request))
                }
            case .add(let item, let mode) where mode != .default:
                with(.add(item: item, mode: .default))
            case .remove(let item, let mode) where mode != .default:
                with(.remove(item: item, mode: .default))
            default:
                break
            }
        }
        return result
    }

    /// Whether `trigger` is a lab observer's stop (area `deadline`): it ends a lab run that nothing else ends.
    static func stopsLabRun(_ trigger: Trigger) -> Bool {
        guard let item = FuzzScenario.eventItem(trigger.event),
            [FuzzGenerator.labObserver, FuzzGenerator.deepObserver].contains(item)
        else { return false }
        return trigger.actions.contains { action in
            switch action {
            case .stop: return true
            case .thread(_, let inner):
                return inner.contains {
                    if case .stop = $0 { return true }
                    return false
                }
            default: return false
            }
        }
    }

    /// Whether the case's last run is ended by a timer's callout: its ending item (FuzzGenerator.guardName) is a timer.
    static func endsByTimer(_ specCase: SpecCase) -> Bool {
        specCase.items.contains { item in
            guard item.name == FuzzGenerator.guardName, case .timer = item.kind else { return false }
            return true
        }
    }

    /// Whether step `index` is a stall right after the add of a timer dated from its creation: the stall that makes
    /// that timer due for every run after it.
    static func stallsPastTimer(_ specCase: SpecCase, at index: Int) -> Bool {
        guard index > 0, case .stall = specCase.steps[index], case .add(let item, _) = specCase.steps[index - 1] else {
            return false
        }
        return specCase.items.contains { $0.name == item && $0.firesFromCreation }
    }

    /// The candidate's features recomputed; without a sleeping run, no `idle-wakes` allowance (a poll never waits).
    private static func withFeatures(_ specCase: SpecCase) -> SpecCase {
        var copy = specCase
        copy.features = FuzzScenario.features(of: copy)
        if !FuzzScenario.hasSleepingRun(FuzzScenario.allActions(of: copy)) {
            copy.allowances.remove(.idleWakes)
        }
        return copy
    }

    /// A measure of size, for reports: items, steps, and trigger actions.
    public static func size(_ specCase: SpecCase) -> Int {
        specCase.items.count + specCase.steps.count + specCase.triggers.reduce(0) { $0 + 1 + $1.actions.count }
    }
}
