// `runloop site DIR`: reads every input, renders every page, and only then writes them into DIR, so that bad input
// leaves no half-made site behind.
import Foundation
import ReportKit
import ResultsKit

/// Builds the results site.
public enum SiteBuilder {
    /// The pages of `options`, by page, rendered but not written.
    /// - Throws: ``SiteError`` naming the file and line or field of an input that cannot be read.
    public static func render(_ options: SiteOptions) throws -> [(page: SitePage, html: String)] {
        let inputs = try SiteInputs.load(options)
        var bench: BenchSummary?
        var counts: [(run: ResultsRun, summary: BenchSummary)] = []
        do {
            if let newest = inputs.newestRun {
                bench = try BenchSummary(file: newest.file, targetsPath: options.targetsPath)
            }
            for run in inputs.newestCountRuns {
                counts.append((run, try BenchSummary(file: run.file, targetsPath: options.targetsPath)))
            }
        } catch let error as InputError {
            throw SiteError(error.description)
        }
        return [
            (.index, IndexPage.html(inputs, bench: bench)),
            (.conformance, ConformanceSitePage.html(inputs)),
            (.bench, BenchSitePage.html(inputs, bench: bench, counts: counts)),
            (.trends, try TrendsSitePage.html(inputs)),
            (.engines, EnginesPage.html(inputs)),
            (.rules, RulesPage.html(inputs)),
        ]
    }

    /// Renders the site and writes its pages into `options.directory` (created if needed); the paths written, in
    /// the order of ``SitePage``.
    /// - Throws: ``SiteError`` for bad input (nothing is written then) or a directory that cannot be written.
    @discardableResult
    public static func build(_ options: SiteOptions) throws -> [String] {
        let pages: [(page: SitePage, html: String)]
        do {
            pages = try render(options)
        } catch let error as SiteError {
            throw error
        } catch {
            throw SiteError("\(error)")
        }
        do {
            try FileManager.default.createDirectory(atPath: options.directory, withIntermediateDirectories: true)
        } catch {
            throw SiteError("\(options.directory): cannot create the directory (\(error.localizedDescription))")
        }
        return try pages.map { page, html in
            let path = (options.directory as NSString).appendingPathComponent(page.fileName)
            do {
                try html.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                throw SiteError("\(path): cannot write the page (\(error.localizedDescription))")
            }
            return path
        }
    }
}
