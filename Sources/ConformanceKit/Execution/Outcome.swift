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

    public var allMeetExpectations: Bool { outcomes.allSatisfy(\.meetsExpectation) }

    /// Counts per status for one engine.
    public func counts(engine: String) -> [CaseStatus: Int] {
        var counts: [CaseStatus: Int] = [:]
        for outcome in outcomes where outcome.engine == engine { counts[outcome.status, default: 0] += 1 }
        return counts
    }

    public func outcome(caseID: String, engine: String) -> CaseOutcome? {
        outcomes.first { $0.caseID == caseID && $0.engine == engine }
    }
}
