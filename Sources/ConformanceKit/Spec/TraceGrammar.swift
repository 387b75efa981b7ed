// The trace: one line per observable event, engine-independent, compared exactly.
//
//   <observer>.<activity>         an observer callout (o.entry, o.beforeWaiting, ...)
//   perform <source>              a source0 or source1 perform callout
//   fire <timer>                  a timer callout
//   block <block>                 a block ran
//   schedule <source> <mode>      a source0 schedule callout (sources declared with callouts: true)
//   cancel <source> <mode>        a source0 cancel callout
//   run <mode>                    a run begins (top-level or nested)
//   return <result>               that run returned finished | stopped | timedOut | handledSource
//   mark <text>                   a `mark` action
//   create <item>                 (1.1) a `create` action made the item
//   runForever                    (1.1) CFRunLoopRun begins
//   runForever returned           (1.1) CFRunLoopRun returned
//   foundationRun [returned]      (1.3) RunLoop.run() begins, returned
//   runUntil [returned]           (1.3) RunLoop.run(until:) begins, returned
//   runBefore <mode>              (1.3) RunLoop.run(mode:before:) begins
//   runBefore returned <bool>     (1.3) and returned this
//   acceptInput <mode> / acceptInput returned   (1.3) RunLoop.acceptInput(forMode:before:)
//   setFlag                       (1.3) a `setFlag` action
//   limitDate <mode> <answer>     (1.3) RunLoop.limitDate(forMode:): none, distantFuture or a date as fireDate's
//   took <assertion>              (1.1; underTimeout 1.2) the run before it met its timing assertion (else: took <seconds> (expected
//                                 <assertion>))
//   <query> <answer>              a query's answer (currentMode, isWaiting, allModes, nextTimerFireDate, fireDate,
//                                 tolerance, isValid, contains, sameLoop, isMainLoop, (1.2) isMainThread,
//                                 (1.4) isSignalled)

import EngineKit

/// Builds trace lines, so that the interpreter and the grammar check agree on the spelling.
enum Trace {
    static func observer(_ name: String, _ activity: Activity) -> String { "\(name).\(activity.rawValue)" }
    static func perform(_ name: String) -> String { "perform \(name)" }
    static func fire(_ name: String) -> String { "fire \(name)" }
    static func block(_ name: String) -> String { "block \(name)" }
    static func schedule(_ name: String, _ mode: String) -> String { "schedule \(name) \(ModeName.specName(of: mode))" }
    static func cancel(_ name: String, _ mode: String) -> String { "cancel \(name) \(ModeName.specName(of: mode))" }
    static func run(_ mode: ModeName) -> String { "run \(mode)" }
    static func result(_ result: RunResult) -> String { "return \(result)" }
    static func mark(_ text: String) -> String { "mark \(text)" }
    static func create(_ name: String) -> String { "create \(name)" }
    static let runForever = "runForever"
    static func begun(_ verb: String, _ mode: ModeName? = nil) -> String { mode.map { "\(verb) \($0)" } ?? verb }
    static func returned(_ verb: String, _ answer: String? = nil) -> String {
        answer.map { "\(verb) returned \($0)" } ?? "\(verb) returned"
    }
    static let runForeverReturned = "runForever returned"
    /// The `took` line: the assertion's spelling when it held, else the measured duration and what was expected.
    static func took(_ assertion: TimingAssertion, seconds: Double, held: Bool) -> String {
        held ? "took \(assertion.spelling)" : "took \(seconds) (expected \(assertion.spelling))"
    }

    /// Seconds relative to the case's start, to 0.01 s: cases choose dates far from a rounding boundary. A date no
    /// case makes, negative (before the engine's reference date: CF's is 2001, an engine on a monotonic clock has
    /// the boot) or more than `farFromCase` from the case's start, is written as itself (`absolute -1.00`), so that a
    /// constant wrong answer (-1, a date of another epoch) reads the same in every run instead of moving with the
    /// clock.
    static func relative(_ date: Double, epoch: Double) -> String {
        if date == 0 { return "none" }
        if date < 0 || abs(date - epoch) > farFromCase { return "absolute " + String(format2: date) }
        return String(format2: date - epoch)
    }

    /// 10^6 s, about 11.6 days: cases date timers at most an hour from their start.
    static let farFromCase = 1e6

    static let queryWords: Set<String> = [
        "currentMode", "isWaiting", "allModes", "nextTimerFireDate", "fireDate", "tolerance", "isValid", "contains",
        "sameLoop", "isMainLoop", "isMainThread", "isSignalled",
    ]
}

