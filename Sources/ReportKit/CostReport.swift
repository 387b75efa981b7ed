// What a figure costs against the machine and in CPU: the machine's own round trips (BM_Limits), every engine's wake
// latency as a multiple of the nearest of them with the CPU time beside it, and the resident thread's trade-off of
// throughput, hand-off latency and CPU per item, with the engines another engine beats on all three.
import Foundation
import ResultsKit

/// One machine limit: a round trip by one hand-off with no run loop (Benchmarks/Harness/limits.cpp), medians over its
/// repetitions.
public struct MachineLimit: Sendable, Equatable {
    /// `spin`, `futex` or `eventfd`.
    public let handoff: String
    /// `same` or `diff`, as the wake family's `pin`.
    public let pin: String
    /// latency_mean_ns, latency_p50_ns, latency_p99_ns.
    public let meanNs: Double?
    public let p50Ns: Double?
    public let p99Ns: Double?
    /// The responder's and the client's CPU per round trip (loop_cpu_ns_per_wake, post_cpu_ns_per_wake).
    public let loopCPUNs: Double?
    public let postCPUNs: Double?
}

/// One wake-latency benchmark of one engine read against the limits of its pinning, with its CPU per wake-up.
public struct WakeAgainstLimits: Sendable {
    public let engine: String
    public let pin: String
    public let load: String
    /// Medians over repetitions of latency_mean_ns, latency_p50_ns and latency_p99_ns.
    public let meanNs: Double?
    public let p50Ns: Double?
    public let p99Ns: Double?
    /// The nearest limit of the same pinning (`nearestLimit`: by the p50s, else the means), the mean as a multiple of
    /// that limit's mean, and the p50 as a multiple of its p50 (a mean takes in every stall of a loaded machine; a
    /// median does not).
    public let limit: MachineLimit?
    public let multiple: Double?
    public let p50Multiple: Double?
    /// Medians of loop_cpu_ns_per_wake, post_cpu_ns_per_wake, process_cpu_ns_per_wake.
    public let loopCPUNs: Double?
    public let postCPUNs: Double?
    public let processCPUNs: Double?
    /// Skipped or failed: why there are no figures.
    public let problem: String?
}

/// One engine at one producer count of the resident-thread family: the three figures of the trade-off.
public struct ResidentTradeoff: Sendable {
    public let engine: String
    public let producers: String
    /// Medians of items_per_second (higher is better), handoff_p99_ns and the CPU per item (lower is better).
    public let itemsPerSecond: Double?
    public let handoffP99Ns: Double?
    public let loopCPUNs: Double?
    public let postCPUNs: Double?
    /// CPU per item of the loop thread and the producers together (`cpuPerItem`): the median over repetitions of each
    /// repetition's sum, as a target reads it, so the table and the targets judge by one figure; it need not be the sum
    /// of the two medians above. `nil` unless both are measured.
    public let cpuNs: Double?
    /// Skipped or failed: why there are no figures.
    public let problem: String?
    /// The engines at the same producer count that beat this one on all three figures: more items per second, a
    /// lower hand-off p99 and less CPU per item (loop + producers), each strictly.
    public var dominatedBy: [String] = []

    /// The CPU per item of a resident-thread repetition: the loop thread's plus the producers'.
    public static let cpuPerItem = MetricExpression("loop_cpu_ns_per_item + post_cpu_ns_per_item")!

    /// Whether `other` is strictly better on all three figures; false when a figure of either is missing.
    public func isDominated(by other: ResidentTradeoff) -> Bool {
        guard let items = itemsPerSecond, let p99 = handoffP99Ns, let cpu = cpuNs,
            let otherItems = other.itemsPerSecond, let otherP99 = other.handoffP99Ns, let otherCPU = other.cpuNs
        else { return false }
        return otherItems > items && otherP99 < p99 && otherCPU < cpu
    }
}

/// The cost sections of the benchmark report, computed from a results file's index.
public struct CostReport: Sendable {
    /// The family of the machine limits.
    public static let limitsFamily = "BM_Limits"

