// What the counting runs (`runloop bench --instructions`, `--syscalls`) share: how they start (the harness's
// description, the engines, the machine's facts, the label and the CSV's path) and how they end (the table, the CSV
// with error rows, the report and the history).
import Foundation
import ResultsKit

/// The start of a counting run: the harness's description, the engines to count (given, or every engine the harness
/// has), the machine's facts, the run's label and the results CSV's path.
struct CountingStart {
    let describe: [String]
    let engines: [String]
    let facts: MachineFacts
    let label: String
    let out: String
}

extension BenchRun {
    /// The start of a counting run: facts gathered from `factsRoot` (the tree whose commit the run names), the label
    /// `--label` or `label` of the facts. The harness checks the engine names (bad input, exit 2, naming its engines).
    func countingStart(_ harness: Harness, factsRoot: String, label: (MachineFacts) -> String) throws
        -> CountingStart
    {
        let describe = try harness.describe(engines: options.engines)
        let engines = options.engines.map { $0.split(separator: ",").map(String.init) } ?? allEngines(describe)
        let facts = MachineFacts.gather(root: factsRoot)
        let label = options.label ?? label(facts)
        return CountingStart(
            describe: describe, engines: engines, facts: facts, label: label, out: outputPath(label: label))
    }

    /// The end of a counting run (`--instructions`, `--syscalls`): `table` (what was counted) on stdout, the CSV of
    /// `context` and `rows` with an error row for each benchmark in `missing` (what did not finish, and why: the
    /// report lists it, and a target that needs it is missed or not measured, never met), the report and the run
    /// added to the history under `metric`. Exit status 1 when a benchmark is missing. An interrupted run writes no CSV.
    func finishCounting(
        out: String, context: [String], rows: [String], missing: [(name: String, why: String)], table: String,
        metric: String
    ) throws -> Int32 {
        progress.finish()
        FileHandle.standardOutput.write(Data(table.utf8))
        guard !interruption.isSet else {
            BenchRun.printError("bench: \(out) not written: interrupted")
            return 1
        }
        let closing = RunContext.closingLines(
            seconds: progress.elapsed, loadAverage: MachineFacts.loadAverageNow(), interruptedAfter: nil)
        let written = ResultsMerge.withErrorRows(rows, errors: missing)
        try write((context + closing + written).map { $0 + "\n" }.joined(), to: out)
        if !missing.isEmpty {
            BenchRun.printError(
                "bench: not counted (error rows in \(out)): " + missing.map(\.name).joined(separator: ", "))
            status = 1
        }
        FileHandle.standardOutput.write(Data("\n".utf8))
        reportPhase(out)
        historyPhase(out, metric: metric)
        progress.line("bench: total \(progress.elapsed) s; CSV: \(out)")
        progress.finish()
        return status
    }

    /// The harness's engines, from its description's `# engine_NAME:` lines, in its order.
    func allEngines(_ describe: [String]) -> [String] {
        describe.compactMap { line in
            guard line.hasPrefix("# engine_"), let colon = line.firstIndex(of: ":") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: "# engine_".count)..<colon])
        }
    }
}
