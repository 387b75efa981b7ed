// The manifest: every mutant with its id, key and position, as a TSV file the scripts read
// (id, key, file, line, column, operator, original, mutated).

import Foundation

public enum Manifest {
    public static let fileName = "mutants.tsv"
    static let header = "id\tkey\tfile\tline\tcolumn\toperator\toriginal\tmutated"

    public static func write(_ mutants: [Mutant]) -> String {
        var lines = [header]
        for mutant in mutants {
            lines.append(
                [
                    String(mutant.id), mutant.key, mutant.file, String(mutant.line), String(mutant.column),
                    mutant.mutationOperator.rawValue, mutant.original, mutant.mutated,
                ].joined(separator: "\t")
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public static func read(path: String) throws(InputError) -> [Mutant] {
        let lines = try InputError.lines(of: path)
        var mutants: [Mutant] = []
        for (index, line) in lines.enumerated() where index > 0 && !line.isEmpty {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 8, let id = Int(fields[0]), let row = Int(fields[3]), let column = Int(fields[4]),
                let mutationOperator = MutationOperator(rawValue: fields[5])
            else { throw InputError(file: path, line: index + 1, message: "not a manifest line (\(header))") }
            // The key's declaration and ordinal are kept only inside the key; these two fields are not read back.
            var mutant = Mutant(
                id: id, file: fields[2], declaration: "", mutationOperator: mutationOperator, original: fields[6],
                mutated: fields[7], ordinal: 0, line: row, column: column
            )
            mutant.storedKey = fields[1]
            mutants.append(mutant)
        }
        return mutants
    }
}
