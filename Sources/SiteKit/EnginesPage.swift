// engines.html: the conformance engines (what `runloop engines` lists: each engine's features and why it lacks the
// others) and the benchmark engines (the newest results CSV's `engine_*` context lines).
import ConformanceKit
import EngineKit
import MarkupKit

enum EnginesPage {
    static func html(_ inputs: SiteInputs) -> String {
        var body =
            "<h2 id=\"conformance-engines\">Conformance engines</h2>\n<p class=\"note\">The engines "
            + "<code>runloop conform</code> runs the spec on. A case that needs a feature its engine lacks is SKIP, "
            + "not FAIL. <code>runloop engines</code> prints the same; <code>--engine cf:PATH</code> loads any "
            + "CoreFoundation library.</p>\n"
        let features = EngineFeature.allCases
        body +=
            "<table>\n<tr><th>engine</th><th>what it is</th>"
            + features.map { "<th>\(Markup.escape($0.optionName))</th>" }.joined() + "</tr>\n"
        for engine in inputs.options.engines {
            body +=
                "<tr><td><b>\(Markup.escape(engine.name))</b></td><td>"
                + Markup.escape(engine.summary ?? "(no description)") + "</td>"
            for feature in features {
                if engine.features.contains(feature) {
                    body += "<td class=\"pass\">yes</td>"
                } else {
                    body +=
                        "<td class=\"skip\">no"
                        + (engine.lacking?[feature].map {
                            "<br/><span class=\"none\">\(Markup.escape($0))</span>"
                        } ?? "") + "</td>"
                }
            }
            body += "</tr>\n"
        }
        body += "</table>\n"
        body += "<h2 id=\"benchmark-engines\">Benchmark engines</h2>\n"
        let described = inputs.newestRun?.file.context.filter { $0.key.hasPrefix("engine_") } ?? []
        if let run = inputs.newestRun, !described.isEmpty {
            body +=
                "<p class=\"note\">The run loops the benchmark harness measures, as the newest results file "
                + "(<code>\(Markup.escape(run.name))</code>) describes them.</p>\n<table class=\"context\">\n"
                + "<tr><th>engine</th><th>what it is</th></tr>\n"
            for entry in described {
                body +=
                    "<tr><td><b>\(Markup.escape(String(entry.key.dropFirst("engine_".count))))</b></td>"
                    + "<td>\(Markup.escape(entry.value))</td></tr>\n"
            }
            body += "</table>\n"
        } else {
            body +=
                "<p class=\"none\">The newest results file does not describe its engines (no "
                + "<code>engine_*</code> context lines)" + (inputs.newestRun == nil ? "; there is none" : "")
                + ".</p>\n"
        }
        body += "<footer>" + SitePage.footer + "</footer>\n"
        return HTMLPage(
            title: "Engines", subtitle: "what runs the spec and what the benchmarks measure", body: body,
            navigation: SitePage.engines.navigation
        ).render()
    }
}
