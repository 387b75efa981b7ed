// Known, explained divergences between engines: CF defects the spec deliberately does not assert. The fuzzer reports a
// divergence that one of them explains apart from the unexplained ones, which are failures. The reviewed list ships
// as Sources/ConformanceSpec/fuzz-known.yaml:
//
//   spec_version: 1
//   known:
//     - id: cf.timer-tolerance-not-stored
//       engine: cf                      # the engine whose behaviour is the defect
//       reason: "..."                   # why, with the CF source lines
//       lines: ['^tolerance \w+ ']      # every line that differs between the traces matches one of these
//       actions: [stop, run]            # these verbs, in this order, in one action list (steps, a trigger's do)
//       in_callout: true                # ...and that list is a trigger's `do` (what one callout does)
//       removes: [timer]                # the case removes or invalidates an item of each of these kinds
//       counterfactual: keep-timer      # the divergence goes away when the defect's cause is taken out of the case
//
// An entry explains a divergence only when all its conditions hold; it must have `lines`, `actions` or `removes`, so
// that it cannot explain everything. The static conditions (`lines`, `actions`, `in_callout`, `removes`) are checked
// here; a `counterfactual` is a run: the campaign runs the case changed as the counterfactual says on every engine,
// and the entry explains the divergence only if the engines then agree (FuzzCampaign.classify). Matching is done on
// the original divergence and on every shrink candidate, so that shrinking cannot slide from a new divergence to a
// known one.

import ConformanceKit
import EngineKit
import Foundation
import YAMLKit

/// One known divergence.
public struct KnownDivergence: Sendable {
    public var id: String
    public var engine: String
    public var reason: String
    /// Regular expressions; every differing line (of either trace) must match one. Nil: any lines.
    public var lines: [String]?
    /// Action verbs (ActionParser's) that must appear in this order in one action list. Nil: any case.
    public var actions: [String]?
    /// Whether `actions` must be in a trigger's `do` list (or a helper thread's started from one): one callout's.
    public var inCallout: Bool = false
    /// Item kinds (`timer`, `source0`, ...) of which the case must remove or invalidate an item (for `timer`, a timer
    /// that fires counts: it is out of its modes' arming during its callout, and a one-shot one is invalidated).
    /// Nil: any case.
    public var removes: [String]? = nil
    /// A change to the case that takes the defect's cause away; the engines must agree on the changed case.
    public var counterfactual: Counterfactual? = nil
    public var location: SpecLocation

    /// A change that removes a known defect's cause from a case.
    public enum Counterfactual: String, Sendable, CaseIterable {
        /// Every mode the case names holds one more timer from the start, `FuzzKnown.keepTimerName`, a one-shot 100 s
        /// away that never fires: no mode ever loses its last timer (rule timer.port-in-wait-set keeps its port armed
        /// for it instead of leaving a stale deadline armed).
        case keepTimer = "keep-timer"
        /// Every `setTolerance` action is taken out of the case (steps, triggers, helper threads): a timer's tolerance
        /// no longer moves when it may fire.
        case noTolerance = "no-tolerance"
        /// Between every two steps, `FuzzKnown.keepTimerName` (a one-shot 100 s away) is added to every mode the case
        /// names and removed again: each change to a mode's timers re-arms its timer port, so no mode keeps, into the
        /// next step, an arming made while a timer's callout ran (which CF's arming skips, RL 2390-91).
        case rearmBetweenSteps = "rearm-between-steps"
        /// Before each `addCommonMode` step, the items the steps so far left in the common items are added to that
        /// mode explicitly, in the order they were added to the common modes: the new common mode receives them in
        /// that order on every engine, whatever order its set of common items gives (CF's is a CFSet's, RL 1982-87).
        case commonItemsInOrder = "common-items-in-order"
        /// Before anything else, a source (`FuzzKnown.literalModeSourceName`) is added to the literal mode named like
        /// the common modes and removed again, so that mode is made by an add, with an equal string as its name: a
        /// block for the common modes then finds it instead of making it named by the kCFRunLoopCommonModes constant
        /// itself (CFRunLoopPerformBlock, RL 3481-88).
        case literalModeFirst = "literal-mode-first"
    }

