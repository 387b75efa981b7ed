// A failure judged while the wall clock moved is run again, and reported ERROR, not FAIL, when the clock kept moving.

import ConformanceTestSupport
import Testing

@testable import ConformanceKit

/// An outcome of `status` for a case expected to pass.
private func outcome(_ status: CaseStatus) -> CaseOutcome {
    CaseOutcome(
        caseID: "self.clock", area: "self", engine: "cf", status: status, expected: .pass, expectationReason: nil,
        detail: "first difference", expectedTrace: [], actualTrace: [], seconds: 0)
}

/// How many attempts ``WallClock/judgedOnASteadyClock(offset:_:)`` made, and what it reported, for a case whose every
/// attempt ends `status` while the wall clock moves `step` seconds at each read.
private func judged(_ status: CaseStatus, clockStep step: Double) -> (attempts: Int, result: CaseOutcome) {
    let clock = MovingClockOffset(step: step)
    var attempts = 0
    let result = WallClock.judgedOnASteadyClock(offset: clock.read) {
        attempts += 1
        return outcome(status)
    }
    return (attempts, result)
}

@Test func aFailureOnASteadyClockIsReportedAtOnce() {
    let (attempts, result) = judged(.fail, clockStep: 0)
    #expect(attempts == 1)
    #expect(result.status == .fail)
}

@Test func aFailureWhileTheClockMovedIsRunAgainAndAPassOnASteadyClockStands() {
    // The clock moves 10 ms across the first attempt (its two reads), then stays put.
    let clock = MovingClockOffset(step: 0.010, movingReads: 2)
    var attempts = 0
    let result = WallClock.judgedOnASteadyClock(offset: clock.read) {
        attempts += 1
        return outcome(attempts == 1 ? .fail : .pass)
    }
    #expect(attempts == 2)
    #expect(result.status == .pass)
}

@Test func aFailureWhileTheClockKeptMovingIsAnErrorThatSaysSo() {
    let (attempts, result) = judged(.fail, clockStep: 0.005)
    #expect(attempts == WallClock.attempts)
    #expect(result.status == .error)
    #expect(result.detail?.contains("the wall clock moved against the monotonic clock") == true)
    #expect(result.detail?.hasSuffix("The last attempt's FAIL: first difference") == true)
    #expect(WallClock.leftUnjudged(result))
    #expect(!WallClock.leftUnjudged(outcome(.error)))
}

@Test(arguments: [
    (CaseStatus.fail, WallClock.tolerance / 2), (.pass, 0.010), (.timeout, 0.010), (.crash, 0.010),
])
func aFailureWithinTheToleranceAnExpectedPassATimeoutOrACrashIsNotRunAgain(status: CaseStatus, step: Double) {
    let (attempts, result) = judged(status, clockStep: step)
    #expect(attempts == 1)
    #expect(result.status == status)
}