extension String {
    /// A number with two decimals, "-0.00" written as "0.00". Avoids Foundation's String(format:).
    init(format2 value: Double) {
        let hundredths = (value * 100).rounded()
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = Int(abs(hundredths))
        let fraction = magnitude % 100
        self = "\(sign)\(magnitude / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// Checks that a trace line (an expectation or a trigger's event) is well formed and names declared items of the
/// right kind. Returns a message for the first problem, or nil.
struct TraceGrammar {
    let items: [String: ItemKind]

    func problem(in line: String) -> String? {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let head = words.first else { return "empty trace event" }
        if words.count == 1, let dot = head.firstIndex(of: ".") {
            let name = String(head[..<dot])
            let activity = String(head[head.index(after: dot)...])
            if let problem = expect(name, kind: "observer") { return problem }
            if Activity(rawValue: activity) == nil {
                return
                    "unknown activity '\(activity)' in '\(line)' (one of \(Activity.allCases.map(\.rawValue).joined(separator: ", ")))"
            }
            return nil
        }
        switch head {
        case "perform":
            guard words.count == 2 else { return "'perform' takes one source: '\(line)'" }
            return expect(words[1], kind: "source0", "source1")
        case "fire":
            guard words.count == 2 else { return "'fire' takes one timer: '\(line)'" }
            return expect(words[1], kind: "timer")
        case "block":
            guard words.count == 2 else { return "'block' takes one block: '\(line)'" }
            return expect(words[1], kind: "block")
        case "schedule", "cancel":
            guard words.count == 3 else { return "'\(head)' takes a source and a mode: '\(line)'" }
            return expect(words[1], kind: "source0")
        case "run":
            return words.count == 2 ? nil : "'run' takes one mode: '\(line)'"
        case "return":
            guard words.count == 2, RunResult.allCases.contains(where: { $0.description == words[1] }) else {
                return
                    "'return' takes one of \(RunResult.allCases.map(\.description).joined(separator: ", ")): '\(line)'"
            }
            return nil
        case "mark":
            return words.count >= 2 ? nil : "'mark' needs text: '\(line)'"
        case "create":
            guard words.count == 2 else { return "'create' takes one item: '\(line)'" }
            return expect(words[1], kind: "source0", "source1", "timer", "observer")
        case "foundationRun", "runUntil":
            return words.count == 1 || (words.count == 2 && words[1] == "returned")
                ? nil
                : "expected '\(head)' or '\(head) returned': '\(line)'"
        case "runBefore":
            if words.count == 2 { return nil }
            return words.count == 3 && words[1] == "returned" && ["true", "false"].contains(words[2])
                ? nil
                : "expected 'runBefore MODE' or 'runBefore returned true|false': '\(line)'"
        case "setFlag":
            return words.count == 1 ? nil : "'setFlag' takes nothing: '\(line)'"
        case "acceptInput":
            return words.count == 2 ? nil : "expected 'acceptInput MODE' or 'acceptInput returned': '\(line)'"
        case "limitDate":
            return words.count >= 3 ? nil : "'limitDate' takes a mode and an answer: '\(line)'"
        case "runForever":
            return words.count == 1 || (words.count == 2 && words[1] == "returned")
                ? nil
                : "expected 'runForever' or 'runForever returned': '\(line)'"
        case "took":
            return words.count >= 2 ? nil : "'took' needs the timing assertion: '\(line)'"
        default:
            if Trace.queryWords.contains(head) { return words.count >= 2 ? nil : "query '\(head)' needs its answer" }
            return
                "unknown trace event '\(line)' (expected <observer>.<activity>, perform, fire, block, schedule, cancel, run, return, mark, create, runForever, took or a query answer)"
        }
    }

    private func expect(_ name: String, kind words: String...) -> String? {
        guard let kind = items[name] else { return "'\(name)' is not a declared item" }
        return words.contains(kind.word) ? nil : "'\(name)' is a \(kind.word), not a \(words.joined(separator: " or "))"
    }
}

/// Removes callout-free wake cycles (rule wakeup.idle-pass) for cases that allow ``Allowance/idleWakes``.
package enum IdleWakeFilter {
    private static let cycle: [Activity] = [.afterWaiting, .beforeTimers, .beforeSources, .beforeWaiting]

    /// After each BeforeWaiting event, drops every following segment that consists only of observer events whose
    /// activities run AfterWaiting, BeforeTimers, BeforeSources, BeforeWaiting in pass order (each at most once,
    /// ending with BeforeWaiting): exactly what one pass that handles nothing reports.
    package static func apply(_ trace: [String]) -> [String] {
        var output: [String] = []
        var index = 0
        while index < trace.count {
            output.append(trace[index])
            if activity(of: trace[index]) == .beforeWaiting {
                // Skip the rest of this BeforeWaiting group first.
                index += 1
                while index < trace.count, activity(of: trace[index]) == .beforeWaiting {
                    output.append(trace[index])
                    index += 1
                }
                while let end = idleSegmentEnd(in: trace, from: index) { index = end }
                continue
            }
            index += 1
        }
        return output
    }

    /// If an idle cycle starts at `start`, the index just past it (past its whole BeforeWaiting group).
    private static func idleSegmentEnd(in trace: [String], from start: Int) -> Int? {
        var position = 0  // index into `cycle` of the last activity seen
        var index = start
        var sawAny = false
        while index < trace.count, let activity = activity(of: trace[index]),
            let rank = cycle.firstIndex(of: activity), rank >= position
        {
            if activity == .beforeWaiting {
                while index < trace.count, self.activity(of: trace[index]) == .beforeWaiting { index += 1 }
                return sawAny || index > start ? index : nil
            }
            position = rank
            sawAny = true
            index += 1
        }
        return nil
    }

    private static func activity(of line: String) -> Activity? {
        guard !line.contains(" "), let dot = line.firstIndex(of: ".") else { return nil }
        return Activity(rawValue: String(line[line.index(after: dot)...]))
    }
}
