// Area `churn`: scenarios that put many items of one kind in a mode and add and remove them in patterns that leave
// holes at the front, in the middle and at the end of the mode's stores, remove survivors again later and then run, so
// that the trace shows which items are still there (their callouts, `contains` answers). An engine that keeps items at
// stable positions, drops the holes at the front of such an array or squeezes out those in the middle (and must then
// tell each moved item where it went) is on trial there: CF keeps sorted arrays and sets and has no such bookkeeping,
// so its trace is the plain consequence of the adds and removes. The same scenarios carry the contexts in which a
// pass's batches show their snapshot semantics: a source removed from its mode by an earlier perform of its batch
// (still performed), or invalidated by one (skipped, and the batch then reports "not handled" when it was the last
// examined: rules source.batch-snapshot, result.handled-means-a-source), blocks skipped for their mode that keep their
// place ahead of blocks queued meanwhile (rule block.queue-snapshot), an observer removed from every mode of its loop
// and then offered to the second loop (rule loop.observer-one-loop), and a sleeping run whose last source or timer
// leaves its mode in a callout, which must return Finished at the end of that pass (rule
// result.finished-at-end-of-pass). FUZZING.md says why each is deterministic.

import ConformanceKit
import EngineKit

extension FuzzGenerator {
    /// Whether the scenario of `seed` is a churn one (when the area is on; one in four): drawn from a generator of
    /// its own, so the other scenarios of every seed stay what they were before the area existed. Its salt is one for
    /// which seeds 0 to 20 and 100 to 105, the examples of the tests, scripts/cli-checks.sh and FUZZING.md, are not
    /// churn scenarios (the first ones are seeds 22, 24 and 27), so those examples keep their scenarios.
    static func makesChurn(seed: UInt64) -> Bool {
        var side = SplitMix64(seed: seed ^ 0xC0DE_C4A2_5EED_0650)
        return side.chance(25)
    }
}

extension Builder {
    /// What a churn scenario churns.
    enum ChurnKind {
        case observers, timers, sources, blocks
    }

    /// The most steps of a churn scenario: four times `--max-steps` (64 by default). The stores under trial batch
    /// their moves (an engine's store drops or squeezes holes only once there are many, 16 in RefRunLoop's
    /// SlotArray), so a scenario needs about 17 or more items, each added and most removed by a step of its own.
    var churnBudget: Int { 4 * shape.maxSteps }

    /// A churn scenario, or nil when no area it needs is on (then the scenario is made as usual).
    mutating func buildChurn(id: String, seed: UInt64, location here: SpecLocation) -> SpecCase? {
        var kinds: [ChurnKind] = []
        if has(.observer) { kinds.append(.observers) }
        if has(.timer) { kinds.append(.timers) }
        if has(.source0) { kinds.append(.sources) }
        if has(.block), has(.modes) { kinds.append(.blocks) }
        // Below 40 steps (`--max-steps` under 10) there is no room for the 17 items and their removals.
        guard !kinds.isEmpty, churnBudget >= 40 else { return nil }
        var steps: [Action] = []
        var triggers: [Trigger] = []
        var allowances = Set<Allowance>()
        var loops: [String] = []
        switch random.pick(kinds) {
        case .observers: churnObservers(steps: &steps, loops: &loops, location: here)
        case .timers: churnTimers(steps: &steps, triggers: &triggers, allowances: &allowances, location: here)
        case .sources: churnSources(steps: &steps, triggers: &triggers, allowances: &allowances, location: here)
        case .blocks: churnBlocks(steps: &steps, triggers: &triggers, location: here)
        }
        var specCase = SpecCase(
            id: id, rule: "Fuzzer scenario of seed \(seed) (runloop fuzz).", source: "observed",
            features: [], allowances: allowances, timeout: nil, items: items, steps: steps,
            triggers: triggers, expectedTrace: [], location: here)
        specCase.loops = loops
        specCase.features = FuzzScenario.features(of: specCase)
        return specCase
    }

