// Change points of a series of exact counts (callgrind's instructions): a count that two runs of one build always
// give has no noise to test a step against, so a step between commits is a change point when it is large enough to
// matter, and equal counts never are one.
//
// E-divisive's permutation test cannot serve here: with one run per commit and at least 3 runs on each side of a
// split, a step at the second commit could never be found, and with no spread within a commit every permutation of
// a few values is as strong as the observed order far more often than p <= 0.05 allows.
import Foundation

/// The change points of a series whose values are exact counts.
public struct ExactSteps: Sendable {
    /// The smallest step, as a fraction of the count before it, that is a change point: a change of code placement
    /// moves a count by a few instructions, which is not what a trend is for (the values show it all the same).
    public var minimumStep: Double = 0.01

    /// Creates the test with the default step.
    public init() {}

    /// One run of the series: its build (the commit, and the run itself when its tree had uncommitted paths) and its
    /// values' median and extremes.
    public struct Run: Sendable {
        public let build: String
        public let median: Double
        public let minimum: Double
        public let maximum: Double

        public init(build: String, median: Double, minimum: Double, maximum: Double) {
            self.build = build
            self.median = median
            self.minimum = minimum
            self.maximum = maximum
        }
    }

    /// Where runs of one build disagree: the counts are not exact after all.
    public struct Disagreement: Sendable, Equatable {
        /// The index of the run whose value differs from the first run of its build (or whose repetitions differ).
        public let index: Int
        public let build: String
    }

    /// The change points of `runs` (in run order): at the first run of each build whose value differs from the
    /// previous build's by at least `minimumStep`; `before` and `after` are the two builds' values and p is 0 (no
    /// test: the difference is exact). A disagreement when two runs of one build (consecutive, or the repetitions of
    /// one run) differ.
    public func changePoints(_ runs: [Run]) -> Result<[ChangePoint], DisagreementError> {
        var found: [ChangePoint] = []
        for (index, run) in runs.enumerated() {
            if run.minimum != run.maximum {
                return .failure(DisagreementError(Disagreement(index: index, build: run.build)))
            }
            guard index > 0 else { continue }
            let previous = runs[index - 1]
            if previous.build == run.build {
                if previous.median != run.median {
                    return .failure(DisagreementError(Disagreement(index: index, build: run.build)))
                }
                continue
            }
            let change = previous.median != 0 ? abs(run.median / previous.median - 1) : (run.median != 0 ? 1 : 0)
            // Equal counts are never a step, whatever the minimum.
            if run.median != previous.median, change >= minimumStep {
                found.append(
                    ChangePoint(
                        index: index, pValue: 0, before: previous.median, after: run.median, exact: true))
            }
        }
        return .success(found)
    }

    /// The failure of `changePoints`: which run disagreed with its build.
    public struct DisagreementError: Error, Sendable, Equatable {
        public let disagreement: Disagreement
        init(_ disagreement: Disagreement) { self.disagreement = disagreement }
    }
}
