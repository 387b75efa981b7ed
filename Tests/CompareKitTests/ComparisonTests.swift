// Matching and verdicts: no change, slower, faster, geometric mean, unit normalisation across files,
// benchmarks listed apart, engine mode, direction of counters, and the threshold-only fallback.
import BenchTestSupport
import Foundation
import Testing

@testable import CompareKit
@testable import ResultsKit

@Suite struct ComparisonTests {
    func report(_ base: String, _ new: String, _ settings: ComparisonSettings = ComparisonSettings()) throws
        -> ComparisonReport
    {
        try Comparator.compare(
            base: ResultsReader.parse(text: base, file: "base.csv"),
            new: ResultsReader.parse(text: new, file: "new.csv"), settings: settings)
    }

    /// The engines of real Google Benchmark output compared (ResultsKit's ReaderTests reads the same file).
    @Test func enginesOfRealGoogleBenchmarkOutput() throws {
        let file = try ResultsReader.parse(text: Fixtures.googleBenchmark171, file: "gb.csv")
        let engines = try Comparator.compareEngines(file: file, engines: ("cf", "ref"), settings: ComparisonSettings())
        #expect(engines.comparisons.map(\.name) == ["BM_WakeLatency/pin:same"])
        // scipy: mannwhitneyu([218.304, 345.86, 235.842], [177.451, 195.799, 343.815]) -> U 7.0, p 0.4
        #expect(engines.comparisons.first?.test?.u == 7)
        #expect(close(engines.comparisons.first?.test?.pValue, 0.4))
    }

    // MARK: - Verdicts

    @Test func fileAgainstItselfHasNoChange() throws {
        let suite = Fixtures.suite()
        let result = try report(suite, suite)
        #expect(result.comparisons.count == 5)
        #expect(result.comparisons.allSatisfy { $0.verdict == .noSignificantChange })
        #expect(result.comparisons.allSatisfy { $0.test?.pValue == 1 && $0.ratio == 1 })
        #expect(result.geometricMean == 1)
        #expect(result.exitCode == 0)
        #expect(result.onlyInBase.isEmpty && result.onlyInNew.isEmpty)
    }

    @Test func everyTimeTimesOneAndAHalfIsSlower() throws {
        let suite = Fixtures.suite()
        let result = try report(suite, Fixtures.scaleTimes(suite, by: 1.5))
        #expect(result.comparisons.allSatisfy { $0.verdict == .slower })
        #expect(result.comparisons.allSatisfy { close($0.ratio, 1.5, 1e-12) })
        // Nine distinct repetitions each, completely separated: scipy gives U = 0, p = 0.00041229480206169127.
        #expect(result.comparisons.allSatisfy { $0.test?.u == 0 && close($0.test?.pValue, 0.00041229480206169127) })
        #expect(close(result.geometricMean, 1.5, 1e-12))
        #expect(result.exitCode == 1)
        #expect(result.regressions.count == 5)
    }

    @Test func twoThirdsIsFasterAndPasses() throws {
        let suite = Fixtures.suite()
        let result = try report(suite, Fixtures.scaleTimes(suite, by: 2.0 / 3.0))
        #expect(result.comparisons.allSatisfy { $0.verdict == .faster })
        #expect(result.exitCode == 0)
    }

    @Test func significantButWithinThresholdIsNoChange() throws {
        let suite = Fixtures.suite()
        // +3 %: the samples separate completely (p < 0.05) but the change is under 5 %.
        let result = try report(suite, Fixtures.scaleTimes(suite, by: 1.03))
        #expect(result.comparisons.allSatisfy { ($0.test?.pValue ?? 1) < 0.05 })
        #expect(result.comparisons.allSatisfy { $0.verdict == .noSignificantChange })
        #expect(result.exitCode == 0)
        let strict = try report(suite, Fixtures.scaleTimes(suite, by: 1.03), ComparisonSettings(thresholdPercent: 2))
        #expect(strict.exitCode == 1)
    }

