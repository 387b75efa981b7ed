// The report: each mutant's verdict, counts per file and per operator, the score overall and over the semantic
// files, the survivors. A mutant the spec does not kill may be killed by a second oracle (scripts/mutants.sh --spin,
// --unit-tests): the spec's score counts only the spec's kills; the others have columns and a score of their own.

import Foundation

public enum Verdict: String, CaseIterable, Sendable {
    /// A case of the spec failed (the default configuration).
    case killed
    /// The spec passed (or reached no site of the mutant), and failed with the spin before every wait
    /// (`REF_RUNLOOP_SPIN`, scripts/mutants.sh --spin).
    case killedSpin = "killed-spin"
    /// The spec passed in every configuration run (or reached no site of the mutant), and ref's own unit tests
    /// failed (scripts/mutants.sh --unit-tests): ref's design contract, not CF's behaviour.
    case killedUnit = "killed-unit"
    /// Every oracle run passed.
    case survived
    /// The mutant's whole spec run passed its outer deadline.
    case timedOut = "timed-out"
    /// No oracle reaches its site (the coverage runs).
    case notCovered = "not-covered"
    /// Listed in the equivalents file.
    case equivalent
    /// Selected but not run (the run was cut short).
    case notRun = "not-run"
}

public struct Report {
    public var mutants: [Mutant]
    public var verdicts: [Int: Verdict]
    public var details: [Int: String]
    public var equivalents: [String: String]
    public var semanticFiles: Set<String>

    /// Verdicts from the results file (id, verdict, detail), the coverage and the equivalents.
    public init(
        mutants: [Mutant], results: [Int: (Verdict, String)], covered: Set<Int>, equivalents: [String: String],
        semanticFiles: Set<String>
    ) {
        self.mutants = mutants
        self.equivalents = equivalents
        self.semanticFiles = semanticFiles
        var verdicts: [Int: Verdict] = [:]
        var details: [Int: String] = [:]
        for mutant in mutants {
            if equivalents[mutant.key] != nil {
                verdicts[mutant.id] = .equivalent
            } else if !covered.contains(mutant.id) {
                verdicts[mutant.id] = .notCovered
            } else if let result = results[mutant.id] {
                verdicts[mutant.id] = result.0
                details[mutant.id] = result.1
            } else {
                verdicts[mutant.id] = .notRun
            }
        }
        self.verdicts = verdicts
        self.details = details
    }

    /// Reads a results file: `id<TAB>verdict<TAB>detail` lines (verdict killed, killed-spin, killed-unit, survived
    /// or timed-out).
    public static func readResults(path: String) throws(InputError) -> [Int: (Verdict, String)] {
        var results: [Int: (Verdict, String)] = [:]
        for (index, line) in try InputError.lines(of: path).enumerated() where !line.isEmpty {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 2, let id = Int(fields[0]), let verdict = Verdict(rawValue: fields[1]),
                [.killed, .killedSpin, .killedUnit, .survived, .timedOut].contains(verdict)
            else { throw InputError(file: path, line: index + 1, message: "not 'id<TAB>verdict<TAB>detail'") }
            results[id] = (verdict, fields.count > 2 ? fields[2] : "")
        }
        return results
    }

    /// Counts of a group of mutants.
    public struct Counts {
        public var generated = 0
        public var byVerdict: [Verdict: Int] = [:]
        public var covered: Int { generated - self[.notCovered] - self[.equivalent] }
        public subscript(verdict: Verdict) -> Int { byVerdict[verdict, default: 0] }
        /// The mutants a score divides by: not equivalent, and run or not covered (a mutant not run is left out).
        public var scored: Int {
            self[.killed] + self[.killedSpin] + self[.killedUnit] + self[.survived] + self[.timedOut]
                + self[.notCovered]
        }
        /// The spec's score: killed by the spec in its default configuration / scored. The second oracles do not
        /// change it (a mutant they kill counts as the spec's survivor, or as not covered when no case reaches it).
        public var score: Double? { fraction(self[.killed]) }
        /// Killed by the spec in either configuration (the default or the spin before every wait) / scored.
        public var specScore: Double? { fraction(self[.killed] + self[.killedSpin]) }
        /// Killed by any oracle, ref's unit tests included / scored.
        public var combinedScore: Double? { fraction(self[.killed] + self[.killedSpin] + self[.killedUnit]) }

        private func fraction(_ killed: Int) -> Double? {
            scored == 0 ? nil : Double(killed) / Double(scored)
        }
    }

