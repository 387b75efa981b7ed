// The shipped spec, case by case, on every engine: each case must meet that engine's expectation. Cases run in
// worker processes of the test worker, as `runloop conform` runs them, so an engine crash fails one case, not the suite.

import CFEngine
import ConformanceKit
import ConformanceSpec
import ConformanceTestSupport
import EngineKit
import Engines
import Foundation
import FoundationEngine
import RefEngine
import Synchronization
import Testing

/// The shipped spec, loaded once for all the parameterised tests.
enum ShippedSpec {
    static let request = ConformanceRequest(
        specPath: SpecResources.casesDirectory ?? "missing-spec-directory",
        expectationsPath: SpecResources.expectationsDirectory)

    /// The reference engine's expectations (`cf`'s known defects), as `runloop conform` gives them to the triage.
    static let referenceExpectations: EngineExpectations? = try? Conformance.loadReferenceExpectations(request)

    /// Every case, or the reason the spec does not load (reported by `specLoads`).
    static let loaded: Result<[SpecCase], Error> = Result { try Conformance.selectCases(request) }

    static let cases: [String: SpecCase] = Dictionary(
        uniqueKeysWithValues: ((try? loaded.get()) ?? []).map { ($0.id, $0) })

    /// Every case id, in spec order; a spec that does not load yields none.
    static let caseIDs: [String] = ((try? loaded.get()) ?? []).map(\.id)

    /// One worker process per engine for all its cases, as `runloop conform` runs them.
    static let sessions: [String: WorkerSession] = Dictionary(
        uniqueKeysWithValues: BuiltinEngines.catalogue.names.map {
            (
                $0,
                WorkerSession(
                    launcher: TestWorker.launcher(), specPath: request.specPath, engine: TestWorker.engine($0))
            )
        })

    static func check(_ id: String, on engine: String) throws {
        try check(id, on: [engine])
    }

    /// `cf`'s outcome of each case run so far (its expectation PASS), run once in `sessions["cf"]` for every test
    /// that compares with cf: the spec on cf here, the defective library's and the loaded library's comparisons.
    /// The lock is held while a case runs, so a case asked for from two tests at once runs once (cf's session runs
    /// one case at a time anyway).
    private static let cfOutcomes = Mutex<[String: CaseOutcome]>([:])

    struct NoCFSession: Error, CustomStringConvertible {
        var description: String { "the built-in engines have no cf" }
    }

    /// `cf`'s outcome of `specCase`, made once per test process.
    static func cfOutcome(_ specCase: SpecCase) throws -> CaseOutcome {
        guard let session = sessions["cf"] else { throw NoCFSession() }
        return cfOutcomes.withLock { made in
            if let outcome = made[specCase.id] { return outcome }
            let outcome = session.run(specCase, limit: specCase.timeout ?? request.timeout)
            made[specCase.id] = outcome
            return outcome
        }
    }

    /// Each engine's shipped expectations, loaded on first use: every case of every engine asks.
    private static let expectations = Mutex<[String: EngineExpectations]>([:])

    /// What the shipped expectations say `engine` gives on case `id` (PASS when they do not name it).
    static func expectedStatus(_ id: String, on engine: String) throws -> CaseStatus {
        let directory = try #require(request.expectationsPath)
        let loaded = try expectations.withLock { loaded in
            if let known = loaded[engine] { return known }
            let made = try EngineExpectations.load(directory: directory, engine: engine, knownIDs: Set(caseIDs))
            loaded[engine] = made
            return made
        }
        return loaded.entries[id]?.status ?? .pass
    }

    /// Runs the case on each engine at the same time, each in its own worker session (most of a case's time is
    /// waiting on its timers and timeouts, so a second engine adds little to the pass), and checks each outcome.
    static func check(_ id: String, on engines: [String]) throws {
        let specCase = try #require(cases[id])
        var expected: [String: CaseStatus] = [:]
        var sessionList: [WorkerSession] = []
        for engine in engines {
            expected[engine] = try expectedStatus(id, on: engine)
            sessionList.append(try #require(sessions[engine]))
        }
        let engineSessions = sessionList
        let limit = specCase.timeout ?? request.timeout
        // Written by the engines' threads, each its own index, under the mutex; read once they have all returned.
        // The first engine runs on this thread, each other on a thread of its own, so that their waits overlap.
        let results = Mutex<[Int: CaseOutcome]>([:])
        let others = DispatchGroup()
        // cf's outcome is the one the other tests compare with (``cfOutcome(_:)``).
        let engineNames = engines
        @Sendable func outcome(_ index: Int) throws -> CaseOutcome {
            engineNames[index] == "cf"
                ? try cfOutcome(specCase) : engineSessions[index].run(specCase, limit: limit)
        }
        for index in engineSessions.indices.dropFirst() {
            others.enter()
            Thread {
                let made = try? outcome(index)
                results.withLock { $0[index] = made }
                others.leave()
            }.start()
        }
        let first = try outcome(0)
        results.withLock { $0[0] = first }
        // A session's run ends by its own watchdog (`limit`), so this deadline is only a backstop.
        _ = others.wait(timeout: .now() + limit + 30)
        let outcomes = results.withLock { $0 }
        for (index, engine) in engines.enumerated() {
            var outcome = try #require(outcomes[index])
            outcome.expected = expected[engine] ?? .pass
            // A result the moving wall clock left unjudged is the machine's, not the engine's nor the suite's.
            if WallClock.leftUnjudged(outcome) {
                print("ShippedSpecTests: \(id) on \(engine) not judged: \(outcome.detail ?? "")")
                continue
            }
            #expect(
                outcome.meetsExpectation,
                "\(id) on \(engine): \(outcome.status.rawValue), expected \(outcome.expected.rawValue)\n\(outcome.detail ?? "")"
            )
        }
    }
}

