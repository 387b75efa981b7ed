// Writes a SpecCase back as YAML in the shipped format (INTERPRETING.md), so that what the fuzzer generates can be
// loaded by a worker and what it finds can be reviewed and moved into Sources/ConformanceSpec/cases/. The loader reads
// every file this writes (FuzzTests, in Tests/ConformanceFuzzerTests, checks the round trip on generated scenarios).

import EngineKit
import Foundation

/// SpecCase to YAML text.
public enum CaseWriter {
    /// A whole spec file holding `cases`; `comments` go above each case's `expect`.
    public static func file(_ cases: [SpecCase], comments: [String] = []) -> String {
        let version = cases.map(\.formatVersion).max() ?? .v1
        var text = "spec_version: \(version.rawValue)\ncases:\n"
        for specCase in cases { text += write(specCase, comments: comments) + "\n" }
        return text
    }

    /// One case as an entry of a `cases:` list (indented by two spaces). `comments` go above its `expect`.
    public static func write(_ specCase: SpecCase, comments: [String] = []) -> String {
        var lines = [
            "  - id: \(specCase.id)", "    rule: \(quoted(specCase.rule))", "    source: \(quoted(specCase.source))",
        ]
        if !specCase.features.isEmpty {
            lines.append("    features: [\(specCase.features.map(\.rawValue).joined(separator: ", "))]")
        }
        if !specCase.allowances.isEmpty {
            lines.append("    allow: [\(specCase.allowances.map(\.rawValue).sorted().joined(separator: ", "))]")
        }
        if let timeout = specCase.timeout { lines.append("    timeout: \(number(timeout))") }
        if !specCase.loops.isEmpty { lines.append("    loops: [\(specCase.loops.joined(separator: ", "))]") }
        if !specCase.items.isEmpty {
            lines.append("    items:")
            for item in specCase.items {
                lines.append(
                    "      \(item.name): \(itemKind(item.kind, createdLater: item.createdByStep, fromCreation: item.firesFromCreation))"
                )
            }
        }
        lines.append("    steps:")
        for step in specCase.steps { lines.append("      - \(action(step))") }
        if !specCase.triggers.isEmpty {
            lines.append("    on:")
            for trigger in specCase.triggers {
                let occurrence: String
                switch trigger.occurrence {
                case .every: occurrence = "every: true"
                case .nth(let n): occurrence = "nth: \(n)"
                }
                lines.append(
                    "      - {when: \(quoted(trigger.event)), \(occurrence), do: [\(trigger.actions.map(action).joined(separator: ", "))]}"
                )
            }
        }
        lines += comments.map { "    # " + $0 }
        lines.append(specCase.expectedTrace.isEmpty ? "    expect: []" : "    expect:")
        var index = 0
        while index < specCase.expectedTrace.count {
            if let range = specCase.unorderedRanges.first(where: { $0.lowerBound == index }) {
                lines.append("      - any-order:")
                for line in specCase.expectedTrace[range] { lines.append("          - \(quoted(line))") }
                index = range.upperBound
            } else {
                lines.append("      - \(quoted(specCase.expectedTrace[index]))")
                index += 1
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Pieces

    static func itemKind(_ kind: ItemKind, createdLater: Bool = false, fromCreation: Bool = false) -> String {
        let later = (createdLater ? ", created: later" : "") + (fromCreation ? ", from: creation" : "")
        switch kind {
        case .source0(let order, let callouts):
            return "{source0: {order: \(order), callouts: \(callouts)\(later)}}"
        case .source1(let order):
            return "{source1: {order: \(order)\(later)}}"
        case .timer(let fire, let interval, let tolerance, let order):
            let extra = tolerance.map { ", tolerance: \(number($0))" } ?? ""
            return "{timer: {fire: \(number(fire)), interval: \(number(interval))\(extra), order: \(order)\(later)}}"
        case .observer(let activities, let repeats, let order):
            let names = Activity.allCases.filter(activities.contains).map(\.rawValue)
            let list = activities == .all ? "all" : "[\(names.joined(separator: ", "))]"
            return "{observer: {activities: \(list), repeats: \(repeats), order: \(order)\(later)}}"
        case .block:
            return "block"
        }
    }

    static func action(_ action: Action) -> String {
        switch action {
        case .add(let item, let mode): return "{add: [\(item), \(mode)]}"
        case .remove(let item, let mode): return "{remove: [\(item), \(mode)]}"
        case .contains(let item, let mode): return "{contains: [\(item), \(mode)]}"
        case .addCommonMode(let name): return "{addCommonMode: \(mode(name))}"
        case .signal(let name): return "{signal: \(name)}"
        case .write(let name): return "{write: \(name)}"
        case .wakeUp: return "wakeup"
        case .stop: return "stop"
        case .stopMode(let name): return "{stopMode: \(mode(name))}"
        case .invalidate(let name): return "{invalidate: \(name)}"
        case .setNextFireDate(let timer, let seconds): return "{setNextFireDate: [\(timer), \(number(seconds))]}"
        case .setTolerance(let timer, let seconds): return "{setTolerance: [\(timer), \(number(seconds))]}"
        case .run(let request):
            return "{run: {mode: \(request.mode), seconds: \(number(request.seconds)), "
                + "returnAfterSourceHandled: \(request.returnAfterSourceHandled)\(request.took.map(took) ?? "")}}"
        case .runForever(let assertion):
            return assertion.map { "{runForever: {took: \(timing($0))}}" } ?? "runForever"
        case .create(let item): return "{create: \(item)}"
        case .perform(let block, .one(let mode)): return "{perform: [\(block), \(mode)]}"
        case .perform(let block, .list(let modes)):
            return "{perform: [\(block), [\(modes.map(\.description).joined(separator: ", "))]]}"
        case .mark(let text): return "{mark: \(quoted(text))}"
        case .stall(let seconds): return "{stall: \(number(seconds))}"
        case .sleep(let seconds): return "{sleep: \(number(seconds))}"
        case .waitUntilSlept(let loop, let nth, let observer):
            return "{waitUntilSlept: {loop: \(loop), nth: \(nth), observer: \(observer)}}"
        case .query(let query): return "{query: \(self.query(query))}"
        case .thread(let wait, let actions):
            return "{thread: {wait: \(wait.rawValue), do: [\(actions.map(self.action).joined(separator: ", "))]}}"
        case .target(let loop, let actions):
            return "{target: {loop: \(loop), do: [\(actions.map(self.action).joined(separator: ", "))]}}"
        case .post(let loop, let actions):
            return "{post: {loop: \(loop), do: [\(actions.map(self.action).joined(separator: ", "))]}}"
        case .join(let loop): return "{join: \(loop)}"
        case .waitUntilWaiting(let loop): return "{waitUntilWaiting: \(loop)}"
        case .end(let loop): return "{end: \(loop)}"
        case .foundationRun: return "foundationRun"
        case .runUntil(let seconds): return "{runUntil: \(number(seconds))}"
        case .runBefore(let mode, let seconds, let untilFlag):
            return "{runBefore: {mode: \(mode), seconds: \(number(seconds)), untilFlag: \(untilFlag)}}"
        case .setFlag: return "setFlag"
        case .acceptInput(let mode, let seconds):
            return "{acceptInput: {mode: \(mode), seconds: \(number(seconds))}}"
        case .limitDate(let mode): return "{limitDate: \(mode)}"
        case .performInModes(let block, nil): return "{performInModes: \(block)}"
        case .performInModes(let block, let modes?):
            return "{performInModes: [\(block), [\(modes.map(\.description).joined(separator: ", "))]]}"
        case .dispatchMain(let actions):
            return "{dispatchMain: [\(actions.map(self.action).joined(separator: ", "))]}"
        }
    }

    private static func took(_ assertion: TimingAssertion) -> String { ", took: \(timing(assertion))" }

    static func timing(_ assertion: TimingAssertion) -> String {
        switch assertion {
        case .atLeastTimeout: return "atLeastTimeout"
        case .window(let atLeast, let under):
            let parts = [atLeast.map { "atLeast: \(number($0))" }, under.map { "under: \(number($0))" }]
            return "{\(parts.compactMap { $0 }.joined(separator: ", "))}"
        case .underTimeout(let fraction): return "{underTimeout: \(number(fraction))}"
        }
    }

    static func query(_ query: Query) -> String {
        switch query {
        case .currentMode: return "currentMode"
        case .isWaiting: return "isWaiting"
        case .allModes: return "allModes"
        case .nextTimerFireDate(let mode): return "[nextTimerFireDate, \(mode)]"
        case .fireDate(let timer): return "[fireDate, \(timer)]"
        case .tolerance(let timer): return "[tolerance, \(timer)]"
        case .isValid(let item): return "[isValid, \(item)]"
        case .isSignalled(let item): return "[isSignalled, \(item)]"
        case .sameLoop(let loop): return "[sameLoop, \(loop)]"
        case .isMainLoop: return "isMainLoop"
        case .caseLoopIsMain: return "[isMainLoop, case]"
        case .isMainThread: return "isMainThread"
        }
    }

    /// A concrete mode's spec spelling.
    static func mode(_ concrete: String) -> String { ModeName.specName(of: concrete) }

    /// YAML's spelling of a number: `.inf`, `.nan`, an integer when it is one, else Swift's shortest round-trip form.
    static func number(_ value: Double) -> String {
        if value.isNaN { return ".nan" }
        if value.isInfinite { return value > 0 ? ".inf" : "-.inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return "\(value)"
    }

    /// A double-quoted YAML scalar (trace lines hold brackets and colons).
    static func quoted(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            default: escaped.append(character)
            }
        }
        return "\"" + escaped + "\""
    }
}
