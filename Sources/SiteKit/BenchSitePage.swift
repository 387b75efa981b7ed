// bench.html: the newest results CSV's report (ReportKit's page, as `runloop report --html` writes it), the newest
// instruction counts of each family with their targets, and the list of every run in the results directory.
import MarkupKit
import ReportKit

enum BenchSitePage {
    static func html(
        _ inputs: SiteInputs, bench: BenchSummary?, counts: [(run: ResultsRun, summary: BenchSummary)] = []
    ) -> String {
        let navigation = SitePage.bench.navigation
        guard let newest = inputs.newestRun, let bench else {
            let directory = Markup.escape(inputs.options.resultsDirectory)
            let body =
                "<p>There is no results CSV in <code>\(directory)</code>. Measure, then build the site "
                + "again:</p>\n<pre>runloop bench\nrunloop site \(Markup.escape(inputs.options.directory))</pre>\n"
                + "<footer>" + SitePage.footer + "</footer>\n"
            return HTMLPage(
                title: "Benchmarks", subtitle: "no results yet", body: body,
                navigation: navigation
            ).render()
        }
        let footer =
            SitePage.footer + " The newest of \(inputs.runs.count) results files by their "
            + "<code># date:</code> line (<a href=\"#runs\">all runs</a>),"
        return bench.page(
            navigation: navigation, footer: footer, appendix: instructions(counts) + runs(inputs, newest: newest))
    }

    /// The newest counts of each family (`runloop bench --instructions`, `--syscalls`): their tables and the targets
    /// that read counts, which a timed run cannot judge.
    static func instructions(_ counts: [(run: ResultsRun, summary: BenchSummary)]) -> String {
        guard !counts.isEmpty else { return "" }
        var out =
            "<h2 id=\"instructions\">Instruction and system call counts</h2>\n<p class=\"note\">User-space "
            + "instructions counted under valgrind's callgrind (<code>runloop bench --instructions</code>) and system "
            + "calls per wake-up round trip (<code>runloop bench --syscalls</code>): the newest run of each family "
            + "counted, with the targets that read counts.</p>\n"
        for (run, summary) in counts {
            let commit = run.file.contextValue("commit").map { ", commit " + String($0.prefix(10)) } ?? ""
            out +=
                "<h3>\(Markup.escape(run.file.contextValue("filter") ?? run.name)): "
                + "<code>\(Markup.escape(run.name))</code> (\(Markup.escape(run.date))\(Markup.escape(commit)))</h3>\n"
                + summary.tablesAndTargets()
        }
        return out
    }

    /// Every run, newest first: its file, date, profile, commit and rows.
    static func runs(_ inputs: SiteInputs, newest: ResultsRun) -> String {
        var out =
            "<h2 id=\"runs\">All runs (\(inputs.runs.count))</h2>\n<p class=\"note\">Every results CSV in "
            + "<code>\(Markup.escape(inputs.options.resultsDirectory))</code>, newest first; this page reports the "
            + "first. <code>runloop report FILE</code> reports any of them.</p>\n"
        out +=
            "<table>\n<tr><th>file</th><th>date</th><th>profile</th><th>commit</th><th>filter</th>"
            + "<th class=\"num\">rows</th></tr>\n"
        for run in inputs.runs.reversed() {
            let profile = run.file.contextValue("profile").map { String($0.prefix { !$0.isWhitespace }) } ?? ""
            let commit = run.file.contextValue("commit").map { String($0.prefix(10)) } ?? ""
            let name = run.path == newest.path ? "<b>\(Markup.escape(run.name))</b>" : Markup.escape(run.name)
            out +=
                "<tr><td class=\"mono\">\(name)</td><td class=\"nowrap\">\(Markup.escape(run.date))</td>"
                + "<td>\(Markup.escape(profile))</td><td class=\"mono\">\(Markup.escape(commit))</td>"
                + "<td class=\"mono\">\(Markup.escape(run.file.contextValue("filter") ?? ""))</td>"
                + "<td class=\"num\">\(run.file.rows.count)</td></tr>\n"
        }
        return out + "</table>\n"
    }
}
