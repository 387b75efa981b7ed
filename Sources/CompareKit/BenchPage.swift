// The benchmark report as one self-contained HTML page.
import Foundation
import MarkupKit

/// Renders a `BenchReport` as HTML.
public enum BenchPage {
    /// The page.
    public static func html(_ report: BenchReport) -> String {
        HTMLPage(title: "Benchmark report", subtitle: report.index.file.path, body: "").render()
    }
}
