// Operator negate-condition: an `if`, `guard` or `while` condition that is a Boolean expression, a ternary's
// condition, a `repeat … while` condition -> `!(condition)`.

import SwiftSyntax

enum NegateCondition {
    static func visit(_ condition: ExprSyntax, builder: inout SiteBuilder) {
        // `while true`: negating it would make the compiler see a path out of a loop it knows never ends.
        if condition.is(BooleanLiteralExprSyntax.self) { return }
        guard SyntaxContext.isMutable(condition), !SyntaxContext.containsEffects(condition) else { return }
        let range = SiteBuilder.range(of: condition)
        let original = builder.text(of: condition)
        let mutant = SiteMutant(
            mutationOperator: .negateCondition,
            pieces: [.text("!("), .source(range, excluding: []), .text(")")],
            originalText: original, mutatedText: "!(\(original))"
        )
        builder.add(.expression, range: range, at: condition, mutants: [mutant])
    }

    /// The conditions this operator negates, among an `if`/`guard`/`while` condition list: the plain expressions.
    static func expressions(of conditions: ConditionElementListSyntax) -> [ExprSyntax] {
        conditions.compactMap { element in
            if case .expression(let expression) = element.condition { return expression }
            return nil
        }
    }
}
