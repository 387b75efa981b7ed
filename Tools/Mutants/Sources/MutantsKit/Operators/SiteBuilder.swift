// What the operators share: byte ranges, texts and positions of nodes, and making a site.

import SwiftSyntax

/// Makes sites for one file; the operators call it.
struct SiteBuilder {
    let converter: SourceLocationConverter
    let source: [UInt8]
    private(set) var sites: [Site] = []

    init(tree: SourceFileSyntax, fileName: String) {
        converter = SourceLocationConverter(fileName: fileName, tree: tree)
        source = Array(tree.syntaxTextBytes)
    }

    /// The node's byte range without its leading and trailing trivia.
    static func range(of node: some SyntaxProtocol) -> Range<Int> {
        node.positionAfterSkippingLeadingTrivia.utf8Offset..<node.endPositionBeforeTrailingTrivia.utf8Offset
    }

    func text(_ range: Range<Int>) -> String {
        String(decoding: source[range], as: UTF8.self)
    }

    func text(of node: some SyntaxProtocol) -> String { normalisedWhitespace(node.trimmedDescription) }

    /// Adds a site and returns its order.
    @discardableResult
    mutating func add(
        _ kind: SiteKind, range: Range<Int>, at node: some SyntaxProtocol, mutants: [SiteMutant]
    ) -> Int {
        let location = converter.location(for: node.positionAfterSkippingLeadingTrivia)
        let order = sites.count
        sites.append(
            Site(
                order: order, range: range, kind: kind, declaration: SyntaxContext.declarationName(node),
                line: location.line, column: location.column, mutants: mutants
            )
        )
        return order
    }

    /// Sets the companion of a site (the swap's second copy shares its first copy's mutant).
    mutating func link(companion: Int, to primary: Int) {
        sites[companion].companionOf = primary
    }
}
