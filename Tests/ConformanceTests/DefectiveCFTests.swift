// The spec against a CoreFoundation that is wrong on purpose: Tests/DefectiveCF/defective_cf.c, built here with the
// toolchain's clang into a temporary directory and run through `cf:PATH`. It forwards every call to the toolchain's
// CoreFoundation and breaks the behaviours DEFECTIVE_CF names (the worker processes inherit the variable through
// their launcher's environment). Each defect must change the outcome of the cases that exercise it and no other, and
// the suite must cause no CRASH of its own: the only crash allowed is the one the library raises on purpose. The
// triage must name each defect in its top cluster, above the tolerance cases the library fails as the toolchain's
// CoreFoundation does (a known defect, expectations/cf.yaml). Each defect runs once on the areas it changes (a short
// watchdog where it makes cases hang) and `cf` once on the whole spec; the tests share those runs.
//
// Without a defect the library still differs from the toolchain's in one way: it brings its own blocks runtime (as
// GNUstep's libs-corebase bound to libgnustep-base's), so the block cases prove that the blocks the suite hands to a
// library work with any runtime.

import ConformanceKit
import ConformanceTestSupport
import EngineKit
import Foundation
import ProcessTestSupport
import Synchronization
import Testing

enum DefectiveCF {
    /// The built library's path, or why it could not be built.
    static let library: Result<String, BuildError> = {
        guard let foundation = ToolchainFoundation.path else { return .failure(BuildError("no libFoundation.so")) }
        // <toolchain>/usr/lib/swift/linux/libFoundation.so -> <toolchain>/usr/bin/clang
        let usr = URL(fileURLWithPath: foundation).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let clang = usr.appendingPathComponent("bin/clang").path
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("DefectiveCF/defective_cf.c").path
        let directory = NSTemporaryDirectory() + "runloop-defective-cf-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let output = directory + "/libDefectiveCF.so"
        let arguments = ["-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-o", output, source, "-ldl", "-lpthread"]
        let compiled: (status: Int32, stdout: String, stderr: String)
        do { compiled = try TestProcess.run(clang, arguments, deadline: 300) } catch {
            return .failure(BuildError("cannot run \(clang): \(error)"))
        }
        guard compiled.status == 0 else {
            return .failure(BuildError("\(clang) failed on \(source) (status \(compiled.status)): \(compiled.stderr)"))
        }
        return .success(output)
    }()

