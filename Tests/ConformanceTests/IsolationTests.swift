// Process isolation checks itself with the test worker's `faulty` engine: a case whose engine aborts, segfaults or
// exits is CRASH with how it ended and its last trace lines, a case that hangs is TIMEOUT with its process killed, and
// in both the next case runs in a fresh worker and passes.

import ConformanceTestSupport
import Engines
import Foundation
import Testing

@testable import ConformanceKit

@Suite("Process isolation", .serialized)
struct IsolationTests {
    /// Three cases that pass on `ref`; the faulty engine is told to misbehave in the middle one.
    static let spec: String = {
        func pollCase(_ id: String) -> String {
            """
              - id: \(id)
                rule: A poll pass in a mode with a source reports Entry, BeforeTimers, BeforeSources, Exit.
                source: observed
                items: {o: observer, s: source0}
                steps: [{add: o}, {add: s}, run]
                expect: [run default, o.entry, o.beforeTimers, o.beforeSources, o.exit, return timedOut]

            """
        }
        let text = "spec_version: 1\ncases:\n" + ["iso.before", "iso.faulty", "iso.after"].map(pollCase).joined()
        let path = NSTemporaryDirectory() + "runloop-isolation-\(getpid()).yaml"
        try? text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }()

    static func run(
        faults: String, timeout: Double = 5,
        expectations: [String: EngineExpectations] = [:]
    ) throws -> ConformanceReport {
        let cases = try SpecLoader.load(path: spec).flatMap(\.cases)
        let runner = IsolatedRunner(launcher: TestWorker.launcher(faults: faults), defaultTimeout: timeout)
        return runner.run(
            cases: cases, specPath: spec, engines: [TestWorker.engine("faulty")],
            expectations: expectations)
    }

    @Test func theWorkerListsItsEngines() throws {
        let engines = try IsolatedRunner.listEngines(TestWorker.launcher())
        // The built-in engines, then the test worker's own.
        #expect(engines.map(\.name) == BuiltinEngines.all.map(\.name) + ["faulty", "planted", "silent-observers"])
        #expect(engines.first { $0.name == "ref" }?.features.contains(.source1) == true)
    }

    @Test(
        "an engine that ends its process is CRASH, and the run goes on",
        arguments: [
            ("abort", "killed by SIGABRT (signal 6)"), ("segv", "killed by SIGSEGV (signal 11)"),
            ("exit", "exited with status 3"),
        ])
    func crashIsOneCase(fault: String, how: String) throws {
        let report = try Self.run(faults: "\(fault)=iso.faulty")
        #expect(report.outcomes.map(\.status) == [.pass, .crash, .pass])
        let crashed = try #require(report.outcome(caseID: "iso.faulty", engine: "faulty"))
        #expect(
            crashed.detail?.contains("the worker process \(how) during the case") == true, "\(crashed.detail ?? "")")
        #expect(crashed.actualTrace == ["run default"])
        #expect(crashed.detail?.contains("  run default") == true)
        if fault != "exit" {
            // Swift's backtracer names the crash and the crashed thread, whose top frame is the fault's.
            #expect(crashed.detail?.contains("Program crashed") == true, "\(crashed.detail ?? "")")
            #expect(crashed.detail?.contains("crashed:") == true)
        }
        #expect(!report.allMeetExpectations)
    }

    @Test func aHangIsTimeoutAndItsProcessIsKilled() throws {
        let report = try Self.run(faults: "hang=iso.faulty", timeout: 1)
        #expect(report.outcomes.map(\.status) == [.pass, .timeout, .pass])
        let hung = try #require(report.outcome(caseID: "iso.faulty", engine: "faulty"))
        #expect(hung.detail?.contains("no result after 1.0 s; the worker process was killed") == true)
        #expect(hung.actualTrace == ["run default"])
        // No worker of this spec is left: the hung one was killed and the last one ended when its input closed.
        #expect(Self.workersServing(Self.spec).isEmpty)
    }

    @Test func anExpectedCrashMeetsItsExpectation() throws {
        let entry = EngineExpectations.Entry(
            status: .crash, reason: "known to crash here",
            location: SpecLocation(file: "x", line: 1))
        let report = try Self.run(
            faults: "abort=iso.faulty",
            expectations: ["faulty": EngineExpectations(engine: "faulty", entries: ["iso.faulty": entry])])
        #expect(report.allMeetExpectations)
        #expect(ReportFormat.json.render(report).contains("\"CRASH\" : 1"))
    }

    @Test func reportsNameTheCrash() throws {
        let report = try Self.run(faults: "segv=iso.faulty")
        #expect(ReportFormat.table.render(report).contains("CRASH: iso.faulty on faulty (expected PASS)"))
        #expect(ReportFormat.json.render(report).contains("\"CRASH\" : 1"))
        let junit = ReportFormat.junit.render(report)
        #expect(junit.contains(#"errors="1""#))
        #expect(junit.contains(#"<error message="CRASH, expected PASS">"#))
    }

    @Test func somethingThatIsNotAWorkerIsAClearError() {
        #expect {
            try IsolatedRunner.listEngines(WorkerLauncher(executable: "/nonexistent/worker"))
        } throws: { error in
            "\(error)".contains("cannot start /nonexistent/worker")
        }
        #expect {
            try IsolatedRunner.listEngines(WorkerLauncher(executable: "/bin/true"))
        } throws: { error in
            "\(error)".contains("/bin/true is not a conformance worker: it exited with status 0")
        }
    }

    @Test func casesDealtToSeveralWorkersKeepSpecOrderAndIsolation() throws {
        // Seven cases over three workers: worker 0 gets cases 0, 3, 6, worker 1 gets 1, 4 (the abort), worker 2 gets
        // 2, 5. The report is in spec order with each case's own outcome, the crash costs one case, and the worker
        // that crashed is replaced for the case after it.
        let base = try SpecLoader.load(path: Self.spec).flatMap(\.cases)
        let cases = (0..<7).map { index -> SpecCase in
            var copy = base[index == 4 ? 1 : 0]
            copy.id = index == 4 ? "iso.faulty" : "iso.before"
            return copy
        }
        var runner = IsolatedRunner(launcher: TestWorker.launcher(faults: "abort=iso.faulty"), defaultTimeout: 5)
        runner.jobs = 3
        let report = runner.run(
            cases: cases, specPath: Self.spec, engines: [TestWorker.engine("faulty")],
            expectations: [:])
        #expect(report.outcomes.map(\.caseID) == cases.map(\.id))
        #expect(report.outcomes.map(\.status) == [.pass, .pass, .pass, .pass, .crash, .pass, .pass])
    }

    @Test func aWorkerThatCannotStartMakesErrorsNotAHang() throws {
        let cases = try SpecLoader.load(path: Self.spec).flatMap(\.cases)
        let runner = IsolatedRunner(launcher: TestWorker.launcher(), defaultTimeout: 5)
        // Each case tries a new worker until three in a row have failed; after that cases are ERROR at once.
        let report = runner.run(
            cases: cases + cases, specPath: Self.spec, engines: [TestWorker.engine("no-such-engine")],
            expectations: [:])
        #expect(report.outcomes.map(\.status) == Array(repeating: .error, count: 6))
        #expect(report.outcomes[2].detail?.contains("this worker has no engine 'no-such-engine'") == true)
        #expect(report.outcomes[3].detail?.contains("after 3 failed starts") == true)
    }

    /// Processes whose command line names `specPath` (the workers of that spec still running).
    static func workersServing(_ specPath: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { $0.allSatisfy(\.isNumber) }.filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: data, as: UTF8.self).contains(specPath)
        }
    }
}