    public func counts(where include: (Mutant) -> Bool) -> Counts {
        var counts = Counts()
        for mutant in mutants where include(mutant) {
            counts.generated += 1
            counts.byVerdict[verdicts[mutant.id]!, default: 0] += 1
        }
        return counts
    }

    static let columns: [Verdict] = [
        .killed, .killedSpin, .killedUnit, .survived, .timedOut, .notCovered, .equivalent, .notRun,
    ]

    private static func percent(_ score: Double?) -> String {
        score.map { String(format: "%.1f %%", 100 * $0) } ?? "-"
    }

    /// The report as text: `table` (aligned, for people) or `tsv`.
    public func render(format: String, wallSeconds: Int?) -> String {
        var out: [String] = []
        let header =
            ["group", "name", "generated", "covered"] + Self.columns.map(\.rawValue)
            + ["score", "spec+spin", "combined"]
        var rows: [[String]] = []
        func row(_ group: String, _ name: String, _ counts: Counts) {
            rows.append(
                [group, name, String(counts.generated), String(counts.covered)]
                    + Self.columns.map { String(counts[$0]) }
                    + [counts.score, counts.specScore, counts.combinedScore].map(Self.percent)
            )
        }
        for file in Set(mutants.map(\.file)).sorted() {
            row(semanticFiles.contains(file) ? "file*" : "file", file, counts { $0.file == file })
        }
        for mutationOperator in MutationOperator.allCases {
            row("operator", mutationOperator.rawValue, counts { $0.mutationOperator == mutationOperator })
        }
        row("total", "semantic files (*)", counts { semanticFiles.contains($0.file) })
        row("total", "all", counts { _ in true })
        if format == "tsv" {
            out.append(header.joined(separator: "\t"))
            out += rows.map { $0.joined(separator: "\t") }
        } else {
            let widths = header.indices.map { column in
                ([header] + rows).map { $0[column].count }.max() ?? 0
            }
            for line in [header] + rows {
                out.append(
                    line.enumerated().map { column, cell in
                        column < 2
                            ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                            : String(repeating: " ", count: widths[column] - cell.count) + cell
                    }.joined(separator: "  ")
                )
            }
        }
        let all = counts { _ in true }
        let semantic = counts { semanticFiles.contains($0.file) }
        out.append("")
        out.append(
            "score: \(Self.percent(all.score)) overall (\(all[.killed]) killed), \(Self.percent(semantic.score)) over "
                + "the semantic files (\(semantic[.killed]) killed); score = killed / (killed + killed-spin + "
                + "killed-unit + survived + timed out + not covered)"
        )
        if all[.killedSpin] + all[.killedUnit] > 0 {
            out.append(
                "spec+spin (killed or killed-spin): \(Self.percent(all.specScore)) overall, "
                    + "\(Self.percent(semantic.specScore)) over the semantic files; combined (ref's unit tests too): "
                    + "\(Self.percent(all.combinedScore)) overall, \(Self.percent(semantic.combinedScore)) over the "
                    + "semantic files"
            )
        }
        if let wallSeconds { out.append("wall time: \(wallSeconds) s") }
        let survivors = mutants.filter { verdicts[$0.id] == .survived }
        out.append("survivors: \(survivors.isEmpty ? "none" : String(survivors.count))")
        for mutant in survivors {
            out.append("  [\(mutant.id)] \(mutant.file):\(mutant.line):\(mutant.column)  \(mutant.key)")
        }
        let secondOracles: [(Verdict, String)] = [
            (.killedSpin, "killed only with the spin"), (.killedUnit, "killed only by ref's unit tests"),
        ]
        for (verdict, title) in secondOracles {
            let killed = mutants.filter { verdicts[$0.id] == verdict }
            guard !killed.isEmpty else { continue }
            out.append("\(title): \(killed.count)")
            for mutant in killed {
                out.append("  [\(mutant.id)] \(mutant.file):\(mutant.line)  \(mutant.key)")
                out.append("      by: \(details[mutant.id] ?? "")")
            }
        }
        let timedOut = mutants.filter { verdicts[$0.id] == .timedOut }
        if !timedOut.isEmpty {
            out.append("timed out: " + timedOut.map { "[\($0.id)] \($0.file):\($0.line)" }.joined(separator: ", "))
        }
        if !equivalents.isEmpty {
            out.append("equivalent:")
            for mutant in mutants where verdicts[mutant.id] == .equivalent {
                out.append("  \(mutant.file):\(mutant.line)  \(mutant.key)\n      why: \(equivalents[mutant.key]!)")
            }
        }
        return out.joined(separator: "\n") + "\n"
    }
}