    /// The limits, pin:same first, then by hand-off in the harness's order (spin, futex, eventfd).
    public let limits: [MachineLimit]
    /// Every wake-latency benchmark, by pinning, load and engine (the file's engine order).
    public let wake: [WakeAgainstLimits]
    /// Whether any wake benchmark has a CPU counter (files from before the counters have none).
    public let wakeHasCPU: Bool
    /// Every resident-thread benchmark, by producer count and engine.
    public let resident: [ResidentTradeoff]
    /// Whether any resident benchmark has a CPU counter.
    public let residentHasCPU: Bool

    /// Computes the sections from `index`.
    public init(_ index: BenchIndex) {
        let median = { (benchmark: IndexedBenchmark, column: String) -> Double? in
            benchmark.value(MetricExpression(column)!)
        }
        let handoffOrder = ["spin", "futex", "eventfd"]
        let pinOrder = ["same", "diff"]
        func rank(_ value: String, _ order: [String]) -> Int { order.firstIndex(of: value) ?? order.count }
        let limits = index.benchmarks.filter { $0.family == CostReport.limitsFamily && !$0.rows.isEmpty }
            .map { benchmark in
                MachineLimit(
                    handoff: benchmark.parameter("handoff") ?? benchmark.variant,
                    pin: benchmark.parameter("pin") ?? "",
                    meanNs: median(benchmark, "latency_mean_ns"), p50Ns: median(benchmark, "latency_p50_ns"),
                    p99Ns: median(benchmark, "latency_p99_ns"),
                    loopCPUNs: median(benchmark, "loop_cpu_ns_per_wake"),
                    postCPUNs: median(benchmark, "post_cpu_ns_per_wake"))
            }
            .sorted { lhs, rhs in
                (rank(lhs.pin, pinOrder), rank(lhs.handoff, handoffOrder), lhs.handoff)
                    < (rank(rhs.pin, pinOrder), rank(rhs.handoff, handoffOrder), rhs.handoff)
            }
        self.limits = limits
        let engineRank = { (engine: String) in index.engines.firstIndex(of: engine) ?? index.engines.count }
        let wakeBenchmarks = index.select(BenchmarkSelection(family: "BM_WakeLatency"))
        let variants = BenchIndex.orderedVariants(wakeBenchmarks)
        wake = wakeBenchmarks.sorted { lhs, rhs in
            let (l, r) = (variants.firstIndex(of: lhs.variant) ?? 0, variants.firstIndex(of: rhs.variant) ?? 0)
            return (rank(lhs.parameter("pin") ?? "", pinOrder), l, engineRank(lhs.engine))
                < (rank(rhs.parameter("pin") ?? "", pinOrder), r, engineRank(rhs.engine))
        }.map { benchmark -> WakeAgainstLimits in
            let pin = benchmark.parameter("pin") ?? ""
            let mean = median(benchmark, "latency_mean_ns")
            let samePin = limits.filter { limit in limit.pin == pin }
            let p50 = median(benchmark, "latency_p50_ns")
            let limit =
                p50.flatMap { value in CostReport.nearestLimit(to: value, among: samePin, by: \.p50Ns) }
                ?? mean.flatMap { value in CostReport.nearestLimit(to: value, among: samePin, by: \.meanNs) }
            return WakeAgainstLimits(
                engine: CostReport.label(benchmark, shown: ["pin", "load"]), pin: pin,
                load: benchmark.parameter("load") ?? "",
                meanNs: mean, p50Ns: p50,
                p99Ns: median(benchmark, "latency_p99_ns"), limit: limit,
                multiple: mean.flatMap { value in limit?.meanNs.map { value / $0 } },
                p50Multiple: p50.flatMap { value in limit?.p50Ns.flatMap { $0 > 0 ? value / $0 : nil } },
                loopCPUNs: median(benchmark, "loop_cpu_ns_per_wake"),
                postCPUNs: median(benchmark, "post_cpu_ns_per_wake"),
                processCPUNs: median(benchmark, "process_cpu_ns_per_wake"), problem: CostReport.problem(benchmark))
        }
        wakeHasCPU = wake.contains { $0.loopCPUNs != nil || $0.postCPUNs != nil }
        let residentBenchmarks = index.select(BenchmarkSelection(family: "BM_ResidentThroughput"))
        let producerCounts = BenchIndex.orderedVariants(residentBenchmarks)
        var resident = residentBenchmarks.sorted { lhs, rhs in
            let l = producerCounts.firstIndex(of: lhs.variant) ?? 0
            let r = producerCounts.firstIndex(of: rhs.variant) ?? 0
            return (l, engineRank(lhs.engine)) < (r, engineRank(rhs.engine))
        }.map { benchmark -> ResidentTradeoff in
            ResidentTradeoff(
                engine: CostReport.label(benchmark, shown: ["producers"]),
                producers: benchmark.parameter("producers") ?? benchmark.variant,
                itemsPerSecond: median(benchmark, "items_per_second"),
                handoffP99Ns: median(benchmark, "handoff_p99_ns"), loopCPUNs: median(benchmark, "loop_cpu_ns_per_item"),
                postCPUNs: median(benchmark, "post_cpu_ns_per_item"),
                cpuNs: benchmark.value(ResidentTradeoff.cpuPerItem),
                problem: CostReport.problem(benchmark))
        }
        let measured = resident
        for i in resident.indices {
            let row = measured[i]
            resident[i].dominatedBy = measured.filter { other in
                other.producers == row.producers && other.engine != row.engine && row.isDominated(by: other)
            }.map(\.engine)
        }
        self.resident = resident
        residentHasCPU = resident.contains { $0.loopCPUNs != nil || $0.postCPUNs != nil }
    }

