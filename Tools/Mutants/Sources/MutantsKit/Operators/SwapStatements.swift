// Operator swap-statements: two adjacent statements, each a call or an assignment (Statements), run in the other
// order. Written as two sites sharing one mutant: the first statement guarded where it stands
// (`if !m(a) { s1 }`), and a copy of it after the second (`if m(a) { s1 }`), so that overlapping pairs (s1 s2, s2 s3)
// each keep their own switch.

import SwiftSyntax

enum SwapStatements {
    static func visit(_ list: CodeBlockItemListSyntax, builder: inout SiteBuilder) {
        let items = Array(list)
        guard items.count >= 2 else { return }
        for index in 0..<(items.count - 1) {
            let first = items[index]
            let second = items[index + 1]
            guard isSimple(first), isSimple(second), Statements.isCandidate(first) else { continue }
            let firstRange = SiteBuilder.range(of: first.item)
            let secondRange = SiteBuilder.range(of: second.item)
            let original = "\(builder.text(of: first.item)) ; \(builder.text(of: second.item))"
            let mutated = "\(builder.text(of: second.item)) ; \(builder.text(of: first.item))"
            let guardSite = builder.add(
                .guarded, range: firstRange, at: first.item,
                mutants: [
                    SiteMutant(
                        mutationOperator: .swapStatements, pieces: [], originalText: original, mutatedText: mutated
                    )
                ]
            )
            let copy = builder.add(
                .insertion, range: secondRange.upperBound..<secondRange.upperBound, at: second.item,
                mutants: [
                    SiteMutant(
                        mutationOperator: .swapStatements,
                        pieces: [.source(firstRange, excluding: [guardSite])],
                        originalText: original, mutatedText: mutated
                    )
                ]
            )
            builder.link(companion: copy, to: guardSite)
        }
    }

    /// A call or an assignment, without `try` or `await`, and without `consume` (the copy would consume twice).
    private static func isSimple(_ item: CodeBlockItemSyntax) -> Bool {
        guard Statements.call(item) != nil || Statements.assignment(item) != nil else { return false }
        return !SyntaxContext.containsEffects(item)
            && !item.tokens(viewMode: .sourceAccurate).contains { $0.tokenKind == .keyword(.consume) }
    }
}
