// Operator return-early: a function that returns nothing returns at once (`if m(a) { return }` before its first
// statement). Closures are not taken (their result type is not known from the syntax), nor initializers (returning
// before every property is set does not compile).

import SwiftSyntax

enum ReturnEarly {
    static func visit(_ function: FunctionDeclSyntax, builder: inout SiteBuilder) {
        guard let body = function.body, let first = body.statements.first,
            SyntaxContext.returnsVoid(function.signature), SyntaxContext.isMutable(first)
        else { return }
        let start = first.positionAfterSkippingLeadingTrivia.utf8Offset
        let mutant = SiteMutant(
            mutationOperator: .returnEarly, pieces: [.text("return")],
            originalText: builder.text(of: first.item), mutatedText: "return"
        )
        builder.add(.insertion, range: start..<start, at: first, mutants: [mutant])
    }
}
