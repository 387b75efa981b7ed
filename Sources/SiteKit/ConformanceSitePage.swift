// conformance.html: the newest conformance run's matrix and triage, ConformPage's page (`runloop conform --html`)
// made from the run's JSON; without a JSON, how to make one.
import ConformanceKit
import MarkupKit

enum ConformanceSitePage {
    static func html(_ inputs: SiteInputs) -> String {
        let navigation = SitePage.conformance.navigation
        guard let run = inputs.conformance else {
            let path = Markup.escape(inputs.options.conformanceFile)
            let body =
                "<p>There are no conformance results at <code>\(path)</code>. Run the spec on the engines and "
                + "keep the report as JSON, then build the site again:</p>\n<pre>runloop conform --engine cf,ref "
                + "--json-out \(path)\nrunloop site \(Markup.escape(inputs.options.directory))</pre>\n"
                + "<p class=\"note\"><code>--conformance FILE</code> names another JSON; <code>runloop engines</code> "
                + "lists the engines.</p>\n<footer>" + SitePage.footer + "</footer>\n"
            return HTMLPage(
                title: "Conformance", subtitle: "no results yet", body: body,
                navigation: navigation
            ).render()
        }
        let ids = Set(run.report.caseIDs)
        let footer =
            SitePage.footer + " From <code>\(Markup.escape(run.path))</code>, which "
            + "<code>runloop conform --json-out</code> wrote."
        return ConformPage.html(
            run.report, cases: inputs.cases.filter { ids.contains($0.id) },
            catalogue: inputs.catalogue, specName: "the shipped spec (\(run.path))",
            navigation: navigation, footer: footer)
    }
}
