// What the operators ask about a node's surroundings: the enclosing declaration's name, whether the node is code
// the tool may mutate, and whether a statement may be wrapped in `if … { } else { … }`.

import SwiftSyntax

enum SyntaxContext {
    /// Calls never mutated, nor anything inside them: assertions, preconditions, traps, logging and interleaving points
    /// (InterleavingPoints.swift in Sources/RefRunLoop: test hooks of debug builds, nothing in release).
    static let untouchableCallees: Set<String> = [
        "assert", "assertionFailure", "precondition", "preconditionFailure", "fatalError", "dispatchPrecondition",
        "assertHeld", "assertNotHeld", "assertOwner", "print", "debugPrint", "log", "trace", "abort", "exit",
        "interleavingPoint",
    ]

    /// The callee's last name: `lock.assertHeld()` -> `assertHeld`.
    static func calleeName(_ call: FunctionCallExprSyntax) -> String? {
        if let reference = call.calledExpression.as(DeclReferenceExprSyntax.self) { return reference.baseName.text }
        if let member = call.calledExpression.as(MemberAccessExprSyntax.self) { return member.declName.baseName.text }
        return nil
    }

    /// Whether the node may be mutated: inside a function, initializer, accessor or closure body; not inside a
    /// string literal, an assertion/trap/logging call, an attribute, a pattern, an enum case, a `@_transparent` or
    /// `@inlinable` function, or a compilation condition's clause other than the first (the first is taken as the
    /// one compiled: `canImport(Glibc)`, `os(Linux)`) or any clause of a condition naming DEBUG.
    static func isMutable(_ node: some SyntaxProtocol) -> Bool {
        var inCode = false
        var current: Syntax? = Syntax(node)
        while let candidate = current {
            if candidate.is(StringLiteralExprSyntax.self) || candidate.is(AttributeSyntax.self)
                || candidate.is(EnumCaseDeclSyntax.self) || candidate.is(MacroExpansionExprSyntax.self)
                || candidate.is(ExpressionPatternSyntax.self) || candidate.is(MatchingPatternConditionSyntax.self)
                || candidate.is(GenericArgumentClauseSyntax.self) || candidate.is(SwitchCaseLabelSyntax.self)
            {
                return false
            }
            if let call = candidate.as(FunctionCallExprSyntax.self), let name = calleeName(call),
                untouchableCallees.contains(name)
            {
                return false
            }
            if let clause = candidate.as(IfConfigClauseSyntax.self) {
                if let condition = clause.condition, condition.description.contains("DEBUG") { return false }
                if let clauses = clause.parent?.as(IfConfigClauseListSyntax.self), clauses.first?.id != clause.id {
                    return false
                }
            }
            if let function = candidate.as(FunctionDeclSyntax.self) {
                if hasInliningAttribute(function.attributes) { return false }
            }
            if candidate.is(CodeBlockSyntax.self) || candidate.is(ClosureExprSyntax.self)
                || candidate.is(AccessorBlockSyntax.self)
            {
                inCode = true
            }
            current = candidate.parent
        }
        return inCode
    }

    static func hasInliningAttribute(_ attributes: AttributeListSyntax) -> Bool {
        attributes.contains { element in
            guard let attribute = element.as(AttributeSyntax.self) else { return false }
            let name = attribute.attributeName.trimmedDescription
            return name == "_transparent" || name == "inlinable"
        }
    }

    /// The enclosing declarations' names, outermost first, joined with dots: `RefRunLoop.run(mode:seconds:)`.
    static func declarationName(_ node: some SyntaxProtocol) -> String {
        var names: [String] = []
        var current = node.parent
        while let candidate = current {
            if let name = name(of: candidate) { names.append(name) }
            current = candidate.parent
        }
        return names.isEmpty ? "(file)" : names.reversed().joined(separator: ".")
    }

    private static func name(of node: Syntax) -> String? {
        if let function = node.as(FunctionDeclSyntax.self) {
            let labels = function.signature.parameterClause.parameters.map { "\($0.firstName.text):" }.joined()
            return "\(function.name.text)(\(labels))"
        }
        if let initializer = node.as(InitializerDeclSyntax.self) {
            let labels = initializer.signature.parameterClause.parameters.map { "\($0.firstName.text):" }.joined()
            return "init(\(labels))"
        }
        if node.is(DeinitializerDeclSyntax.self) { return "deinit" }
        if let accessor = node.as(AccessorDeclSyntax.self) { return accessor.accessorSpecifier.text }
        if let variable = node.as(VariableDeclSyntax.self) {
            return variable.bindings.first?.pattern.trimmedDescription
        }
        if let subscriptDecl = node.as(SubscriptDeclSyntax.self) {
            let labels = subscriptDecl.parameterClause.parameters.map { "\($0.firstName.text):" }.joined()
            return "subscript(\(labels))"
        }
        if let type = node.asProtocol(NamedDeclSyntax.self),
            node.is(StructDeclSyntax.self) || node.is(ClassDeclSyntax.self)
                || node.is(EnumDeclSyntax.self) || node.is(ActorDeclSyntax.self) || node.is(ProtocolDeclSyntax.self)
        {
            return type.name.text
        }
        if let extensionDecl = node.as(ExtensionDeclSyntax.self) {
            return extensionDecl.extendedType.trimmedDescription
        }
        return nil
    }

