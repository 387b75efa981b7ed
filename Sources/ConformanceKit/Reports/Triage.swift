// Root-cause triage of a conformance run: the results not as expected, grouped into clusters that each point at one
// defect, and the passes that may be vacuous. INTERPRETING.md ("Reading a run: triage") states the rules; in short:
//
// 1. Dead callout kinds. A callout kind (an observer activity, a timer fire, a source perform, a block, a schedule or
//    cancel callout) is dead on an engine when no result on that engine, whatever its status, has such a line, and
//    at least two of its cases that ran to their end (PASS or FAIL) expect one. Observers also count as a whole:
//    when no result has an observer line of any activity and two completed cases expect one, every activity some
//    case expects is dead. An engine whose observers are never called has six dead kinds, one per activity.
// 2. Clusters. For each result not as expected (FAIL, TIMEOUT, CRASH, ERROR; not an expected failure, not SKIP), the
//    expected and actual traces are compared as the case compares them (any-order groups, idle wakes), with a marker
//    for how the case ended appended to the actual trace (TIMEOUT, CRASH <signal>, ERROR) and the dead kinds' lines
//    removed from the expected trace. What is left, compared from the start, departs at a first point; the lines
//    there (the first run of lines that differ) give the cluster, with item names left out:
//      - a CRASH is its own cluster per signal;
//      - some line repeated 3 times or more beyond what was expected: "<kind> over and over";
//      - else the first callout line there, missing or extra: "missing observer beforeSources", "extra timer fire"
//        (a callout is the cause; a different return or query answer beside it is its consequence);
//      - else a line of one kind on both sides: "different query fireDate";
//      - else, a line missing there: "missing <kind>" (what came instead is counted, not part of the key: a stop
//        that never wakes the loop returns timedOut or hangs, one defect);
//      - else "extra <kind>".
//    A "missing" cluster whose every result hung there (TIMEOUT, the actual trace ends where the expected one goes on)
//    is titled so: "hung (TIMEOUT) where the expected trace continues with observer afterWaiting".
//    A result whose only difference was dead kinds' lines goes to the dead kinds' own cluster, and so does one of a
//    case with a trigger waiting for a dead kind's callout (its actions never ran, so the rest of its trace says
//    nothing more), unless it crashed. Clusters are per engine, ordered by how many results each accounts for.
// 3. Known defects of the toolchain's CoreFoundation. A cluster whose every result has the status the reference
//    engine `cf`'s expectations (expectations/cf.yaml) give its case is also one of those known defects: it says so,
//    with the claim of their reasons (the text before the first colon), and is listed after every cluster that is not.
// 4. Vacuous passes. A PASS on an engine with dead kinds, of a case whose items can make a callout of a dead kind,
//    is flagged: its trace has no such line, which is what it asserts or what the dead feature gives anyway.

import EngineKit

/// The kind of a trace line with its item names left out: what a cluster is named by.
public enum TraceKind {
    /// The marker appended to an actual trace for a case that did not run to its end.
    static let markerPrefix = "\u{27E8}"
    static let markerSuffix = "\u{27E9}"

    static func marker(_ text: String) -> String { markerPrefix + text + markerSuffix }

    /// "observer entry", "timer fire", "source perform", "block", "source schedule", "source cancel", "run",
    /// "return stopped", "mark", "create", "runForever", "runForever returned", "took", "query isWaiting",
    /// "TIMEOUT", "CRASH SIGSEGV", "ERROR".
    public static func of(_ line: String) -> String {
        if line.hasPrefix(markerPrefix), line.hasSuffix(markerSuffix) {
            return String(line.dropFirst(markerPrefix.count).dropLast(markerSuffix.count))
        }
        if let callout = callout(of: line) { return callout }
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let head = words.first else { return "empty line" }
        switch head {
        case "run": return "run"
        case "return": return "return " + (words.count > 1 ? words[1] : "")
        case "mark", "create", "took": return head
        case "runForever": return words.count > 1 ? "runForever returned" : "runForever"
        default: return Trace.queryWords.contains(head) ? "query \(head)" : "line '\(head)'"
        }
    }

