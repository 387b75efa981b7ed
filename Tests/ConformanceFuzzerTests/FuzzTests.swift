// The fuzzer checks itself: its generator is a pure function of the seed, everything it generates is a case the
// shipped loader reads back unchanged, the known-divergence matcher is as narrow as its entries, and on the test
// worker's `planted` engine (ref with one planted bug) a campaign finds the bug and shrinks it to a small case that
// still diverges when run as an ordinary spec case.

import ConformanceSpec
import ConformanceTestSupport
import EngineKit
import Foundation
import Synchronization
import Testing

@testable import ConformanceFuzzer
@testable import ConformanceKit

@Suite("Fuzzing")
struct FuzzTests {
    // MARK: Generator

    @Test func splitMix64GivesThePublishedSequence() {
        // The reference outputs of SplitMix64 from seed 0 (Vigna's splitmix64.c).
        var random = SplitMix64(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(random.next() == 0x06C4_5D18_8009_454F)
    }

    @Test func theSameSeedGivesTheSameScenario() {
        let generator = FuzzGenerator()
        for seed: UInt64 in [0, 1, 42, 1 << 40, .max] {
            #expect(
                CaseWriter.write(generator.scenario(seed: seed)) == CaseWriter.write(generator.scenario(seed: seed)))
        }
        let texts = Set((0..<50).map { CaseWriter.write(FuzzGenerator().scenario(seed: UInt64($0))) })
        #expect(texts.count == 50, "50 seeds gave only \(texts.count) different scenarios")
    }

    @Test func areasLimitWhatIsGenerated() {
        let generator = FuzzGenerator(shape: FuzzShape(maxSteps: 6, areas: [.observer, .source0]))
        for seed in 0..<200 {
            let scenario = generator.scenario(seed: UInt64(seed))
            #expect(scenario.steps.count <= 6)
            #expect(scenario.items.allSatisfy { ["observer", "source0"].contains($0.kind.word) })
            #expect(scenario.features.isEmpty)
        }
    }

    @Test func everyGeneratedScenarioLoadsBackUnchanged() throws {
        let generator = FuzzGenerator()
        for seed in 0..<300 {
            var scenario = generator.scenario(seed: UInt64(seed))
            // With an expectation too, including an any-order group.
            scenario.expectedTrace = [
                "run default", "mark b", "mark a", "allModes [default, work]",
                "return timedOut",
            ]
            scenario.unorderedRanges = [1..<3]
            let text = CaseWriter.file([scenario])
            let loaded = try SpecLoader.parse(text, file: "seed-\(seed).yaml")
            let reloaded = try #require(loaded.cases.first)
            #expect(CaseWriter.write(reloaded) == CaseWriter.write(scenario), "seed \(seed):\n\(text)")
            #expect(reloaded.features == scenario.features)
        }
    }

