// Small Swift sources the tests mutate.

enum Fixtures {
    /// One comparison inside an `if` condition: negate-condition outside, replace-comparison inside.
    static let comparison = """
        func less(_ a: Int, _ b: Int) -> Bool {
            if a < b { return true }
            return false
        }

        """

    /// Statements: two calls (drop-call, swap-statements) in a Void function (return-early), an assignment.
    static let statements = """
        final class Box {
            var count = 0
            func tick() {
                first()
                count += 2
            }
            func first() {}
        }

        """

    /// Nothing here may be mutated: assertions, interleaving points, string literals, `#if DEBUG`, enum raw values,
    /// case patterns, declarations' initial values, a closure's only statement, the initialisation of a local declared
    /// without a value.
    static let untouchable = """
        enum Kind: Int { case a = 1 }
        let limit = 3
        func check(_ value: Int) -> Int {
            assert(value > 0, "positive")
            precondition(value != 7)
            interleavingPoint("check.checked")
            #if DEBUG
            if value == 2 { print("two") }
            #endif
            switch value {
            case 4: return value
            default: break
            }
            let label = "\\(value)"
            _ = label
            let result: Int
            result = value
            return [value].map { $0 }.first ?? result
        }

        """
}
