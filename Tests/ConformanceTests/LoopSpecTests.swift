// The loader's handling of a second loop (format 1.1): `loops:`, the actions that name a loop, the sameLoop query,
// and the refusal of any of them in a spec_version 1 file. Each mistake names the file, line, case and field.

import ConformanceKit
import ConformanceTestSupport
import Testing

@Suite("Spec loader: loops (format 1.1)")
struct LoopSpecTests {
    /// A case with `loops` and `steps` as given, in a file of `version`.
    static func document(
        version: String = "1.1", loops: String? = "[bg]", steps: String,
        expect: String = "- mark done"
    ) -> String {
        let loopsLine = loops.map { "\n    loops: \($0)" } ?? ""
        return """
            spec_version: \(version)
            cases:
              - id: loop.case
                rule: A rule.
                source: observed\(loopsLine)
                items:
                  t: {timer: {fire: -1}}
                steps:
                  \(steps)
                  - mark: done
                expect:
                  \(expect)
            """
    }

    func loadError(_ text: String) -> SpecError? { specLoadError(text, file: "cases/loops.yaml") }

    @Test func everyLoopConstructLoads() throws {
        let steps = """
            - target: {loop: bg, do: [{add: t}, stop, wakeup, {query: isWaiting}, {query: [sameLoop, here]}]}
                  - post: {loop: bg, do: [run, {query: [sameLoop, current]}, {waitUntilWaiting: here}]}
                  - waitUntilWaiting: bg
                  - join: bg
            """
        let spec = try SpecLoader.parse(Self.document(steps: steps), file: "cases/loops.yaml")
        let specCase = try #require(spec.cases.first)
        #expect(specCase.loops == ["bg"])
        #expect(specCase.formatVersion == .v1_1)
        #expect(specCase.laterConstructs == ["loops", "target", "sameLoop", "post", "waitUntilWaiting", "join"])
        guard case .post(let loop, let actions) = specCase.steps[1] else {
            Issue.record("expected a post, got \(specCase.steps[1])")
            return
        }
        #expect(loop == "bg")
        #expect(actions.count == 3)
    }

    @Test func loopsInVersionOneFileAreRefused() throws {
        let error = try #require(loadError(Self.document(version: "1", steps: "- join: bg")))
        #expect(error.location.file == "cases/loops.yaml")
        #expect(error.location.line == 3)
        #expect(error.message.contains("case 'loop.case' uses spec format 1.1 constructs (loops, join)"))
        #expect(error.message.contains("spec_version: 1.1"))
    }