    /// The callout kind of a line, or nil for a line that is not a callout.
    public static func callout(of line: String) -> String? {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let head = words.first else { return nil }
        if words.count == 1, let dot = head.firstIndex(of: "."),
            let activity = Activity(rawValue: String(head[head.index(after: dot)...]))
        {
            return observer(activity)
        }
        switch head {
        case "perform": return "source perform"
        case "fire": return "timer fire"
        case "block": return words.count == 2 ? "block" : nil
        case "schedule": return "source schedule"
        case "cancel": return "source cancel"
        default: return nil
        }
    }

    static func observer(_ activity: Activity) -> String { "observer \(activity.rawValue)" }

    /// The callout kinds an item of this kind can make.
    public static func callouts(of kind: ItemKind) -> [String] {
        switch kind {
        case .source0(_, let callouts):
            return callouts ? ["source perform", "source schedule", "source cancel"] : ["source perform"]
        case .source1: return ["source perform"]
        case .timer: return ["timer fire"]
        case .observer(let activities, _, _): return Activity.allCases.filter(activities.contains).map(observer)
        case .block: return ["block"]
        }
    }

    /// "CRASH SIGSEGV", "CRASH exit 3" or "CRASH" from a CRASH result's detail.
    static func crash(detail: String?) -> String {
        let text = detail ?? ""
        if let range = text.range(of: "killed by ") {
            let name = text[range.upperBound...].prefix { $0.isLetter || $0.isNumber }
            if !name.isEmpty { return "\(CaseStatus.crash.rawValue) \(name)" }
        }
        if let range = text.range(of: "exited with status ") {
            return "\(CaseStatus.crash.rawValue) exit " + text[range.upperBound...].prefix { $0.isNumber }
        }
        return CaseStatus.crash.rawValue
    }
}

/// One group of results not as expected that share their first departure from the expected trace.
public struct TriageCluster: Sendable {
    public var engine: String
    /// What the results share, as the reports print it: "callouts never made on ENGINE: ...", "missing return
    /// stopped", "hung (TIMEOUT) where the expected trace continues with return stopped", "CRASH SIGSEGV".
    public var title: String
    /// Where the results depart, the key they are grouped by ("missing return stopped"; the title of a dead-kinds
    /// cluster).
    public var departure: String
    /// For the dead-kinds cluster, the engine's dead callout kinds; empty for every other cluster.
    public var deadKinds: [String] = []
    /// The results, by case id, the shortest expected trace first (where to start reading).
    public var caseIDs: [String]
    /// How many results of each status the cluster holds.
    public var statuses: [CaseStatus: Int]
    /// The catalogue rules its cases pin, most cited first, with how many of its cases cite each.
    public var rules: [(id: String, cases: Int)]
    /// What the actual traces had at the departure instead (for "missing" clusters), most frequent first.
    public var instead: [(kind: String, cases: Int)]
    /// For a dead-kinds cluster: how many other results not as expected also lack the dead kinds' lines.
    public var alsoElsewhere: Int = 0
    /// When every result has the status the reference engine's expectations give its case: that known defect.
    public var referenceDefect: ReferenceDefect?

    /// The results it accounts for: its own, and for a dead-kinds cluster the others that lack the same lines.
    public var reach: Int { caseIDs.count + alsoElsewhere }

    /// The first `count` cases to read.
    public func starters(_ count: Int = 3) -> [String] { Array(caseIDs.prefix(count)) }
}

/// A known defect of the toolchain's CoreFoundation that a cluster also is: its cases are all in the reference
/// engine's expectations, each with the status the cluster's result has.
public struct ReferenceDefect: Sendable, Equatable {
    /// The expectations file, by its folder and name: "expectations/cf.yaml".
    public var file: String
    /// The claims of the entries' reasons (each reason's text before its first colon), the distinct ones in the
    /// cluster's case order, joined by "; ".
    public var reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    /// "also a known defect of the toolchain's CoreFoundation (expectations/cf.yaml: REASON)".
    public var note: String { "also a known defect of the toolchain's CoreFoundation (\(file): \(reason))" }

    /// The known defect that the results `outcomes` (of one cluster) all are, or nil.
    static func of(_ outcomes: [CaseOutcome], reference: EngineExpectations) -> ReferenceDefect? {
        var claims: [String] = []
        var file: String?
        for outcome in outcomes {
            guard let entry = reference.entries[outcome.caseID], entry.status == outcome.status else { return nil }
            let claim = entry.reason.range(of: ":").map { String(entry.reason[..<$0.lowerBound]) } ?? entry.reason
            if !claims.contains(claim) { claims.append(claim) }
            let parts = entry.location.file.split(separator: "/")
            file = file ?? parts.suffix(2).joined(separator: "/")
        }
        guard let file else { return nil }
        return ReferenceDefect(file: file, reason: claims.joined(separator: "; "))
    }
}