    struct BuildError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs already made, by defects, watchdog and globs: the per-defect tests share them (the suite runs one test
    /// at a time; the lock keeps the cache whole all the same).
    static let runs = Mutex<[String: ConformanceReport]>([:])

    /// The report of the spec's cases matching any of `globs` on the library with `defects` (DEFECTIVE_CF), each
    /// case's watchdog at most `limit` seconds (a defect that loses a stop makes cases wait for their watchdog), with
    /// the shipped reference expectations (`cf`'s known defects) for the triage. Made once per arguments. With
    /// `workers` above 1 the cases are dealt out to that many worker processes running at once (for a defect that
    /// makes cases hang, whose watchdogs then wait side by side); the report keeps spec order.
    static func report(
        defects: String, globs: [String], limit: Double = 1,
        workers: Int = 1
    ) throws -> ConformanceReport {
        let key = "\(defects)|\(limit)|\(globs.joined(separator: ","))"
        if let made = runs.withLock({ $0[key] }) { return made }
        let path = try library.get()
        let launcher = WorkerLauncher(executable: TestWorker.path, environment: ["DEFECTIVE_CF": defects])
        let cases = try ShippedSpec.loaded.get().filter { specCase in
            globs.contains { fnmatch($0, specCase.id, 0) == 0 }
        }
        let engine = try IsolatedRunner.describeEngine(launcher, selector: "cf:" + path)
        var runner = IsolatedRunner(launcher: launcher, defaultTimeout: limit)
        runner.jobs = workers
        var report = runner.run(
            cases: cases, specPath: ShippedSpec.request.specPath, engines: [engine],
            expectations: [:])
        report.referenceExpectations = try Conformance.loadReferenceExpectations(ShippedSpec.request)
        runs.withLock { $0[key] = report }
        return report
    }

    /// The outcomes of `report` by case id.
    static func byID(_ report: ConformanceReport) -> [String: CaseOutcome] {
        Dictionary(uniqueKeysWithValues: report.outcomes.map { ($0.caseID, $0) })
    }

    /// `cf`'s outcomes of every case, to compare with: one run for every test, the one the shipped-spec tests check
    /// (``ShippedSpec/cfOutcome(_:)``).
    static let builtIn: Result<[String: CaseOutcome], Error> = Result {
        Dictionary(uniqueKeysWithValues: try ShippedSpec.loaded.get().map { ($0.id, try ShippedSpec.cfOutcome($0)) })
    }

    /// Whether the case sends a stop from a helper thread, or from this thread to another loop (a posted stop runs
    /// on the loop's own thread).
    static func stopsFromAnotherThread(_ specCase: SpecCase) -> Bool {
        has(specCase) { action in
            switch action {
            case .thread(_, let inner), .target(_, let inner):
                return inner.contains { if case .stop = $0 { return true } else { return false } }
            default: return false
            }
        }
    }

    /// Whether any expected trace line of the case is one of its observers' (`o.entry`, `o.beforeWaiting`, ...).
    static func hasObserveLine(_ specCase: SpecCase) -> Bool {
        let observers = Set(
            specCase.items.compactMap { item -> String? in
                if case .observer = item.kind { return item.name }
                return nil
            })
        return specCase.expectedTrace.contains { line in
            guard let dot = line.firstIndex(of: ".") else { return false }
            return observers.contains(String(line[..<dot]))
        }
    }

    static func timers(_ specCase: SpecCase) -> [(fire: Double, interval: Double)] {
        specCase.items.compactMap { item in
            if case .timer(let fire, let interval, _, _) = item.kind { return (fire, interval) }
            return nil
        }
    }

    static func has(_ specCase: SpecCase, _ match: (Action) -> Bool) -> Bool {
        specCase.allActions.contains(where: match)
    }
}

@Suite("Defective CoreFoundation", .serialized)
struct DefectiveCFTests {
    /// The cases whose status differs from `cf`'s, checking that no CRASH is the suite's.
    func changed(
        _ defects: String, globs: [String], limit: Double = 1, workers: Int = 1,
        crashesAllowed: Bool = false
    ) throws -> [String] {
        let all = DefectiveCF.byID(
            try DefectiveCF.report(
                defects: defects, globs: globs, limit: limit,
                workers: workers))
        let reference = try DefectiveCF.builtIn.get()
        #expect(!all.isEmpty && all.keys.allSatisfy { reference[$0] != nil })
        // A result the moving wall clock left unjudged (ERROR) is the machine's: left out of both checks.
        let outcomes = all.filter { !WallClock.leftUnjudged($0.value) }
        for outcome in outcomes.values where outcome.status == .crash || outcome.status == .error {
            // A crash may only be the library's own abort, which names itself on stderr.
            #expect(
                crashesAllowed && outcome.status == .crash && (outcome.detail ?? "").contains("defective_cf:"),
                "\(defects): \(outcome.caseID) \(outcome.status.rawValue)\n\(outcome.detail ?? "")")
        }
        return outcomes.values.filter { $0.status != reference[$0.caseID]?.status }.map(\.caseID).sorted()
    }