    /// Format 1.1 in the generator: CFRunLoopRun as the sleeping run, items created by a step or in a callout, and a
    /// second loop; every shrink of such a scenario still creates each item it declares `created: later` (else it
    /// would not load) and keeps each post with its join.
    @Test func theGeneratorUsesFormat11AndShrinksStayLoadable() throws {
        var forever = 0
        var createdInStep = 0
        var createdInCallout = 0
        var secondLoop = 0
        /// Every post is followed at once by the join of its loop, so the case thread never acts while that loop runs.
        func postsAreJoined(_ steps: [Action]) -> Bool {
            steps.indices.allSatisfy { index in
                guard case .post(let loop, _) = steps[index] else { return true }
                guard index + 1 < steps.count, case .join(loop) = steps[index + 1] else { return false }
                return true
            }
        }
        for seed in 0..<300 {
            let scenario = FuzzGenerator().scenario(seed: UInt64(seed))
            if !scenario.loops.isEmpty { secondLoop += 1 }
            #expect(postsAreJoined(scenario.steps), "seed \(seed)")
            if scenario.steps.contains(where: {
                if case .runForever = $0 { return true }
                return false
            }) {
                forever += 1
            }
            if scenario.steps.contains(where: {
                if case .create = $0 { return true }
                return false
            }) {
                createdInStep += 1
            }
            if scenario.triggers.contains(where: {
                $0.actions.contains {
                    if case .create = $0 { return true }
                    return false
                }
            }) {
                createdInCallout += 1
            }
            #expect(scenario.itemsNeverCreated.isEmpty, "seed \(seed)")
            guard scenario.formatVersion == .v1_1 else { continue }
            for candidate in FuzzShrinker.candidates(scenario) {
                #expect(candidate.itemsNeverCreated.isEmpty, "seed \(seed)")
                #expect(postsAreJoined(candidate.steps), "seed \(seed)")
                // Loading every candidate back is the costly part in a debug build: every third scenario's.
                if seed % 3 == 0 {
                    _ = try SpecLoader.parse(CaseWriter.file([candidate]), file: "shrunk-\(seed).yaml")
                }
            }
        }
        #expect(
            forever > 0 && createdInStep > 0 && createdInCallout > 0 && secondLoop > 0,
            "runForever \(forever), create in steps \(createdInStep), in callouts \(createdInCallout), a second loop \(secondLoop)"
        )
    }

    /// Triggers act in the callouts of runs, also runs posted to a second loop, and may name items a step creates: so
    /// every step that creates an item comes before the first step that runs a loop. Seed 15179794 (runloop fuzz,
    /// seed 15000000) posted a run before the step creating the observer a timer's trigger added, and every engine
    /// reported the case as an error.
    @Test func theGeneratorCreatesItemsBeforeAnyRun() {
        for seed in [15_179_794] + Array(0..<3000) {
            let steps = FuzzGenerator().scenario(seed: UInt64(seed)).steps
            // (Not a run of area `deadline`'s own modes: only its own triggers act there, on its own items.)
            let firstRun =
                steps.firstIndex { step in
                    switch step {
                    case .run(let request): return !Self.labModes.contains(request.mode)
                    case .runForever, .post: return true
                    default: return false
                    }
                } ?? steps.count
            // But the ending timer's, made just before the last run (no action names it).
            let lastCreate =
                steps.lastIndex { step in
                    if case .create(let name) = step { return name != FuzzGenerator.guardName }
                    return false
                } ?? -1
            #expect(lastCreate < firstRun, "seed \(seed)")
        }
    }

    @Test func theGeneratorNeverRunsAfterAStopInOneCallout() {
        for seed in 0..<500 {
            let scenario = FuzzGenerator().scenario(seed: UInt64(seed))
            #expect(
                !FuzzKnown.actionLists(of: scenario, inCallout: true).contains {
                    FuzzKnown.contains($0, inOrder: ["stop", "run"])
                },
                "seed \(seed)")
        }
    }

    @Test func scenariosThatCopyCommonItemsHaveNoTies() {
        // CF copies common items into a new common mode in set order, which varies from process to process.
        var copying = 0
        var copyingWithPorts = 0
        for seed in 0..<500 {
            let scenario = FuzzGenerator().scenario(seed: UInt64(seed))
            // Only a step that makes a mode common while there are common items copies them: not one that names a
            // mode already common (the default mode is from the loop's creation), nor one made before any item is
            // added to the common modes. (In a callout, any that makes a mode common.)
            var commonModes: Set<String> = [ModeName.defaultModeName]
            var commonItems = false
            var copies = false
            for step in scenario.steps {
                switch step {
                case .add(_, .common): commonItems = true
                case .addCommonMode(let mode) where !commonModes.contains(mode):
                    commonModes.insert(mode)
                    copies = copies || commonItems
                default: break
                }
            }
            copies =
                copies
                || scenario.triggers.contains { trigger in
                    trigger.actions.contains { action in
                        if case .addCommonMode(let mode) = action { return !commonModes.contains(mode) }
                        return false
                    }
                }
            guard copies else { continue }
            copying += 1
            let orders = scenario.items.compactMap { item -> Int? in
                // (Not the generator's own observers: the guard, and area `deadline`'s, which are never common.)
                if case .observer(_, _, let order) = item.kind, !FuzzGenerator.reservedNames.contains(item.name) {
                    return order
                }
                return nil
            }
            #expect(Set(orders).count == orders.count, "seed \(seed): observer orders \(orders)")
            // Nor a version-1 source among the common items: its port would join the new mode's wait set in set order
            // too, and a wait reports the first ready port of that order.
            let ports = Set(scenario.items.filter { $0.kind.word == "source1" }.map(\.name))
            let commonPorts = Self.allActions(of: scenario).compactMap { action -> String? in
                guard case .add(let item, .common) = action, ports.contains(item) else { return nil }
                return item
            }
            #expect(commonPorts.isEmpty, "seed \(seed): version-1 sources added to the common modes \(commonPorts)")
            copyingWithPorts += ports.isEmpty ? 0 : 1
        }
        #expect(copying > 0)
        #expect(copyingWithPorts > 0)
    }

    /// Every action of a scenario: its steps, its triggers' actions, and the actions nested in them.
    static func allActions(of scenario: SpecCase) -> [Action] {
        var all: [Action] = []
        func visit(_ actions: [Action]) {
            for action in actions {
                all.append(action)
                switch action {
                case .thread(_, let inner), .target(_, let inner), .post(_, let inner), .dispatchMain(let inner):
                    visit(inner)
                default: break
                }
            }
        }
        visit(scenario.steps)
        for trigger in scenario.triggers { visit(trigger.actions) }
        return all
    }

    /// Areas `main` and `time`: the generator makes main-thread scenarios, blocks sent to the main queue, sleeping
    /// runs ended by a timer that becomes due while they sleep or by their own short timeout, timers stalled past,
    /// stalls in callouts, negative intervals, repeating timers dated far in the past, items invalidated before they are
    /// added and the next fire date of a mode with no timer; and each of those only in the construction that keeps
    /// its trace fixed.
    @Test func theGeneratorReachesTimeAndTheMainThread() throws {
        var mainThread = 0
        var sentToMainQueue = 0
        var endedByTimer = 0
        var endedByTimeout = 0
        var stalledPast = 0
        var calloutStalls = 0
        var negativeIntervals = 0
        var farPastRepeating = 0
        var invalidatedFirst = 0
        var unusedModeQueries = 0
        var nestedInQueueBlock = 0
        var invalidAddedAndAsked = 0
        var shrunkEndedByTimer = 0
        var shrunkOnMain = 0
        func isRun(_ action: Action) -> Bool {
            switch action {
            case .run(let request): return !Self.labModes.contains(request.mode)
            case .runForever: return true
            default: return false
            }
        }
        for seed in 0..<3000 {
            let scenario = FuzzGenerator().scenario(seed: UInt64(seed))
            let actions = FuzzScenario.allActions(of: scenario)
            let sends = actions.contains {
                if case .dispatchMain = $0 { return true }
                return false
            }
            // Whether the scenario's own last run sleeps (not a run of area `deadline`'s modes).
            let sleeps = FuzzScenario.hasSleepingRun(
                scenario.steps.filter { step in
                    if case .run(let request) = step { return !Self.labModes.contains(request.mode) }
                    return true
                })
            if scenario.features.contains(.mainThread) { mainThread += 1 }
            if sends {
                sentToMainQueue += 1
                #expect(scenario.features.contains(.mainThread), "seed \(seed)")
            }
            let unusedMode = Query.nextTimerFireDate(.named(FuzzGenerator.unusedMode))
            if actions.contains(where: {
                if case .query(unusedMode) = $0 { return true }
                return false
            }) {
                unusedModeQueries += 1
            }
            let stalls = scenario.triggers.contains { trigger in
                trigger.actions.contains {
                    if case .stall = $0 { return true }
                    return false
                }
            }
            if stalls {
                calloutStalls += 1
            }
            for item in scenario.items {
                guard case .timer(let fire, let interval, _, _) = item.kind else { continue }
                if interval < 0 { negativeIntervals += 1 }
                if interval > 0, fire < -interval { farPastRepeating += 1 }
            }
            if case .invalidate(let item)? = scenario.steps.first {
                invalidatedFirst += 1
                // Sometimes added at once to the common modes, asked whether it is a common item, or to `work`, which
                // does not exist yet, and the modes listed (rule common.add-common-mode).
                if scenario.steps.count > 2, case .add(item, let mode) = scenario.steps[1] {
                    switch scenario.steps[2] {
                    case .contains(item, .common):
                        invalidAddedAndAsked += 1
                        #expect(mode == .common, "seed \(seed)")
                    case .query(.allModes):
                        invalidAddedAndAsked += 1
                        #expect(mode == .named(FuzzGenerator.otherMode), "seed \(seed)")
                    default: break
                    }
                }
            }
            // A run nested in a main-queue block sent by the step just before the last run, a poll, which services it.
            if let step = scenario.steps.firstIndex(where: { step in
                guard case .dispatchMain(let inner) = step else { return false }
                return inner.contains {
                    if case .mark("q4") = $0 { return true }
                    return false
                }
            }) {
                nestedInQueueBlock += 1
                #expect(scenario.features.contains(.mainThread) && !sleeps, "seed \(seed)")
                #expect(step == scenario.steps.count - 2 && isRun(scenario.steps[step + 1]), "seed \(seed)")
            }
            // A block sent to the main queue from a sleeping scenario only by the helper thread or the ending timer.
            if sleeps, sends {
                let elsewhere =
                    scenario.steps.contains {
                        if case .dispatchMain = $0 { return true }
                        return false
                    }
                    || scenario.triggers.contains { trigger in
                        FuzzScenario.eventItem(trigger.event) != FuzzGenerator.guardName
                            && trigger.actions.contains {
                                if case .dispatchMain = $0 { return true }
                                return false
                            }
                    }
                #expect(!elsewhere, "seed \(seed)")
            }
            // Area `deadline` may append a construction after the scenario's own last run (FuzzGenerator+Deadlines.swift):
            // the checks of the ending look at the steps up to that run.
            let ownSteps = Array(
                scenario.steps[..<((scenario.steps.lastIndex(where: isRun) ?? scenario.steps.count - 1) + 1)])
            if case .run(let request)? = ownSteps.last, request.seconds > 0, request.seconds < 1 {
                endedByTimeout += 1
                #expect(
                    !scenario.steps.contains { step in
                        guard case .thread = step else { return false }
                        return FuzzScenario.references(of: step).isDisjoint(with: FuzzGenerator.deadlineNames)
                    }, "seed \(seed)")
                #expect(!scenario.items.contains { $0.name == FuzzGenerator.guardName }, "seed \(seed)")
            }
            let datedFromCreation = scenario.items.filter(\.firesFromCreation).map(\.name)
            if !datedFromCreation.isEmpty {
                // No date relative to the case's start is asked (but the unused mode's, which has no timer).
                #expect(
                    !actions.contains { action in
                        switch action {
                        case .query(.fireDate): return true
                        case .query(.nextTimerFireDate(let mode)): return mode != .named(FuzzGenerator.unusedMode)
                        default: return false
                        }
                    }, "seed \(seed)")
            }
            for name in datedFromCreation {
                let create = try #require(
                    scenario.steps.firstIndex {
                        if case .create(name) = $0 { return true }
                        return false
                    },
                    "seed \(seed): \(name) is not made by a step")
                if name == FuzzGenerator.guardName {
                    // The ending timer: made and added just before the last run, no run of this loop between.
                    endedByTimer += 1
                    #expect(!ownSteps[(create + 1)..<(ownSteps.count - 1)].contains(where: isRun), "seed \(seed)")
                    #expect(
                        scenario.triggers.contains {
                            $0.event == "fire \(FuzzGenerator.guardName)" && $0.occurrence == .nth(1)
                        })
                    #expect(isRun(ownSteps[ownSteps.count - 1]) && sleeps, "seed \(seed)")
                } else {
                    // The stalled-past timer: made, added, stalled past, before any run; nothing between the three.
                    stalledPast += 1
                    #expect(create + 2 < scenario.steps.count, "seed \(seed)")
                    guard create + 2 < scenario.steps.count else { continue }
                    let added: Bool
                    if case .add(name, _) = scenario.steps[create + 1] { added = true } else { added = false }
                    #expect(added, "seed \(seed)")
                    if case .stall = scenario.steps[create + 2] {
                    } else {
                        Issue.record("seed \(seed): no stall after \(name)'s add")
                    }
                    #expect(!scenario.steps[..<create].contains(where: isRun), "seed \(seed)")
                    #expect(
                        !sleeps
                            || scenario.steps.contains {
                                if case .add(FuzzGenerator.guardName, _) = $0 { return true }
                                return false
                            },
                        "seed \(seed): a timer stalled past in a quiet scenario")
                }
            }
            // Every shrink candidate keeps what ends a sleeping run and the stall that makes a timer due, and loads:
            // checked on every 50th scenario and on the first ten each of those ended by a timer and those on the main
            // thread (parsing every candidate of all 3,000 scenarios costs a debug build most of a minute).
            let endedByTimerHere = endedByTimerScenario(scenario)
            let onMainThread = scenario.features.contains(.mainThread)
            if seed % 50 == 0 || (endedByTimerHere && shrunkEndedByTimer < 10) || (onMainThread && shrunkOnMain < 10) {
                if endedByTimerHere { shrunkEndedByTimer += 1 }
                if onMainThread { shrunkOnMain += 1 }
                for candidate in FuzzShrinker.candidates(scenario) {
                    _ = try SpecLoader.parse(CaseWriter.file([candidate]), file: "shrunk-\(seed).yaml")
                    if endedByTimerHere {
                        #expect(
                            candidate.triggers.contains { $0.event == "fire \(FuzzGenerator.guardName)" },
                            "seed \(seed)")
                    }
                    #expect(
                        candidate.features.contains(.mainThread) == scenario.features.contains(.mainThread),
                        "seed \(seed)")
                }
            }
        }
        let counts =
            "main thread \(mainThread), main queue \(sentToMainQueue), ended by a timer \(endedByTimer), by a timeout "
            + "\(endedByTimeout), stalled past \(stalledPast), stalls in callouts \(calloutStalls), negative intervals "
            + "\(negativeIntervals), far-past repeating \(farPastRepeating), invalidated first \(invalidatedFirst), unused-mode "
            + "queries \(unusedModeQueries), runs nested in a main-queue block \(nestedInQueueBlock), invalid items added "
            + "and asked \(invalidAddedAndAsked)"
        #expect(
            [
                mainThread, sentToMainQueue, endedByTimer, endedByTimeout, stalledPast, calloutStalls,
                negativeIntervals,
                farPastRepeating, invalidatedFirst, unusedModeQueries, nestedInQueueBlock,
                invalidAddedAndAsked,
            ].allSatisfy { $0 > 0 }, "\(counts)")
        // About one scenario in 25 is a main-thread one, each costing a worker process of its own.
        #expect(mainThread < 3000 / 10, "\(counts)")
        #expect(
            shrunkEndedByTimer >= 10 && shrunkOnMain >= 10,
            "shrinks checked: \(shrunkEndedByTimer) ended by a timer, \(shrunkOnMain) on the main thread")
    }

    /// Area `deadline`: its constructions run only in their own modes, with items no other action names, before the
    /// first run of any other kind (or as the last step), one per scenario; a NaN timeout only where an infinite one
    /// could be; `took: atLeastTimeout` only on runs that nothing but their timeout can end; and no date query about a
    /// repeating timer dated in the past (its date after a fire depends on when it was made).
    @Test func theDeadlineAreaKeepsToItsOwnModes() throws {
        let labModes = Self.labModes
        var withLab = 0
        var last = 0
        var nan = 0
        var fullTimeout = 0
        var nestedInTimer = 0
        var crossThread = 0
        var oneShotRedatedLater = 0
        var redatedInTwoModes = 0
        func isLabRun(_ action: Action) -> Bool {
            if case .run(let request) = action { return labModes.contains(request.mode) }
            return false
        }
        for seed in 0..<3000 {
            let scenario = FuzzGenerator().scenario(seed: UInt64(seed))
            let actions = FuzzScenario.allActions(of: scenario)
            let labItems = Set(scenario.items.map(\.name)).intersection(FuzzGenerator.deadlineNames)
            // No action of the rest of the scenario names a lab item or a lab mode.
            for trigger in scenario.triggers where !labItems.contains(FuzzScenario.eventItem(trigger.event) ?? "") {
                for action in trigger.actions {
                    #expect(FuzzScenario.references(of: action).isDisjoint(with: labItems), "seed \(seed)")
                    if case .add(_, let mode) = action { #expect(!labModes.contains(mode), "seed \(seed)") }
                }
            }
            for step in scenario.steps {
                if case .add(let item, let mode) = step, labModes.contains(mode) {
                    #expect(labItems.contains(item), "seed \(seed): \(item) added to a lab mode")
                }
            }
            for action in actions {
                if case .query(.fireDate(let name)) = action,
                    case .timer(let fire, let interval, _, _)? = scenario.items.first(where: { $0.name == name })?.kind
                {
                    #expect(
                        !(interval > 0 && fire < 0), "seed \(seed): fireDate of a repeating timer dated in the past")
                }
                if case .run(let request) = action, request.seconds.isNaN { nan += 1 }
                if case .run(let request) = action, request.took == .atLeastTimeout,
                    request.mode == .default
                {
                    // Kept full by the keeper, added just before it, and no stopMode of the default mode anywhere.
                    fullTimeout += 1
                    #expect(
                        scenario.steps.contains {
                            if case .add(FuzzGenerator.labKeeper, ModeName.default) = $0 { return true }
                            return false
                        },
                        "seed \(seed)")
                    #expect(
                        !actions.contains {
                            if case .stopMode(ModeName.defaultModeName) = $0 { return true }
                            return false
                        },
                        "seed \(seed)")
                }
            }
            let labRuns = scenario.steps.indices.filter { isLabRun(scenario.steps[$0]) }
            guard let firstLab = labRuns.first, let lastLab = labRuns.last else { continue }
            withLab += 1
            if scenario.steps.contains(where: { step in
                if case .thread = step { return FuzzScenario.references(of: step).contains(FuzzGenerator.labKeeper) }
                return false
            }) {
                crossThread += 1
            }
            if scenario.triggers.contains(where: {
                $0.event == "fire \(FuzzGenerator.labTimer)" && $0.actions.contains(where: isLabRun)
            }) {
                nestedInTimer += 1
            }
            let labTimer = scenario.items.first { $0.name == FuzzGenerator.labTimer }
            if case .timer(_, let interval, _, _)? = labTimer?.kind, interval <= 0,
                scenario.triggers.contains(where: { trigger in
                    trigger.event == "fire \(FuzzGenerator.labTimer)"
                        && trigger.actions.contains {
                            if case .setNextFireDate(FuzzGenerator.labTimer, 100) = $0 { return true }
                            return false
                        }
                })
            {
                // A one-shot timer dated ahead in its callout: asked whether it is still valid.
                oneShotRedatedLater += 1
                #expect(
                    scenario.steps.contains {
                        if case .query(.isValid(FuzzGenerator.labTimer)) = $0 { return true }
                        return false
                    },
                    "seed \(seed)")
            }
            if scenario.steps.contains(where: {
                if case .add(FuzzGenerator.labTimer, .named(FuzzGenerator.deepMode)) = $0 { return true }
                return false
            }),
                scenario.steps.contains(where: {
                    if case .setNextFireDate(FuzzGenerator.labTimer, _) = $0 { return true }
                    return false
                })
            {
                redatedInTwoModes += 1
            }
            // Every other run (of this loop or posted to another) and helper thread comes after all the lab's runs,
            // or before all of them, and then the scenario has no helper thread.
            let others = scenario.steps.indices.filter { index in
                switch scenario.steps[index] {
                case .run, .runForever, .post: return !isLabRun(scenario.steps[index])
                case .thread: return FuzzScenario.references(of: scenario.steps[index]).isDisjoint(with: labItems)
                default: return false
                }
            }
            if others.allSatisfy({ $0 > lastLab }) {
                // Before them all.
            } else if others.allSatisfy({ $0 < firstLab }) {
                last += 1
                // No helper thread of the scenario's own (one of the lab's may re-date its keeper).
                #expect(
                    !scenario.steps.contains { step in
                        guard case .thread = step else { return false }
                        return FuzzScenario.references(of: step).isDisjoint(with: labItems)
                    }, "seed \(seed)")
            } else {
                Issue.record("seed \(seed): the lab's runs are among the scenario's other runs")
            }
            #expect(
                scenario.allowances.contains(.idleWakes)
                    || !scenario.steps.contains { step in
                        if case .run(let request) = step {
                            return labModes.contains(request.mode) && !(request.seconds <= 0)
                        }
                        return false
                    }, "seed \(seed)")
            #expect(!scenario.features.contains(.mainThread), "seed \(seed)")
        }
        let counts =
            "lab \(withLab), last \(last), NaN \(nan), full timeout \(fullTimeout), nested in a timer "
            + "\(nestedInTimer), cross-thread \(crossThread), one-shot re-dated later \(oneShotRedatedLater), "
            + "re-dated in two modes \(redatedInTwoModes)"
        #expect(
            [
                withLab, last, nan, fullTimeout, nestedInTimer, crossThread, oneShotRedatedLater,
                redatedInTwoModes,
            ].allSatisfy { $0 > 0 }, "\(counts)")
    }

    /// Area `deadline`'s modes (FuzzGenerator+Deadlines.swift).
    static let labModes: Set<ModeName> = [
        .named(FuzzGenerator.labMode), .named(FuzzGenerator.deepMode),
        .named(FuzzGenerator.sinkMode),
    ]

    private func endedByTimerScenario(_ scenario: SpecCase) -> Bool {
        scenario.items.contains { $0.name == FuzzGenerator.guardName && $0.firesFromCreation }
    }

    /// A main-thread scenario stays one when shrunk (nothing in its actions says so), and a shrink that takes away the
    /// stall after a timer's add, or makes the run a timer ends a poll, is never a candidate.
    @Test func shrinkingKeepsTheMainThreadAndTheStallThatMakesATimerDue() throws {
        let here = SpecLocation(file: "test", line: 0)
        let scenario = SpecCase(
            id: "fuzz.test", rule: "test", source: "observed", features: [.mainThread], allowances: [.idleWakes],
            items: [
                ItemDeclaration(name: "o1", kind: .observer(activities: .all, repeats: true, order: 0), location: here),
                ItemDeclaration(
                    name: "e1", kind: .timer(fire: 0.01, interval: 0, tolerance: nil, order: 0),
                    location: here, createdByStep: true, firesFromCreation: true),
                ItemDeclaration(
                    name: "w", kind: .timer(fire: 0.02, interval: 0, tolerance: nil, order: 0),
                    location: here, createdByStep: true, firesFromCreation: true),
            ],
            steps: [
                .add(item: "o1", mode: .default), .create("e1"), .add(item: "e1", mode: .default), .stall(0.03),
                .create("w"), .add(item: "w", mode: .default),
                .run(RunRequest(mode: .default, seconds: .infinity, returnAfterSourceHandled: false)),
            ],
            triggers: [Trigger(event: "fire w", occurrence: .nth(1), actions: [.stop], location: here)],
            expectedTrace: [], location: here)
        let candidates = FuzzShrinker.candidates(scenario)
        #expect(!candidates.isEmpty)
        for candidate in candidates {
            #expect(candidate.features.contains(.mainThread))
            #expect(candidate.triggers.contains { $0.event == "fire w" })
            #expect(candidate.items.allSatisfy { !$0.firesFromCreation || $0.createdByStep })
            if let add = candidate.steps.firstIndex(where: {
                if case .add("e1", _) = $0 { return true }
                return false
            }) {
                if case .stall = candidate.steps[add + 1] {} else { Issue.record("the stall after e1's add was cut") }
            }
            if case .run(let request)? = candidate.steps.last { #expect(request.seconds == .infinity) }
            _ = try SpecLoader.parse(CaseWriter.file([candidate]), file: "shrunk.yaml")
        }
    }

    // MARK: Comparison and known divergences

    @Test func scheduleCalloutsOfOneCallCompareInAnyOrder() {
        let first = ["run default", "schedule s work", "schedule s default", "return timedOut"]
        let second = ["run default", "schedule s default", "schedule s work", "return timedOut"]
        #expect(FuzzScenario.comparable(first, allowances: []) == FuzzScenario.comparable(second, allowances: []))
        #expect(FuzzScenario.unorderedRanges(in: first) == [1..<3])
    }

    static let tolerance = KnownDivergence(
        id: "cf.tolerance", engine: "cf", reason: "r",
        lines: ["^tolerance [a-z0-9]+ [0-9.]+$"], actions: nil,
        location: SpecLocation(file: "k", line: 1))

    @Test func aLinesEntryExplainsOnlyThoseLines() {
        let scenario = FuzzGenerator().scenario(seed: 1)
        let cf = ["run default", "tolerance t1 0.00", "return timedOut"]
        #expect(
            Self.tolerance.explains(
                scenario, first: cf, second: ["run default", "tolerance t1 0.05", "return timedOut"]))
        #expect(
            !Self.tolerance.explains(
                scenario, first: cf,
                second: ["run default", "tolerance t1 0.05", "o1.exit", "return timedOut"]))
    }

    @Test func anActionsEntryNeedsItsVerbsInOneCallout() throws {
        let entry = KnownDivergence(
            id: "x", engine: "cf", reason: "r", lines: nil, actions: ["stop", "run"],
            inCallout: true, location: SpecLocation(file: "k", line: 1))
        let text = """
            spec_version: 1
            cases:
              - id: fuzz.known
                rule: r
                source: observed
                items: {o: observer, s: source0}
                steps: [{add: o}, stop, run]
                on:
                  - {when: o.entry, do: [stop, {mark: x}, {run: {mode: default, seconds: 0}}]}
                  - {when: o.exit, do: [{run: default}, stop]}
                expect: []
            """
        var specCase = try Self.onlyCase(text)
        #expect(entry.explains(specCase, first: ["a"], second: ["b"]))
        specCase.triggers.removeFirst()  // a run before a stop, and a stop then run in the steps only: not this defect
        #expect(!entry.explains(specCase, first: ["a"], second: ["b"]))
    }

    @Test func aRemovesEntryNeedsARemovalOfThatKind() throws {
        let text = """
            spec_version: 1
            cases:
              - id: fuzz.removes
                rule: r
                source: observed
                items: {p: {source1: {order: 0}}, t: {timer: {fire: -1}}, o: observer}
                steps: [{add: p}, {add: t}, {write: p}, {remove: t}, run]
                expect: []
            """
        var specCase = try Self.onlyCase(text)
        let known = try Self.shippedKnown()
        let stale = try #require(known.first { $0.id == "cf.stale-timer-wake-hides-port" })
        let cf = ["run default", "return timedOut"]
        let ref = ["run default", "perform p", "return timedOut"]
        #expect(stale.explains(specCase, first: cf, second: ref))
        #expect(stale.counterfactual == .keepTimer)
        specCase.steps[3] = .remove(item: "o", mode: .default)  // an observer removed, no timer: not this defect
        #expect(!stale.explains(specCase, first: cf, second: ref))
    }

    static let staleTimerCase = """
        spec_version: 1
        cases:
          - id: fuzz.stale-timer
            rule: r
            source: observed
            items: {p: {source1: {order: 0}}, t: {timer: {fire: -1}}, o: {observer: {activities: all, order: 1}}}
            steps: [{add: p}, {add: o}, {add: t}, {add: [t, work]}, {remove: t}, {write: p}, run, run]
            expect: []
        """

    @Test func theKeepTimerCounterfactualAddsATimerToEveryModeFirst() throws {
        let specCase = try Self.onlyCase(Self.staleTimerCase)
        let changed = FuzzKnown.apply(.keepTimer, to: specCase)
        #expect(changed.items.first?.name == FuzzKnown.keepTimerName)
        #expect(changed.items.count == specCase.items.count + 1)
        let firstSteps = changed.steps.prefix(2).map { step -> String in
            guard case .add(let item, let mode) = step else { return "not an add" }
            return "\(item) \(mode)"
        }
        #expect(firstSteps == ["keep common", "keep work"])
        #expect(changed.steps.count == specCase.steps.count + 2)
        // The changed case is still a case the loader reads back.
        Self.expectLoadsBack(changed)
    }

    @Test func theNoToleranceCounterfactualTakesOutEverySetTolerance() throws {
        let text = """
            spec_version: 1
            cases:
              - id: fuzz.tolerance
                rule: r
                source: observed
                items: {t: {timer: {fire: -1}}, o: {observer: {activities: [beforeTimers]}}}
                steps: [{add: t}, {setTolerance: [t, 0.05]}, {add: o}, {thread: {do: [{setTolerance: [t, 0.1]}, wakeup]}}, run]
                on:
                  - {when: o.beforeTimers, do: [{setTolerance: [t, 0.05]}, {mark: x}]}
                expect: []
            """
        let specCase = try Self.onlyCase(text)
        let changed = FuzzKnown.apply(.noTolerance, to: specCase)
        let verbs = FuzzScenario.allActions(of: changed).map(FuzzKnown.verb)
        #expect(!verbs.contains("setTolerance"))
        #expect(
            verbs.filter { $0 != "setTolerance" }
                == FuzzScenario.allActions(of: specCase).map(FuzzKnown.verb).filter { $0 != "setTolerance" })
    }

    /// Seeds 4285501, 4298239 and 4515331 of the 30-minute campaign: a trigger whose only action is a setTolerance.
    /// Without it the changed case held an empty `do` list, which does not load, so the counterfactual never ran and
    /// the tolerance CF ignores was reported as unexplained.
    @Test func theNoToleranceCounterfactualDropsTriggersLeftEmpty() throws {
        let text = """
            spec_version: 1
            cases:
              - id: fuzz.tolerance-only
                rule: r
                source: observed
                items: {t1: {timer: {fire: -1}}, t2: {timer: {fire: -1}}, o1: {observer: {activities: [beforeTimers]}}}
                steps: [{add: o1}, {add: t1}, {add: t2}, run]
                on:
                  - {when: fire t1, do: [run]}
                  - {when: o1.beforeTimers, do: [{setTolerance: [t2, 0.05]}]}
                expect: []
            """
        let specCase = try Self.onlyCase(text)
        let changed = FuzzKnown.apply(.noTolerance, to: specCase)
        #expect(changed.triggers.map(\.event) == ["fire t1"])
        Self.expectLoadsBack(changed)
    }

    /// A `removes: [timer]` entry with the keep-timer counterfactual, on a divergence that has nothing to do with
    /// timers but whose case removes one: the static conditions hold, the counterfactual run still diverges, so the
    /// divergence stays unexplained.
    @Test func aCounterfactualThatKeepsTheDivergenceExplainsNothing() throws {
        let specCase = try Self.onlyCase(Self.staleTimerCase)
        let entry = KnownDivergence(
            id: "timer-gone", engine: "planted", reason: "r", lines: nil, actions: nil,
            removes: ["timer"], counterfactual: .keepTimer,
            location: SpecLocation(file: "k", line: 1))
        let options = FuzzOptions(
            engines: [TestWorker.engine("ref"), TestWorker.engine("planted")], seed: 1,
            count: 1, seconds: nil, shape: FuzzShape(), outDirectory: nil, timeout: 5,
            known: [entry])
        let campaign = FuzzCampaign(options: options, launcher: TestWorker.launcher())
        let runs = try campaign.executor.run([specCase])[0]
        #expect(FuzzCampaign.diverges(runs), "planted skips o's BeforeSources: \(runs)")
        #expect(entry.explains(specCase, first: runs[0].trace, second: runs[1].trace))
        #expect(try campaign.classify(specCase, runs) == nil)
        // Without the counterfactual, the same entry would have explained it.
        var loose = entry
        loose.counterfactual = nil
        var looseOptions = options
        looseOptions.known = [loose]
        #expect(
            try FuzzCampaign(options: looseOptions, launcher: TestWorker.launcher()).classify(specCase, runs)?.id
                == "timer-gone")
    }

    /// The one case of a spec document the known-divergence tests write.
    static func onlyCase(_ text: String) throws -> SpecCase {
        try #require(try SpecLoader.parse(text, file: "k.yaml").cases.first)
    }

    /// The shipped known divergences (Sources/ConformanceSpec/fuzz-known.yaml).
    static func shippedKnown() throws -> [KnownDivergence] {
        try FuzzKnown.load(file: try #require(SpecResources.fuzzKnownFile))
    }

    /// A counterfactual's changed case is still a case the loader reads back.
    static func expectLoadsBack(_ changed: SpecCase) {
        #expect(throws: Never.self) { try SpecLoader.parse(CaseWriter.file([changed]), file: "changed.yaml") }
    }

    /// A campaign of cf against ref with `known`.
    static func cfAndRefCampaign(known: [KnownDivergence]) -> FuzzCampaign {
        let options = FuzzOptions(
            engines: [TestWorker.engine("cf"), TestWorker.engine("ref")], seed: 1,
            count: 1, seconds: nil, shape: FuzzShape(), outDirectory: nil, timeout: 5,
            known: known)
        return FuzzCampaign(options: options, launcher: TestWorker.launcher())
    }

    /// A campaign of cf against ref with `known`, and the runs of `specCase` on both, which must diverge.
    static func cfAndRef(_ specCase: SpecCase, known: [KnownDivergence]) throws -> (FuzzCampaign, [FuzzRun]) {
        let campaign = cfAndRefCampaign(known: known)
        let runs = try campaign.executor.run([specCase])[0]
        try #require(FuzzCampaign.diverges(runs), "cf and ref agreed: \(runs)")
        return (campaign, runs)
    }

    /// The one case of `caseText` diverges on the real cf and ref, and the shipped known file explains it as `id`.
    static func expectShippedEntryExplains(_ caseText: String, as id: String) throws {
        let specCase = try Self.onlyCase(caseText)
        let known = try Self.shippedKnown()
        let (campaign, runs) = try cfAndRef(specCase, known: known)
        #expect(try campaign.classify(specCase, runs)?.id == id)
    }

    /// The defect itself, on the real CoreFoundation: a due timer armed in the mode and removed leaves CF's timerfd
    /// readable, so the first poll handles the stale timer port instead of the written version-1 source. With the
    /// keep-timer counterfactual the engines agree, so the shipped entry explains it.
    @Test func theStaleTimerDefectOnCFIsExplainedByItsCounterfactual() throws {
        try Self.expectShippedEntryExplains(Self.staleTimerCase, as: "cf.stale-timer-wake-hides-port")
    }

    static let redatedWhileFiringCase = """
        spec_version: 1
        cases:
          - id: fuzz.redated-while-firing
            rule: r
            source: observed
            items: {t1: {timer: {fire: -1, interval: 100}}}
            steps: [{add: [t1, work]}, {run: work}, {run: default}]
            on:
              - {when: fire t1, nth: 1, do: [{add: [t1, common]}]}
              - {when: fire t1, nth: 1, do: [{setNextFireDate: [t1, -1]}]}
            expect: []
        """

    @Test func theRearmCounterfactualChangesEveryModesTimersBetweenSteps() throws {
        let specCase = try Self.onlyCase(Self.redatedWhileFiringCase)
        let changed = FuzzKnown.apply(.rearmBetweenSteps, to: specCase)
        #expect(changed.items.first?.name == FuzzKnown.keepTimerName)
        let steps = changed.steps.map { step -> String in
            switch step {
            case .add(let item, let mode): return "add \(item) \(mode)"
            case .remove(let item, let mode): return "remove \(item) \(mode)"
            case .run(let request): return "run \(request.mode)"
            default: return "other"
            }
        }
        // The common modes and the work mode, between every two steps, none after the last.
        let between = ["add keep common", "remove keep common", "add keep work", "remove keep work"]
        #expect(steps == ["add t1 work"] + between + ["run work"] + between + ["run default"])
        Self.expectLoadsBack(changed)
    }

    /// The defect on the real CoreFoundation (runloop fuzz seed 7193978): a timer that its callout adds to the common
    /// modes and re-dates to the past is not armed in the default mode, so cf's poll there does not fire it and ref's
    /// does. Re-arming every mode between steps makes them agree, so the shipped entry explains it.
    @Test func theRedatedWhileFiringDefectOnCFIsExplainedByItsCounterfactual() throws {
        try Self.expectShippedEntryExplains(Self.redatedWhileFiringCase, as: "cf.timer-redated-while-firing-not-armed")
    }

    /// Runloop fuzz seed 9382340, shrunk: a new common mode receives a readable version-1 source and a due timer.
    static let commonItemsOrderCase = """
        spec_version: 1
        cases:
          - id: fuzz.common-items-order
            rule: r
            source: observed
            features: [source1]
            items: {p1: {source1: {order: 0}}, t2: {timer: {fire: -1}}}
            steps:
              - {add: [p1, common]}
              - {add: [t2, common]}
              - {write: p1}
              - {addCommonMode: work}
              - {add: [p1, work]}
              - {run: work}
              - {run: work}
              - {run: {mode: default, seconds: 0, returnAfterSourceHandled: true}}
            expect: []
        """

    @Test func theCommonItemsCounterfactualAddsTheCommonItemsInOrderFirst() throws {
        let text = """
            spec_version: 1
            cases:
              - id: fuzz.common-items
                rule: r
                source: observed
                items: {a: source0, b: {timer: {fire: 100}}, c: source0}
                steps: [{add: [a, common]}, {add: [b, common]}, {add: [c, common]}, {remove: [a, common]}, {addCommonMode: work}, {run: work}]
                expect: []
            """
        let specCase = try Self.onlyCase(text)
        let changed = FuzzKnown.apply(.commonItemsInOrder, to: specCase)
        let added = changed.steps.compactMap { step -> String? in
            guard case .add(let item, let mode) = step, mode != .common else { return nil }
            return "\(item) \(mode)"
        }
        #expect(added == ["b work", "c work"])
        #expect(changed.steps.count == specCase.steps.count + 2)
        Self.expectLoadsBack(changed)
    }

    /// The divergence the campaign recorded for seed 9382340: CF's set order registered the timer in the new common
    /// mode first, ref the source. Which order CF's set gives depends on the items' addresses (another process may
    /// agree with ref, or be explained by luck by another entry's counterfactual), so the test does not wait for CF to
    /// diverge again: the shipped entry's static conditions hold for the recorded traces, and its counterfactual (the
    /// items added to the mode in order first) runs to the same trace on the real cf and ref, in both orders.
    @Test func theCommonItemsOrderDivergenceMeetsItsEntryAndItsCounterfactualAgreesOnCFAndRef() throws {
        let specCase = try Self.onlyCase(Self.commonItemsOrderCase)
        let known = try Self.shippedKnown()
        let entry = try #require(known.first { $0.id == "cf.common-items-set-order" })
        let cfTrace = [
            "run work", "fire t2", "return timedOut", "run work", "perform p1", "return timedOut",
            "run default", "return timedOut",
        ]
        let refTrace = [
            "run work", "perform p1", "return timedOut", "run work", "fire t2", "return timedOut",
            "run default", "return timedOut",
        ]
        #expect(entry.explains(specCase, first: cfTrace, second: refTrace))
        #expect(entry.counterfactual == .commonItemsInOrder)
        let campaign = Self.cfAndRefCampaign(known: known)
        var reversed = specCase
        reversed.steps.swapAt(0, 1)  // t2 becomes common before p1
        for (variant, sourceFirst) in [(specCase, true), (reversed, false)] {
            let changed = FuzzKnown.apply(.commonItemsInOrder, to: variant)
            let runs = try campaign.executor.run([changed])[0]
            #expect(runs.allSatisfy { $0.status == .done } && !FuzzCampaign.diverges(runs), "\(runs)")
            // The order the steps gave is the order both follow.
            let firstHandled = runs[0].trace.first { $0 == "fire t2" || $0 == "perform p1" }
            #expect(firstHandled == (sourceFirst ? "perform p1" : "fire t2"))
        }
    }

    /// Seed 900007143's divergence, shrunk: a block for the common modes makes the literal mode named by the constant,
    /// so on CF the source invalidated in it stays there without its cancel callout.
    static let blockMadeLiteralModeCase = """
        spec_version: 1.1
        cases:
          - id: fuzz.block-made-literal-mode
            rule: r
            source: observed
            features: [blocks]
            items:
              s2: {source0: {order: 0, callouts: true}}
              b2: block
            steps:
              - {perform: [b2, common]}
              - {add: [s2, kCFRunLoopCommonModes]}
              - {invalidate: s2}
            expect: []
        """

    @Test func theLiteralModeCounterfactualMakesTheModeByAnAddFirst() throws {
        let specCase = try Self.onlyCase(Self.blockMadeLiteralModeCase)
        let changed = FuzzKnown.apply(.literalModeFirst, to: specCase)
        #expect(changed.items.first?.name == FuzzKnown.literalModeSourceName)
        let firstSteps = changed.steps.prefix(2).map { step -> String in
            switch step {
            case .add(let item, let mode): return "add \(item) \(mode)"
            case .remove(let item, let mode): return "remove \(item) \(mode)"
            default: return "neither"
            }
        }
        let name = FuzzKnown.literalModeSourceName
        #expect(firstSteps == ["add \(name) kCFRunLoopCommonModes", "remove \(name) kCFRunLoopCommonModes"])
        #expect(changed.steps.count == specCase.steps.count + 2)
        _ = try SpecLoader.parse(CaseWriter.file([changed]), file: "changed.yaml")
    }

    /// The defect on the real CoreFoundation, explained by its shipped entry through its counterfactual.
    @Test func theBlockMadeLiteralModeDefectOnCFIsExplainedByItsCounterfactual() throws {
        try Self.expectShippedEntryExplains(
            Self.blockMadeLiteralModeCase, as: "cf.block-made-common-literal-mode-keeps-invalidated-items")
    }

    @Test func theShippedKnownFileLoads() throws {
        let path = try #require(SpecResources.fuzzKnownFile)
        let known = try FuzzKnown.load(file: path)
        #expect(known.map(\.id).contains("cf.timer-tolerance-not-stored"))
        #expect(known.allSatisfy { !$0.reason.isEmpty && ($0.lines != nil || $0.actions != nil || $0.removes != nil) })
    }

    @Test func aKnownEntryWithoutAMatcherIsRefused() {
        #expect {
            try FuzzKnown.parse("spec_version: 1\nknown:\n  - {id: a, engine: cf, reason: r}\n", file: "k.yaml")
        } throws: { error in
            "\(error)".contains("k.yaml:3") && "\(error)".contains("needs 'lines', 'actions' or 'removes'")
        }
    }

    /// Two known defects in one case: a timer invalidated after it became due leaves CF's timerfd readable (the stale
    /// wake), and CF stores no tolerance. The keep-timer counterfactual removes the first; the divergence left (the
    /// tolerance line) is explained by the second entry, so the case is explained.
    @Test func twoKnownDefectsInOneCaseAreExplainedTogether() throws {
        let text = """
            spec_version: 1
            cases:
              - id: fuzz.two-defects
                rule: r
                source: observed
                items: {p: {source1: {order: 0}}, t: {timer: {fire: -1}}}
                steps: [{add: t}, {write: p}, {invalidate: t}, {add: p}, run]
                on:
                  - {when: perform p, do: [{setTolerance: [t, 0.05]}, {query: [tolerance, t]}]}
                expect: []
            """
        let specCase = try Self.onlyCase(text)
        let known = try Self.shippedKnown()
        let (campaign, runs) = try Self.cfAndRef(specCase, known: known)
        #expect(try campaign.classify(specCase, runs)?.id == "cf.stale-timer-wake-hides-port")
        // Without the tolerance entries, the counterfactual leaves an unexplained divergence.
        var alone = campaign.options
        alone.known = known.filter { !$0.id.hasPrefix("cf.timer-tolerance") }
        #expect(try FuzzCampaign(options: alone, launcher: TestWorker.launcher()).classify(specCase, runs) == nil)
    }

    // MARK: Shrinking, on a planted divergence

    @Test func aPlantedBugIsFoundAndShrunkToASmallCaseThatStillDiverges() throws {
        let out = NSTemporaryDirectory() + "runloop-fuzz-test-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let engines = [TestWorker.engine("ref"), TestWorker.engine("planted")]
        let options = FuzzOptions(
            engines: engines, seed: 1, count: 6, seconds: nil, shape: FuzzShape(),
            outDirectory: out, timeout: 5)
        let summary = try FuzzCampaign(options: options, launcher: TestWorker.launcher()).run()
        #expect(summary.scenarios == 6)
        #expect(summary.nondeterministic.isEmpty)
        #expect(summary.failedEverywhere.isEmpty)
        let finding = try #require(
            summary.unexplained.first { $0.shrinkState == .minimal },
            "the planted bug was not found and shrunk in 6 scenarios")
        #expect(finding.stable == true)
        // The bug needs an observer of order >= 1 with BeforeSources, its add, and a run in a mode with an item.
        #expect(FuzzShrinker.size(finding.shrunk) <= 5, "\(CaseWriter.write(finding.shrunk))")
        #expect(
            finding.shrunk.items.contains { item in
                if case .observer(let activities, _, let order) = item.kind {
                    return order >= 1 && activities.contains(.beforeSources)
                }
                return false
            })

        // The written file is an ordinary spec case: ref passes it, planted fails it.
        let file = try #require(finding.file)
        let cases = try SpecLoader.load(path: file).flatMap(\.cases)
        #expect(cases.map(\.id) == [FuzzGenerator.caseID(seed: finding.seed)])
        let report = IsolatedRunner(launcher: TestWorker.launcher(), defaultTimeout: 5)
            .run(cases: cases, specPath: file, engines: engines, expectations: [:])
        #expect(report.outcomes.map(\.status) == [.pass, .fail])

        // The same seed, alone, gives the same scenario and the same finding.
        var replay = options
        replay.seed = finding.seed
        replay.count = 1
        replay.outDirectory = nil
        let again = try FuzzCampaign(options: replay, launcher: TestWorker.launcher()).run()
        #expect(again.findings.map(\.signature) == [finding.signature])
    }

    /// Every scenario that hits the planted bug comes down to one defect, reported once with how many scenarios hit
    /// it; each divergence is handed over as soon as it is found, before shrinking, the first as a new defect, and
    /// only new departures are shrunk.
    @Test func findingsOfOneDefectAreReportedOnce() throws {
        let options = FuzzOptions(
            engines: [TestWorker.engine("ref"), TestWorker.engine("planted")], seed: 1,
            count: 6, seconds: nil, shape: FuzzShape(), outDirectory: nil, timeout: 5)
        let found = Mutex<[(UInt64, Bool)]>([])
        let shrunk = Mutex<[UInt64]>([])
        let summary = try FuzzCampaign(options: options, launcher: TestWorker.launcher()).run(onEvent: { event in
            switch event {
            case .found(let finding, let newDefect): found.withLock { $0.append((finding.seed, newDefect)) }
            case .shrunk(let finding): shrunk.withLock { $0.append(finding.seed) }
            case .setAside: break
            }
        })
        #expect(summary.findings.count >= 2, "the planted bug was hit by fewer than 2 of 6 scenarios")
        #expect(summary.defects.map(\.defect) == ["planted: missing observer beforeSources"])
        #expect(summary.defects.first?.findings.count == summary.findings.count)
        let handed = found.withLock { $0 }
        #expect(handed.map(\.0) == summary.findings.map(\.seed))
        #expect(handed.first?.1 == true)
        // Shrunk: only new departures; every other finding is the same defect as an earlier one, not shrunk.
        let shrunkSeeds = shrunk.withLock { $0 }
        #expect(!shrunkSeeds.isEmpty)
        #expect(Set(shrunkSeeds).isSubset(of: handed.filter(\.1).map(\.0)))
        for finding in summary.findings where !shrunkSeeds.contains(finding.seed) {
            guard case .sameDefect(let first) = finding.shrinkState else {
                Issue.record("seed \(finding.seed): \(finding.shrinkState)")
                continue
            }
            #expect(first < finding.seed)
        }
        let text = FuzzOutput.text(summary, options: options)
        #expect(text.contains("defects: 1 (\(summary.findings.count) divergent scenarios)"))
        #expect(text.contains("hit by \(summary.findings.count) scenarios"))
        #expect(text.contains("time: "))
        #expect(text.contains("shrinking "))
    }

    /// The triage's dead-callout-kind rule across a campaign: runs where one engine never makes an observer callout
    /// that the first engine makes in two scenarios or more make every observer kind dead on it, and the findings
    /// that miss one observer kind or another come down to one defect; a finding of another kind stays apart, and
    /// with the evidence of one scenario only nothing is dead.
    @Test func findingsOfADeadCalloutKindFoldIntoOneDefect() throws {
        func run(_ trace: [String], _ status: FuzzRunStatus = .done) -> FuzzRun {
            FuzzRun(status: status, trace: trace, rawTrace: trace, detail: nil)
        }
        let engines = ["cf", "broken"]
        let observers = [run(["o.entry", "o.beforeTimers", "o.exit", "return finished"]), run(["return finished"])]
        let waits = [
            run(["o.beforeWaiting", "fire t", "o.afterWaiting", "return stopped"]),
            run(["fire t", "return stopped"]),
        ]
        let twice = [
            run(["fire t", "return finished"]), run(["fire t", "fire t", "fire t", "fire t", "return finished"]),
        ]
        var bare = FuzzGenerator(shape: FuzzShape()).scenario(seed: 1)
        bare.triggers = []
        func finding(_ seed: UInt64, _ runs: [FuzzRun]) -> FuzzFinding {
            var finding = FuzzFinding(seed: seed, scenario: bare, runs: runs, explanation: nil)
            finding.shrinkState = .minimal
            return finding
        }
        let findings = [finding(1, observers), finding(2, waits), finding(3, twice)]

        // Each finding alone departs where its own first observer line is missing: three defects.
        var alone = FuzzSummary(
            engines: engines, firstSeed: 1, scenarios: 3, skipped: 0, hung: [], failedEverywhere: [],
            nondeterministic: [], findings: findings, seconds: 0)
        alone.nameDefects(deadKinds: [:])
        #expect(
            alone.defects.map(\.defect) == [
                "broken: missing observer entry", "broken: missing observer beforeWaiting",
                "broken: timer fire over and over",
            ])

        // Across the campaign: two scenarios expect observers, `broken` made none in any run.
        let census = FuzzCalloutCensus(engines: engines)
        census.record([observers, waits, twice])
        let dead = census.deadKinds
        #expect(
            dead == [
                "broken": [
                    "observer entry", "observer beforeTimers", "observer beforeWaiting",
                    "observer afterWaiting", "observer exit",
                ]
            ])
        var folded = alone
        folded.nameDefects(deadKinds: dead)
        let title =
            "broken: observer (entry, beforeTimers, beforeWaiting, afterWaiting, exit) callouts never made (dead)"
        #expect(folded.defects.map(\.defect) == [title, "broken: timer fire over and over"])
        #expect(folded.defects.map { $0.findings.map(\.seed) } == [[1, 2], [3]])
        #expect(folded.deadKinds == dead)
        let text = FuzzOutput.text(
            folded,
            options: FuzzOptions(
                engines: [TestWorker.engine("ref"), TestWorker.engine("planted")], seed: 1, count: 3, seconds: nil,
                shape: FuzzShape(), outDirectory: nil))
        #expect(text.contains("defects: 2 (3 divergent scenarios)"))
        #expect(text.contains("DIVERGENCE: \(title)\n"))

        // A kind the engine makes is never dead, however it departs; one scenario is not evidence enough.
        #expect(dead["broken"]?.contains("timer fire") == false)
        let once = FuzzCalloutCensus(engines: engines)
        once.record([observers, twice])
        #expect(once.deadKinds.isEmpty)
        // A run SKIPped by an engine is no evidence either.
        let skipped = FuzzCalloutCensus(engines: engines)
        skipped.record([observers, [waits[0], run([], .ended(.skip))]])
        #expect(skipped.deadKinds.isEmpty)
    }

    /// An engine that hangs where the first one goes on is one defect, named by what the run should have done next
    /// (not by which observer callout came first after the hang); a hang after a different trace is another.
    @Test func hangsAtTheSameWaitAreOneDefect() {
        func run(_ trace: [String], _ status: FuzzRunStatus = .done) -> FuzzRun {
            FuzzRun(status: status, trace: trace, rawTrace: trace, detail: nil)
        }
        var bare = FuzzGenerator(shape: FuzzShape()).scenario(seed: 1)
        bare.triggers = []
        let timeout = FuzzRunStatus.ended(.timeout)
        let afterWaiting = [
            run(["run default", "o.beforeWaiting", "o.afterWaiting", "o.exit", "return stopped"]),
            run(["run default", "o.beforeWaiting"], timeout),
        ]
        let exit = [
            run(["run default", "p.beforeWaiting", "p.exit", "return stopped"]),
            run(["run default", "p.beforeWaiting"], timeout),
        ]
        let other = [
            run(["run default", "fire t", "return finished"]), run(["run default", "fire t", "block b"], timeout),
        ]
        let defects = [afterWaiting, exit, other].map {
            FuzzDefects.defect(runs: $0, engines: ["cf", "x"], specCase: bare, explanation: nil, deadKinds: [:])
        }
        #expect(defects[0] == "x: hung (TIMEOUT) where cf's run returns")
        #expect(defects[1] == defects[0])
        #expect(defects[2] != defects[0])

        // A hang behind a trigger that waits for a dead kind's callout (a guard observer that never stops the run)
        // is the dead kind's defect.
        var guarded = bare
        guarded.triggers = [
            Trigger(
                event: "o.beforeWaiting", occurrence: .every, actions: [.stop],
                location: bare.location)
        ]
        let dead = ["x": ["observer beforeWaiting", "observer afterWaiting", "observer exit"]]
        let hung = [run(["run default", "o.beforeWaiting", "return stopped"]), run(["run default"], timeout)]
        #expect(
            FuzzDefects.defect(
                runs: hung, engines: ["cf", "x"], specCase: guarded, explanation: nil,
                deadKinds: dead)
                == "x: observer (beforeWaiting, afterWaiting, exit) callouts never made (dead)")
    }

    /// A finding that a divergence not shrunk stands for takes its defect, whatever its own departure.
    @Test func aFindingNotShrunkForItsDepartureTakesTheFirstOnesDefect() {
        func run(_ trace: [String]) -> FuzzRun { FuzzRun(status: .done, trace: trace, rawTrace: trace, detail: nil) }
        var bare = FuzzGenerator(shape: FuzzShape()).scenario(seed: 1)
        bare.triggers = []
        var first = FuzzFinding(seed: 5, scenario: bare, runs: [run(["a.entry"]), run([])], explanation: nil)
        first.shrinkState = .minimal
        var later = FuzzFinding(seed: 9, scenario: bare, runs: [run(["a.exit"]), run([])], explanation: nil)
        later.shrinkState = .sameDefect(as: 5)
        var summary = FuzzSummary(
            engines: ["cf", "x"], firstSeed: 1, scenarios: 10, skipped: 0, hung: [],
            failedEverywhere: [], nondeterministic: [], findings: [first, later], seconds: 0)
        summary.nameDefects(deadKinds: [:])
        #expect(summary.defects.map(\.defect) == ["x: missing observer entry"])
        #expect(summary.defects.first?.findings.count == 2)
    }

    /// An interrupt ends the campaign: no run starts after it, what was found before is in the summary, not shrunk,
    /// and the summary says it was interrupted.
    @Test func anInterruptEndsTheCampaignWithWhatWasFound() throws {
        let interrupt = FuzzInterrupt()
        var options = FuzzOptions(
            engines: [TestWorker.engine("ref"), TestWorker.engine("planted")], seed: 1,
            count: 50, seconds: nil, shape: FuzzShape(), outDirectory: nil, timeout: 5)
        options.interrupt = interrupt
        let summary = try FuzzCampaign(options: options, launcher: TestWorker.launcher()).run(onEvent: { event in
            if case .found = event { interrupt.request(signal: SIGINT) }
        })
        #expect(summary.interrupted == SIGINT)
        #expect(summary.scenarios < 50)
        let finding = try #require(summary.findings.first, "no divergence found before the interrupt")
        #expect(finding.shrinkState == .notShrunk)
        #expect(!summary.findings.contains { $0.shrinkState == .pending })
        #expect(summary.exitCode == 1)
        let text = FuzzOutput.text(summary, options: options)
        #expect(text.contains("INTERRUPTED by SIGINT"))
        #expect(text.contains("NOT SHRUNK"))
        // A second request reports the first one's signal, and how long ago it came.
        #expect(interrupt.request(signal: SIGTERM) != nil)
        #expect(interrupt.signal == SIGINT)

        // Interrupted before it starts: nothing runs.
        let none = try FuzzCampaign(options: options, launcher: TestWorker.launcher()).run()
        #expect(none.scenarios == 0 && none.batches == 0 && none.findings.isEmpty)
    }

    /// Past the time limit no run starts: a campaign whose time is up when it starts runs nothing and says so; a
    /// finding left unshrunk at the limit is reported, marked not run again and not shrunk.
    @Test func nothingRunsPastTheTimeLimitAndWhatIsLeftIsMarked() throws {
        var options = FuzzOptions(
            engines: [TestWorker.engine("ref"), TestWorker.engine("planted")], seed: 1,
            count: nil, seconds: 1, shape: FuzzShape(), outDirectory: nil, timeout: 5)
        options.startedAt = WorkerProcess.monotonicNanoseconds() - 2_000_000_000
        let campaign = FuzzCampaign(options: options, launcher: TestWorker.launcher())
        let summary = try campaign.run()
        #expect(summary.scenarios == 0 && summary.batches == 0)
        #expect(summary.reachedTimeLimit)
        #expect(summary.seconds >= 1)
        #expect(
            try campaign.executor.run([FuzzGenerator(shape: FuzzShape()).scenario(seed: 1)], while: { false })
                .isEmpty)

        // The first of seeds 1-20 that hits the planted bug (which seeds do depends on what the generator draws).
        let candidates = (1...20).map { FuzzGenerator(shape: FuzzShape()).scenario(seed: UInt64($0)) }
        let results = try campaign.executor.run(candidates)
        let hit = try #require(results.firstIndex(where: FuzzCampaign.diverges), "no seed of 1-20 hits the planted bug")
        let (scenario, runs) = (candidates[hit], results[hit])
        var finding = FuzzFinding(seed: UInt64(hit + 1), scenario: scenario, runs: runs, explanation: nil)
        finding.rechecked = false
        FuzzCampaign.leaveUnshrunk(&finding, candidates: [])
        var late = FuzzSummary(
            engines: ["ref", "planted"], firstSeed: 1, scenarios: 1, skipped: 0, hung: [],
            failedEverywhere: [], nondeterministic: [], findings: [finding], seconds: 1)
        late.nameDefects(deadKinds: [:])
        #expect(late.exitCode == 1)
        let text = FuzzOutput.text(late, options: options)
        #expect(text.contains("NOT SHRUNK (found when the time was up)"))
        #expect(text.contains("NOT RUN AGAIN"))
        #expect(text.contains("1 divergences found at the end were not run again"))
    }

    /// Past the campaign's deadline nothing shrinks: the finding keeps its scenario as found and says so.
    @Test func shrinkingStopsAtTheCampaignsDeadline() throws {
        let options = FuzzOptions(
            engines: [TestWorker.engine("ref"), TestWorker.engine("planted")], seed: 1,
            count: 1, seconds: nil, shape: FuzzShape(), outDirectory: nil, timeout: 5)
        let campaign = FuzzCampaign(options: options, launcher: TestWorker.launcher())
        // The first of seeds 1-20 that hits the planted bug (which seeds do depends on what the generator draws).
        let candidates = (1...20).map { FuzzGenerator(shape: FuzzShape()).scenario(seed: UInt64($0)) }
        let results = try campaign.executor.run(candidates)
        let hit = try #require(results.firstIndex(where: FuzzCampaign.diverges), "no seed of 1-20 hits the planted bug")
        let (scenario, runs, seed) = (candidates[hit], results[hit], UInt64(hit + 1))
        let cut = try campaign.shrink(scenario, runs: runs, seed: seed, deadline: WorkerProcess.monotonicNanoseconds())
        #expect(cut.shrinkCut)
        #expect(cut.shrinkState == .stoppedAtTimeLimit)
        #expect(cut.stable == nil)
        #expect(FuzzShrinker.size(cut.shrunk) == FuzzShrinker.size(scenario))
        let whole = try campaign.shrink(scenario, runs: runs, seed: seed)
        #expect(!whole.shrinkCut)
        #expect(FuzzShrinker.size(whole.shrunk) < FuzzShrinker.size(scenario))
        #expect(whole.defect == cut.defect)
    }

    @Test func identicalEnginesNeverDiverge() throws {
        // `faulty` without faults is ref: every scenario must agree, and none may be nondeterministic.
        let options = FuzzOptions(
            engines: [TestWorker.engine("ref"), TestWorker.engine("faulty")], seed: 100,
            count: 30, seconds: nil, shape: FuzzShape(), outDirectory: nil, timeout: 5)
        let summary = try FuzzCampaign(options: options, launcher: TestWorker.launcher()).run()
        #expect(summary.findings.isEmpty, "\(FuzzOutput.text(summary, options: options))")
        #expect(summary.nondeterministic.isEmpty)
        #expect(summary.failedEverywhere.isEmpty && summary.hung.isEmpty && summary.skipped == 0)
        #expect(summary.exitCode == 0)
    }
}
