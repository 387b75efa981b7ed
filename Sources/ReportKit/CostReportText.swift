// The cost sections of the benchmark report (CostReport) as tables, for the terminal and for the page: the machine
// limits, wake latency against them with CPU per wake-up, and the resident thread's trade-off.
import Foundation
import MarkupKit
import ResultsKit

extension CostReport {
    /// One table of a section: a title, a note under it, a header and rows of cells.
    struct Table {
        var family: String
        var title: String
        var note: String
        var header: [String]
        /// How many leading columns name the row (text); the others are figures.
        var labels: Int
        var rows: [[String]]
    }

    /// The tables, in the order the report prints them. A section the file has nothing for is left out: the wake
    /// section when the file has neither limits nor CPU counters (it would repeat the summary's table), the resident
    /// section when the family was not run.
    var tables: [Table] {
        var tables: [Table] = []
        let time = { (value: Double?) in value.map { NumberText.duration($0) } ?? "-" }
        if !limits.isEmpty {
            tables.append(
                Table(
                    family: CostReport.limitsFamily,
                    title: "machine limits: a round trip between two threads by one hand-off alone, no run loop",
                    note: "spin: both threads spin on one cache line (pin:same yields the CPU at every look); futex: "
                        + "each sleeps in FUTEX_WAIT and is woken by the other; eventfd: each blocks in read() on an "
                        + "eventfd the other writes (the wake family's reply path both ways). CPU per round trip: the "
                        + "responder's (loop) and the client's (post).",
                    header: ["pin", "hand-off", "mean", "p50", "p99", "loop CPU", "post CPU"], labels: 2,
                    rows: limits.map { limit in
                        [
                            limit.pin, limit.handoff, time(limit.meanNs), time(limit.p50Ns), time(limit.p99Ns),
                            time(limit.loopCPUNs), time(limit.postCPUNs),
                        ]
                    }))
        }
        if !wake.isEmpty && (!limits.isEmpty || wakeHasCPU) {
            tables.append(
                Table(
                    family: "BM_WakeLatency",
                    title: "wake latency against the machine's limits, with CPU per wake-up",
                    note: "The nearest limit of the same pinning, measured without load: the one whose p50 is nearest "
                        + "the engine's p50 by ratio. x limit: the engine's "
                        + "mean round trip over that limit's mean; x p50: its p50 over the limit's p50 (a mean takes in "
                        + "every stall of a loaded machine, a median does not). CPU per round trip: the loop thread's "
                        + "(dispatch: the workers that ran the queue, without its manager thread, a lower bound), the "
                        + "posting thread's (the signal, and the harness's reply read and clock reads, the same for every "
                        + "engine) and the whole process's (not under a burner; minus post CPU, an upper bound of the loop "
                        + "side)."
                        + (limits.isEmpty ? " This file has no BM_Limits rows." : "")
                        + (wakeHasCPU ? "" : " This file has no CPU counters."),
                    header: [
                        "pin", "load", "engine", "mean", "p50", "p99", "x limit", "x p50", "loop CPU", "post CPU",
                        "process CPU",
                    ],
                    labels: 3,
                    rows: wake.map { row -> [String] in
                        if let problem = row.problem {
                            return CostReport.problemRow([row.pin, row.load, row.engine], problem, 11)
                        }
                        let multiple =
                            row.multiple.map { BenchReport.ratio($0) + " " + (row.limit?.handoff ?? "") } ?? "-"
                        return [
                            row.pin, row.load, row.engine, time(row.meanNs), time(row.p50Ns), time(row.p99Ns), multiple,
                            row.p50Multiple.map(BenchReport.ratio) ?? "-", time(row.loopCPUNs), time(row.postCPUNs),
                            time(row.processCPUNs),
                        ]
                    }))
        }
        if !resident.isEmpty {
            tables.append(
                Table(
                    family: "BM_ResidentThroughput",
                    title: "resident thread trade-off: items per second, hand-off p99, CPU per item",
                    note:
                        "CPU per item: the loop thread's and the producers' (summed), and both together (the median of "
                        + "each repetition's total, the figure the targets read); dominated: "
                        + "engines with more items per second, a lower hand-off p99 and less CPU per item, all three, at "
                        + "the same producer count."
                        + (residentHasCPU ? "" : " This file has no CPU counters: nothing is marked dominated."),
                    header: [
                        "producers", "engine", "items/s", "hand-off p99", "loop CPU", "post CPU", "CPU/item",
                        "dominated by",
                    ], labels: 2,
                    rows: resident.map { row -> [String] in
                        if let problem = row.problem {
                            return CostReport.problemRow([row.producers, row.engine], problem, 8)
                        }
                        return [
                            row.producers, row.engine,
                            row.itemsPerSecond.map { NumberText.rate($0) }
                                ?? "-",
                            time(row.handoffP99Ns), time(row.loopCPUNs), time(row.postCPUNs), time(row.cpuNs),
                            row.dominatedBy.isEmpty ? "" : row.dominatedBy.joined(separator: ", "),
                        ]
                    }))
        }
        return tables
    }

    /// A row without figures: its labels, a dash under every figure's column, and why last (past the header).
    static func problemRow(_ labels: [String], _ problem: String, _ columns: Int) -> [String] {
        labels + Array(repeating: "-", count: columns - labels.count) + [problem]
    }

    /// The sections for a terminal, each table with its title and note; empty when there is none. `smoke`: a smoke
    /// run's figures are one run each.
    func text(smoke: Bool) -> String {
        var out = ""
        for table in tables {
            out += "\n\(table.title) (\(smoke ? "one run each" : "median over repetitions")):\n"
            for line in TextTable.wrap(table.note, width: 116) { out += "  \(line)\n" }
            out += TextTable.aligned([table.header] + table.rows, indent: "  ")
        }
        return out
    }

    /// The tables of `family` for the page (empty when there are none).
    func html(family: String, smoke: Bool) -> String {
        var out = ""
        for table in tables where table.family == family {
            out +=
                "<table>\n<caption class=\"note\">\(Markup.escape(table.title)) "
                + "(\(smoke ? "one run each" : "median over repetitions")). \(Markup.escape(table.note))"
                + "</caption>\n<tr>"
                + table.header.map { "<th>\(Markup.escape($0))</th>" }.joined() + "</tr>\n"
            for row in table.rows {
                out +=
                    "<tr>"
                    + row.enumerated().map { index, cell in
                        "<td class=\"\(index < table.labels || index >= table.header.count ? "mono" : "num")\">"
                            + Markup.escape(cell) + "</td>"
                    }.joined() + "</tr>\n"
            }
            out += "</table>\n"
        }
        return out
    }
}
