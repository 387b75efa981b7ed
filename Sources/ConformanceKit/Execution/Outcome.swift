// What running a case on an engine produced, and whether that meets the engine's expectation for the case.

/// The status of one case on one engine (the web-platform-tests vocabulary).
public enum CaseStatus: String, Sendable, Codable, CaseIterable {
    /// The trace matched.
    case pass = "PASS"
    /// The trace did not match.
    case fail = "FAIL"
    /// The watchdog fired before the case finished; the case's process was ended and the runner went on.
    case timeout = "TIMEOUT"
    /// The engine ended the case's process (a signal such as SIGSEGV or SIGABRT, or an exit) before the case finished.
    case crash = "CRASH"
    /// The case could not be carried out (a resource could not be created, an engine reported misuse).
    case error = "ERROR"
    /// The engine lacks a feature the case needs.
    case skip = "SKIP"
}

/// The result of one case on one engine.
public struct CaseOutcome: Sendable {
    public var caseID: String
    public var area: String
    public var engine: String
    public var status: CaseStatus
    /// What the engine's expectations file says should happen (PASS when it says nothing).
    public var expected: CaseStatus
    /// The reason given for an expected status other than PASS.
    public var expectationReason: String?
    /// For FAIL, the expected and actual traces as a readable diff; for other non-PASS statuses, why.
    public var detail: String?
    public var expectedTrace: [String]
    public var actualTrace: [String]
    /// Wall-clock seconds the case took.
    public var seconds: Double

    /// A case meets its expectation when its status is the expected one. SKIP always does: the engine declared the
    /// missing feature.
    public var meetsExpectation: Bool { status == expected || status == .skip }

    /// An expected failure that passed: reported, because the expectations file is stale.
    public var isUnexpectedPass: Bool { status == .pass && expected != .pass }
}

/// The outcomes of one conformance run over several engines.
public struct ConformanceReport: Sendable {
    public var engines: [String]
    public var outcomes: [CaseOutcome]
    /// Case ids in spec order.
    public var caseIDs: [String]
    /// What the reports and the triage need to know of each case beyond its outcomes, by case id.
    public var facts: [String: CaseFacts]
    /// The expectations of the reference engine, `cf` (the toolchain's CoreFoundation): its known defects, which the
    /// triage names on any engine that fails the same cases the same way. Empty when the run had no expectations.
    public var referenceExpectations = EngineExpectations(engine: Triage.referenceEngine)
    /// The runs the columns come from (their engines' builds, machine, toolchain, date): one for a run made here,
    /// several for a merged matrix, none for a report read from a document older than format version 4.
    public var runs: [ConformanceRunContext] = []

    /// A report of `outcomes`; `cases` (the cases that ran) give each case's facts.
    public init(engines: [String], outcomes: [CaseOutcome], caseIDs: [String], cases: [SpecCase] = []) {
        self.engines = engines
        self.outcomes = outcomes
        self.caseIDs = caseIDs
        self.facts = Dictionary(cases.map { ($0.id, CaseFacts($0)) }, uniquingKeysWith: { first, _ in first })
    }

    public var allMeetExpectations: Bool { outcomes.allSatisfy(\.meetsExpectation) }

    /// Counts per status for one engine.
    public func counts(engine: String) -> [CaseStatus: Int] {
        var counts: [CaseStatus: Int] = [:]
        for outcome in outcomes where outcome.engine == engine { counts[outcome.status, default: 0] += 1 }
        return counts
    }

    /// The level of a case of the report (``CaseFacts/level``).
    public func level(caseID: String) -> RuleLevel? { facts[caseID]?.level }

    /// The levels the report's cases have, from the most general.
    public var levels: [RuleLevel] {
        RuleLevel.allCases.filter { level in caseIDs.contains { self.level(caseID: $0) == level } }
    }

    public func outcome(caseID: String, engine: String) -> CaseOutcome? {
        outcomes.first { $0.caseID == caseID && $0.engine == engine }
    }
}

/// What a report needs to know of a case beyond its outcome: the rule it checks, how its trace is compared, and what
/// callouts its items can make.
public struct CaseFacts: Sendable {
    /// The case's one-sentence rule.
    public var rule: String
    /// The catalogue rules it pins.
    public var rules: [String]
    /// The most specific level of those rules; nil when it has none (a spec of your own).
    public var level: RuleLevel?
    /// Its `any-order` groups, as the comparison applies them.
    public var unorderedRanges: [Range<Int>]
    /// Whether it allows callout-free wake cycles (idle-wakes).
    public var idleWakes: Bool
    /// The callout kinds (``TraceKind/callout(of:)`` spellings) its declared items can make.
    public var calloutKinds: Set<String>
    /// The callout kinds of the trace lines its triggers wait for.
    public var triggerKinds: Set<String>

    public init(
        rule: String, rules: [String] = [], level: RuleLevel? = nil, unorderedRanges: [Range<Int>] = [],
        idleWakes: Bool = false, calloutKinds: Set<String> = [], triggerKinds: Set<String> = []
    ) {
        self.rule = rule
        self.rules = rules
        self.level = level
        self.unorderedRanges = unorderedRanges
        self.idleWakes = idleWakes
        self.calloutKinds = calloutKinds
        self.triggerKinds = triggerKinds
    }

    public init(_ specCase: SpecCase) {
        self.init(
            rule: specCase.rule, rules: specCase.rules, level: specCase.level,
            unorderedRanges: specCase.unorderedRanges, idleWakes: specCase.allowances.contains(.idleWakes),
            calloutKinds: Set(specCase.items.flatMap { TraceKind.callouts(of: $0.kind) }),
            triggerKinds: Set(specCase.triggers.compactMap { TraceKind.callout(of: $0.event) }))
    }
}