    /// How many items of the churned kind: 17 to 26 (one more than the 16 holes a store gathers before it moves its
    /// elements), fewer when the step budget is small.
    mutating func churnCount() -> Int {
        min(random.within(17...26), max(4, (churnBudget - 18) / 2))
    }

    /// Adds `names` to the default mode in order, then removes them in one of four patterns: a block at the front
    /// (16 or more, at least half: the front holes are dropped), all but the first, the last and up to two others
    /// (the middle holes are squeezed out, moving the survivors), a block at the end, or a random scatter; in order or
    /// shuffled. Then removes survivors again, re-adds removed items (at the end of their store), removes items
    /// already gone, and asks `contains`, with `checkpoint` (a run that shows who is there) now and then. Returns the
    /// items left in the default mode, in the order they were (re-)added.
    mutating func churn(_ names: [String], steps: inout [Action], reserve: Int, checkpoint: [Action]) -> [String] {
        for name in names { steps.append(.add(item: name, mode: .default)) }
        let count = names.count
        guard count >= 4 else { return names }
        var removals: [Int]
        switch random.below(4) {
        case 0:
            let front = random.within(min(count - 1, max(16, (count + 1) / 2))...(count - 1))
            removals = Array(0..<front)
        case 1:
            var kept: Set<Int> = [0, count - 1]
            for _ in 0..<random.within(0...2) { kept.insert(random.within(1...(count - 2))) }
            removals = (0..<count).filter { !kept.contains($0) }
        case 2:
            let back = random.within(min(count - 1, 8)...(count - 1))
            removals = Array((count - back)..<count)
        default:
            removals = (0..<count).filter { _ in random.chance(70) }
            if removals.count == count { removals.removeLast() }
        }
        if random.chance(50) { removals = random.shuffle(removals) }
        var present = names
        var removed: [String] = []
        for index in removals {
            steps.append(.remove(item: names[index], mode: .default))
            present.removeAll { $0 == names[index] }
            removed.append(names[index])
        }
        // Survivors removed again (with a stale position, a store takes out another item or none), re-adds, removals
        // of items already gone (nothing happens), lookups, and runs that show who is there.
        for _ in 0..<random.within(2...7) where steps.count < churnBudget - reserve {
            switch random.below(6) {
            case 0, 1:
                guard !present.isEmpty else { continue }
                let name = random.pick(present)
                steps.append(.remove(item: name, mode: .default))
                present.removeAll { $0 == name }
                removed.append(name)
            case 2:
                guard !removed.isEmpty else { continue }
                let name = random.pick(removed)
                steps.append(.add(item: name, mode: .default))
                removed.removeAll { $0 == name }
                present.append(name)
            case 3:
                guard has(.query) else { continue }
                steps.append(.contains(item: random.pick(names), mode: .default))
            case 4:
                guard !removed.isEmpty else { continue }
                steps.append(.remove(item: random.pick(removed), mode: .default))
            default:
                steps += checkpoint
            }
        }
        return present
    }

    // MARK: Observers

