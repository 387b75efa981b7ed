// Operator replace-comparison: each comparison operator -> its neighbour: `<` <-> `<=`, `>` <-> `>=` (the
// boundary), `==` <-> `!=` (the negation).

import SwiftSyntax

enum ReplaceComparison {
    static let neighbour: [String: String] = ["<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="]

    static func visit(_ node: InfixOperatorExprSyntax, builder: inout SiteBuilder) {
        guard let binary = node.operator.as(BinaryOperatorExprSyntax.self),
            let replacement = neighbour[binary.operator.text]
        else { return }
        guard SyntaxContext.isMutable(node), !SyntaxContext.containsEffects(node) else { return }
        let left = SiteBuilder.range(of: node.leftOperand)
        let right = SiteBuilder.range(of: node.rightOperand)
        let mutated = "\(builder.text(of: node.leftOperand)) \(replacement) \(builder.text(of: node.rightOperand))"
        let mutant = SiteMutant(
            mutationOperator: .replaceComparison,
            pieces: [.source(left, excluding: []), .text(" \(replacement) "), .source(right, excluding: [])],
            originalText: builder.text(of: node), mutatedText: mutated
        )
        builder.add(.expression, range: SiteBuilder.range(of: node), at: node, mutants: [mutant])
    }
}