    /// Whether this entry's static conditions hold for the divergence of `specCase` between the traces `first` and
    /// `second`. An entry with a ``counterfactual`` explains it only if the engines also agree on the changed case.
    public func explains(_ specCase: SpecCase, first: [String], second: [String]) -> Bool {
        if let actions,
            !FuzzKnown.actionLists(of: specCase, inCallout: inCallout)
                .contains(where: { FuzzKnown.contains($0, inOrder: actions) })
        {
            return false
        }
        if let removes {
            let kinds = Dictionary(uniqueKeysWithValues: specCase.items.map { ($0.name, $0.kind.word) })
            var removed = Set(
                FuzzScenario.allActions(of: specCase).compactMap { action -> String? in
                    switch action {
                    case .remove(let item, _), .invalidate(let item): return kinds[item]
                    default: return nil
                    }
                })
            // A timer that fires leaves every mode's arming while its callout runs (__CFArmNextTimerInMode skips
            // firing timers, RL 2390-91), and a one-shot timer for good (CF invalidates it after its callout, RL 2548).
            let timers = specCase.items.compactMap { item -> String? in
                if case .timer = item.kind { return "fire " + item.name }
                return nil
            }
            if (first + second).contains(where: timers.contains) { removed.insert("timer") }
            guard removes.allSatisfy(removed.contains) else { return false }
        }
        if let lines {
            let patterns = lines.compactMap { try? NSRegularExpression(pattern: $0) }
            let differing = TraceDiff.edits(expected: first, actual: second).compactMap { edit -> String? in
                switch edit {
                case .same: return nil
                case .removed(let line), .added(let line): return line
                }
            }
            for line in differing {
                let range = NSRange(line.startIndex..., in: line)
                guard patterns.contains(where: { $0.firstMatch(in: line, range: range) != nil }) else { return false }
            }
        }
        return true
    }
}

/// Loading the known-divergences file and matching against it.
public enum FuzzKnown {
    /// Loads a known-divergences file. Throws ``SpecError`` naming the file, line and field.
    public static func load(file path: String) throws -> [KnownDivergence] {
        try parse(SpecLoader.readText(path), file: path)
    }

    public static func parse(_ text: String, file: String) throws -> [KnownDivergence] {
        var top = try SpecLoader.versionedTop(text, file: file)
        var seen = Set<String>()
        let entries = try (top.optional("known")?.sequence() ?? []).map { value -> KnownDivergence in
            var fields = try value.fields()
            let idValue = try fields.required("id")
            let id = try idValue.string()
            guard seen.insert(id).inserted else { throw idValue.error("duplicate id '\(id)'") }
            let engine = try fields.required("engine").string()
            let reason = try fields.required("reason").string()
            let lines = try fields.optional("lines")?.sequence().map { line -> String in
                let pattern = try line.string()
                do { _ = try NSRegularExpression(pattern: pattern) } catch {
                    throw line.error("not a regular expression: \(pattern)")
                }
                return pattern
            }
            let actions = try fields.optional("actions")?.sequence().map { verb -> String in
                let word = try verb.string()
                guard ActionParser.verbs.contains(word) else {
                    throw verb.error("unknown action '\(word)' (one of \(ActionParser.verbs.joined(separator: ", ")))")
                }
                return word
            }
            let inCallout = try fields.optional("in_callout")?.bool() ?? false
            let counterfactual = try fields.optional("counterfactual").map { value -> KnownDivergence.Counterfactual in
                let word = try value.string()
                guard let known = KnownDivergence.Counterfactual(rawValue: word) else {
                    let all = KnownDivergence.Counterfactual.allCases.map(\.rawValue).joined(separator: ", ")
                    throw value.error("unknown counterfactual '\(word)' (one of \(all))")
                }
                return known
            }
            let removes = try fields.optional("removes")?.sequence().map { kind -> String in
                let word = try kind.string()
                guard ["source0", "source1", "timer", "observer"].contains(word) else {
                    throw kind.error("unknown item kind '\(word)' (one of source0, source1, timer, observer)")
                }
                return word
            }
            guard lines != nil || actions != nil || removes != nil else {
                throw value.error(
                    "a known divergence needs 'lines', 'actions' or 'removes', or it would explain everything")
            }
            try fields.finish(allowed: [
                "id", "engine", "reason", "lines", "actions", "in_callout", "removes",
                "counterfactual",
            ])
            return KnownDivergence(
                id: id, engine: engine, reason: reason, lines: lines, actions: actions,
                inCallout: inCallout, removes: removes, counterfactual: counterfactual,
                location: value.location)
        }
        try top.finish(allowed: ["spec_version", "known"])
        return entries
    }

