// What the fuzzer needs to know about a scenario's parts: the engine features it uses, the items an action names, and
// the trace two engines are compared on.

import ConformanceKit
import EngineKit

/// Facts about scenarios (SpecCases made or shrunk by the fuzzer).
public enum FuzzScenario {
    /// The engine features a case uses, in EngineFeature order, so that an engine without one SKIPs it.
    /// A main-thread scenario stays one (the generator chose it; nothing in its actions says so), and one that sends
    /// to the main queue needs the engine to service it (as the loader adds for `dispatchMain`).
    public static func features(of specCase: SpecCase) -> [EngineFeature] {
        var used = Set<EngineFeature>()
        if specCase.features.contains(.mainThread) { used.insert(.mainThread) }
        for item in specCase.items {
            switch item.kind {
            case .source1: used.insert(.source1)
            case .block: used.insert(.blocks)
            case .timer(_, _, let tolerance?, _) where tolerance > 0: used.insert(.timerTolerance)
            default: break
            }
        }
        for action in allActions(of: specCase) {
            switch action {
            case .stopMode: used.insert(.stopMode)
            case .setTolerance, .query(.tolerance): used.insert(.timerTolerance)
            case .perform: used.insert(.blocks)
            case .write: used.insert(.source1)
            case .dispatchMain: used.formUnion([.mainThread, .mainQueue])
            default: break
            }
        }
        return EngineFeature.allCases.filter(used.contains)
    }

    /// Whether a case has a run that may sleep: a run with a timeout above zero (or NaN), or CFRunLoopRun.
    static func hasSleepingRun(_ actions: [Action]) -> Bool {
        actions.contains { action in
            switch action {
            case .run(let request): return !(request.seconds <= 0)
            case .runForever: return true
            default: return false
            }
        }
    }

    /// Every action of the case: steps, trigger actions and helper threads' actions, depth first.
    static func allActions(of specCase: SpecCase) -> [Action] { specCase.allActions }

    /// The items an action names (helper threads: the items of their actions).
    static func references(of action: Action) -> Set<String> {
        switch action {
        case .add(let item, _), .remove(let item, _), .contains(let item, _): return [item]
        case .signal(let item), .write(let item), .invalidate(let item), .create(let item): return [item]
        case .setNextFireDate(let timer, _), .setTolerance(let timer, _): return [timer]
        case .perform(let block, _), .performInModes(let block, _): return [block]
        case .query(.fireDate(let item)), .query(.tolerance(let item)), .query(.isValid(let item)): return [item]
        case .thread(_, let actions), .target(_, let actions), .post(_, let actions), .dispatchMain(let actions):
            return actions.reduce(into: Set()) { $0.formUnion(references(of: $1)) }
        case .waitUntilSlept(_, _, let observer): return [observer]
        case .addCommonMode, .wakeUp, .stop, .stopMode, .run, .runForever, .mark, .stall, .sleep, .query, .join,
            .waitUntilWaiting, .end, .foundationRun, .runUntil, .runBefore, .limitDate, .acceptInput,
            .setFlag:
            return []
        }
    }

    /// The item a trigger's event line names (`o.entry` is o's, `perform s` is s's), if any.
    static func eventItem(_ event: String) -> String? {
        let words = event.split(separator: " ")
        if words.count >= 2, ["perform", "fire", "block", "schedule", "cancel"].contains(words[0]) {
            return String(words[1])
        }
        if words.count == 1, let dot = event.firstIndex(of: ".") { return String(event[..<dot]) }
        return nil
    }

    /// The trace two engines are compared on: with `idle-wakes` the callout-free passes of wake-ups that handled
    /// nothing are dropped (INTERPRETING.md), and every run of consecutive schedule or cancel lines is sorted, since
    /// CF calls a source's callouts for several modes in set order, which is unspecified (the spec's any-order groups).
    /// A `took` line of an assertion that failed is compared without the seconds it measured (`took 0.0016 (expected
    /// atLeastTimeout)` as `took failed (expected atLeastTimeout)`): they differ from run to run, and an engine that
    /// returns early every time would otherwise be set aside as nondeterministic.
    public static func comparable(_ trace: [String], allowances: Set<Allowance>) -> [String] {
        var lines = allowances.contains(.idleWakes) ? IdleWakeFilter.apply(trace) : trace
        for range in unorderedRanges(in: lines) { lines[range].sort() }
        return lines.map { line in
            guard line.hasPrefix("took "), let expected = line.range(of: " (expected ") else { return line }
            return "took failed" + line[expected.lowerBound...]
        }
    }

    /// The any-order groups a case written from `trace` needs: each run of two or more schedule or cancel lines.
    static func unorderedRanges(in trace: [String]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        while start < trace.count {
            var end = start
            while end < trace.count, isScheduleOrCancel(trace[end]) { end += 1 }
            if end - start >= 2 { ranges.append(start..<end) }
            start = max(end, start + 1)
        }
        return ranges
    }

    private static func isScheduleOrCancel(_ line: String) -> Bool {
        line.hasPrefix("schedule ") || line.hasPrefix("cancel ")
    }
}
