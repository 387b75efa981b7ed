// Reads the action vocabulary shared by steps, triggers and helper threads, checking each item reference.
//
// Every action is written `{verb: argument}`; the verbs without arguments may be written as a bare word
// (`- stop`). The full list, with argument shapes, is in Sources/ConformanceSpec/INTERPRETING.md.

import EngineKit
import YAMLKit

package struct ActionParser {
    let items: [String: ItemKind]
    /// Items declared `created: later`: only these may be named by `create`.
    var laterItems: Set<String> = []
    /// The case's helper loops (`loops:`, format 1.1), each hosted by its own thread; `here` is not among them.
    var loops: [String] = []
    /// Set while reading the actions of a `post` to this loop: they run on its host thread, which must not wait for
    /// itself.
    var postedTo: String?
    /// Set while reading the actions of a `target`: they run on the current thread against another thread's loop, so
    /// only what the engine contract allows from any thread.
    var inTarget = false
    /// Whether the case lists feature `mainThread` (`dispatchMain` needs it).
    var mainThread = false

    package static let verbs = [
        "add", "remove", "contains", "addCommonMode", "signal", "write", "wakeup", "stop", "stopMode", "invalidate",
        "setNextFireDate", "setTolerance", "run", "perform", "mark", "stall", "query", "thread",
        "dispatchMain", "create", "runForever", "target", "post", "join", "waitUntilWaiting", "end", "sleep",
        "waitUntilSlept", "foundationRun", "runUntil", "runBefore", "limitDate", "acceptInput", "performInModes",
        "setFlag",
    ]

    /// Verbs a `target` list may not hold: what must run on the loop's own thread, and what waits or moves threads.
    static let notInTarget: Set<String> = [
        "run", "thread", "target", "post", "join", "waitUntilWaiting", "end",
        "waitUntilSlept", "foundationRun", "runUntil", "runBefore", "limitDate", "acceptInput",
    ]

    func parse(_ value: YAMLValue) throws -> Action {
        let action = try parseAction(value)
        if inTarget {
            let (verb, _) = try value.singleKey()
            if Self.notInTarget.contains(verb) {
                throw value.error(
                    "'\(verb)' cannot be in a target's list: it holds only calls the engine contract "
                        + "allows from any thread (\(Self.notInTarget.sorted().joined(separator: ", ")) are refused)")
            }
            if case .query(.nextTimerFireDate) = action {
                throw value.error(
                    "nextTimerFireDate cannot be in a target's list: CFRunLoopGetNextTimerFireDate is "
                        + "called on the loop's own thread (post it instead)")
            }
        }
        return action
    }

    /// A loop name: one of the case's `loops`, or `here` when `here` is allowed.
    private func loopName(_ value: YAMLValue, allowHere: Bool, allowCurrent: Bool = false) throws -> String {
        let name = try value.string()
        if loops.contains(name) { return name }
        if allowHere && name == LoopName.here { return name }
        if allowCurrent && name == LoopName.current { return name }
        var known = loops
        if allowHere { known.append(LoopName.here) }
        if allowCurrent { known.append(LoopName.current) }
        if LoopName.reserved.contains(name) {
            throw value.error("loop '\(name)' cannot be named here (expected \(known.joined(separator: " or ")))")
        }
        let declared =
            loops.isEmpty
            ? "the case declares no loops: add `loops: [\(name)]`"
            : "declared loops: \(loops.joined(separator: ", "))"
        throw value.error("'\(name)' is not a loop of this case (\(declared))")
    }

    /// `{loop: NAME, do: [...]}` for `target` and `post`.
    private func loopAndActions(_ value: YAMLValue, verb: String) throws -> (String, [Action]) {
        var fields = try value.fields()
        let loopValue = try fields.required("loop")
        let loop = try loopName(loopValue, allowHere: verb == "target")
        var inner = self
        if verb == "target" {
            inner.inTarget = true
        } else {
            inner.postedTo = loop
            inner.inTarget = false
        }
        let doValue = try fields.required("do")
        let actions = try doValue.sequence().map(inner.parse)
        guard !actions.isEmpty else { throw doValue.error("a \(verb) needs at least one action") }
        try fields.finish(allowed: ["loop", "do"])
        return (loop, actions)
    }

    private func parseAction(_ value: YAMLValue) throws -> Action {
        let (verb, argument) = try value.singleKey()
        func need() throws -> YAMLValue {
            guard let argument, !SpecLoader.isNull(argument) else { throw value.error("'\(verb)' needs an argument") }
            return argument
        }
        func none() throws {
            if let argument, !SpecLoader.isNull(argument) { throw argument.error("'\(verb)' takes no argument") }
        }
        switch verb {
        case "add", "remove", "contains":
            let (item, mode) = try itemAndMode(need())
            switch verb {
            case "add": return .add(item: item, mode: mode)
            case "remove": return .remove(item: item, mode: mode)
            default: return .contains(item: item, mode: mode)
            }
        case "addCommonMode":
            return .addCommonMode(try concreteMode(need()))
        case "signal":
            return .signal(try reference(need(), kinds: ["source0", "source1"]))
        case "write":
            return .write(try reference(need(), kinds: ["source1"]))
        case "wakeup":
            try none()
            return .wakeUp
        case "stop":
            try none()
            return .stop
        case "stopMode":
            return .stopMode(try concreteMode(need()))
        case "invalidate":
            return .invalidate(try reference(need(), kinds: ["source0", "source1", "timer", "observer"]))
        case "setNextFireDate", "setTolerance":
            let pair = try need().sequence()
            guard pair.count == 2 else { throw try need().error("expected [timer, seconds]") }
            let timer = try reference(pair[0], kinds: ["timer"])
            let seconds = try pair[1].double()
            return verb == "setTolerance"
                ? .setTolerance(timer: timer, seconds: seconds)
                : .setNextFireDate(timer: timer, seconds: seconds)
        case "run":
            return .run(try runRequest(argument))
        case "perform":
            let pair = try need().sequence()
            guard pair.count == 2 else { throw try need().error("expected [block, modes]") }
            let block = try reference(pair[0], kinds: ["block"])
            let modes: BlockModes
            if pair[1].isScalar {
                modes = .one(ModeName(specName: try pair[1].string()))
            } else {
                modes = .list(try pair[1].sequence().map { ModeName(specName: try $0.string()) })
            }
            return .perform(block: block, modes: modes)
        case "mark":
            let text = try need().string()
            guard !text.isEmpty, !text.contains("\n") else { throw try need().error("a mark is one line of text") }
            return .mark(text)
        case "stall":
            let argumentValue = try need()
            let seconds = try argumentValue.double()
            guard seconds >= 0, seconds <= 10 else { throw argumentValue.error("stall takes 0 to 10 seconds") }
            return .stall(seconds)
        case "sleep":
            let argumentValue = try need()
            let seconds = try argumentValue.double()
            guard seconds >= 0, seconds <= 10 else { throw argumentValue.error("sleep takes 0 to 10 seconds") }
            return .sleep(seconds)
        case "waitUntilSlept":
            return try waitUntilSlept(need())
        case "query":
            return .query(try query(need()))
        case "thread":
            var fields = try need().fields()
            var wait = ThreadWait.none
            if let waitValue = fields.optional("wait") {
                let word = try waitValue.string()
                guard let parsed = ThreadWait(rawValue: word) else {
                    throw waitValue.error("unknown wait '\(word)' (none or waiting)")
                }
                wait = parsed
            }
            let doValue = try fields.required("do")
            let actions = try doValue.sequence().map(parse)
            guard !actions.isEmpty else { throw doValue.error("a thread needs at least one action") }
            try fields.finish(allowed: ["wait", "do"])
            return .thread(wait: wait, actions: actions)
        case "create":
            let argumentValue = try need()
            let name = try reference(argumentValue, kinds: ["source0", "source1", "timer", "observer"])
            guard laterItems.contains(name) else {
                throw argumentValue.error(
                    "'\(name)' is created before the first step; declare it with "
                        + "'created: later' to create it with a step")
            }
            return .create(name)
        case "runForever":
            guard let argument, !SpecLoader.isNull(argument) else { return .runForever(took: nil) }
            var fields = try argument.fields()
            let took = try fields.optional("took").map { try timing($0, seconds: nil) }
            try fields.finish(allowed: ["took"])
            return .runForever(took: took)
        case "target":
            let (loop, actions) = try loopAndActions(need(), verb: verb)
            return .target(loop: loop, actions: actions)
        case "post":
            let (loop, actions) = try loopAndActions(need(), verb: verb)
            return .post(loop: loop, actions: actions)
        case "join", "waitUntilWaiting", "end":
            let argumentValue = try need()
            let loop = try loopName(argumentValue, allowHere: verb == "waitUntilWaiting")
            if let postedTo, loop == postedTo {
                throw argumentValue.error(
                    "'\(verb): \(loop)' in a list posted to \(loop) would wait for its own thread")
            }
            switch verb {
            case "join": return .join(loop)
            case "end": return .end(loop)
            default: return .waitUntilWaiting(loop)
            }
        case "foundationRun":
            try none()
            return .foundationRun
        case "runUntil":
            return .runUntil(seconds: try need().double())
        case "runBefore", "acceptInput":
            let (mode, seconds, untilFlag) = try modeAndSeconds(need(), flag: verb == "runBefore")
            return verb == "runBefore"
                ? .runBefore(mode: mode, seconds: seconds, untilFlag: untilFlag)
                : .acceptInput(mode: mode, seconds: seconds)
        case "setFlag":
            try none()
            return .setFlag
        case "limitDate":
            return .limitDate(ModeName(specName: try need().string()))
        case "performInModes":
            let argument = try need()
            if argument.isScalar {
                return .performInModes(block: try reference(argument, kinds: ["block"]), modes: nil)
            }
            let pair = try argument.sequence()
            guard pair.count == 2 else { throw argument.error("expected BLOCK or [BLOCK, [MODE, ...]]") }
            let modes = try pair[1].sequence().map { ModeName(specName: try $0.string()) }
            return .performInModes(block: try reference(pair[0], kinds: ["block"]), modes: modes)
        case "dispatchMain":
            guard mainThread else {
                throw value.error(
                    "dispatchMain needs the case to list feature mainThread (only the main thread's "
                        + "loop services the main dispatch queue)")
            }
            let doValue = try need()
            let actions = try doValue.sequence().map(parse)
            guard !actions.isEmpty else { throw doValue.error("dispatchMain needs at least one action") }
            return .dispatchMain(actions)
        default:
            throw value.error("unknown action '\(verb)' (one of \(ActionParser.verbs.joined(separator: ", ")))")
        }
    }

    /// `{loop: L, nth: N, observer: O}` (format 1.2): L may be `here` (from a helper thread), but not the loop a list is
    /// posted to; O an observer of BeforeWaiting; N from 1, default 1.
    private func waitUntilSlept(_ value: YAMLValue) throws -> Action {
        var fields = try value.fields()
        let loopValue = try fields.required("loop")
        let loop = try loopName(loopValue, allowHere: true)
        if let postedTo, loop == postedTo {
            throw loopValue.error(
                "'waitUntilSlept' of \(loop) in a list posted to \(loop) would wait for its own thread")
        }
        let observerValue = try fields.required("observer")
        let observer = try reference(observerValue, kinds: ["observer"])
        if case .observer(let activities, _, _)? = items[observer], !activities.contains(.beforeWaiting) {
            throw observerValue.error(
                "observer '\(observer)' does not observe beforeWaiting, so it cannot count the "
                    + "loop's sleeps")
        }
        var nth = 1
        if let nthValue = fields.optional("nth") {
            nth = try nthValue.int()
            guard nth >= 1 else { throw nthValue.error("nth counts from 1") }
        }
        try fields.finish(allowed: ["loop", "observer", "nth"])
        return .waitUntilSlept(loop: loop, nth: nth, observer: observer)
    }

    /// (1.3) `MODE` (seconds 0) or `{mode: MODE, seconds: S}`, for `runBefore` (which also takes `untilFlag: BOOL`)
    /// and `acceptInput`.
    private func modeAndSeconds(_ value: YAMLValue, flag: Bool) throws -> (ModeName, Double, Bool) {
        if value.isScalar { return (ModeName(specName: try value.string()), 0, false) }
        var fields = try value.fields()
        let mode = ModeName(specName: try fields.required("mode").string())
        let seconds = try fields.optional("seconds")?.double() ?? 0
        let untilFlag = flag ? try fields.optional("untilFlag")?.bool() ?? false : false
        try fields.finish(allowed: flag ? ["mode", "seconds", "untilFlag"] : ["mode", "seconds"])
        return (mode, seconds, untilFlag)
    }

    /// `item` (default mode) or `[item, mode]`.
    private func itemAndMode(_ value: YAMLValue) throws -> (String, ModeName) {
        let kinds = ["source0", "source1", "timer", "observer"]
        if value.isScalar { return (try reference(value, kinds: kinds), .default) }
        let pair = try value.sequence()
        guard pair.count == 2 else { throw value.error("expected item or [item, mode]") }
        return (try reference(pair[0], kinds: kinds), ModeName(specName: try pair[1].string()))
    }

    /// A mode name that must not be `common` (the API takes a concrete mode).
    private func concreteMode(_ value: YAMLValue) throws -> String {
        let mode = ModeName(specName: try value.string())
        guard case .named(let name) = mode else { throw value.error("this action takes a concrete mode, not common") }
        return name
    }

    private func reference(_ value: YAMLValue, kinds: [String]) throws -> String {
        let name = try value.string()
        guard let kind = items[name] else {
            throw value.error(
                "'\(name)' is not a declared item (declared: \(items.keys.sorted().joined(separator: ", ")))")
        }
        guard kinds.contains(kind.word) else {
            throw value.error("'\(name)' is a \(kind.word); expected a \(kinds.joined(separator: " or "))")
        }
        return name
    }

    /// `run` alone (a poll pass in the default mode), `run: mode` (a poll pass in that mode), or
    /// `run: {mode, seconds, returnAfterSourceHandled}`.
    private func runRequest(_ value: YAMLValue?) throws -> RunRequest {
        var request = RunRequest(mode: .default, seconds: 0, returnAfterSourceHandled: false)
        guard let value, !SpecLoader.isNull(value) else { return request }
        if value.isScalar {
            request.mode = ModeName(specName: try value.string())
            return request
        }
        var fields = try value.fields()
        if let mode = fields.optional("mode") { request.mode = ModeName(specName: try mode.string()) }
        if let seconds = fields.optional("seconds") { request.seconds = try seconds.double() }
        if let flag = fields.optional("returnAfterSourceHandled") { request.returnAfterSourceHandled = try flag.bool() }
        if let took = fields.optional("took") { request.took = try timing(took, seconds: request.seconds) }
        try fields.finish(allowed: ["mode", "seconds", "returnAfterSourceHandled", "took"])
        return request
    }

    /// `atLeastTimeout` (a run with a finite positive timeout), `{atLeast: S, under: S}` with `under` at least
    /// ``TimingAssertion/minimumUpperBound`` and above `atLeast`, or (1.2) `{underTimeout: F}` for a run with a finite
    /// timeout, F in (0, 1] and F times the timeout at least the minimum upper bound. `seconds` is the run's timeout
    /// (nil for runForever).
    private func timing(_ value: YAMLValue, seconds: Double?) throws -> TimingAssertion {
        if value.isScalar {
            let word = try value.string()
            guard word == "atLeastTimeout" else {
                throw value.error(
                    "unknown timing '\(word)' (atLeastTimeout, {atLeast: S, under: S} or {underTimeout: F})")
            }
            guard let seconds, seconds > 0, seconds.isFinite else {
                throw value.error("atLeastTimeout needs a run with a finite timeout above 0")
            }
            return .atLeastTimeout
        }
        var fields = try value.fields()
        if let fractionValue = fields.optional("underTimeout") {
            try fields.finish(allowed: ["underTimeout"])
            let fraction = try fractionValue.double()
            guard fraction > 0, fraction <= 1 else {
                throw fractionValue.error("underTimeout is a fraction of the run's timeout, above 0 and at most 1")
            }
            guard let seconds, seconds > 0, seconds.isFinite else {
                throw fractionValue.error("underTimeout needs a run with a finite timeout above 0")
            }
            guard fraction * seconds >= TimingAssertion.minimumUpperBound else {
                throw fractionValue.error(
                    "underTimeout \(TimingAssertion.number(fraction)) of \(TimingAssertion.number(seconds)) s "
                        + "is under \(TimingAssertion.number(TimingAssertion.minimumUpperBound)) second(s): a tighter bound "
                        + "does not hold on a loaded machine (lengthen the timeout)")
            }
            return .underTimeout(fraction: fraction)
        }
        let atLeastValue = fields.optional("atLeast")
        let underValue = fields.optional("under")
        try fields.finish(allowed: ["atLeast", "under", "underTimeout"])
        let atLeast = try atLeastValue?.double()
        let under = try underValue?.double()
        guard atLeast != nil || under != nil else { throw value.error("a timing needs atLeast, under or both") }
        if let atLeast, let atLeastValue, !(atLeast >= 0 && atLeast.isFinite) {
            throw atLeastValue.error("atLeast must be a finite number of seconds, 0 or more")
        }
        if let under, let underValue {
            guard under >= TimingAssertion.minimumUpperBound, under.isFinite else {
                throw underValue.error(
                    "under must be at least \(TimingAssertion.number(TimingAssertion.minimumUpperBound)) "
                        + "second(s): a tighter bound does not hold on a loaded machine")
            }
            if let atLeast, atLeast + TimingAssertion.minimumUpperBound > under {
                throw underValue.error(
                    "under must be at least \(TimingAssertion.number(TimingAssertion.minimumUpperBound)) "
                        + "second(s) above atLeast")
            }
        }
        return .window(atLeast: atLeast, under: under)
    }

    /// `currentMode`, `isWaiting`, `allModes`, `isMainLoop`, or `[nextTimerFireDate, mode]`, `[fireDate | tolerance | isValid, item]`,
    /// (1.4) `[isSignalled, source]`,
    /// `[isMainLoop, case]`, `[sameLoop, loop]`.
    private func query(_ value: YAMLValue) throws -> Query {
        if value.isScalar {
            switch try value.string() {
            case "currentMode": return .currentMode
            case "isWaiting": return .isWaiting
            case "allModes": return .allModes
            case "isMainLoop": return .isMainLoop
            case "isMainThread": return .isMainThread
            case let other:
                throw value.error(
                    "unknown query '\(other)' (currentMode, isWaiting, allModes, isMainLoop, isMainThread, [nextTimerFireDate, mode], [fireDate, timer], [tolerance, timer], [isValid, item], [isSignalled, source], [isMainLoop, case], [sameLoop, loop])"
                )
            }
        }
        let pair = try value.sequence()
        guard pair.count == 2 else { throw value.error("expected [query, argument]") }
        switch try pair[0].string() {
        case "nextTimerFireDate": return .nextTimerFireDate(ModeName(specName: try pair[1].string()))
        case "fireDate": return .fireDate(try reference(pair[1], kinds: ["timer"]))
        case "tolerance": return .tolerance(try reference(pair[1], kinds: ["timer"]))
        case "isValid": return .isValid(try reference(pair[1], kinds: ["source0", "source1", "timer", "observer"]))
        case "isSignalled": return .isSignalled(try reference(pair[1], kinds: ["source0", "source1"]))
        case "sameLoop": return .sameLoop(try loopName(pair[1], allowHere: true, allowCurrent: true))
        case "isMainLoop":
            let word = try pair[1].string()
            guard word == "case" else {
                throw pair[1].error(
                    "[isMainLoop, \(word)]: the argument can only be 'case' (the case's loop); "
                        + "plain isMainLoop asks about the performing thread's loop")
            }
            return .caseLoopIsMain
        case let other: throw pair[0].error("unknown query '\(other)'")
        }
    }
}
