// Reads the action vocabulary shared by steps, triggers and helper threads, checking each item reference.
//
// Every action is written `{verb: argument}`; the verbs without arguments may be written as a bare word
// (`- stop`). The full list, with argument shapes, is in Sources/ConformanceSpec/INTERPRETING.md.

import EngineKit

struct ActionParser {
    let items: [String: ItemKind]
    /// Whether the case lists feature `mainThread` (`dispatchMain` needs it).
    var mainThread = false

    static let verbs = [
        "add", "remove", "contains", "addCommonMode", "signal", "write", "wakeup", "stop", "stopMode", "invalidate",
        "setNextFireDate", "setTolerance", "run", "perform", "mark", "stall", "query", "thread", "dispatchMain",
    ]

    func parse(_ value: YAMLValue) throws -> Action {
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
            return verb == "setTolerance" ? .setTolerance(timer: timer, seconds: seconds)
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
        case "dispatchMain":
            guard mainThread else {
                throw value.error("dispatchMain needs the case to list feature mainThread (only the main thread's "
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
            throw value.error("'\(name)' is not a declared item (declared: \(items.keys.sorted().joined(separator: ", ")))")
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
        try fields.finish(allowed: ["mode", "seconds", "returnAfterSourceHandled"])
        return request
    }

    /// `currentMode`, `isWaiting`, `allModes`, `isMainLoop`, or `[nextTimerFireDate, mode]`, `[fireDate | tolerance | isValid, item]`,
    /// `[isMainLoop, case]`.
    private func query(_ value: YAMLValue) throws -> Query {
        if value.isScalar {
            switch try value.string() {
            case "currentMode": return .currentMode
            case "isWaiting": return .isWaiting
            case "allModes": return .allModes
            case "isMainLoop": return .isMainLoop
            case let other: throw value.error("unknown query '\(other)' (currentMode, isWaiting, allModes, isMainLoop, [nextTimerFireDate, mode], [fireDate, timer], [tolerance, timer], [isValid, item], [isMainLoop, case])")
            }
        }
        let pair = try value.sequence()
        guard pair.count == 2 else { throw value.error("expected [query, argument]") }
        switch try pair[0].string() {
        case "nextTimerFireDate": return .nextTimerFireDate(ModeName(specName: try pair[1].string()))
        case "fireDate": return .fireDate(try reference(pair[1], kinds: ["timer"]))
        case "tolerance": return .tolerance(try reference(pair[1], kinds: ["timer"]))
        case "isValid": return .isValid(try reference(pair[1], kinds: ["source0", "source1", "timer", "observer"]))
        case "isMainLoop":
            let word = try pair[1].string()
            guard word == "case" else {
                throw pair[1].error("[isMainLoop, \(word)]: the argument can only be 'case' (the case's loop); "
                                    + "plain isMainLoop asks about the performing thread's loop")
            }
            return .caseLoopIsMain
        case let other: throw pair[0].error("unknown query '\(other)'")
        }
    }
}