/// A PASS that may owe its green to a dead feature.
public struct VacuousPass: Sendable, Equatable {
    public var caseID: String
    public var engine: String
    /// The dead callout kinds the case's items could have made.
    public var kinds: [String]
}

/// The triage of a report.
public struct Triage: Sendable {
    /// Clusters, the largest first; the known defects of the toolchain's CoreFoundation after all the others.
    public var clusters: [TriageCluster]
    /// Per engine, its dead callout kinds (engines with none are absent).
    public var deadKinds: [String: [String]]
    public var vacuousPasses: [VacuousPass]

    /// How many results of a dead kind a case that ran to its end must expect before the kind counts as dead.
    public static let deadEvidence = 2
    /// How many more times than expected a line kind must appear at the departure to be "over and over".
    public static let floodExcess = 3
    /// How many actual trace lines the comparison reads (a runaway engine records thousands).
    static let comparedLines = 1_000
    /// The engine whose expectations are the toolchain CoreFoundation's known defects.
    public static let referenceEngine = "cf"

    public func vacuous(caseID: String, engine: String) -> VacuousPass? {
        vacuousPasses.first { $0.caseID == caseID && $0.engine == engine }
    }

    public init(_ report: ConformanceReport) {
        var clusters: [TriageCluster] = []
        var dead: [String: [String]] = [:]
        var vacuous: [VacuousPass] = []
        for engine in report.engines {
            let outcomes = report.outcomes.filter { $0.engine == engine }
            let deadKinds = Self.deadKinds(outcomes)
            if !deadKinds.isEmpty { dead[engine] = deadKinds }
            let deadSet = Set(deadKinds)
            for outcome in outcomes where outcome.status == .pass {
                let kinds = (report.facts[outcome.caseID]?.calloutKinds ?? []).intersection(deadSet)
                if !kinds.isEmpty {
                    vacuous.append(
                        VacuousPass(
                            caseID: outcome.caseID, engine: engine,
                            kinds: deadKinds.filter(kinds.contains)))
                }
            }
            clusters += Self.clusters(
                outcomes.filter { !$0.meetsExpectation && $0.status != .pass },
                engine: engine, deadKinds: deadKinds, facts: report.facts,
                reference: report.referenceExpectations)
        }
        // Known defects of the toolchain's CoreFoundation last, then the largest first, then by title.
        self.clusters = clusters.sorted {
            let (known0, known1) = ($0.referenceDefect == nil ? 0 : 1, $1.referenceDefect == nil ? 0 : 1)
            return (known1, $0.reach, $1.title) > (known0, $1.reach, $0.title)
        }
        self.deadKinds = dead
        self.vacuousPasses = vacuous
    }

    /// The callout kinds no result of the engine has, though at least ``deadEvidence`` of its completed cases expect
    /// them, in a stable order.
    static func deadKinds(_ outcomes: [CaseOutcome]) -> [String] {
        var seen = Set<String>()
        var expectedBy: [String: Int] = [:]
        for outcome in outcomes {
            for line in outcome.actualTrace { if let kind = TraceKind.callout(of: line) { seen.insert(kind) } }
            guard outcome.status == .pass || outcome.status == .fail else { continue }
            for kind in Set(outcome.expectedTrace.compactMap(TraceKind.callout(of:))) {
                expectedBy[kind, default: 0] += 1
            }
        }
        let observers = Activity.allCases.map(TraceKind.observer)
        // Observers as a whole: when no result has an observer line of any activity and two completed cases expect
        // some, every activity any case expects is dead, though fewer than two cases may expect it.
        var observersExpected = 0
        var expectedAnywhere = Set<String>()
        for outcome in outcomes {
            let kinds = Set(outcome.expectedTrace.compactMap(TraceKind.callout(of:)))
            expectedAnywhere.formUnion(kinds)
            if outcome.status == .pass || outcome.status == .fail, !kinds.isDisjoint(with: observers) {
                observersExpected += 1
            }
        }
        let observersDead = seen.isDisjoint(with: observers) && observersExpected >= deadEvidence
        let order = observers + ["timer fire", "source perform", "block", "source schedule", "source cancel"]
        return order.filter { kind in
            !seen.contains(kind)
                && ((expectedBy[kind] ?? 0) >= deadEvidence
                    || (observersDead && observers.contains(kind) && expectedAnywhere.contains(kind)))
        }
    }