    /// Observers of one activity, most often all of one order (one group of the store), churned in the default mode,
    /// which a source never signalled keeps from being empty; polls show them. With area `modes` some are in `work`
    /// too; with area `loops` some are then offered to the second loop, which takes those no mode of the case's loop
    /// holds any more (rule loop.observer-one-loop), and runs.
    mutating func churnObservers(steps: inout [Action], loops: inout [String], location: SpecLocation) {
        let count = churnCount()
        let activity = random.pick([Activity.entry, .beforeTimers, .beforeSources, .exit])
        let sharedOrder = random.chance(70) ? random.within(0...2) : nil
        var names: [String] = []
        for index in 1...count {
            let name = "o\(index)"
            names.append(name)
            items.append(
                ItemDeclaration(
                    name: name,
                    kind: .observer(
                        activities: ActivitySet([activity]), repeats: true,
                        order: sharedOrder ?? random.within(0...1)),
                    location: location))
        }
        // Keeps the default mode from being empty (observers do not count), so that its runs call out.
        items.append(ItemDeclaration(name: "sk", kind: .source0(order: 0, callouts: false), location: location))
        steps.append(.add(item: "sk", mode: .default))
        let poll: Action = .run(RunRequest(mode: .default, seconds: 0, returnAfterSourceHandled: false))
        let offers = has(.loops) && random.chance(60)
        let present = churn(names, steps: &steps, reserve: offers ? 16 : 8, checkpoint: [poll])
        // Some also in `work`, added after the churn so that the default mode's store is churned as drawn; some of
        // them leave it again, so that an observer may be in `work` only, or in no mode of this loop.
        // (Arrays, not sets: a set's iteration order changes from process to process, and a seed must name one
        // scenario.)
        var inWork: [String] = []
        if has(.modes) {
            let shuffled = random.shuffle(names)
            inWork = Array(shuffled.prefix(random.within(0...3)))
            for name in inWork { steps.append(.add(item: name, mode: .named(FuzzGenerator.otherMode))) }
            for name in inWork where random.chance(40) {
                steps.append(.remove(item: name, mode: .named(FuzzGenerator.otherMode)))
                inWork.removeAll { $0 == name }
            }
        }
        if offers {
            // The second loop takes an observer only once it has left every mode of this one: offer it some that
            // have, and some that have not.
            let loop = FuzzGenerator.secondLoop
            loops = [loop]
            let free = names.filter { !present.contains($0) && !inWork.contains($0) }
            let bound = names.filter { present.contains($0) || inWork.contains($0) }
            let freeShuffled = random.shuffle(free)
            var offered = Array(freeShuffled.prefix(random.within(1...3)))
            let boundShuffled = random.shuffle(bound)
            offered += boundShuffled.prefix(random.within(0...2))
            offered = random.shuffle(offered)
            var calls: [Action] = [.add(item: "sk", mode: .default)]
            for name in offered {
                calls.append(.add(item: name, mode: .default))
                if has(.query), random.chance(40) { calls.append(.contains(item: name, mode: .default)) }
            }
            steps.append(.target(loop: loop, actions: calls))
            steps.append(.post(loop: loop, actions: [poll]))
            steps.append(.join(loop))
            // An observer the second loop took is in no mode here, and adding it here again is ignored.
            if let name = offered.first, random.chance(50) { steps.append(.add(item: name, mode: .default)) }
        }
        steps.append(poll)
    }

    // MARK: Timers

    /// Timers already due, created in declaration order and so due in that order (CF dates a timer made with a past
    /// date at its creation), added in that order (an engine may keep timers added in date order apart, in a run it
    /// appends to), churned, then run: a poll fires the ones left, in order. Or (area `sleep`) a sleeping run whose
    /// first fire removes or invalidates every repeating timer left (the one-shot ones are invalidated after they
    /// fire): the mode loses its last timer in that pass, and the run returns Finished at its end (rule
    /// result.finished-at-end-of-pass); nothing else ends it, and nothing else can happen first.
    mutating func churnTimers(
        steps: inout [Action], triggers: inout [Trigger], allowances: inout Set<Allowance>,
        location: SpecLocation
    ) {
        let count = churnCount()
        var names: [String] = []
        var repeating: Set<String> = []
        for index in 1...count {
            let name = "t\(index)"
            names.append(name)
            let interval = random.chance(25) ? random.pick([60.0, 100.0]) : random.pick([0.0, 0.0, -1.0])
            if interval > 0 { repeating.insert(name) }
            items.append(
                ItemDeclaration(
                    name: name,
                    kind: .timer(
                        fire: random.pick([-1.0, -2.0]), interval: interval,
                        tolerance: nil, order: 0),
                    location: location))
        }
        let present = churn(names, steps: &steps, reserve: 3, checkpoint: [])
        // Due in creation order: the first left fires first.
        let left = names.filter(present.contains)
        if has(.sleep), let first = left.first, random.chance(45) {
            var actions: [Action] = []
            for name in left where repeating.contains(name) || random.chance(15) {
                actions.append(random.chance(60) ? .remove(item: name, mode: .default) : .invalidate(name))
            }
            if actions.isEmpty { actions.append(.mark("fired first")) }
            triggers.append(
                Trigger(
                    event: "fire \(first)", occurrence: .nth(1), actions: random.shuffle(actions),
                    location: location))
            steps.append(.run(RunRequest(mode: .default, seconds: .infinity, returnAfterSourceHandled: false)))
            allowances.insert(.idleWakes)
        } else {
            steps.append(.run(RunRequest(mode: .default, seconds: 0, returnAfterSourceHandled: random.chance(30))))
            if has(.query), let name = names.first(where: repeating.contains) ?? names.first {
                steps.append(.contains(item: name, mode: .default))
            }
        }
    }

