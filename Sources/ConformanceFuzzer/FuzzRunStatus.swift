// How a scenario's run on one engine ended, as the fuzzer compares runs.

import ConformanceKit

/// `done` when the case ran to its end (PASS or FAIL against the scenario's empty expectation: its trace is what the
/// engine did), else the case status that says why it did not.
public enum FuzzRunStatus: Sendable, Hashable, CustomStringConvertible {
    case done
    /// TIMEOUT, CRASH, ERROR or SKIP.
    case ended(CaseStatus)

    /// The run status of a case that ended with `status`.
    public init(_ status: CaseStatus) {
        self = status == .pass || status == .fail ? .done : .ended(status)
    }

    /// `done` or the case status (`TIMEOUT`, ...), as reports and `runloop fuzz --format json` spell it.
    public var description: String {
        switch self {
        case .done: return "done"
        case .ended(let status): return status.rawValue
        }
    }

    /// The status of this run measured against another engine's completed run: FAIL when it ran to its end (its trace
    /// differs), else how it ended.
    public var againstCompletedRun: CaseStatus {
        switch self {
        case .done: return .fail
        case .ended(let status): return status
        }
    }
}
