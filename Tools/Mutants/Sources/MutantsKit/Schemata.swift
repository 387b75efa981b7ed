// The schemata rewriting: a file's text with every site switched at run time by `__refMutantIs(id)`, nested sites
// instrumented inside both the mutated and the original branch. Also records where each mutant's text landed in the
// output, so a compile error there can be traced back to its mutant (Blame.swift).

/// Where a site or one of its mutated branches landed in the instrumented file (UTF-8 byte offsets).
struct EmittedSpan: Equatable {
    var range: Range<Int>
    /// The mutants an error inside this span (and in no smaller span) is blamed on.
    var ids: [Int]
}

struct SchemataFile {
    var text: String
    var spans: [EmittedSpan]
}

enum Schemata {
    /// The switch function the instrumented files call (RuntimeSwitch.swift defines it).
    static let switchName = "__refMutantIs"

    static func rewrite(_ file: FileSites) -> SchemataFile {
        var emitter = Emitter(file: file)
        let all = file.sites.map(\.order)
        emitter.emit(0..<file.source.count, candidates: all)
        return SchemataFile(text: String(decoding: emitter.output, as: UTF8.self), spans: emitter.spans)
    }

    private struct Emitter {
        let file: FileSites
        var output: [UInt8] = []
        var spans: [EmittedSpan] = []

        init(file: FileSites) { self.file = file }

        func site(_ order: Int) -> Site { file.sites[order] }

        /// Whether site `outer` contains site `inner` (an insertion only strictly inside a non-empty range; of two
        /// sites with the same range, the one found first is outside).
        func contains(_ outer: Site, _ inner: Site) -> Bool {
            if outer.order == inner.order || outer.range.isEmpty { return false }
            if inner.range.isEmpty {
                return outer.range.lowerBound < inner.range.lowerBound
                    && inner.range.lowerBound < outer.range.upperBound
            }
            guard outer.range.lowerBound <= inner.range.lowerBound, inner.range.upperBound <= outer.range.upperBound
            else { return false }
            return outer.range != inner.range || outer.order < inner.order
        }

        /// Whether a site lies inside a range of the file (an insertion strictly inside: one at the range's start,
        /// such as an early return before a statement a swap copies, belongs outside it).
        func isWithin(_ inner: Site, _ range: Range<Int>) -> Bool {
            if inner.range.isEmpty {
                return range.lowerBound < inner.range.lowerBound && inner.range.lowerBound < range.upperBound
            }
            return range.lowerBound <= inner.range.lowerBound && inner.range.upperBound <= range.upperBound
        }

        mutating func append(_ text: String) { output.append(contentsOf: Array(text.utf8)) }

        /// Emits `range` of the file with the `candidates` sites (all inside it) instrumented.
        mutating func emit(_ range: Range<Int>, candidates: [Int]) {
            let sites = candidates.map(site)
            let top = sites.filter { candidate in !sites.contains { contains($0, candidate) } }
                .sorted {
                    ($0.range.lowerBound, $0.range.isEmpty ? 0 : 1, $0.order) < (
                        $1.range.lowerBound, $1.range.isEmpty ? 0 : 1, $1.order
                    )
                }
            var cursor = range.lowerBound
            for outer in top {
                output.append(contentsOf: file.source[cursor..<outer.range.lowerBound])
                let inner = sites.filter { contains(outer, $0) }.map(\.order)
                emitSite(outer, inner: inner)
                cursor = outer.range.upperBound
            }
            output.append(contentsOf: file.source[cursor..<range.upperBound])
        }

        /// Emits a mutant's pieces: text as is, ranges of the file with the sites inside them except this site, the
        /// sites outside it at the same range, and those the piece excludes.
        mutating func emitPieces(_ pieces: [Piece], of owner: Site) {
            for piece in pieces {
                switch piece {
                case .text(let text):
                    append(text)
                case .source(let range, let excluding):
                    let candidates = file.sites.filter { candidate in
                        candidate.order != owner.order && !excluding.contains(candidate.order)
                            && isWithin(candidate, range)
                            && !(candidate.range == owner.range && candidate.order < owner.order)
                            && !(candidate.range == range
                                && excluding.contains {
                                    file.sites[$0].range == range
                                        && candidate.order < $0
                                })
                    }.map(\.order)
                    emit(range, candidates: candidates)
                }
            }
        }

        mutating func emitSite(_ site: Site, inner: [Int]) {
            // A site whose every mutant was excluded (Generator) is its original text.
            if site.mutants.isEmpty {
                if !site.range.isEmpty { emit(site.range, candidates: inner) }
                return
            }
            let start = output.count
            let ids = site.ids
            func call(_ id: Int) -> String { "\(Schemata.switchName)(\(id))" }
            switch site.kind {
            case .expression:
                append("(")
                for (index, mutant) in site.mutants.enumerated() {
                    append("\(call(ids[index])) ? (")
                    let branch = output.count
                    emitPieces(mutant.pieces, of: site)
                    spans.append(EmittedSpan(range: branch..<output.count, ids: [ids[index]]))
                    append(") : ")
                }
                append("(")
                emit(site.range, candidates: inner)
                append("))")
            case .statement:
                for (index, mutant) in site.mutants.enumerated() {
                    append("\(index == 0 ? "" : " else ")if \(call(ids[index])) {\n")
                    let branch = output.count
                    emitPieces(mutant.pieces, of: site)
                    spans.append(EmittedSpan(range: branch..<output.count, ids: [ids[index]]))
                    append("\n}")
                }
                append(" else {\n")
                emit(site.range, candidates: inner)
                append("\n}")
            case .guarded:
                append("if !\(call(ids[0])) {\n")
                emit(site.range, candidates: inner)
                append("\n}")
            case .insertion:
                for (index, mutant) in site.mutants.enumerated() {
                    append("\nif \(call(ids[index])) {\n")
                    emitPieces(mutant.pieces, of: site)
                    append("\n}\n")
                }
            }
            spans.append(EmittedSpan(range: start..<output.count, ids: ids))
        }
    }
}
