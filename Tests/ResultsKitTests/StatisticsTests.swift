// Statistics against reference values computed with scipy 1.17.1
// (scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method=...), numpy.percentile, scipy.stats.gmean).
import BenchTestSupport
import Foundation
import Testing

@testable import ResultsKit

@Suite struct MannWhitneyTests {
    /// One scipy reference: samples, U1, and p for method auto / asymptotic / exact.
    struct Reference: Sendable, CustomStringConvertible {
        let name: String
        let x: [Double]
        let y: [Double]
        let u: Double
        let auto: Double
        let autoMethod: MannWhitneyMethod
        let asymptotic: Double
        let exact: Double
        var description: String { name }
    }

    static let references: [Reference] = [
        Reference(
            name: "separated, exact", x: [1.1, 2.2, 3.3, 4.4, 5.5], y: [6.1, 7.2, 8.3], u: 0,
            auto: 0.03571428571428571, autoMethod: .exact,
            asymptotic: 0.03688842570704987, exact: 0.03571428571428571),
        Reference(
            name: "overlapping, exact", x: [19.2, 14.1, 17.8, 16.3, 21.0, 15.5],
            y: [18.4, 22.7, 20.1, 23.5, 19.9, 24.2, 21.8], u: 4,
            auto: 0.013986013986013986, autoMethod: .exact,
            asymptotic: 0.01841616057630396, exact: 0.013986013986013986),
        Reference(
            name: "ties, asymptotic", x: [1, 2, 2, 3, 4, 4, 4, 5, 6, 7], y: [3, 4, 5, 5, 6, 7, 8, 8, 9, 10],
            u: 18, auto: 0.016468265440881653, autoMethod: .asymptotic,
            asymptotic: 0.016468265440881653, exact: 0.014689644720604474),
        Reference(
            name: "both > 8, asymptotic",
            x: [101.3, 99.8, 102.5, 100.9, 98.7, 103.1, 100.2, 101.8, 99.1, 102.0, 100.6, 101.1],
            y: [103.4, 102.9, 104.8, 101.5, 105.2, 103.9, 102.2, 104.1, 106.0, 103.0], u: 8,
            auto: 0.0006842598049474444, autoMethod: .asymptotic,
            asymptotic: 0.0006842598049474444, exact: 0.0002072231174398357),
        Reference(
            name: "3 against 20, exact", x: [5.5, 7.25, 3.125],
            y: [
                1.01, 2.01, 3.01, 4.01, 5.01, 6.01, 7.01, 8.01, 9.01, 10.01, 11.01, 12.01, 13.01, 14.01,
                15.01, 16.01, 17.01, 18.01, 19.01, 20.01,
            ], u: 15,
            auto: 0.19649915302089213, autoMethod: .exact,
            asymptotic: 0.18561504257338968, exact: 0.19649915302089213),
        Reference(
            name: "identical samples", x: [10, 11, 12, 13], y: [10, 11, 12, 13], u: 8,
            auto: 1, autoMethod: .asymptotic, asymptotic: 1, exact: 1),
        Reference(
            name: "all values equal", x: [5, 5, 5], y: [5, 5], u: 3,
            auto: 1, autoMethod: .asymptotic, asymptotic: 1, exact: 1),
        Reference(
            name: "nine repetitions against 1.5x",
            x: [990.0, 1004.0, 996.0, 1010.0, 1002.0, 994.0, 1008.0, 1000.0, 992.0],
            y: [1485.0, 1506.0, 1494.0, 1515.0, 1503.0, 1491.0, 1512.0, 1500.0, 1488.0], u: 0,
            auto: 0.00041229480206169127, autoMethod: .asymptotic,
            asymptotic: 0.00041229480206169127, exact: 4.113533525298231e-05),
    ]

    @Test(arguments: references)
    func autoMatchesScipy(_ reference: Reference) throws {
        let result = try #require(Statistics.mannWhitneyU(reference.x, reference.y))
        #expect(result.u == reference.u)
        #expect(result.method == reference.autoMethod)
        #expect(close(result.pValue, reference.auto, 1e-9), "p = \(result.pValue), scipy \(reference.auto)")
    }

    @Test(arguments: references)
    func asymptoticMatchesScipy(_ reference: Reference) throws {
        let result = try #require(Statistics.mannWhitneyU(reference.x, reference.y, method: .asymptotic))
        #expect(result.u == reference.u)
        #expect(close(result.pValue, reference.asymptotic, 1e-9), "p = \(result.pValue), scipy \(reference.asymptotic)")
    }