    @Test func largeButNotSignificantIsNoChange() throws {
        // Medians differ by 10 % but the samples overlap heavily: p > 0.05.
        let base = Fixtures.csv([FixtureBenchmark(name: "BM_Noisy", times: [100, 150, 90, 160, 95, 155, 98, 152, 99])])
        let new = Fixtures.csv([FixtureBenchmark(name: "BM_Noisy", times: [110, 151, 91, 161, 96, 156, 97, 153, 108])])
        let result = try report(base, new)
        let comparison = try #require(result.comparisons.first)
        #expect((comparison.change ?? 0) > 0.05)
        #expect((comparison.test?.pValue ?? 0) > 0.05)
        #expect(comparison.verdict == .noSignificantChange)
        #expect(!comparison.thresholdOnly)
    }

    // MARK: - Matching, units, geometric mean

    @Test func unitsAreNormalisedAcrossFiles() throws {
        let base = Fixtures.csv([FixtureBenchmark(name: "BM_A", unit: "us", times: Fixtures.noisy(1.5))])
        let new = Fixtures.csv([FixtureBenchmark(name: "BM_A", unit: "ns", times: Fixtures.noisy(1500))])
        let result = try report(base, new)
        let comparison = try #require(result.comparisons.first)
        #expect(close(comparison.base.median, 1500, 1e-12))
        #expect(close(comparison.ratio, 1, 1e-12))
        #expect(comparison.verdict == .noSignificantChange)
        #expect(result.unit == "ns")
    }

    @Test func geometricMeanOfRatios() throws {
        let base = Fixtures.csv([
            FixtureBenchmark(name: "BM_A", times: [100]), FixtureBenchmark(name: "BM_B", times: [100]),
            FixtureBenchmark(name: "BM_C", times: [100]),
        ])
        let new = Fixtures.csv([
            FixtureBenchmark(name: "BM_A", times: [150]), FixtureBenchmark(name: "BM_B", times: [50]),
            FixtureBenchmark(name: "BM_C", times: [200]),
        ])
        let result = try report(base, new)
        // scipy.stats.gmean([1.5, 0.5, 2.0]) = 1.1447142425533319
        #expect(close(result.geometricMean, 1.1447142425533319, 1e-12))
        #expect(result.families.count == 3)
    }

    @Test func benchmarksInOneFileOnlyAreListedApart() throws {
        let base = Fixtures.csv([
            FixtureBenchmark(name: "BM_Both", times: Fixtures.noisy(10)),
            FixtureBenchmark(name: "BM_Gone", times: Fixtures.noisy(10)),
        ])
        let new = Fixtures.csv([
            FixtureBenchmark(name: "BM_Both", times: Fixtures.noisy(10)),
            FixtureBenchmark(name: "BM_Added", times: Fixtures.noisy(10)),
        ])
        let result = try report(base, new)
        #expect(result.comparisons.map(\.name) == ["BM_Both"])
        #expect(result.onlyInBase == ["BM_Gone"])
        #expect(result.onlyInNew == ["BM_Added"])
        #expect(result.exitCode == 0)
    }

    @Test func errorRowsAreListedAndWarned() throws {
        let base = Fixtures.csv([FixtureBenchmark(name: "BM_A", times: Fixtures.noisy(10))])
        let new = Fixtures.csv([
            FixtureBenchmark(name: "BM_A", times: Fixtures.noisy(10)),
            FixtureBenchmark(name: "BM_B", times: [], error: "timed out"),
        ])
        let result = try report(base, new)
        #expect(result.errored.map(\.benchmark) == ["BM_B"])
        #expect(result.errored.first?.file == "new.csv")
        #expect(result.warnings.contains { $0.contains("error_occurred") })
        #expect(result.onlyInBase.isEmpty && result.onlyInNew.isEmpty)
    }

    // MARK: - Repetition counts

