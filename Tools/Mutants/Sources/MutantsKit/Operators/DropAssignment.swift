// Operator drop-assignment: an assignment standing as a statement (`x = e`, `x += e`, `_ = e`) is not made.

import SwiftSyntax

enum DropAssignment {
    static func visit(_ item: CodeBlockItemSyntax, builder: inout SiteBuilder) {
        guard let assignment = Statements.assignment(item), Statements.isCandidate(item),
            !SyntaxContext.containsEffects(assignment)
        else { return }
        let mutant = SiteMutant(
            mutationOperator: .dropAssignment, pieces: [], originalText: builder.text(of: assignment),
            mutatedText: ""
        )
        builder.add(.statement, range: SiteBuilder.range(of: assignment), at: assignment, mutants: [mutant])
    }
}