    /// The entries whose static conditions hold for the divergence, in file order.
    public static func candidates(
        in known: [KnownDivergence], for specCase: SpecCase, first: [String],
        second: [String]
    ) -> [KnownDivergence] {
        known.filter { $0.explains(specCase, first: first, second: second) }
    }

    /// The name of the timer the `keep-timer` counterfactual adds (not an identifier the generator uses).
    public static let keepTimerName = "keep"

    /// `specCase` changed as `counterfactual` says.
    public static func apply(_ counterfactual: KnownDivergence.Counterfactual, to specCase: SpecCase) -> SpecCase {
        switch counterfactual {
        case .noTolerance:
            // A trigger or helper thread left with no action goes too: the format has no empty action list, so the
            // changed case would not load, and a counterfactual that does not run explains nothing.
            func strip(_ actions: [Action]) -> [Action] {
                actions.compactMap { action -> Action? in
                    switch action {
                    case .setTolerance: return nil
                    case .thread(let wait, let inner):
                        let kept = strip(inner)
                        return kept.isEmpty ? nil : .thread(wait: wait, actions: kept)
                    case .target(let loop, let inner):
                        let kept = strip(inner)
                        return kept.isEmpty ? nil : .target(loop: loop, actions: kept)
                    case .post(let loop, let inner):
                        let kept = strip(inner)
                        return kept.isEmpty ? nil : .post(loop: loop, actions: kept)
                    case .dispatchMain(let inner):
                        let kept = strip(inner)
                        return kept.isEmpty ? nil : .dispatchMain(kept)
                    default: return action
                    }
                }
            }
            var changed = specCase
            changed.steps = strip(specCase.steps)
            if changed.steps.isEmpty {
                changed.steps = [.run(RunRequest(mode: .default, seconds: 0, returnAfterSourceHandled: false))]
            }
            changed.triggers = specCase.triggers.compactMap { trigger in
                var copy = trigger
                copy.actions = strip(trigger.actions)
                return copy.actions.isEmpty ? nil : copy
            }
            return changed
        case .keepTimer:
            // In the common modes (the default mode and every mode made common, also later), and in every other mode
            // the case names, before anything else happens.
            var changed = withKeepTimer(specCase)
            changed.steps.insert(
                contentsOf: modesNamed(by: specCase).map { Action.add(item: keepTimerName, mode: $0) }, at: 0)
            return changed
        case .rearmBetweenSteps:
            var changed = withKeepTimer(specCase)
            let modes = modesNamed(by: specCase)
            changed.steps = []
            for (index, step) in specCase.steps.enumerated() {
                changed.steps.append(step)
                guard index < specCase.steps.count - 1 else { continue }
                for mode in modes {
                    changed.steps.append(.add(item: keepTimerName, mode: mode))
                    changed.steps.append(.remove(item: keepTimerName, mode: mode))
                }
            }
            return changed
        case .commonItemsInOrder:
            var changed = specCase
            var common: [String] = []
            // Only a step that makes a mode common copies the common items: one that names a mode already common
            // (the default mode from the loop's creation) does nothing on CF (rule common.add-common-mode), so the
            // counterfactual adds nothing before it, and a divergence there is not this defect.
            var commonModes: Set<String> = [ModeName.defaultModeName]
            changed.steps = []
            for step in specCase.steps {
                switch step {
                case .add(let item, .common) where !common.contains(item): common.append(item)
                case .remove(let item, .common), .invalidate(let item): common.removeAll { $0 == item }
                case .addCommonMode(let name) where !commonModes.contains(name):
                    commonModes.insert(name)
                    changed.steps += common.map { Action.add(item: $0, mode: ModeName(specName: name)) }
                default: break
                }
                changed.steps.append(step)
            }
            return changed
        case .literalModeFirst:
            var changed = specCase
            changed.items.insert(
                ItemDeclaration(
                    name: literalModeSourceName, kind: .source0(order: 0, callouts: false),
                    location: specCase.location), at: 0)
            let literal = ModeName.named(literalCommonModeName)
            changed.steps.insert(
                contentsOf: [
                    .add(item: literalModeSourceName, mode: literal),
                    .remove(item: literalModeSourceName, mode: literal),
                ], at: 0)
            return changed
        }
    }

