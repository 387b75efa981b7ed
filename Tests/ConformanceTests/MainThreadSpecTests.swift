// Spec format 1.1's main-thread constructs: feature `mainThread`, action `dispatchMain`, query `isMainLoop`. Their
// parse errors, the refusal of a version-1 file that uses them, the fuzzer's writer round trip, and the in-process
// runner's SKIP. The cases themselves run in ShippedSpecTests (140-main.yaml).

import CFEngine
import ConformanceKit
import ConformanceTestSupport
import EngineKit
import Foundation
import Testing

@Suite("Spec 1.1: main-thread constructs")
struct MainThreadSpecTests {
    static func document(
        version: String = "1.1", features: String = "[mainThread]",
        steps: String = "- dispatchMain: [{mark: x}, stop]\n      - run: {seconds: 5}",
        expect: String = "- run default\n      - mark x\n      - return stopped"
    ) -> String {
        """
        spec_version: \(version)
        cases:
          - id: main.sample
            rule: A rule.
            source: observed
            features: \(features)
            steps:
              \(steps)
            expect:
              \(expect)
        """
    }

    func loadError(_ text: String) -> SpecError? { specLoadError(text, file: "cases/main.yaml") }

    @Test func validCaseLoads() throws {
        let spec = try SpecLoader.parse(
            Self.document(
                steps: "- query: isMainLoop\n      - dispatchMain: [{mark: x}, stop]\n      - run: {seconds: 5}",
                expect: "- isMainLoop true\n      - run default\n      - mark x\n      - return stopped"),
            file: "cases/main.yaml")
        let specCase = try #require(spec.cases.first)
        // dispatchMain adds mainQueue to the features the case lists.
        #expect(specCase.features == [.mainThread, .mainQueue])
        guard case .query(.isMainLoop) = specCase.steps[0] else {
            Issue.record("step 0: \(specCase.steps[0])")
            return
        }
        guard case .dispatchMain(let inner) = specCase.steps[1], inner.count == 2,
            case .mark("x") = inner[0], case .stop = inner[1]
        else {
            Issue.record("step 1: \(specCase.steps[1])")
            return
        }
        #expect(specCase.laterConstructs == ["features: mainThread", "query: isMainLoop", "dispatchMain"])
        #expect(specCase.formatVersion == .v1_1)
    }

    @Test func versionOneFileRefusesEachConstruct() throws {
        let feature = try #require(loadError(Self.document(version: "1", steps: "- run", expect: "- run default")))
        #expect(feature.location == SpecLocation(file: "cases/main.yaml", line: 3))
        #expect(feature.message.contains("case 'main.sample' uses spec format 1.1 constructs (features: mainThread)"))
        #expect(feature.message.contains("write spec_version: 1.1"))

        let query = try #require(
            loadError(
                Self.document(
                    version: "1", features: "[]", steps: "- query: isMainLoop",
                    expect: "- isMainLoop false")))
        #expect(query.message.contains("(query: isMainLoop)"))

