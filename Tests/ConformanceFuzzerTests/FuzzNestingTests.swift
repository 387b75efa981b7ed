// Area `nesting` of the generator: it makes nested runs with stops and queries inside them in the last run's first
// callouts, the literal "kCFRunLoopCommonModes" name as a mode, CFRunLoopAddCommonMode of a mode already common,
// isWaiting queries on the loop's own thread and a second loop's thread that exits with sources in it; and each only in
// the construction that keeps its trace fixed (FUZZING.md).

import EngineKit
import Testing

@testable import ConformanceFuzzer
@testable import ConformanceKit

@Suite("Fuzzing: area nesting")
struct FuzzNestingTests {
    func isRun(_ action: Action) -> Bool {
        switch action {
        case .run, .runForever: return true
        default: return false
        }
    }

    /// The actions of the steps, triggers and main-queue blocks: those performed on the loop's own thread (helper
    /// threads' and `target` lists are not).
    func loopThreadActions(_ scenario: SpecCase) -> [Action] {
        func flat(_ actions: [Action]) -> [Action] {
            actions.flatMap { action -> [Action] in
                if case .dispatchMain(let inner) = action { return [action] + flat(inner) }
                return [action]
            }
        }
        return flat(scenario.steps) + scenario.triggers.flatMap { flat($0.actions) }
    }

