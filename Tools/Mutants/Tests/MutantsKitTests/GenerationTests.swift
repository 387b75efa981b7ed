// The sites and the rewritten code of small fixtures.

import Testing

@testable import MutantsKit

@Suite struct GenerationTests {
    func generate(_ text: String, name: String = "Fixture.swift") -> Generation {
        Generator.generate(sources: [(name, text)])
    }

    @Test func comparisonInsideACondition() {
        let generation = generate(Fixtures.comparison)
        #expect(
            generation.mutants.map(\.key) == [
                "Fixture.swift less(_:_:) negate-condition #0: a < b => !(a < b)",
                "Fixture.swift less(_:_:) replace-comparison #0: a < b => a <= b",
            ]
        )
        #expect(generation.mutants.map(\.line) == [2, 2])
        #expect(
            generation.files[0].text == """
                func less(_ a: Int, _ b: Int) -> Bool {
                    if (__refMutantIs(1) ? (!((__refMutantIs(2) ? (a <= b) : (a < b)))) : ((__refMutantIs(2) ? (a <= b) : (a < b)))) { return true }
                    return false
                }

                """
        )
        #expect(generation.files[1].name == RuntimeSwitch.fileName)
    }

    @Test func statements() {
        let generation = generate(Fixtures.statements)
        #expect(
            generation.mutants.map(\.key) == [
                "Fixture.swift Box.tick() return-early #0: first() => return",
                "Fixture.swift Box.tick() swap-statements #0: first() ; count += 2 => count += 2 ; first()",
                "Fixture.swift Box.tick() drop-call #0: first() => ",
                "Fixture.swift Box.tick() drop-assignment #0: count += 2 => ",
                "Fixture.swift Box.tick() off-by-one #0: 2 => 3",
                "Fixture.swift Box.tick() off-by-one #0: 2 => 1",
            ]
        )
        #expect(
            generation.files[0].text == """
                final class Box {
                    var count = 0
                    func tick() {
                        
                if __refMutantIs(1) {
                return
                }
                if !__refMutantIs(2) {
                if __refMutantIs(3) {

                } else {
                first()
                }
                }
                        if __refMutantIs(4) {

                } else {
                count += (__refMutantIs(5) ? (3) : __refMutantIs(6) ? (1) : (2))
                }
                if __refMutantIs(2) {
                if __refMutantIs(3) {

                } else {
                first()
                }
                }

                    }
                    func first() {}
                }

                """
        )
    }

    @Test func consumingStatementsAreNotSwapped() {
        let source = """
            struct Holder: ~Copyable {}
            func keep(_ holder: consuming Holder) {}
            func move(_ holder: consuming Holder, _ log: inout [Int]) {
                keep(consume holder)
                log.append(1)
            }

            """
        let operators = Set(generate(source).mutants.map(\.mutationOperator))
        #expect(!operators.contains(.swapStatements))
        #expect(operators.contains(.dropCall))
    }

    @Test func untouchableCode() {
        let generation = generate(Fixtures.untouchable)
        // Only the `??`-free, assertion-free, pattern-free code: `_ = label` (drop-assignment) and the switch's
        // condition-free body leave nothing else.
        #expect(generation.mutants.map(\.mutationOperator) == [.dropAssignment])
        #expect(generation.mutants.first?.original == "_ = label")
    }

    @Test func keysDoNotDependOnLines() {
        let before = generate(Fixtures.comparison).mutants.map(\.key)
        let after = generate("// a comment\n\n" + Fixtures.comparison).mutants
        #expect(after.map(\.key) == before)
        #expect(after.map(\.line) == [4, 4])
    }

    @Test func identicalSitesTakeOrdinals() {
        let source = "func f(_ a: Int) -> Bool {\n    a < 1 || a < 1\n}\n"
        let keys = generate(source).mutants.filter { $0.mutationOperator == .replaceComparison }.map(\.key)
        #expect(
            keys == [
                "Fixture.swift f(_:) replace-comparison #0: a < 1 => a <= 1",
                "Fixture.swift f(_:) replace-comparison #1: a < 1 => a <= 1",
            ]
        )
    }

    @Test func excludedKeysLeaveTheOriginal() {
        let all = generate(Fixtures.comparison)
        let generation = Generator.generate(
            sources: [("Fixture.swift", Fixtures.comparison)], excluded: [all.mutants[0].key]
        )
        #expect(generation.mutants.map(\.id) == [1])
        #expect(generation.mutants[0].mutationOperator == .replaceComparison)
        #expect(generation.files[0].text.contains("if (__refMutantIs(1) ? (a <= b) : (a < b)) {"))
    }
}
