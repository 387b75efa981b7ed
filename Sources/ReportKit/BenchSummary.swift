// One results file's report as another tool shows it (`runloop site`): its page, with the site's bar of links,
// and the counts of its targets, from the same BenchReport `runloop report` prints.
import Foundation
import ResultsKit

/// A results file's report against the targets file: the targets met and missed, and the page.
public struct BenchSummary: Sendable {
    let report: BenchReport

    /// Reads `file` and the targets file (`nil`: Benchmarks/targets.yaml of the checkout, as `runloop report` finds
    /// it) and computes the report.
    /// - Throws: `InputError` naming the file, line and field of a broken CSV or targets file.
    public init(file: ResultsFile, targetsPath: String?) throws {
        guard let path = targetsPath ?? ReportTool.defaultTargetsPath() else {
            throw InputError(
                .fileNotFound, file: ReportTool.targetsFileName, field: "--targets",
                detail: "not found in the current directory or above the runloop executable")
        }
        report = BenchReport(file: file, targets: try TargetsFile.load(path: path))
    }

    /// Targets met, missed, not measured, and measured but not judged (a quick run).
    public var met: Int { report.targetCounts[.met] ?? 0 }
    public var missed: Int { report.targetCounts[.missed] ?? 0 }
    public var notMeasured: Int { report.targetCounts[.notMeasured] ?? 0 }
    public var reported: Int { report.targetCounts[.reported] ?? 0 }
    /// The targets missed: id and description.
    public var missedTargets: [(id: String, description: String)] {
        report.targets.filter { $0.status == .missed }.map { ($0.target.id, $0.target.description) }
    }
    /// A smoke run: every benchmark once, figures meaningless, targets not evaluated.
    public var isSmoke: Bool { report.isSmoke }
    /// The run's profile (`full`, `quick`, `smoke`...), from its context.
    public var profile: String? { report.profile }
    /// The families the file measured.
    public var families: [String] { report.index.families }

    /// The report's tables and targets alone, as markup to put in another page (the site's section on instruction
    /// counts): no charts, no context.
    public func tablesAndTargets() -> String {
        report.tables.map { BenchPage.htmlTable($0, smoke: report.isSmoke) }.joined() + BenchPage.targets(report)
    }

    /// The page `runloop report --html` writes, with `navigation` above its heading, `appendix` (markup) after its
    /// families and `footer` as the start of its small print.
    public func page(navigation: String, footer: String, appendix: String = "") -> String {
        BenchPage.html(report, navigation: navigation, footer: footer, appendix: appendix)
    }
}
