// Operator off-by-one: an integer literal n -> n + 1 and n - 1 (not below 0: the literal may be unsigned), which
// covers `x + 1` -> `x + 2` / `x + 0` and the like.

import SwiftSyntax

enum OffByOne {
    static func visit(_ node: IntegerLiteralExprSyntax, builder: inout SiteBuilder) {
        guard let value = value(of: node.literal.text), value < Int32.max, SyntaxContext.isMutable(node) else { return }
        var mutants: [SiteMutant] = []
        let original = node.literal.text
        let candidates = value > 0 ? [value + 1, value - 1] : [value + 1]
        for candidate in candidates {
            mutants.append(
                SiteMutant(
                    mutationOperator: .offByOne, pieces: [.text(String(candidate))],
                    originalText: original, mutatedText: String(candidate)
                )
            )
        }
        guard !mutants.isEmpty else { return }
        builder.add(.expression, range: SiteBuilder.range(of: node), at: node, mutants: mutants)
    }

    /// The literal's value (decimal, 0x, 0o, 0b, with underscores); nil when it does not fit an Int32 (a mutant of
    /// a large constant is rarely meaningful and may not fit its type).
    static func value(of literal: String) -> Int32? {
        let digits = literal.replacingOccurrences(of: "_", with: "")
        let (radix, body): (Int, Substring) =
            digits.hasPrefix("0x")
            ? (16, digits.dropFirst(2))
            : digits.hasPrefix("0o")
                ? (8, digits.dropFirst(2))
                : digits.hasPrefix("0b") ? (2, digits.dropFirst(2)) : (10, Substring(digits))
        guard let value = Int32(body, radix: radix), value >= 0 else { return nil }
        return value
    }
}