    /// Whether the node contains `try` or `await` (an expression site must not: `try` cannot stand in a ternary's
    /// branch).
    static func containsEffects(_ node: some SyntaxProtocol) -> Bool {
        node.tokens(viewMode: .sourceAccurate).contains {
            $0.tokenKind == .keyword(.try) || $0.tokenKind == .keyword(.await)
        }
    }

    /// The innermost function-like declaration around the node (function, initializer, deinitializer, accessor), or
    /// nil in a closure of a stored property's initial value.
    static func enclosingFunction(_ node: some SyntaxProtocol) -> Syntax? {
        var current = node.parent
        while let candidate = current {
            if candidate.is(FunctionDeclSyntax.self) || candidate.is(InitializerDeclSyntax.self)
                || candidate.is(DeinitializerDeclSyntax.self) || candidate.is(AccessorDeclSyntax.self)
            {
                return candidate
            }
            current = candidate.parent
        }
        return nil
    }

    static func isInInitializer(_ node: some SyntaxProtocol) -> Bool {
        enclosingFunction(node)?.is(InitializerDeclSyntax.self) ?? false
    }

    /// Whether a function returns nothing (no return clause, `-> Void` or `-> ()`).
    static func returnsVoid(_ signature: FunctionSignatureSyntax) -> Bool {
        guard let clause = signature.returnClause else { return true }
        let type = clause.type.trimmedDescription
        return type == "Void" || type == "()"
    }

    /// Whether the statement may become `if … { … } else { statement }` (or be guarded, or duplicated): in a list
    /// of more than one statement; or the only statement of a block whose value is not used (a guard, loop, `do`,
    /// `defer`, an `if` or `switch` standing as a statement, a Void function's body). A closure's only statement may
    /// be its value, so it is never wrapped.
    static func isWrappable(_ item: CodeBlockItemSyntax) -> Bool {
        guard let list = item.parent?.as(CodeBlockItemListSyntax.self) else { return false }
        if list.parent?.is(SourceFileSyntax.self) ?? true { return false }
        if list.count > 1 { return true }
        guard let container = list.parent else { return false }
        if container.is(ClosureExprSyntax.self) { return false }
        if let switchCase = container.as(SwitchCaseSyntax.self) {
            guard let switchExpr = switchCase.parent?.parent?.as(SwitchExprSyntax.self) else { return false }
            return standsAsStatement(Syntax(switchExpr))
        }
        guard let block = container.as(CodeBlockSyntax.self), let owner = block.parent else { return false }
        if owner.is(GuardStmtSyntax.self) || owner.is(WhileStmtSyntax.self) || owner.is(ForStmtSyntax.self)
            || owner.is(RepeatStmtSyntax.self) || owner.is(DoStmtSyntax.self) || owner.is(DeferStmtSyntax.self)
            || owner.is(CatchClauseSyntax.self) || owner.is(InitializerDeclSyntax.self)
            || owner.is(DeinitializerDeclSyntax.self)
        {
            return true
        }
        if let function = owner.as(FunctionDeclSyntax.self) { return returnsVoid(function.signature) }
        if owner.is(IfExprSyntax.self) { return standsAsStatement(owner) }
        return false
    }

    /// Whether an `if` (through its `else if` chain) or a `switch` stands as a statement, its value unused.
    static func standsAsStatement(_ node: Syntax) -> Bool {
        var current = node
        while let parent = current.parent, parent.is(IfExprSyntax.self) { current = parent }
        guard var parent = current.parent else { return false }
        if parent.is(ExpressionStmtSyntax.self), let above = parent.parent { parent = above }
        guard let item = parent.as(CodeBlockItemSyntax.self), let list = item.parent?.as(CodeBlockItemListSyntax.self)
        else { return false }
        // The only item of a closure, a getter or a non-Void function is its value.
        if list.count > 1 { return true }
        guard let container = list.parent else { return false }
        if container.is(ClosureExprSyntax.self) || container.is(AccessorBlockSyntax.self) { return false }
        if let block = container.as(CodeBlockSyntax.self), let owner = block.parent {
            if let function = owner.as(FunctionDeclSyntax.self) { return returnsVoid(function.signature) }
            if owner.is(AccessorDeclSyntax.self) || owner.is(IfExprSyntax.self) { return false }
        }
        if container.is(SwitchCaseSyntax.self) { return false }
        return true
    }

    /// Names of the locals declared without a value in a function (`let live: LivePort`): assigning them is their
    /// initialisation, never dropped or duplicated.
    static func uninitialisedLocals(in function: Syntax) -> Set<String> {
        final class Collector: SyntaxVisitor {
            var names: Set<String> = []
            override func visit(_ node: PatternBindingSyntax) -> SyntaxVisitorContinueKind {
                if node.initializer == nil, node.accessorBlock == nil { names.insert(node.pattern.trimmedDescription) }
                return .visitChildren
            }
        }
        let collector = Collector(viewMode: .sourceAccurate)
        collector.walk(function)
        return collector.names
    }
}