    @Test(arguments: references)
    func exactMatchesScipy(_ reference: Reference) throws {
        let result = try #require(Statistics.mannWhitneyU(reference.x, reference.y, method: .exact))
        #expect(close(result.pValue, reference.exact, 1e-9), "p = \(result.pValue), scipy \(reference.exact)")
    }

    /// scipy: mannwhitneyu(x8, y30) -> U 17.0, p 4.1919296887837776e-05 (exact: one side has 8).
    @Test func eightAgainstThirtyIsExact() throws {
        let x = [10.0, 10.37, 10.74, 11.11, 11.48, 11.85, 12.219999999999999, 12.59]
        let y = [
            11.05, 11.34, 11.63, 11.92, 12.21, 12.5, 12.790000000000001, 13.08, 13.370000000000001, 13.66,
            13.950000000000001, 14.24, 14.530000000000001, 14.82, 15.11, 15.4, 15.690000000000001, 15.98,
            16.27, 16.560000000000002, 16.85, 17.14, 17.43, 17.72, 18.009999999999998, 18.3, 18.59, 18.88,
            19.17, 19.46,
        ]
        let result = try #require(Statistics.mannWhitneyU(x, y))
        #expect(result.u == 17)
        #expect(result.method == .exact)
        #expect(close(result.pValue, 4.1919296887837776e-05, 1e-9))
    }

    @Test func symmetricInItsArguments() throws {
        let reference = Self.references[1]
        let forward = try #require(Statistics.mannWhitneyU(reference.x, reference.y))
        let backward = try #require(Statistics.mannWhitneyU(reference.y, reference.x))
        #expect(close(forward.pValue, backward.pValue, 1e-12))
        #expect(forward.u + backward.u == Double(reference.x.count * reference.y.count))
    }

    @Test func emptySampleHasNoTest() {
        #expect(Statistics.mannWhitneyU([], [1, 2]) == nil)
        #expect(Statistics.mannWhitneyU([1], []) == nil)
    }

    @Test func exactDistributionSumsToBinomial() {
        // The frequencies of U for sizes (4, 6) total C(10, 4) = 210 and are symmetric.
        let frequencies = Statistics.exactFrequencies(n1: 4, n2: 6)
        #expect(frequencies.count == 25)
        #expect(frequencies.reduce(0, +) == 210)
        #expect(frequencies == frequencies.reversed())
        #expect(frequencies[0] == 1 && frequencies[1] == 1 && frequencies[2] == 2)
    }

    @Test func smallestPossiblePValue() {
        #expect(close(Statistics.smallestPossiblePValue(n1: 3, n2: 3), 0.1))  // 2 / C(6, 3)
        #expect(close(Statistics.smallestPossiblePValue(n1: 4, n2: 4), 2.0 / 70))
        #expect(Statistics.smallestPossiblePValue(n1: 1, n2: 1) == 1)
        #expect(Statistics.smallestPossiblePValue(n1: 0, n2: 5) == 1)
    }
}

@Suite struct DescriptiveStatisticsTests {
    @Test func medianOddAndEven() {
        #expect(Statistics.median([3, 1, 2]) == 2)
        #expect(Statistics.median([4, 1, 3, 2]) == 2.5)
        #expect(Statistics.median([]) == nil)
        #expect(Statistics.median([7]) == 7)
    }

    /// numpy.percentile([3, 1, 4, 1.5, 5, 9, 2, 6], [25, 50, 75]) -> 1.875, 3.5, 5.25.
    @Test func quantilesMatchNumpy() {
        let values: [Double] = [3, 1, 4, 1.5, 5, 9, 2, 6]
        #expect(close(Statistics.quantile(values, 0.25), 1.875))
        #expect(close(Statistics.quantile(values, 0.5), 3.5))
        #expect(close(Statistics.quantile(values, 0.75), 5.25))
    }

    /// scipy.stats.gmean([1.5, 0.5, 2.0]) -> 1.1447142425533319; gmean([1.1, 0.95, 1.3, 0.8]) -> 1.021027424897966.
    @Test func geometricMeanMatchesScipy() {
        #expect(close(Statistics.geometricMean([1.5, 0.5, 2.0]), 1.1447142425533319, 1e-12))
        #expect(close(Statistics.geometricMean([1.1, 0.95, 1.3, 0.8]), 1.021027424897966, 1e-12))
        #expect(Statistics.geometricMean([]) == nil)
        #expect(Statistics.geometricMean([1, 0]) == nil)
    }

    @Test func averageRanksWithTies() {
        let (ranks, groups) = Statistics.averageRanks([10, 20, 20, 5, 20])
        #expect(ranks == [2, 4, 4, 1, 4])
        #expect(groups.sorted() == [1, 1, 3])
    }
}