    @Test func theGeneratorReachesNesting() throws {
        var probes = 0
        var nestedStops = 0
        var bothStops = 0
        var nestedCurrentMode = 0
        var literalRuns = 0
        var literalAdds = 0
        var commonAgain = 0
        var isWaiting = 0
        var guardedProbes = 0
        var ended = 0
        var endedWithSignal = 0
        let literal = ModeName.named(FuzzGenerator.literalCommonModes)
        for seed in 0..<3000 {
            let scenario = FuzzGenerator().scenario(seed: UInt64(seed))
            let all = FuzzScenario.allActions(of: scenario)
            let onLoopThread = loopThreadActions(scenario)
            let guarded = scenario.items.contains { item in
                guard item.name == FuzzGenerator.guardName, case .observer = item.kind else { return false }
                return true
            }
            // isWaiting only where the loop's own thread asks.
            let asked = all.filter {
                if case .query(.isWaiting) = $0 { return true }
                return false
            }.count
            let askedHere = onLoopThread.filter {
                if case .query(.isWaiting) = $0 { return true }
                return false
            }.count
            #expect(asked == askedHere, "seed \(seed)")
            if asked > 0 { isWaiting += 1 }
            if all.contains(where: { action in
                switch action {
                case .add(_, literal): return true
                default: return false
                }
            }) {
                literalAdds += 1
            }
            if all.contains(where: {
                if case .run(let request) = $0 { return request.mode == literal }
                return false
            }) {
                literalRuns += 1
            }
            if scenario.steps.contains(where: {
                if case .addCommonMode(ModeName.defaultModeName) = $0 { return true }
                return false
            }) {
                commonAgain += 1
            }
            // In a scenario the guard ends, a nested run is made only by the probe, in the last run's Entry or its
            // first BeforeTimers or BeforeSources, before the guard's first stop, or in its Exit, after its result
            // (or by area deadline's items, in modes of their own that the guard is never in, after the last run).
            let makesRuns = scenario.triggers.filter { trigger in
                trigger.actions.contains(where: isRun)
                    && !FuzzGenerator.deadlineNames.contains(FuzzScenario.eventItem(trigger.event) ?? "")
            }
            if guarded {
                for trigger in makesRuns {
                    #expect(
                        ["v.entry", "v.beforeTimers", "v.beforeSources"].contains(trigger.event)
                            && trigger.occurrence == .nth(1) || trigger.event == "v.exit",
                        "seed \(seed): \(trigger.event)")
                }
            }
            if scenario.items.contains(where: { $0.name == FuzzGenerator.probeName }) {
                probes += 1
                if guarded { guardedProbes += 1 }
                // The probe's adds are the last steps before the last run: its first Entry is that run's.
                let last = scenario.steps.count - 1
                #expect(isRun(scenario.steps[last]), "seed \(seed)")
                let firstAdd = try #require(
                    scenario.steps.firstIndex { step in
                        if case .add(FuzzGenerator.probeName, _) = step { return true }
                        return false
                    }, "seed \(seed)")
                #expect(!scenario.steps[firstAdd..<last].contains(where: isRun), "seed \(seed)")
                // Its callouts name no item that a callout creates (it may not exist yet).
                let madeInSteps = Set(
                    scenario.steps.compactMap { step -> String? in
                        if case .create(let name) = step { return name }
                        return nil
                    })
                let madeByCallouts = Set(scenario.items.filter(\.createdByStep).map(\.name)).subtracting(madeInSteps)
                for trigger in scenario.triggers where trigger.event.hasPrefix("v.") || trigger.event.hasPrefix("u.") {
                    for action in trigger.actions {
                        #expect(FuzzScenario.references(of: action).isDisjoint(with: madeByCallouts), "seed \(seed)")
                    }
                }
                // Not in a quiet scenario: no helper thread, no ending timer or timeout.
                #expect(
                    !scenario.steps.contains {
                        if case .thread = $0 { return true }
                        return false
                    }, "seed \(seed)")
                #expect(
                    !scenario.items.contains { $0.name == FuzzGenerator.guardName && $0.firesFromCreation },
                    "seed \(seed)")
                // The probe's triggers in the nested run (the one on the outer run's callout makes the run).
                for trigger in scenario.triggers
                where (trigger.event.hasPrefix("u.") || trigger.event == "perform x")
                    && !trigger.actions.contains(where: isRun)
                {
                    let stops = trigger.actions.filter { action in
                        switch action {
                        case .stop, .stopMode: return true
                        default: return false
                        }
                    }
                    if !stops.isEmpty { nestedStops += 1 }
                    if stops.count == 2 { bothStops += 1 }
                    if trigger.actions.contains(where: {
                        if case .query(.currentMode) = $0 { return true }
                        return false
                    }) {
                        nestedCurrentMode += 1
                    }
                }
            }
            if scenario.steps.contains(where: {
                if case .end = $0 { return true }
                return false
            }) {
                ended += 1
                let end = scenario.steps.firstIndex {
                    if case .end = $0 { return true }
                    return false
                }!
                // Nothing posted, joined or added to the ended loop afterwards, and it never held a timer or observer.
                for step in scenario.steps[(end + 1)...] {
                    switch step {
                    case .post, .join, .end: Issue.record("seed \(seed): \(step) after the end")
                    case .target(_, let inner):
                        #expect(
                            inner.allSatisfy {
                                if case .contains = $0 { return true }
                                return false
                            }, "seed \(seed)")
                    default: break
                    }
                }
                for case .target(_, let inner) in scenario.steps {
                    for case .add(let item, _) in inner {
                        let kind = scenario.items.first { $0.name == item }?.kind.word
                        #expect(kind == "source0" || kind == "source1", "seed \(seed): \(item) in the ended loop")
                    }
                }
                if scenario.steps[..<end].contains(where: {
                    if case .signal = $0 { return true }
                    return false
                }) {
                    endedWithSignal += 1
                }
            }
            // Every shrink candidate of some of them loads.
            if seed % 50 == 0 {
                for candidate in FuzzShrinker.candidates(scenario) {
                    _ = try SpecLoader.parse(CaseWriter.file([candidate]), file: "shrunk-\(seed).yaml")
                }
            }
        }
        let counts =
            "probes \(probes) (guarded \(guardedProbes)), stops in them \(nestedStops), both stops \(bothStops), "
            + "currentMode in them \(nestedCurrentMode), literal adds \(literalAdds), literal runs \(literalRuns), "
            + "addCommonMode default \(commonAgain), isWaiting \(isWaiting), ended loops \(ended) (signalled \(endedWithSignal))"
        #expect(
            [
                probes, guardedProbes, nestedStops, bothStops, nestedCurrentMode, literalAdds, literalRuns, commonAgain,
                isWaiting, ended, endedWithSignal,
            ].allSatisfy { $0 > 0 }, "\(counts)")
    }

    @Test func areaNestingOffMakesNoneOfIt() {
        let generator = FuzzGenerator(shape: FuzzShape(areas: Set(FuzzArea.allCases).subtracting([.nesting])))
        for seed in 0..<500 {
            let scenario = generator.scenario(seed: UInt64(seed))
            let all = FuzzScenario.allActions(of: scenario)
            #expect(!scenario.items.contains { $0.name == FuzzGenerator.probeName }, "seed \(seed)")
            #expect(
                !all.contains { action in
                    switch action {
                    case .end, .query(.isWaiting): return true
                    case .add(_, .named(FuzzGenerator.literalCommonModes)): return true
                    default: return false
                    }
                }, "seed \(seed)")
        }
    }
}
