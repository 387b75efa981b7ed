// Which statements the statement operators (drop-call, drop-assignment, swap-statements) take: a call or an
// assignment standing as a statement, in code the tool may mutate, whose removal or move compiles.

import SwiftSyntax

enum Statements {
    static let compoundAssignments: Set<String> = [
        "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "<<=", ">>=", "&+=", "&-=", "&*=", "&<<=", "&>>=",
    ]

    /// The statement's expression, when it is one.
    static func expression(_ item: CodeBlockItemSyntax) -> ExprSyntax? {
        switch item.item {
        case .expr(let expression): return expression
        case .stmt(let statement): return statement.as(ExpressionStmtSyntax.self)?.expression
        default: return nil
        }
    }

    /// A call standing as a statement: not an assertion, trap or log (SyntaxContext.untouchableCallees), not an
    /// `init` call (removing it leaves the object uninitialised), without `try`/`await`.
    static func call(_ item: CodeBlockItemSyntax) -> FunctionCallExprSyntax? {
        guard let call = expression(item)?.as(FunctionCallExprSyntax.self) else { return nil }
        guard let name = SyntaxContext.calleeName(call) else { return nil }
        if SyntaxContext.untouchableCallees.contains(name) || name == "init" { return nil }
        return call
    }

    /// An assignment standing as a statement (`x = e`, `x += e`, `_ = e`), not in an initializer (it may be a
    /// property's initialisation) nor of a local declared without a value (its initialisation).
    static func assignment(_ item: CodeBlockItemSyntax) -> InfixOperatorExprSyntax? {
        guard let infix = expression(item)?.as(InfixOperatorExprSyntax.self) else { return nil }
        let isAssignment =
            infix.operator.is(AssignmentExprSyntax.self)
            || infix.operator.as(BinaryOperatorExprSyntax.self).map { compoundAssignments.contains($0.operator.text) }
                ?? false
        guard isAssignment, !SyntaxContext.isInInitializer(item) else { return nil }
        if let function = SyntaxContext.enclosingFunction(item) {
            var target = infix.leftOperand.trimmedDescription
            if target.hasPrefix("self.") { target.removeFirst(5) }
            if SyntaxContext.uninitialisedLocals(in: function).contains(target) { return nil }
        }
        return infix
    }

    /// Whether a statement operator may take the statement at all.
    static func isCandidate(_ item: CodeBlockItemSyntax) -> Bool {
        SyntaxContext.isMutable(item) && SyntaxContext.isWrappable(item)
    }
}
