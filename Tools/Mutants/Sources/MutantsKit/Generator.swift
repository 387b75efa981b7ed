// Generation: the sites of every file, the mutants' ids and keys, the instrumented files and the manifest.

import Foundation

public struct Generation {
    public var mutants: [Mutant]
    /// File name -> the instrumented text.
    public var files: [(name: String, text: String)]
    /// Where each mutant's text landed in the instrumented files (for Blame).
    var spans: [(file: String, span: EmittedSpan)]
}

public enum Generator {
    /// Generates the mutants of `sources` (file name, text), leaving out those whose key is in `excluded`.
    public static func generate(
        sources: [(name: String, text: String)], excluded: Set<String> = [],
        operators: Set<MutationOperator> = Set(MutationOperator.allCases)
    ) -> Generation {
        var mutants: [Mutant] = []
        var files: [(name: String, text: String)] = []
        var spans: [(file: String, span: EmittedSpan)] = []
        var ordinals: [String: Int] = [:]
        for source in sources.sorted(by: { $0.name < $1.name }) {
            var found = SiteDiscovery.sites(in: source.text, fileName: source.name, operators: operators)
            for index in found.sites.indices where found.sites[index].companionOf == nil {
                var kept: [SiteMutant] = []
                for siteMutant in found.sites[index].mutants {
                    let site = found.sites[index]
                    var mutant = Mutant(
                        id: mutants.count + 1, file: source.name, declaration: site.declaration,
                        mutationOperator: siteMutant.mutationOperator,
                        original: normalisedWhitespace(siteMutant.originalText),
                        mutated: normalisedWhitespace(siteMutant.mutatedText), ordinal: 0, line: site.line,
                        column: site.column
                    )
                    let identity = mutant.key
                    mutant.ordinal = ordinals[identity, default: 0]
                    ordinals[identity] = mutant.ordinal + 1
                    guard !excluded.contains(mutant.key) else { continue }
                    mutants.append(mutant)
                    kept.append(siteMutant)
                    found.sites[index].ids.append(mutant.id)
                }
                found.sites[index].mutants = kept
            }
            // A swap's second copy takes its first copy's id, or goes when that was excluded.
            for index in found.sites.indices {
                guard let primary = found.sites[index].companionOf else { continue }
                if found.sites[primary].ids.isEmpty {
                    found.sites[index].mutants = []
                } else {
                    found.sites[index].ids = found.sites[primary].ids
                }
            }
            let rewritten = Schemata.rewrite(found)
            files.append((source.name, rewritten.text))
            spans += rewritten.spans.map { (source.name, $0) }
        }
        files.append((RuntimeSwitch.fileName, RuntimeSwitch.source))
        return Generation(mutants: mutants, files: files, spans: spans)
    }

    /// The spans as TSV lines: file, start, end, ids (comma-separated).
    public static func spansText(_ generation: Generation) -> String {
        generation.spans.map { entry in
            "\(entry.file)\t\(entry.span.range.lowerBound)\t\(entry.span.range.upperBound)\t"
                + entry.span.ids.map(String.init).joined(separator: ",")
        }.joined(separator: "\n") + "\n"
    }
}
