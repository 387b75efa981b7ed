// Operator drop-call: a call standing as a statement is not made. Its result, if any, was unused, so removing it
// compiles (Statements.call says which calls are taken).

import SwiftSyntax

enum DropCall {
    static func visit(_ item: CodeBlockItemSyntax, builder: inout SiteBuilder) {
        guard let call = Statements.call(item), Statements.isCandidate(item) else { return }
        let mutant = SiteMutant(
            mutationOperator: .dropCall, pieces: [], originalText: builder.text(of: call), mutatedText: ""
        )
        builder.add(.statement, range: SiteBuilder.range(of: call), at: call, mutants: [mutant])
    }
}
