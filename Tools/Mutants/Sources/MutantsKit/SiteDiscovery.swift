// Site discovery: parses a file, folds its operators, and walks it calling each operator on the nodes it takes.

import SwiftOperators
import SwiftParser
import SwiftSyntax

/// The sites of one file, in discovery order.
public struct FileSites {
    public let fileName: String
    /// The file's original text, as UTF-8 bytes (the sites' ranges index it).
    let source: [UInt8]
    var sites: [Site]
}

enum SiteDiscovery {
    /// Finds the sites of a source file. `operators` restricts the operators (all by default).
    static func sites(
        in text: String, fileName: String, operators: Set<MutationOperator> = Set(MutationOperator.allCases)
    ) -> FileSites {
        let parsed = Parser.parse(source: text)
        // Folding keeps every token and its trivia, so the folded tree's byte offsets are the file's.
        let folded =
            OperatorTable.standardOperators.foldAll(parsed, errorHandler: { _ in }).as(SourceFileSyntax.self) ?? parsed
        let walker = Walker(builder: SiteBuilder(tree: folded, fileName: fileName), operators: operators)
        walker.walk(folded)
        return FileSites(fileName: fileName, source: walker.builder.source, sites: walker.builder.sites)
    }

    private final class Walker: SyntaxVisitor {
        var builder: SiteBuilder
        let operators: Set<MutationOperator>

        init(builder: SiteBuilder, operators: Set<MutationOperator>) {
            self.builder = builder
            self.operators = operators
            super.init(viewMode: .sourceAccurate)
        }

        override func visit(_ node: IfExprSyntax) -> SyntaxVisitorContinueKind {
            negate(NegateCondition.expressions(of: node.conditions))
            return .visitChildren
        }

        override func visit(_ node: GuardStmtSyntax) -> SyntaxVisitorContinueKind {
            negate(NegateCondition.expressions(of: node.conditions))
            return .visitChildren
        }

        override func visit(_ node: WhileStmtSyntax) -> SyntaxVisitorContinueKind {
            negate(NegateCondition.expressions(of: node.conditions))
            return .visitChildren
        }

        override func visit(_ node: RepeatStmtSyntax) -> SyntaxVisitorContinueKind {
            negate([node.condition])
            return .visitChildren
        }

        override func visit(_ node: TernaryExprSyntax) -> SyntaxVisitorContinueKind {
            negate([node.condition])
            return .visitChildren
        }

        override func visit(_ node: InfixOperatorExprSyntax) -> SyntaxVisitorContinueKind {
            if operators.contains(.replaceComparison) { ReplaceComparison.visit(node, builder: &builder) }
            return .visitChildren
        }

        override func visit(_ node: IntegerLiteralExprSyntax) -> SyntaxVisitorContinueKind {
            if operators.contains(.offByOne) { OffByOne.visit(node, builder: &builder) }
            return .visitChildren
        }

        override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
            if operators.contains(.returnEarly) { ReturnEarly.visit(node, builder: &builder) }
            return .visitChildren
        }

        override func visit(_ node: CodeBlockItemListSyntax) -> SyntaxVisitorContinueKind {
            if operators.contains(.swapStatements) { SwapStatements.visit(node, builder: &builder) }
            return .visitChildren
        }

        override func visit(_ node: CodeBlockItemSyntax) -> SyntaxVisitorContinueKind {
            if operators.contains(.dropCall) { DropCall.visit(node, builder: &builder) }
            if operators.contains(.dropAssignment) { DropAssignment.visit(node, builder: &builder) }
            return .visitChildren
        }

        private func negate(_ conditions: [ExprSyntax]) {
            guard operators.contains(.negateCondition) else { return }
            for condition in conditions { NegateCondition.visit(condition, builder: &builder) }
        }
    }
}