    /// Where one result departs: its cluster's title and what came instead.
    struct Departure: Equatable {
        var title: String
        var instead: String?
    }

    /// The traces of `outcome` as the case compares them, with the end marker and without the dead kinds.
    static func comparedTraces(
        _ outcome: CaseOutcome, facts: CaseFacts?,
        deadKinds: Set<String>
    ) -> (expected: [String], actual: [String]) {
        var actual = facts?.idleWakes == true ? IdleWakeFilter.apply(outcome.actualTrace) : outcome.actualTrace
        let expected = TraceMatch.alignUnordered(
            expected: outcome.expectedTrace, ranges: facts?.unorderedRanges ?? [],
            actual: actual
        )
        .filter { TraceKind.callout(of: $0).map { !deadKinds.contains($0) } ?? true }
        if actual.count > comparedLines { actual = Array(actual.prefix(comparedLines)) }
        switch outcome.status {
        case .timeout: actual.append(TraceKind.marker(CaseStatus.timeout.rawValue))
        case .crash: actual.append(TraceKind.marker(TraceKind.crash(detail: outcome.detail)))
        case .error: actual.append(TraceKind.marker(CaseStatus.error.rawValue))
        default: break
        }
        return (expected, actual)
    }

    /// Where `actual` (a run that ended with `status`, with `detail`) first departs from `expected`, as a cluster's
    /// title ("missing return stopped", "timer fire over and over", "CRASH SIGSEGV"), or nil when they do not differ:
    /// what the fuzzer names a divergence by. With the engine's `deadKinds` (rule 1), their lines are left out of
    /// `expected` first, and nil also means the traces differ only by them, or a trigger waits for one of them
    /// (`triggerKinds`, the callout kinds of the case's triggers): a result of the dead kinds' cluster.
    public static func departureTitle(
        expected: [String], actual: [String], status: CaseStatus,
        detail: String? = nil, deadKinds: Set<String> = [],
        triggerKinds: Set<String> = []
    ) -> String? {
        let outcome = CaseOutcome(
            caseID: "", area: "", engine: "", status: status, expected: .pass,
            expectationReason: nil, detail: detail, expectedTrace: expected, actualTrace: actual,
            seconds: 0)
        let facts = triggerKinds.isEmpty ? nil : CaseFacts(rule: "", triggerKinds: triggerKinds)
        return departure(outcome, facts: facts, deadKinds: deadKinds)?.title
    }

    /// Rule 1 for runs that are not a report's outcomes (the fuzzer's): the dead callout kinds of one engine, from
    /// each of its runs given as the trace another engine made of the same scenario (`expected`), the engine's own
    /// trace (`actual`), and whether the engine's run went to its end (`completed`, as a PASS or FAIL would).
    public static func deadKinds(runs: [(expected: [String], actual: [String], completed: Bool)]) -> [String] {
        deadKinds(
            runs.map { run in
                CaseOutcome(
                    caseID: "", area: "", engine: "", status: run.completed ? .fail : .error, expected: .pass,
                    expectationReason: nil, detail: nil, expectedTrace: run.expected, actualTrace: run.actual,
                    seconds: 0)
            })
    }