    @Test func fewRepetitionsAreWarnedAbout() throws {
        let base = Fixtures.csv([FixtureBenchmark(name: "BM_A", times: [10, 11, 12, 13, 14])])
        let new = Fixtures.csv([FixtureBenchmark(name: "BM_A", times: [20, 21, 22, 23, 24])])
        let result = try report(base, new)
        let comparison = try #require(result.comparisons.first)
        #expect(comparison.fewRepetitions)
        #expect(!comparison.thresholdOnly)  // 2 / C(10, 5) < 0.05: the exact test can decide
        #expect(comparison.test?.method == .exact)
        // scipy: mannwhitneyu([10..14], [20..24]) -> U 0, p 0.007936507936507936
        #expect(close(comparison.test?.pValue, 0.007936507936507936))
        #expect(comparison.verdict == .slower)
        #expect(result.warnings.contains { $0.contains("9+ repetitions recommended") })
    }

    @Test func singleRunsFallBackToTheThreshold() throws {
        let base = Fixtures.csv([
            FixtureBenchmark(name: "BM_A", times: [100]), FixtureBenchmark(name: "BM_B", times: [100]),
        ])
        let new = Fixtures.csv([
            FixtureBenchmark(name: "BM_A", times: [150]), FixtureBenchmark(name: "BM_B", times: [103]),
        ])
        let result = try report(base, new)
        #expect(result.comparisons.map(\.verdict) == [.slower, .noSignificantChange])
        #expect(result.comparisons.allSatisfy { $0.thresholdOnly })
        #expect(result.warnings.contains { $0.contains("threshold alone") })
        #expect(result.exitCode == 1)
    }

    @Test func aggregateOnlyFilesUseTheMedianWithoutATest() throws {
        let base = Fixtures.suite()
        let aggregatesOnly = base.split(separator: "\n", omittingEmptySubsequences: false)
            .filter {
                !$0.hasPrefix("\"") || $0.contains("_mean\"") || $0.contains("_median\"")
                    || $0.contains("_stddev\"") || $0.contains("_cv\"")
            }
            .joined(separator: "\n")
        let result = try report(base, aggregatesOnly)
        #expect(result.comparisons.count == 5)
        #expect(result.comparisons.allSatisfy { $0.new.source == .medianAggregate && $0.test == nil })
        #expect(result.comparisons.allSatisfy { $0.verdict == .noSignificantChange })
    }

    // MARK: - Metrics and direction

    @Test func counterMetricIsComparedAsWritten() throws {
        let base = Fixtures.csv([
            FixtureBenchmark(name: "BM_A", times: Fixtures.noisy(10), counters: ["wakeups_per_fire": Fixtures.noisy(1)])
        ])
        let new = Fixtures.csv([
            FixtureBenchmark(name: "BM_A", times: Fixtures.noisy(10), counters: ["wakeups_per_fire": Fixtures.noisy(2)])
        ])
        let result = try report(base, new, ComparisonSettings(metric: Metric("wakeups_per_fire")))
        #expect(result.unit == nil)
        #expect(!result.higherIsBetter)
        #expect(result.comparisons.first?.verdict == .slower)
    }

    @Test func perSecondCountersAreHigherIsBetter() throws {
        let base = Fixtures.csv([
            FixtureBenchmark(
                name: "BM_A", times: Fixtures.noisy(10), counters: ["items_per_second": Fixtures.noisy(1e6)])
        ])
        let new = Fixtures.csv([
            FixtureBenchmark(
                name: "BM_A", times: Fixtures.noisy(10), counters: ["items_per_second": Fixtures.noisy(2e6)])
        ])
        let auto = try report(base, new, ComparisonSettings(metric: Metric("items_per_second")))
        #expect(auto.higherIsBetter)
        #expect(auto.comparisons.first?.verdict == .faster)
        #expect(auto.exitCode == 0)
        let forced = try report(
            base, new, ComparisonSettings(metric: Metric("items_per_second"), higherIsBetter: false))
        #expect(forced.comparisons.first?.verdict == .slower)
        let down = try report(new, base, ComparisonSettings(metric: Metric("items_per_second")))
        #expect(down.comparisons.first?.verdict == .slower)
        #expect(down.exitCode == 1)
    }

