// What the site is built from, all read and checked before a page is written: the results CSVs (every one must
// read), the conformance JSON (when there is one), the spec and its rule catalogue, and the engines.
import ConformanceKit
import ConformanceSpec
import Foundation
import HistoryKit
import ResultsKit

/// What `runloop site` was asked for.
public struct SiteOptions: Sendable {
    /// Where the pages go (created if needed).
    public var directory: String
    /// The directory of results CSVs.
    public var resultsDirectory: String
    /// The conformance JSON (`runloop conform --json-out`); `nil` for `<results>/conformance.json`, which may be
    /// absent (the page then says how to make it). A file named here must exist.
    public var conformancePath: String?
    /// The benchmark targets file; `nil` for Benchmarks/targets.yaml of the checkout.
    public var targetsPath: String?
    /// The conformance engines to describe (`runloop engines`).
    public var engines: [EngineDescription]

    public init(
        directory: String, resultsDirectory: String = "results", conformancePath: String? = nil,
        targetsPath: String? = nil, engines: [EngineDescription]
    ) {
        self.directory = directory
        self.resultsDirectory = resultsDirectory
        self.conformancePath = conformancePath
        self.targetsPath = targetsPath
        self.engines = engines
    }

    /// The conformance JSON the site reads.
    var conformanceFile: String {
        conformancePath ?? (resultsDirectory as NSString).appendingPathComponent("conformance.json")
    }
}

/// One results CSV: its path, contents and date.
struct ResultsRun: Sendable {
    let path: String
    let file: ResultsFile
    /// The bytes `file` was parsed from, with their hash: the history's trends import the run from them.
    let source: RunFile
    /// The `# date:` context line ("" when the file has none: it sorts first, as the oldest).
    var date: String { file.contextValue("date") ?? "" }
    var name: String { (path as NSString).lastPathComponent }
}

/// A conformance run read back from its JSON, with the spec it ran.
struct ConformanceRun: Sendable {
    let path: String
    let report: ConformanceReport
    /// The file's modification time (the JSON has no date of its own).
    let modified: Date?
}

/// Everything the pages show.
struct SiteInputs: Sendable {
    let options: SiteOptions
    /// Every results CSV of times, oldest first by `# date:`.
    let runs: [ResultsRun]
    /// Every results CSV of counts without times (`# timing: none`: instructions, system calls), oldest first: the
    /// trends page draws them, the benchmark page reports the newest of each kind.
    let countRuns: [ResultsRun]
    let conformance: ConformanceRun?
    /// The shipped spec's cases, for the conformance page and the rules.
    let cases: [SpecCase]
    let catalogue: RuleCatalogue
    let coverage: RuleCoverage

    var newestRun: ResultsRun? { runs.last }

    /// The newest count run of each `# filter:` (the family counted: scale, wake), in the order of their first run.
    var newestCountRuns: [ResultsRun] {
        var newest: [String: ResultsRun] = [:]
        var order: [String] = []
        for run in countRuns {
            let filter = run.file.contextValue("filter") ?? ""
            if newest[filter] == nil { order.append(filter) }
            newest[filter] = run
        }
        return order.compactMap { newest[$0] }
    }

    /// Reads and checks every input.
    /// - Throws: ``SiteError`` naming the file and its line or field.
    static func load(_ options: SiteOptions) throws -> SiteInputs {
        guard let specPath = SpecResources.casesDirectory else {
            throw SiteError("the shipped spec was not found next to the executable")
        }
        let cases: [SpecCase]
        let catalogue: RuleCatalogue
        let reference: EngineExpectations
        do {
            catalogue = try RuleCatalogue.shipped()
            cases = try SpecLoader.load(path: specPath).flatMap(\.cases)
            reference = try Conformance.loadReferenceExpectations(
                ConformanceRequest(specPath: specPath, expectationsPath: SpecResources.expectationsDirectory))
        } catch let error as SpecError {
            throw SiteError(error.description)
        }
        var conformance: ConformanceRun?
        let jsonPath = options.conformanceFile
        if options.conformancePath != nil || FileManager.default.fileExists(atPath: jsonPath) {
            do {
                var report = try ConformanceJSON.read(path: jsonPath, cases: cases)
                report.referenceExpectations = reference
                let attributes = try? FileManager.default.attributesOfItem(atPath: jsonPath)
                conformance = ConformanceRun(
                    path: jsonPath, report: report,
                    modified: attributes?[.modificationDate] as? Date)
            } catch let error as ConformanceJSONError {
                throw SiteError(error.description)
            }
        }
        let all = try readRuns(options.resultsDirectory)
        return SiteInputs(
            options: options, runs: all.filter { !$0.file.isUntimed }, countRuns: all.filter(\.file.isUntimed),
            conformance: conformance,
            cases: cases, catalogue: catalogue,
            coverage: RuleCoverage(catalogue: catalogue, cases: cases))
    }

    /// Every `*.csv` of `directory`, read in full (a broken one stops the site, naming its line), oldest first.
    static func readRuns(_ directory: String) throws -> [ResultsRun] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SiteError("\(directory): not a directory (--results names the directory of results CSVs)")
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".csv") }.sorted()
        let runs = try names.map { name -> ResultsRun in
            let path = (directory as NSString).appendingPathComponent(name)
            do {
                let source = try RunFile.read(path: path)
                return ResultsRun(path: path, file: try source.results(), source: source)
            } catch let error as HistoryError {
                throw SiteError(error.message)
            }
        }
        return runs.sorted { ($0.date, $0.name) < ($1.date, $1.name) }
    }
}