    /// The departure of one result, or nil when its traces differ only by dead kinds' lines.
    static func departure(_ outcome: CaseOutcome, facts: CaseFacts?, deadKinds: Set<String>) -> Departure? {
        if outcome.status == .crash { return Departure(title: TraceKind.crash(detail: outcome.detail), instead: nil) }
        // A trigger waiting for a dead kind's callout never ran its actions: past that point the case says nothing.
        if let facts, !facts.triggerKinds.isDisjoint(with: deadKinds) { return nil }
        let (expected, actual) = comparedTraces(outcome, facts: facts, deadKinds: deadKinds)
        let edits = TraceDiff.edits(expected: expected, actual: actual)
        guard let start = edits.firstIndex(where: { if case .same = $0 { return false } else { return true } }) else {
            return nil
        }
        var missing: [String] = []
        var extra: [String] = []
        var firstCallout: (kind: String, missing: Bool)?
        block: for edit in edits[start...] {
            let line: String
            let isMissing: Bool
            switch edit {
            case .same: break block
            case .removed(let text): (line, isMissing) = (text, true)
            case .added(let text): (line, isMissing) = (text, false)
            }
            if isMissing { missing.append(line) } else { extra.append(line) }
            if firstCallout == nil, let kind = TraceKind.callout(of: line) { firstCallout = (kind, isMissing) }
        }
        let extraKinds = extra.map(TraceKind.of)
        let missingKinds = missing.map(TraceKind.of)
        var excess: [String: Int] = [:]
        for kind in extraKinds { excess[kind, default: 0] += 1 }
        for kind in missingKinds { excess[kind, default: 0] -= 1 }
        if let flooded = extraKinds.first(where: { excess[$0, default: 0] >= floodExcess }) {
            return Departure(title: "\(flooded) over and over", instead: nil)
        }
        // A callout missing or extra is the cause; a different return, query answer or mark is its consequence.
        if let callout = firstCallout {
            return callout.missing
                ? Departure(title: "missing \(callout.kind)", instead: extraKinds.first ?? "nothing")
                : Departure(title: "extra \(callout.kind)", instead: nil)
        }
        if let first = missingKinds.first, first == extraKinds.first {
            return Departure(title: "different \(first)", instead: nil)
        }
        if let first = missingKinds.first {
            return Departure(title: "missing \(first)", instead: extraKinds.first ?? "nothing")
        }
        return Departure(title: "extra \(extraKinds.first ?? "nothing")", instead: nil)
    }

    static func clusters(
        _ outcomes: [CaseOutcome], engine: String, deadKinds: [String],
        facts: [String: CaseFacts], reference: EngineExpectations
    ) -> [TriageCluster] {
        let deadSet = Set(deadKinds)
        let deadTitle =
            "callouts never made on \(engine): " + deadKinds.joined(separator: ", ")
            + " (no result has one; \(deadEvidence) or more completed cases expect each)"
        var byTitle: [String: [(CaseOutcome, Departure)]] = [:]
        var titles: [String] = []
        var deadElsewhere = 0
        for outcome in outcomes {
            let departure =
                departure(outcome, facts: facts[outcome.caseID], deadKinds: deadSet)
                ?? Departure(title: deadTitle, instead: nil)
            if departure.title != deadTitle,
                outcome.expectedTrace.contains(where: { TraceKind.callout(of: $0).map(deadSet.contains) ?? false })
            {
                deadElsewhere += 1
            }
            if byTitle[departure.title] == nil { titles.append(departure.title) }
            byTitle[departure.title, default: []].append((outcome, departure))
        }
        if !deadKinds.isEmpty, byTitle[deadTitle] == nil {
            titles.append(deadTitle)
            byTitle[deadTitle] = []
        }
        return titles.map { title in
            let members = byTitle[title]!
            var statuses: [CaseStatus: Int] = [:]
            var rules: [String: Int] = [:]
            var instead: [String: Int] = [:]
            for (outcome, departure) in members {
                statuses[outcome.status, default: 0] += 1
                for rule in Set(facts[outcome.caseID]?.rules ?? []) { rules[rule, default: 0] += 1 }
                if let other = departure.instead { instead[other, default: 0] += 1 }
            }
            let ordered = members.map(\.0).sorted {
                ($0.expectedTrace.count, $0.caseID) < ($1.expectedTrace.count, $1.caseID)
            }
            func ranked(_ counts: [String: Int]) -> [(String, Int)] {
                counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { ($0.key, $0.value) }
            }
            // Every result hung where its trace departs: the actual trace ends where the expected one goes on.
            var shown = title
            if title.hasPrefix("missing "), !members.isEmpty, instead == ["TIMEOUT": members.count] {
                shown = "hung (TIMEOUT) where the expected trace continues with " + title.dropFirst("missing ".count)
            }
            return TriageCluster(
                engine: engine, title: shown, departure: title,
                deadKinds: title == deadTitle ? deadKinds : [], caseIDs: ordered.map(\.caseID),
                statuses: statuses, rules: ranked(rules).map { (id: $0.0, cases: $0.1) },
                instead: ranked(instead).map { (kind: $0.0, cases: $0.1) },
                alsoElsewhere: title == deadTitle ? deadElsewhere : 0,
                referenceDefect: ReferenceDefect.of(ordered, reference: reference))
        }
    }
}