    // MARK: Sources

    /// Version-0 sources churned in the default mode, then some signalled (removed ones too) and a run: a poll, or
    /// (area `sleep`) a sleeping run stopped by the guard observer at its first wait. The first perform of the batch
    /// may remove later sources of the batch from the mode (still performed: the batch is a snapshot), invalidate
    /// them (skipped; when the last one examined is skipped, the batch did not handle a source, so a sleeping pass
    /// waits), or take every source out of the mode, which a sleeping run must then end with Finished at the end of
    /// that pass, before it would wait (rule result.finished-at-end-of-pass). An observer of every activity shows the
    /// passes.
    mutating func churnSources(
        steps: inout [Action], triggers: inout [Trigger], allowances: inout Set<Allowance>,
        location: SpecLocation
    ) {
        let count = churnCount()
        let sharedOrder = random.chance(60) ? random.within(0...2) : nil
        var names: [String] = []
        var orders: [String: Int] = [:]
        items.append(
            ItemDeclaration(
                name: "o1",
                kind: .observer(activities: .all, repeats: true, order: random.within(0...2)),
                location: location))
        steps.append(.add(item: "o1", mode: .default))
        for index in 1...count {
            let name = "s\(index)"
            names.append(name)
            let order = sharedOrder ?? random.within(0...1)
            orders[name] = order
            items.append(
                ItemDeclaration(
                    name: name, kind: .source0(order: order, callouts: random.chance(15)),
                    location: location))
        }
        let sleeps = has(.sleep) && random.chance(50)
        if sleeps {
            // The guard (FuzzGenerator's ending `guardObserver`): no nested run, stop or wake-up anywhere else.
            addGuardObserver(steps: &steps, triggers: &triggers, location: location)
            allowances.insert(.idleWakes)
        }
        let present = churn(names, steps: &steps, reserve: 11, checkpoint: [])
        // Signals: mostly sources still in the mode, some removed ones (never performed), some twice (the first
        // signal counts for the order).
        var signalled: [String] = []
        for _ in 0..<random.within(2...8) where steps.count < churnBudget - 2 {
            let name = !present.isEmpty && random.chance(80) ? random.pick(present) : random.pick(names)
            steps.append(.signal(name))
            if !signalled.contains(name) { signalled.append(name) }
        }
        // The batch: the signalled sources in the mode, by order and then first signal (rule source.perform-order).
        let batch = signalled.filter(present.contains).enumerated()
            .sorted { (orders[$0.element]!, $0.offset) < (orders[$1.element]!, $1.offset) }.map(\.element)
        let returnAfterSourceHandled = random.chance(25)
        if let first = batch.first, random.chance(85) {
            var actions: [Action] = []
            let later = Array(batch.dropFirst())
            switch random.below(4) {
            case 0:
                // Every source leaves the mode: removed ones are still performed, so the batch handled a source,
                // the pass does not wait, and a sleeping run returns Finished at its end.
                for name in present { actions.append(.remove(item: name, mode: .default)) }
            case 1:
                for name in present {
                    actions.append(
                        random.chance(70)
                            ? .remove(item: name, mode: .default)
                            : .invalidate(name))
                }
            default:
                // Often the batch's last: invalidated, it leaves the batch "not handled" (CF reports the last source
                // it examined), so a sleeping pass waits.
                let shuffled = random.shuffle(later)
                var targets = Array(shuffled.prefix(random.within(1...2)))
                if let last = later.last, !targets.contains(last), random.chance(50) { targets.append(last) }
                for name in targets {
                    let invalidates = random.chance(name == later.last ? 60 : 40)
                    actions.append(invalidates ? .invalidate(name) : .remove(item: name, mode: .default))
                }
                if actions.isEmpty { actions.append(.remove(item: first, mode: .default)) }
            }
            triggers.append(
                Trigger(
                    event: "perform \(first)", occurrence: .nth(1), actions: actions,
                    location: location))
        }
        if sleeps {
            steps.append(
                .run(
                    RunRequest(
                        mode: .default, seconds: .infinity,
                        returnAfterSourceHandled: returnAfterSourceHandled)))
        } else {
            steps.append(
                .run(
                    RunRequest(
                        mode: .default, seconds: 0,
                        returnAfterSourceHandled: returnAfterSourceHandled)))
            if returnAfterSourceHandled || random.chance(30) {
                steps.append(.run(RunRequest(mode: .default, seconds: 0, returnAfterSourceHandled: false)))
            }
        }
    }