        let caseQuery = try #require(
            loadError(
                Self.document(
                    version: "1", features: "[]",
                    steps: "- query: [isMainLoop, case]",
                    expect: "- isMainLoop case false")))
        #expect(caseQuery.message.contains("(query: [isMainLoop, case])"))

        let dispatch = try #require(loadError(Self.document(version: "1")))
        #expect(dispatch.message.contains("(features: mainThread, dispatchMain)"))
    }

    @Test func dispatchMainNeedsTheFeature() throws {
        let error = try #require(loadError(Self.document(features: "[blocks]")))
        #expect(error.caseID == "main.sample")
        #expect(error.field == "steps[0]")
        #expect(error.location.line == 8)
        #expect(error.message.contains("dispatchMain needs the case to list feature mainThread"))
    }

    @Test func dispatchMainArgumentErrors() throws {
        let empty = try #require(loadError(Self.document(steps: "- dispatchMain: []")))
        #expect(empty.field == "steps[0].dispatchMain")
        #expect(empty.message.contains("dispatchMain needs at least one action"))

        let scalar = try #require(loadError(Self.document(steps: "- dispatchMain: stop")))
        #expect(scalar.field?.hasPrefix("steps[0]") == true)

        let missing = try #require(loadError(Self.document(steps: "- dispatchMain")))
        #expect(missing.message.contains("'dispatchMain' needs an argument"))

        let inner = try #require(loadError(Self.document(steps: "- dispatchMain: [{jump: x}]")))
        #expect(inner.message.contains("unknown action 'jump'"))
        #expect(inner.message.contains("dispatchMain"))  // the list of verbs names it
    }

    @Test func isMainLoopQueryAndTraceLine() throws {
        let badQuery = try #require(loadError(Self.document(steps: "- query: isMain", expect: "- isMainLoop true")))
        #expect(badQuery.message.contains("unknown query 'isMain'"))
        #expect(badQuery.message.contains("isMainLoop"))

        let badArgument = try #require(
            loadError(
                Self.document(
                    steps: "- query: [isMainLoop, main]",
                    expect: "- isMainLoop case true")))
        #expect(badArgument.field?.hasPrefix("steps[0]") == true)
        #expect(badArgument.message.contains("[isMainLoop, main]: the argument can only be 'case'"))

        let caseQuery = try SpecLoader.parse(
            Self.document(
                features: "[]", steps: "- query: [isMainLoop, case]",
                expect: "- isMainLoop case false"), file: "cases/main.yaml")
        guard case .query(.caseLoopIsMain)? = caseQuery.cases.first?.steps.first else {
            Issue.record("not parsed as the case-loop query")
            return
        }

        let bareLine = try #require(loadError(Self.document(steps: "- query: isMainLoop", expect: "- isMainLoop")))
        #expect(bareLine.message.contains("query 'isMainLoop' needs its answer"))
    }

    @Test func writerRoundTrip() throws {
        let spec = try SpecLoader.parse(
            Self.document(
                steps:
                    "- thread: {do: [{dispatchMain: [{mark: x}, {query: isMainLoop}, {query: [isMainLoop, case]}, stop]}]}\n      - run: {seconds: 5}",
                expect:
                    "- run default\n      - mark x\n      - isMainLoop true\n      - isMainLoop case true\n      - return stopped"
            ),
            file: "cases/main.yaml")
        let written = CaseWriter.file(spec.cases)
        #expect(written.hasPrefix("spec_version: 1.1"))
        #expect(
            written.contains(#"{dispatchMain: [{mark: "x"}, {query: isMainLoop}, {query: [isMainLoop, case]}, stop]}"#))
        let reread = try SpecLoader.parse(written, file: "written.yaml")
        #expect(CaseWriter.file(reread.cases) == written)
    }

    @Test func inProcessRunnerSkipsMainThreadCases() throws {
        let spec = try SpecLoader.parse(Self.document(), file: "cases/main.yaml")
        let report = ConformanceRunner().run(
            cases: spec.cases, engines: [CoreFoundationEngine.toolchain], expectations: [:])
        let outcome = try #require(report.outcomes.first)
        #expect(outcome.status == .skip)
        #expect(outcome.detail?.contains("--isolation none") == true)
    }

    /// Four cases: a plain one, two main-thread ones, a plain one. The first main-thread case makes `other` common on
    /// the main loop; the second finds it private (empty, so finished), which it would not in the same process.
    static let ownWorkerSpec: String = {
        let text = """
            spec_version: 1.1
            cases:
              - {id: own.plain-before, rule: A poll., source: observed, items: {s: source0}, steps: [{add: s}, run],
                 expect: [run default, return timedOut]}
              - {id: own.first, rule: Made common., source: observed, features: [mainThread], items: {o: observer},
                 steps: [{add: [o, other]}, {addCommonMode: other}, {run: other}],
                 expect: [run other, o.entry, o.beforeTimers, o.beforeSources, o.exit, return timedOut]}
              - {id: own.second, rule: Private again., source: observed, features: [mainThread], items: {o: observer},
                 steps: [{add: [o, other]}, {run: other}], expect: [run other, return finished]}
              - {id: own.plain-after, rule: A poll., source: observed, items: {s: source0}, steps: [{add: s}, run],
                 expect: [run default, return timedOut]}

            """
        let path = NSTemporaryDirectory() + "runloop-main-thread-\(getpid()).yaml"
        try? text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }()

    @Test("each main-thread case runs in a worker of its own", arguments: ["cf", "ref"])
    func eachMainThreadCaseHasAWorkerOfItsOwn(engine: String) throws {
        let cases = try SpecLoader.load(path: Self.ownWorkerSpec).flatMap(\.cases)
        let runner = IsolatedRunner(launcher: TestWorker.launcher())
        let report = runner.run(
            cases: cases, specPath: Self.ownWorkerSpec, engines: [TestWorker.engine(engine)],
            expectations: [:])
        #expect(
            report.outcomes.map(\.status) == [.pass, .pass, .pass, .pass],
            "\(report.outcomes.map { "\($0.caseID) \($0.status.rawValue) \($0.detail ?? "")" })")
    }

    @Test func aMainThreadCaseThatCrashesCostsOneCase() throws {
        let cases = try SpecLoader.load(path: Self.ownWorkerSpec).flatMap(\.cases)
        let runner = IsolatedRunner(launcher: TestWorker.launcher(faults: "abort=own.first"))
        let report = runner.run(
            cases: cases, specPath: Self.ownWorkerSpec, engines: [TestWorker.engine("faulty")],
            expectations: [:])
        #expect(report.outcomes.map(\.status) == [.pass, .crash, .pass, .pass])
    }
}
