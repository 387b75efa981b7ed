// A site: a range of a source file the schemata rewrite, with the mutants chosen there at run time.

/// A piece of a mutant's text: literal text, or a range of the original file emitted with the sites inside it
/// (so that nested sites stay instrumented in both the mutated and the original branch).
enum Piece: Equatable {
    case text(String)
    /// `excluding`: sites not to emit inside this range (a swap's own guard when the statement is duplicated).
    case source(Range<Int>, excluding: Set<Int>)
}

/// How a site is switched at run time.
enum SiteKind: Equatable {
    /// `(__refMutantIs(a) ? (M) : (O))`: an expression.
    case expression
    /// `if __refMutantIs(a) { M } else { O }`: a statement.
    case statement
    /// `if !__refMutantIs(a) { O }`: a statement that one mutant moves (its first copy).
    case guarded
    /// `if __refMutantIs(a) { M }` inserted at a position (an empty range): the early return, a swap's second copy.
    case insertion
}

/// One mutant at a site before it has an id: its operator, its pieces and the key's texts.
struct SiteMutant: Equatable {
    var mutationOperator: MutationOperator
    var pieces: [Piece]
    var originalText: String
    var mutatedText: String
}

/// A site of a file: a UTF-8 byte range of the original source, its kind and its mutants (several for the same range
/// are chained: `m(a) ? M1 : m(b) ? M2 : O`).
struct Site: Equatable {
    /// Unique within the file, in discovery order; the tie-break between sites of the same range (lower is outer).
    var order: Int
    var range: Range<Int>
    var kind: SiteKind
    var declaration: String
    var line: Int
    var column: Int
    var mutants: [SiteMutant]
    /// The run-time ids of `mutants`, assigned when the manifest is built.
    var ids: [Int] = []
    /// For a swap's second copy: the order of the site whose mutant it shares (its own `mutants` repeat that one's,
    /// with the pieces of the copy, and are not counted again).
    var companionOf: Int? = nil
}