    // MARK: Blocks

    /// Blocks queued for the default mode and `work`: a block kept for the other mode, then one for the mode that
    /// runs first, whose callout queues more for the other mode (they go behind the kept one, rule
    /// block.queue-snapshot), a few more, and polls of the two modes in turn. A timer 100 s away keeps both modes
    /// from being empty; an observer of Entry shows each run.
    mutating func churnBlocks(steps: inout [Action], triggers: inout [Trigger], location: SpecLocation) {
        let count = random.within(3...6)
        let names = (1...count).map { "b\($0)" }
        for name in names { items.append(ItemDeclaration(name: name, kind: .block, location: location)) }
        items.append(
            ItemDeclaration(
                name: "o1",
                kind: .observer(
                    activities: ActivitySet([.entry]), repeats: true,
                    order: 0),
                location: location))
        items.append(
            ItemDeclaration(
                name: "tk", kind: .timer(fire: 100, interval: 0, tolerance: nil, order: 0),
                location: location))
        let work = ModeName.named(FuzzGenerator.otherMode)
        for mode in [ModeName.default, work] {
            steps.append(.add(item: "o1", mode: mode))
            steps.append(.add(item: "tk", mode: mode))
        }
        let (first, other) = random.chance(50) ? (ModeName.default, work) : (work, ModeName.default)
        func anyModes(_ random: inout SplitMix64) -> BlockModes {
            random.pick([.one(.default), .one(work), .one(.common), .list([.default, work])])
        }
        // Kept for the other mode when the first runs, then one that runs and queues more for the other mode.
        steps.append(.perform(block: names[0], modes: .one(other)))
        if random.chance(40) { steps.append(.perform(block: names[2], modes: anyModes(&random))) }
        steps.append(.perform(block: names[1], modes: .one(first)))
        var queued: [Action] = [.perform(block: names[2], modes: .one(other))]
        if random.chance(50) { queued.append(.perform(block: random.pick(names), modes: anyModes(&random))) }
        triggers.append(
            Trigger(
                event: "block \(names[1])", occurrence: .nth(1), actions: random.shuffle(queued),
                location: location))
        for name in names.dropFirst(3) where random.chance(70) {
            steps.append(.perform(block: name, modes: anyModes(&random)))
        }
        // Another callout that queues a block (each trigger acts once, so the queue stays finite).
        if random.chance(50) {
            let host = random.pick(Array(names.dropFirst(2)))
            triggers.append(
                Trigger(
                    event: "block \(host)", occurrence: .nth(1),
                    actions: [.perform(block: random.pick(names), modes: anyModes(&random))],
                    location: location))
        }
        var mode = first
        for _ in 0..<random.within(2...4) {
            steps.append(.run(RunRequest(mode: mode, seconds: 0, returnAfterSourceHandled: false)))
            mode = mode == first ? other : first
        }
    }
}