    /// The limit a round trip of `value` is read against, comparing the figure `by` of each limit (its p50, or its
    /// mean): the one nearest by ratio (the smallest |log(value / limit)|: 1.2x and 1 / 1.2x are as near), so a figure
    /// a little below a limit it is made of (a cross-CPU wake-up 3 % under the eventfd limit, within the noise) is
    /// still read against that limit, not against a far smaller one. `nil` when no limit has the figure. Limits of one
    /// pinning only. The report compares the p50s: on a loaded machine a mean takes in stalls of other processes (a
    /// cross-CPU mean of 200 us on a p50 of 30 us) and would pick a limit by its noise.
    public static func nearestLimit(
        to value: Double, among limits: [MachineLimit],
        by figure: KeyPath<MachineLimit, Double?>
    ) -> MachineLimit? {
        guard value > 0 else { return nil }
        let measured = limits.compactMap { limit in limit[keyPath: figure].flatMap { $0 > 0 ? (limit, $0) : nil } }
        return measured.min(by: { abs(log($0.1 / value)) < abs(log($1.1 / value)) })?.0
    }

    /// The engine of a row, with the parameters its table does not show in columns of their own (`ref spin:on`), so
    /// that two variants of one engine are not two rows named alike.
    static func label(_ benchmark: IndexedBenchmark, shown: Set<String>) -> String {
        ([benchmark.engine]
            + benchmark.parameters.filter { $0.key != "engine" && !shown.contains($0.key) }
            .map { "\($0.key):\($0.value)" }).joined(separator: " ")
    }

    /// The limit of `handoff` at `pin` in `index`, for the targets (`ratio_to_limit`); `nil` if the file has none.
    static func limitBenchmark(_ index: BenchIndex, handoff: String, pin: String?) -> IndexedBenchmark? {
        index.benchmarks.first { benchmark in
            benchmark.family == limitsFamily && benchmark.parameter("handoff") == handoff
                && benchmark.parameter("pin") == pin
        }
    }

    /// Why a benchmark has no figures: its skip, or its errors when every repetition failed.
    static func problem(_ benchmark: IndexedBenchmark) -> String? {
        if let skip = benchmark.skipped { return skip }
        if benchmark.isErrored { return benchmark.errors.first }
        return nil
    }
}