    @Test func withoutDefectsEveryCaseIsAsOnCF() throws {
        // The whole spec, main-thread cases and block cases (through the library's own blocks runtime) included.
        let outcomes = DefectiveCF.byID(
            try DefectiveCF.report(
                defects: "", globs: ["*"],
                limit: ShippedSpec.request.timeout))
        let reference = try DefectiveCF.builtIn.get()
        #expect(outcomes.count == ShippedSpec.caseIDs.count)
        for (id, outcome) in outcomes {
            #expect(
                outcome.status == reference[id]?.status,
                "\(id): \(outcome.status.rawValue), on cf \(reference[id]?.status.rawValue ?? "-")\n\(outcome.detail ?? "")"
            )
        }
    }

    /// The areas each defect is run on: those whose cases it changes, and the tolerance cases, which the library
    /// fails as the toolchain's CoreFoundation does (a known defect, `expectations/cf.yaml`).
    static let observerAreas = ["observer.*", "timer.tolerance.*"]
    static let timerAreas = ["timer.*"]
    static let stopAreas = ["stop.*", "timer.tolerance.*"]
    static let sourceAreas = ["source.*", "timer.tolerance.*"]
    static let allFive = "observers-dead,stop-no-wake,timers-fire-at-once,repeating-no-advance,signal-unscheduled-crash"

    @Test func observersDeadFailsEveryCaseWithAnObserveLine() throws {
        let changed = try changed("observers-dead", globs: Self.observerAreas, workers: 3)
        let cases = ShippedSpec.cases.values.filter { $0.id.hasPrefix("observer.") }
        for specCase in cases {
            #expect(changed.contains(specCase.id) == DefectiveCF.hasObserveLine(specCase), "\(specCase.id)")
        }
    }

    /// Running the shipped cases of `globs` with `defects` changes some of their results, and only those of cases
    /// `that` holds for (`what` says what such a case has, for the message).
    func expectChangesOnly(
        _ defects: String, globs: [String], limit: Double = 1, workers: Int = 1,
        crashesAllowed: Bool = false, _ what: String,
        that: (SpecCase) -> Bool
    ) throws {
        let changed = try changed(defects, globs: globs, limit: limit, workers: workers, crashesAllowed: crashesAllowed)
        #expect(!changed.isEmpty)
        for id in changed {
            #expect(that(try #require(ShippedSpec.cases[id])), "\(id) \(what)")
        }
    }

    @Test func timersFireAtOnceChangesOnlyCasesWithFutureTimers() throws {
        try expectChangesOnly("timers-fire-at-once", globs: Self.timerAreas, limit: 2, "has no timer due later") {
            DefectiveCF.timers($0).contains { $0.fire > 0 }
        }
    }

    @Test func repeatingNoAdvanceChangesOnlyCasesWithRepeatingTimers() throws {
        try expectChangesOnly("repeating-no-advance", globs: Self.timerAreas, limit: 2, "has no repeating timer") {
            DefectiveCF.timers($0).contains { $0.interval > 0 }
        }
    }

    @Test func stopNoWakeChangesOnlyCasesThatStopFromAnotherThread() throws {
        try expectChangesOnly("stop-no-wake", globs: Self.stopAreas, workers: 3, "sends no stop from another thread") {
            DefectiveCF.stopsFromAnotherThread($0)
        }
    }

    @Test func signalUnscheduledCrashCrashesOnlyCasesThatSignal() throws {
        try expectChangesOnly(
            "signal-unscheduled-crash", globs: Self.sourceAreas, limit: 2, crashesAllowed: true,
            "signals no source"
        ) {
            DefectiveCF.has($0) { if case .signal = $0 { return true } else { return false } }
        }
    }

    @Test func severalDefectsAtOnce() throws {
        let both = try changed("observers-dead,timers-fire-at-once", globs: Self.observerAreas, workers: 3)
        let observers = try changed("observers-dead", globs: Self.observerAreas, workers: 3)
        #expect(Set(observers).isSubset(of: Set(both)))
    }

    // MARK: The triage names each defect (Triage.swift, INTERPRETING.md "Reading a run: triage")

    /// The triage of a run, with its clusters listed for a failing expectation's message.
    static func triage(_ report: ConformanceReport) -> (Triage, String) {
        let triage = Triage(report)
        return (triage, triage.clusters.prefix(8).map { "\($0.title): \($0.caseIDs.count)" }.joined(separator: "\n"))
    }

    /// The tolerance cases fail on the library as on the toolchain's CoreFoundation: one cluster, marked as that known
    /// defect with the claim of expectations/cf.yaml's reasons, listed after every cluster that is not.
    static func checkKnownTolerance(_ triage: Triage, _ listing: String) throws {
        let known = triage.clusters.filter { $0.referenceDefect != nil }
        #expect(known.count == 1, "\(listing)")
        let tolerance = try #require(known.first)
        #expect(tolerance.departure == "different query tolerance")
        let toleranceEntries = try #require(ShippedSpec.referenceExpectations).entries.filter {
            $0.value.reason.hasPrefix("CoreFoundation on Linux stores no tolerance")
        }
        #expect(!toleranceEntries.isEmpty && Set(tolerance.caseIDs) == Set(toleranceEntries.keys))
        #expect(
            tolerance.referenceDefect
                == ReferenceDefect(
                    file: "expectations/cf.yaml",
                    reason: "CoreFoundation on Linux stores no tolerance"))
        #expect(triage.clusters.last?.departure == tolerance.departure, "\(listing)")
    }

    @Test func triageNamesDeadObserversFirst() throws {
        let (triage, listing) = Self.triage(
            try DefectiveCF.report(
                defects: "observers-dead", globs: Self.observerAreas,
                workers: 3))
        let top = try #require(triage.clusters.first)
        #expect(
            Set(top.deadKinds)
                == Set(
                    [
                        "entry", "beforeTimers", "beforeSources", "beforeWaiting", "afterWaiting",
                        "exit",
                    ].map { "observer " + $0 }), "\(listing)")
        try Self.checkKnownTolerance(triage, listing)
    }

    @Test func triageNamesWaitsAStopNeverEndedFirst() throws {
        let report = try DefectiveCF.report(defects: "stop-no-wake", globs: Self.stopAreas, workers: 3)
        let (triage, listing) = Self.triage(report)
        let top = try #require(triage.clusters.first)
        // Every result hung where the expected trace goes on past the wait, and every case stops from another thread.
        #expect(top.statuses == [.timeout: top.caseIDs.count], "\(listing)")
        #expect(
            top.title == "hung (TIMEOUT) where the expected trace continues with "
                + top.departure.dropFirst("missing ".count), "\(listing)")
        #expect(["missing observer afterWaiting", "missing return stopped"].contains(top.departure), "\(listing)")
        for id in top.caseIDs {
            #expect(DefectiveCF.stopsFromAnotherThread(try #require(ShippedSpec.cases[id])), "\(id)")
        }
        try Self.checkKnownTolerance(triage, listing)
    }

    /// With `defects` on the shipped timer cases, the largest cluster departs as `departure`, every case in it has a
    /// timer `that` holds for, and the tolerance cases stay the one known defect.
    static func expectTopTimerCluster(
        _ defects: String, departure: String,
        that: ((fire: Double, interval: Double)) -> Bool
    ) throws {
        let (triage, listing) = Self.triage(try DefectiveCF.report(defects: defects, globs: Self.timerAreas, limit: 2))
        let top = try #require(triage.clusters.first)
        #expect(top.departure == departure, "\(listing)")
        for id in top.caseIDs {
            #expect(DefectiveCF.timers(try #require(ShippedSpec.cases[id])).contains(where: that), "\(id)")
        }
        try Self.checkKnownTolerance(triage, listing)
    }

    @Test func triageNamesAnEarlyTimerFireFirst() throws {
        try Self.expectTopTimerCluster("timers-fire-at-once", departure: "extra timer fire") { $0.fire > 0 }
    }

    @Test func triageNamesARepeatingTimersFireDateFirst() throws {
        try Self.expectTopTimerCluster("repeating-no-advance", departure: "different query fireDate") {
            $0.interval > 0
        }
    }

    @Test func triageNamesTheLibrarysAbortFirst() throws {
        let report = try DefectiveCF.report(defects: "signal-unscheduled-crash", globs: Self.sourceAreas, limit: 2)
        let (triage, listing) = Self.triage(report)
        let top = try #require(triage.clusters.first)
        #expect(top.title == "CRASH SIGABRT", "\(listing)")
        let outcomes = DefectiveCF.byID(report)
        for id in top.caseIDs {
            #expect(
                outcomes[id]?.detail?.contains("defective_cf: CFRunLoopSourceSignal on a source in no run loop")
                    == true, "\(id): \(outcomes[id]?.detail ?? "")")
        }
        try Self.checkKnownTolerance(triage, listing)
    }

    /// All five at once. With observers dead, a case whose stop from another thread waits for an observer's callout
    /// never sends it (the dead kinds' cluster takes it): the loop area's stops from the case thread show the lost
    /// stop.
    @Test func triageGivesEachOfFiveDefectsItsOwnClusterInTheTopFive() throws {
        let report = try DefectiveCF.report(
            defects: Self.allFive,
            globs: ["observer.*", "stop.*", "loop.*", "timer.*", "source.*"],
            workers: 3)
        let (triage, listing) = Self.triage(report)
        let top = Array(triage.clusters.prefix(5))
        let observers = top.firstIndex { $0.deadKinds.contains("observer beforeWaiting") }
        let stop = top.firstIndex { cluster in
            // Every result hung, and every case stops from another thread.
            cluster.deadKinds.isEmpty && cluster.statuses == [.timeout: cluster.caseIDs.count]
                && cluster.caseIDs.allSatisfy { ShippedSpec.cases[$0].map(DefectiveCF.stopsFromAnotherThread) == true }
        }
        let early = top.firstIndex { $0.departure == "extra timer fire" }
        let repeating = top.firstIndex { cluster in
            cluster.departure == "different query fireDate"
                && cluster.caseIDs.allSatisfy {
                    ShippedSpec.cases[$0].map { DefectiveCF.timers($0).contains { $0.interval > 0 } } == true
                }
        }
        let abort = top.firstIndex { $0.title == "CRASH SIGABRT" }
        let found = [observers, stop, early, repeating, abort]
        #expect(found.allSatisfy { $0 != nil }, "\(found)\n\(listing)")
        #expect(Set(found.compactMap { $0 }).count == 5, "\(found)\n\(listing)")
        try Self.checkKnownTolerance(triage, listing)
    }
}