@Suite("Shipped spec", .serialized)
struct ShippedSpecTests {
    /// The source tree's case files (`Sources/ConformanceSpec/cases`), not the package's copy of them, so that a file
    /// left out of the resources counts as lost.
    static let casesSource = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/ConformanceSpec/cases").path

    /// The ids each case file declares, read from its text without the loader: the `  - id: NAME` lines of its
    /// `cases:` list, in file order, by file name.
    static func declaredCases() throws -> [String: [String]] {
        let names = try FileManager.default.contentsOfDirectory(atPath: casesSource)
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
        var declared: [String: [String]] = [:]
        for name in names {
            let text = try String(
                contentsOfFile: (casesSource as NSString).appendingPathComponent(name), encoding: .utf8)
            declared[name] = text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
                line.hasPrefix("  - id: ") ? line.dropFirst(8).trimmingCharacters(in: .whitespaces) : nil
            }
        }
        return declared
    }

    /// Every case each shipped file declares is loaded, from that file, in its order: a file or case lost (a bad
    /// merge, a resource left out of the package, a loader that drops one) fails here, and a case added needs no
    /// change to this test.
    @Test func specHasEveryShippedCase() throws {
        let cases = try ShippedSpec.loaded.get()
        let loaded = Dictionary(grouping: cases) { ($0.location.file as NSString).lastPathComponent }
            .mapValues { $0.map(\.id) }
        let declared = try Self.declaredCases()
        #expect(!declared.isEmpty, "no case files in \(Self.casesSource)")
        #expect(declared.filter(\.value.isEmpty).keys.sorted() == [], "files declaring no case")
        for name in Set(declared.keys).union(loaded.keys).sorted() {
            #expect((loaded[name] ?? []) == (declared[name] ?? []), "\(name): loaded cases differ from the file's ids")
        }
        #expect(cases.count == declared.values.map(\.count).reduce(0, +))
        _ = try Conformance.loadExpectations(ShippedSpec.request, engines: BuiltinEngines.catalogue.names)
    }

    /// Every case pins at least one catalogue rule, every rule is pinned by two cases or more, and every cited id
    /// is in the catalogue (the loader checks that too; this says which ids when it fails).
    @Test func everyCaseCitesCatalogueRules() throws {
        let cases = try ShippedSpec.loaded.get()
        let coverage = RuleCoverage(catalogue: try RuleCatalogue.shipped(), cases: cases)
        #expect(coverage.casesWithoutRules.isEmpty, "cases citing no rule: \(coverage.casesWithoutRules)")
        #expect(coverage.unknownCitations.isEmpty, "unknown rule ids: \(coverage.unknownCitations.map(\.rule))")
        #expect(coverage.thinRules.isEmpty, "rules with fewer than two cases: \(coverage.thinRules.map(\.rule))")
        #expect(coverage.rulesWithoutExposes.isEmpty, "rules without exposes: \(coverage.rulesWithoutExposes)")
    }

    /// cf and foundation, the same loop through two APIs, in one pass: each case runs on both at once.
    /// Every source marker the spec cites ("3305-12 (RL)", "244-257 (FRL)") names a file the catalogue pins: RL its
    /// cf_source, the others its foundation_sources, so that each citation resolves to one file at one blob.
    @Test func everySourceMarkerIsPinned() throws {
        let catalogue = try RuleCatalogue.shipped()
        let known = Set(["RL"] + catalogue.foundationMarkers)
        #expect(catalogue.foundationMarkers.sorted() == ["FRL", "FT"])
        let specDirectory = (Self.casesSource as NSString).deletingLastPathComponent
        let files = try FileManager.default.subpathsOfDirectory(atPath: specDirectory)
            .filter { $0.hasSuffix(".yaml") }
        #expect(files.contains("catalogue.yaml"))
        let marker = #/\(([A-Z]{2,4})\)/#
        for file in files {
            let text = try String(
                contentsOfFile: (specDirectory as NSString).appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: marker) where !known.contains(String(match.1)) {
                Issue.record("\(file): (\(match.1)) is not a source the catalogue pins (known: \(known.sorted()))")
            }
        }
    }

    @Test("each case on cf and foundation", arguments: ShippedSpec.caseIDs)
    func onCoreFoundation(_ id: String) throws {
        try ShippedSpec.check(id, on: [CoreFoundationEngine.toolchain.name, FoundationRunLoopEngine.engineName])
    }

    @Test("each case on ref", arguments: ShippedSpec.caseIDs)
    func onReference(_ id: String) throws {
        try ShippedSpec.check(id, on: ReferenceEngine().name)
    }

    @Test func referenceEngineHasNoExpectedFailures() throws {
        let directory = try #require(ShippedSpec.request.expectationsPath)
        let expectations = try EngineExpectations.load(
            directory: directory, engine: "ref",
            knownIDs: Set(ShippedSpec.caseIDs))
        #expect(expectations.entries.isEmpty)
    }
}