    /// The name of the source the `literal-mode-first` counterfactual adds (not an identifier the generator uses).
    public static let literalModeSourceName = "literalfirst"

    /// The spec's name of the literal mode spelled like the common modes (not the constant: rule common.by-identity).
    static let literalCommonModeName = "kCFRunLoopCommonModes"

    /// `specCase` with the keep timer declared (first), not yet in any mode.
    private static func withKeepTimer(_ specCase: SpecCase) -> SpecCase {
        var changed = specCase
        changed.items.insert(
            ItemDeclaration(
                name: keepTimerName,
                kind: .timer(fire: 100, interval: 0, tolerance: nil, order: 0),
                location: specCase.location), at: 0)
        return changed
    }

    /// The common modes, then every other mode the case's actions name, once each, in the order they first appear.
    private static func modesNamed(by specCase: SpecCase) -> [ModeName] {
        var modes: [ModeName] = [.common]
        for action in FuzzScenario.allActions(of: specCase) {
            let named: ModeName?
            switch action {
            case .add(_, let mode), .remove(_, let mode), .contains(_, let mode): named = mode
            case .run(let request): named = request.mode
            case .stopMode(let name): named = ModeName(specName: name)
            default: named = nil
            }
            if let named, named != .common, named != .default, !modes.contains(named) { modes.append(named) }
        }
        return modes
    }

    /// The action lists of a case as lists of verbs: the steps (unless `inCallout`), each trigger's, and the helper
    /// threads' they start.
    static func actionLists(of specCase: SpecCase, inCallout: Bool) -> [[String]] {
        var lists: [[String]] = []
        func visit(_ actions: [Action]) {
            lists.append(actions.map(verb))
            for action in actions {
                switch action {
                case .thread(_, let inner), .target(_, let inner), .post(_, let inner), .dispatchMain(let inner):
                    visit(inner)
                default: break
                }
            }
        }
        if !inCallout { visit(specCase.steps) }
        for trigger in specCase.triggers { visit(trigger.actions) }
        return lists
    }

    static func contains(_ list: [String], inOrder wanted: [String]) -> Bool {
        var next = wanted.startIndex
        for word in list where next < wanted.endIndex && word == wanted[next] { next += 1 }
        return next == wanted.endIndex
    }

    /// The spec's verb for an action.
    static func verb(_ action: Action) -> String {
        switch action {
        case .add: return "add"
        case .remove: return "remove"
        case .contains: return "contains"
        case .addCommonMode: return "addCommonMode"
        case .signal: return "signal"
        case .write: return "write"
        case .wakeUp: return "wakeup"
        case .stop: return "stop"
        case .stopMode: return "stopMode"
        case .invalidate: return "invalidate"
        case .setNextFireDate: return "setNextFireDate"
        case .setTolerance: return "setTolerance"
        case .run: return "run"
        case .perform: return "perform"
        case .mark: return "mark"
        case .stall: return "stall"
        case .sleep: return "sleep"
        case .waitUntilSlept: return "waitUntilSlept"
        case .query: return "query"
        case .thread: return "thread"
        case .create: return "create"
        case .runForever: return "runForever"
        case .target: return "target"
        case .post: return "post"
        case .join: return "join"
        case .waitUntilWaiting: return "waitUntilWaiting"
        case .end: return "end"
        case .dispatchMain: return "dispatchMain"
        case .foundationRun: return "foundationRun"
        case .runUntil: return "runUntil"
        case .runBefore: return "runBefore"
        case .limitDate: return "limitDate"
        case .acceptInput: return "acceptInput"
        case .performInModes: return "performInModes"
        case .setFlag: return "setFlag"
        }
    }
}
