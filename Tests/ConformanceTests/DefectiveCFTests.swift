// The spec against a CoreFoundation that is wrong on purpose: Tests/DefectiveCF/defective_cf.c, built here with the
// toolchain's clang into a temporary directory and run through `cf:PATH`. It forwards every call to the toolchain's
// CoreFoundation and breaks the behaviours DEFECTIVE_CF names (the worker processes inherit the variable through
// their launcher's environment). Each defect must change the outcome of the cases that exercise it and no other, and
// the suite must cause no CRASH of its own: the only crash allowed is the one the library raises on purpose.
//
// Without a defect the library still differs from the toolchain's in one way: it brings its own blocks runtime (as
// GNUstep's libs-corebase bound to libgnustep-base's), so the block cases prove that the blocks the suite hands to a
// library work with any runtime.

import ConformanceKit
import ConformanceTestSupport
import EngineKit
import Foundation
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: clang)
        process.arguments = ["-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-o", output, source, "-ldl", "-lpthread"]
        do { try process.run() } catch { return .failure(BuildError("cannot run \(clang): \(error)")) }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .failure(BuildError("\(clang) failed on \(source) (status \(process.terminationStatus))"))
        }
        return .success(output)
    }()

    struct BuildError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The spec's cases matching `filter` on the library with `defects` (DEFECTIVE_CF), each case's watchdog at most
    /// `limit` seconds (a defect that loses a stop makes cases wait for their watchdog).
    static func run(defects: String, filter: String?, limit: Double = 2) throws -> [String: CaseOutcome] {
        let path = try library.get()
        let launcher = WorkerLauncher(executable: TestWorker.path, environment: ["DEFECTIVE_CF": defects])
        var request = ShippedSpec.request
        request.expectationsPath = nil
        request.filter = filter
        request.timeout = limit
        let engine = try IsolatedRunner.describeEngine(launcher, selector: "cf:" + path)
        let report = try Conformance.run(request, launcher: launcher, engines: [engine])
        return Dictionary(uniqueKeysWithValues: report.outcomes.map { ($0.caseID, $0) })
    }

    /// `cf`'s outcomes of the same cases, to compare with.
    static func builtIn(filter: String?) throws -> [String: CaseOutcome] {
        var request = ShippedSpec.request
        request.expectationsPath = nil
        request.filter = filter
        let report = try Conformance.run(request, launcher: TestWorker.launcher(), engines: [TestWorker.engine("cf")])
        return Dictionary(uniqueKeysWithValues: report.outcomes.map { ($0.caseID, $0) })
    }

    /// Whether any expected trace line of the case is one of its observers' (`o.entry`, `o.beforeWaiting`, ...).
    static func hasObserveLine(_ specCase: SpecCase) -> Bool {
        let observers = Set(specCase.items.compactMap { item -> String? in
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

    static func has(_ specCase: SpecCase, _ match: (Action) -> Bool) -> Bool { specCase.allActions.contains(where: match) }
}

@Suite("Defective CoreFoundation", .serialized)
struct DefectiveCFTests {
    /// The cases whose status differs from `cf`'s, checking that no CRASH is the suite's.
    func changed(_ defects: String, filter: String, limit: Double = 2,
                 crashesAllowed: Bool = false) throws -> [String] {
        let outcomes = try DefectiveCF.run(defects: defects, filter: filter, limit: limit)
        let reference = try DefectiveCF.builtIn(filter: filter)
        #expect(outcomes.count == reference.count && !outcomes.isEmpty)
        for outcome in outcomes.values where outcome.status == .crash || outcome.status == .error {
            // A crash may only be the library's own abort, which names itself on stderr.
            #expect(crashesAllowed && outcome.status == .crash && (outcome.detail ?? "").contains("defective_cf:"),
                    "\(defects): \(outcome.caseID) \(outcome.status.rawValue)\n\(outcome.detail ?? "")")
        }
        return outcomes.values.filter { $0.status != reference[$0.caseID]?.status }.map(\.caseID).sorted()
    }

    @Test func withoutDefectsEveryCaseIsAsOnCF() throws {
        // The whole spec, main-thread cases and block cases (through the library's own blocks runtime) included.
        let outcomes = try DefectiveCF.run(defects: "", filter: nil, limit: ShippedSpec.request.timeout)
        let reference = try DefectiveCF.builtIn(filter: nil)
        #expect(outcomes.count == ShippedSpec.caseIDs.count)
        for (id, outcome) in outcomes {
            #expect(outcome.status == reference[id]?.status,
                    "\(id): \(outcome.status.rawValue), on cf \(reference[id]?.status.rawValue ?? "-")\n\(outcome.detail ?? "")")
        }
    }

    @Test func observersDeadFailsEveryCaseWithAnObserveLine() throws {
        let changed = try changed("observers-dead", filter: "observer.*")
        let cases = ShippedSpec.cases.values.filter { $0.id.hasPrefix("observer.") }
        for specCase in cases {
            #expect(changed.contains(specCase.id) == DefectiveCF.hasObserveLine(specCase), "\(specCase.id)")
        }
    }

    @Test func timersFireAtOnceChangesOnlyCasesWithFutureTimers() throws {
        let changed = try changed("timers-fire-at-once", filter: "timer.*")
        #expect(!changed.isEmpty)
        for id in changed {
            let specCase = try #require(ShippedSpec.cases[id])
            #expect(DefectiveCF.timers(specCase).contains { $0.fire > 0 }, "\(id) has no timer due later")
        }
    }

    @Test func repeatingNoAdvanceChangesOnlyCasesWithRepeatingTimers() throws {
        let changed = try changed("repeating-no-advance", filter: "timer.*")
        #expect(!changed.isEmpty)
        for id in changed {
            let specCase = try #require(ShippedSpec.cases[id])
            #expect(DefectiveCF.timers(specCase).contains { $0.interval > 0 }, "\(id) has no repeating timer")
        }
    }

    @Test func stopNoWakeChangesOnlyCasesThatStopFromAnotherThread() throws {
        let changed = try changed("stop-no-wake", filter: "stop.*")
        #expect(!changed.isEmpty)
        for id in changed {
            let specCase = try #require(ShippedSpec.cases[id])
            // A stop sent from a helper thread, or from this thread to another loop (a posted stop runs on the loop's own
            // thread).
            let crossThread = DefectiveCF.has(specCase) { action in
                switch action {
                case .thread(_, let inner), .target(_, let inner):
                    return inner.contains { if case .stop = $0 { return true } else { return false } }
                default: return false
                }
            }
            #expect(crossThread, "\(id) sends no stop from another thread")
        }
    }

    @Test func signalUnscheduledCrashCrashesOnlyCasesThatSignal() throws {
        let changed = try changed("signal-unscheduled-crash", filter: "source.*", crashesAllowed: true)
        #expect(!changed.isEmpty)
        for id in changed {
            let specCase = try #require(ShippedSpec.cases[id])
            #expect(DefectiveCF.has(specCase) { if case .signal = $0 { return true } else { return false } }, "\(id)")
        }
    }

    @Test func severalDefectsAtOnce() throws {
        let both = try changed("observers-dead,timers-fire-at-once", filter: "observer.*")
        let observers = try changed("observers-dead", filter: "observer.*")
        #expect(Set(observers).isSubset(of: Set(both)))
    }
}
