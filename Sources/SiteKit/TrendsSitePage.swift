// trends.html: the key benchmarks (those the targets judge: wake-up latency and item churn at N = 10,000; and the
// wake-up round trip's instructions on each path) across every run of the results directory, with their change
// points, drawn by HistoryKit's trend charts.
//
// The history is built in memory from the CSVs each time (HistoryDatabase on ":memory:"): the site never writes
// results/history.sqlite, which `runloop bench` and `runloop history add` keep.
import HistoryKit
import MarkupKit

enum TrendsSitePage {
    /// A benchmark the page follows: which series, of which metric, on which engines.
    struct KeyBenchmark {
        let title: String
        /// What the figure is, for the reader.
        let note: String
        /// A regular expression over the full benchmark names.
        let pattern: String
        let metric: String
        let engines: [String]
        /// The fewest runs of a machine and profile a chart needs.
        var minimumRuns = TrendsSitePage.minimumRuns
    }

    /// The benchmarks behind the targets in Benchmarks/targets.yaml that a change to a loop moves first.
    static let keyBenchmarks = [
        KeyBenchmark(
            title: "Wake-up latency, same CPU",
            note: "Mean round trip of a wake-up to a loop on the same CPU, no load (targets wake.same.epoll, "
                + "wake.cf).",
            pattern: "^BM_WakeLatency/engine:[a-z]+/pin:same/load:none/manual_time$",
            metric: "latency_mean_ns", engines: ["ref", "cf", "epoll"]),
        KeyBenchmark(
            title: "Wake-up latency, different CPUs",
            note: "Mean round trip of a wake-up to a loop on the other CPU, no load (targets wake.diff.epoll, "
                + "wake.diff.cf).",
            pattern: "^BM_WakeLatency/engine:[a-z]+/pin:diff/load:none/manual_time$",
            metric: "latency_mean_ns", engines: ["ref", "cf", "epoll"]),
        KeyBenchmark(
            title: "Timer churn at N = 10,000: add",
            note: "Nanoseconds per timer added with 10,000 in the loop (targets scale.peers, scale.cf).",
            pattern: "^BM_Scale/engine:[a-z]+/item:timer/n:10000/real_time$",
            metric: "ns_per_add", engines: ["ref", "cf", "libuv"]),
        KeyBenchmark(
            title: "Timer churn at N = 10,000: remove",
            note: "Nanoseconds per timer removed with 10,000 in the loop (targets scale.peers, scale.cf).",
            pattern: "^BM_Scale/engine:[a-z]+/item:timer/n:10000/real_time$",
            metric: "ns_per_remove", engines: ["ref", "cf", "libuv"]),
        KeyBenchmark(
            title: "Item churn at N = 10,000 in instructions",
            note: "Instructions per item added and removed with 10,000 in the loop, per kind of item (timers in date "
                + "order and in random order), counted under callgrind (runloop bench --instructions "
                + "--family scale): exact counts, which do not move with the machine, so every step is the code's. A "
                + "peer measured once is drawn as its one point, for reference.",
            pattern: "^BM_Scale/engine:[a-z]+/item:[a-z]+/n:10000(/order:random)?$",
            metric: "instructions_per_item", engines: ["ref", "libuv"], minimumRuns: 1),
        KeyBenchmark(
            title: "Wake-up round trip in instructions, same CPU, per path",
            note: "Instructions per same-CPU wake-up round trip, no load, on each path: the signal finds the loop "
                + "awake (before its wait) or asleep (blocked in it), counted under callgrind (runloop bench "
                + "--instructions --family wake): exact counts, harness included, so every step is the code's.",
            pattern: "^BM_WakePath/engine:[a-z]+/load:none/path:(awake|asleep)$",
            metric: "instructions_per_round_trip", engines: ["ref", "cf", "epoll"], minimumRuns: 1),
    ]

    /// A series of fewer runs is no trend: it is left out (`runloop history trend` shows it).
    static let minimumRuns = 3

    static func html(_ inputs: SiteInputs) throws -> String {
        let navigation = SitePage.trends.navigation
        var body =
            "<p class=\"note\">Each chart is one engine\u{2019}s medians per run, oldest run on the left, with "
            + "the repetitions\u{2019} interquartile band. A dotted line marks a new commit; a red line and label mark "
            + "a change point (E-divisive means with a permutation test, p &lt;= 0.05): where the level moved, and by "
            + "how much. Runs of different machines or profiles are never mixed in one chart; a machine and profile "
            + "with fewer than \(minimumRuns) runs of a benchmark is left out (of instruction counts, one run is "
            + "shown). Instruction counts come from results files of their own (<code># timing: none</code>), "
            + "never mixed with times.</p>\n"
        guard !inputs.runs.isEmpty || !inputs.countRuns.isEmpty else {
            body +=
                "<p class=\"none\">No results CSV in <code>\(Markup.escape(inputs.options.resultsDirectory))"
                + "</code> yet: <code>runloop bench</code> makes one.</p>\n"
            return page(body, navigation: navigation, runs: 0)
        }
        let series: [[TrendSeries]]
        do {
            let database = try HistoryDatabase(path: ":memory:")
            _ = try database.add(parsed: (inputs.runs + inputs.countRuns).map { ($0.source, $0.file) })
            series = try keyBenchmarks.map { key in
                try database.trend(pattern: key.pattern, metric: key.metric)
                    .filter { key.engines.contains($0.engine ?? "") && $0.points.count >= key.minimumRuns }
            }
        } catch let error as HistoryError {
            throw SiteError(error.message)
        }
        body +=
            "<ul>\n"
            + keyBenchmarks.indices.map {
                "<li><a href=\"#trend-\($0 + 1)\">\(Markup.escape(keyBenchmarks[$0].title))</a></li>\n"
            }.joined() + "</ul>\n"
        for (index, key) in keyBenchmarks.enumerated() {
            body +=
                "<h2 id=\"trend-\(index + 1)\">\(Markup.escape(key.title))</h2>\n<p class=\"note\">"
                + Markup.escape(key.note) + " Engines "
                + key.engines.map { "<code>\($0)</code>" }
                .joined(separator: ", ") + "; metric <code>\(Markup.escape(key.metric))</code>.</p>\n"
            if series[index].isEmpty {
                body +=
                    "<p class=\"none\">Not measured in \(key.minimumRuns) run\(key.minimumRuns == 1 ? "" : "s") "
                    + "of one machine and profile.</p>\n"
            } else {
                body += TrendPage.charts(series[index], metric: key.metric, headingLevel: 3)
            }
        }
        return page(body, navigation: navigation, runs: inputs.runs.count + inputs.countRuns.count)
    }

    static func page(_ body: String, navigation: String, runs: Int) -> String {
        HTMLPage(
            title: "Benchmark trends", subtitle: "the key benchmarks across \(runs) run\(runs == 1 ? "" : "s")",
            body: body + "<footer>" + SitePage.footer + " The history is built in memory from the results "
                + "CSVs; <code>runloop history trend</code> draws any benchmark.</footer>\n",
            navigation: navigation
        ).render()
    }
}