    @Test func cpuTimeMetric() throws {
        let suite = Fixtures.suite()
        let result = try report(suite, Fixtures.scaleTimes(suite, by: 1.5), ComparisonSettings(metric: .cpuTime))
        #expect(result.metric == "cpu_time")
        #expect(result.comparisons.allSatisfy { $0.verdict == .slower })
    }

    @Test func missingCounterColumnIsBadInput() throws {
        #expect(throws: InputError.self) {
            try report(Fixtures.suite(), Fixtures.suite(), ComparisonSettings(metric: Metric("latency_p50_ns")))
        }
    }

    // MARK: - Engines

    func engines(_ text: String, _ pair: (String, String) = ("cf", "ref")) throws -> ComparisonReport {
        try Comparator.compareEngines(
            file: ResultsReader.parse(text: text, file: "engines.csv"), engines: pair,
            settings: ComparisonSettings())
    }

    static let engineFile = Fixtures.csv([
        FixtureBenchmark(name: "BM_WakeLatency/engine:cf/pin:same", unit: "us", times: Fixtures.noisy(10)),
        FixtureBenchmark(name: "BM_WakeLatency/engine:ref/pin:same", unit: "us", times: Fixtures.noisy(12)),
        FixtureBenchmark(name: "BM_WakeLatency/engine:cf/pin:other", unit: "us", times: Fixtures.noisy(20)),
        FixtureBenchmark(name: "BM_WakeLatency/engine:ref/pin:other", unit: "ns", times: Fixtures.noisy(20000)),
        FixtureBenchmark(name: "BM_TimerFire/engine:cf/64", times: Fixtures.noisy(500)),
        FixtureBenchmark(name: "BM_TimerFire/engine:ref/64", times: Fixtures.noisy(250)),
        FixtureBenchmark(name: "BM_TimerFire/engine:cf/1024", times: Fixtures.noisy(900)),
        FixtureBenchmark(name: "BM_TimerFire/engine:ref/4096", times: Fixtures.noisy(900)),
        FixtureBenchmark(name: "BM_Other/8", times: Fixtures.noisy(900)),
    ])

    @Test func enginesArePairedByFamilyAndParameters() throws {
        let result = try engines(Self.engineFile)
        #expect(result.mode == .engines)
        // Rows sorted by name, numbers by value.
        #expect(
            result.comparisons.map(\.name) == [
                "BM_TimerFire/64", "BM_WakeLatency/pin:other", "BM_WakeLatency/pin:same",
            ])
        #expect(result.comparisons.map(\.verdict) == [.faster, .noSignificantChange, .slower])
        #expect(close(result.comparisons[2].ratio, 1.2, 1e-12))
        #expect(close(result.comparisons[1].ratio, 1, 1e-12))  // µs against ns
        #expect(close(result.comparisons[0].ratio, 0.5, 1e-12))
        #expect(result.onlyInBase == ["BM_TimerFire/1024"])
        #expect(result.onlyInNew == ["BM_TimerFire/4096"])
        #expect(result.families.map(\.family) == ["BM_TimerFire", "BM_WakeLatency"])
        #expect(close(result.families[1].geometricMean, 1.2.squareRoot(), 1e-12))
        #expect(result.base.label == "cf" && result.new.label == "ref")
        #expect(result.warnings.contains { $0.contains("ignored") })
        #expect(result.exitCode == 1)
    }

    @Test func enginesOrderGivesTheInverseRatio() throws {
        let result = try engines(Self.engineFile, ("ref", "cf"))
        #expect(close(result.comparisons.first { $0.name == "BM_WakeLatency/pin:same" }?.ratio, 1 / 1.2, 1e-12))
    }

    @Test func unknownEngineIsBadInput() throws {
        do {
            _ = try engines(Self.engineFile, ("cf", "nope"))
            Issue.record("expected an error")
        } catch let error as InputError {
            #expect(error.kind == .invalidArgument)
            #expect(error.field == "--engines")
            #expect(error.detail.contains("cf, ref"))
        }
    }
}