    @Test func sameLoopQueryAloneNeedsVersionOneOne() throws {
        let error = try #require(
            loadError(
                Self.document(
                    version: "1", loops: nil,
                    steps: "- query: [sameLoop, here]")))
        #expect(error.message.contains("(sameLoop)"))
    }

    @Test func badLoopNameNamesFileLineCaseAndField() throws {
        let error = try #require(loadError(Self.document(loops: "[bg, 2nd]", steps: "- join: bg")))
        #expect(error.location.file == "cases/loops.yaml")
        #expect(error.location.line == 6)
        #expect(error.caseID == "loop.case")
        #expect(error.field == "loops[1]")
        #expect(error.message.contains("loop name '2nd' must be a letter"))
    }

    @Test func reservedAndClashingLoopNamesAreRefused() throws {
        let here = try #require(loadError(Self.document(loops: "[here]", steps: "- mark: x")))
        #expect(here.field == "loops[0]")
        #expect(here.message.contains("'here' is reserved"))
        let item = try #require(loadError(Self.document(loops: "[t]", steps: "- mark: x")))
        #expect(item.message.contains("'t' is already an item's name"))
        let twice = try #require(loadError(Self.document(loops: "[bg, bg]", steps: "- mark: x")))
        #expect(twice.field == "loops[1]")
        #expect(twice.message.contains("declared twice"))
    }

    @Test func unknownLoopNamesFileLineCaseAndField() throws {
        let error = try #require(loadError(Self.document(steps: "- post: {loop: fg, do: [run]}")))
        #expect(error.location.file == "cases/loops.yaml")
        #expect(error.location.line == 10)
        #expect(error.caseID == "loop.case")
        #expect(error.field == "steps[0].post.loop")
        #expect(error.message.contains("'fg' is not a loop of this case (declared loops: bg)"))
        #expect(error.description.hasPrefix("cases/loops.yaml:10: case 'loop.case': field 'steps[0].post.loop'"))
    }

    @Test func loopOfACaseWithoutLoopsSaysSo() throws {
        let error = try #require(loadError(Self.document(loops: nil, steps: "- join: bg")))
        #expect(error.message.contains("the case declares no loops: add `loops: [bg]`"))
    }

    @Test func hereHasNoHostThread() throws {
        let join = try #require(loadError(Self.document(steps: "- join: here")))
        #expect(join.message.contains("loop 'here' cannot be named here (expected bg)"))
        let post = try #require(loadError(Self.document(steps: "- post: {loop: here, do: [run]}")))
        #expect(post.message.contains("loop 'here' cannot be named here"))
        let current = try #require(loadError(Self.document(steps: "- waitUntilWaiting: current")))
        #expect(current.message.contains("loop 'current' cannot be named here (expected bg or here)"))
    }

    @Test func targetHoldsOnlyAnyThreadCalls() throws {
        let run = try #require(loadError(Self.document(steps: "- target: {loop: bg, do: [run]}")))
        #expect(run.field == "steps[0].target.do[0]")
        #expect(run.message.contains("'run' cannot be in a target's list"))
        let next = try #require(
            loadError(
                Self.document(
                    steps: "- target: {loop: bg, do: [{query: [nextTimerFireDate, default]}]}")))
        #expect(next.message.contains("nextTimerFireDate cannot be in a target's list"))
    }

    @Test func aHostMustNotWaitForItself() throws {
        let error = try #require(loadError(Self.document(steps: "- post: {loop: bg, do: [{join: bg}]}")))
        #expect(error.message.contains("'join: bg' in a list posted to bg would wait for its own thread"))
    }

    @Test func endNamesAHelperLoopOutsideItsOwnThread() throws {
        let spec = try SpecLoader.parse(Self.document(steps: "- end: bg"), file: "cases/loops.yaml")
        #expect(spec.cases.first?.laterConstructs == ["loops", "end"])
        let ownThread = try #require(loadError(Self.document(steps: "- post: {loop: bg, do: [{end: bg}]}")))
        #expect(ownThread.message.contains("'end: bg' in a list posted to bg would wait for its own thread"))
        let here = try #require(loadError(Self.document(steps: "- end: here")))
        #expect(here.message.contains("loop 'here' cannot be named here (expected bg)"))
        let inTarget = try #require(loadError(Self.document(steps: "- target: {loop: bg, do: [{end: bg}]}")))
        #expect(inTarget.message.contains("'end' cannot be in a target's list"))
    }

    @Test func sameLoopNamesADeclaredLoop() throws {
        let error = try #require(loadError(Self.document(steps: "- query: [sameLoop, elsewhere]")))
        #expect(error.message.contains("'elsewhere' is not a loop of this case"))
    }

    @Test func caseWriterRoundTripsLoops() throws {
        let steps = """
            - target: {loop: bg, do: [{add: t}, {query: [sameLoop, current]}]}
                  - post: {loop: bg, do: [run]}
                  - waitUntilWaiting: bg
                  - join: bg
            """
        let spec = try SpecLoader.parse(Self.document(steps: steps), file: "cases/loops.yaml")
        let written = CaseWriter.file(spec.cases)
        #expect(written.hasPrefix("spec_version: 1.1\n"))
        let reread = try SpecLoader.parse(written, file: "cases/written.yaml")
        #expect(reread.cases.first?.loops == ["bg"])
        #expect(CaseWriter.file(reread.cases) == written)
    }
}
