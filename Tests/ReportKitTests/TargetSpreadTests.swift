// `runloop report RUN1.csv RUN2.csv ...`: each target's figure across files, its spread against the room its bound
// leaves, and whether the verdict held in every file.
import BenchTestSupport
import Foundation
import Testing

@testable import ReportKit
@testable import ResultsKit

@Suite struct TargetSpreadTests {
    /// The report fixture with ref's same-CPU, unloaded wake mean set to `mean` (the floor's is 3,950 ns).
    static func report(refSameNone mean: Double) throws -> BenchReport {
        let benchmarks = ReportTests.benchmarks().map { benchmark -> FixtureBenchmark in
            guard benchmark.name == "BM_WakeLatency/engine:ref/pin:same/load:none/manual_time" else { return benchmark }
            var changed = benchmark
            changed.times = Fixtures.noisy(mean)
            changed.counters["latency_mean_ns"] = Fixtures.noisy(mean)
            return changed
        }
        return try ReportTests.report(benchmarks)
    }

    static func row(_ spread: TargetSpread, _ id: String, _ variant: String) -> TargetSpreadRow? {
        spread.rows.first { $0.target.id == id && $0.variant == variant }
    }

    @Test func aFigureThatMovesAcrossTheBoundIsAnUnstableVerdict() throws {
        // 3,990 / 3,950 = 1.010x (met), 4,150 / 3,950 = 1.051x (missed): a spread of about 4 % against the 3 % room
        // of `<= 1.03x`.
        let means: [Double] = [3990, 4150, 4000]
        let reports = try means.map { try Self.report(refSameNone: $0) }
        let spread = TargetSpread(files: ["a.csv", "b.csv", "c.csv"], reports: reports)
        let row = try #require(Self.row(spread, "wake.same.epoll", "pin:same/load:none"))
        #expect(row.values.count == 3)
        #expect(row.statuses == [.met, .missed, .met])
        #expect(!row.verdictStable)
        let room = try #require(row.boundMargin)
        #expect(abs(room - 0.03) < 1e-9)
        let moved = try #require(row.spread)
        #expect(moved > room)
        // The other variant of the target did not change between the files: spread 0, verdict stable.
        let other = try #require(Self.row(spread, "wake.same.epoll", "pin:same/load:idle1000"))
        #expect(other.verdictStable)
        #expect(other.spread == 0)
        let text = spread.text()
        #expect(text.contains("targets across 3 files"))
        #expect(text.contains("wake.same.epoll"))
        #expect(text.contains("met 2, missed 1"))
        // The median (4,000 / 3,950 = 1.0127x) is 1.7 % from the bound, less than the 4 % the figure moved: a verdict
        // the noise can flip; the unchanged variant (spread 0) is settled.
        let distance = try #require(row.distanceToBound)
        #expect(abs(distance - (1.03 - 4000.0 / 3950) / 1.03) < 1e-9 && moved > distance)
        let judged = spread.rows.filter { $0.bound != nil && $0.spread != nil && $0.distanceToBound != nil }
        let settled = judged.filter { $0.spread! < $0.distanceToBound! }.count
        #expect(settled < judged.count)
        #expect(
            text.contains("\(settled) of \(judged.count) moved less than the distance from their median to their bound")
        )
    }

    @Test func theToolTakesSeveralFilesAndRefusesAPageForThem() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spread-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String] = []
        for index in 0..<2 {
            let path = directory.appendingPathComponent("run\(index).csv").path
            try ReportTests.results().write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
        }
        let targets = repositoryRoot.appendingPathComponent("Benchmarks/targets.yaml").path
        let outcome = ReportTool.run(ReportOptions(file: paths[0], moreFiles: [paths[1]], targetsPath: targets))
        #expect(outcome.exitCode == 0)
        #expect(outcome.output.contains("targets across 2 files"))
        let page = ReportTool.run(
            ReportOptions(
                file: paths[0], moreFiles: [paths[1]], targetsPath: targets,
                htmlPath: directory.appendingPathComponent("p.html").path))
        #expect(page.exitCode == InputError.exitStatus)
        #expect(page.diagnostics.joined().contains("--html"))
    }
}
