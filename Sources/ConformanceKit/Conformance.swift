// The entry point the CLI and the tests share: load the spec, select cases, run them on engines.

import EngineKit
import Foundation
import YAMLKit

/// What to run.
public struct ConformanceRequest: Sendable {
    /// A spec file or a directory of them.
    public var specPath: String
    /// A directory of `<engine>.yaml` expectation files, or one such file (for the engine its `engine:` names), or
    /// nil for none: the shipped ones, for `runloop conform`.
    public var expectationsPath: String?
    /// The user's own expectations (a directory or one file, as `expectationsPath`), added to those of
    /// `expectationsPath`: for a case both name on one engine, the user's entry wins. Every id must name a case of
    /// the spec.
    public var userExpectationsPath: String?
    /// Only cases whose id matches this glob (fnmatch), or all when nil.
    public var filter: String?
    /// Only cases whose level (``SpecCase/level``) is one of these, or all when nil; a case without a level is left
    /// out when it is set.
    public var levels: Set<RuleLevel>?
    /// Watchdog per case, in seconds, unless a case sets its own.
    public var timeout: Double
    /// How many times to run each case; a case meets its expectation only if every repetition does.
    public var repetitions: Int
    /// Whether an expectation entry for a case the spec does not have is an error (expectations written for this
    /// spec) or is left out (the shipped expectations applied to a user's own spec).
    public var unknownExpectationIDs: EngineExpectations.UnknownIDs = .reject
    /// Worker processes per engine running cases at the same time (``IsolatedRunner/jobs``; in-process runs ignore
    /// it).
    public var jobs: Int = 1

    public init(
        specPath: String, expectationsPath: String?, filter: String? = nil, timeout: Double = 5,
        repetitions: Int = 1
    ) {
        self.specPath = specPath
        self.expectationsPath = expectationsPath
        self.filter = filter
        self.timeout = timeout
        self.repetitions = repetitions
    }
}

/// Loading and running the conformance spec.
public enum Conformance {
    /// Loads the spec and returns the selected cases in spec order (file by file, then as written).
    public static func selectCases(_ request: ConformanceRequest) throws -> [SpecCase] {
        try loadSpec(request).selected
    }

    /// The spec's cases, loaded once for a run: parsing the spec is most of a short run's own work, and the cases
    /// the request selects, the expectations' check of their ids and the triage's reference all read it.
    public struct LoadedSpec: Sendable {
        /// Every case of the spec, in spec order.
        public let all: [SpecCase]
        /// Those the request's filter and levels select, in spec order.
        public let selected: [SpecCase]

        /// The ids of every case, which an expectations file may name.
        var knownIDs: Set<String> { Set(all.map(\.id)) }
    }

    /// Loads the spec of `request` and selects its cases (file by file, then as written).
    public static func loadSpec(_ request: ConformanceRequest) throws -> LoadedSpec {
        let all = try SpecLoader.load(path: request.specPath).flatMap(\.cases)
        var cases = all
        if let filter = request.filter { cases = cases.filter { fnmatch(filter, $0.id, 0) == 0 } }
        if let levels = request.levels { cases = cases.filter { $0.level.map(levels.contains) ?? false } }
        return LoadedSpec(all: all, selected: cases)
    }

    /// Loads each engine's expectations, checked against every case id of the spec.
    /// The user's expectations (``ConformanceRequest/userExpectationsPath``) add to the others.
    public static func loadExpectations(
        _ request: ConformanceRequest,
        engines: [String]
    ) throws -> [String: EngineExpectations] {
        try loadExpectations(request, engines: engines, known: try loadSpec(request).knownIDs)
    }

    /// ``loadExpectations(_:engines:)`` for a spec already loaded, whose case ids are `known`.
    static func loadExpectations(
        _ request: ConformanceRequest, engines: [String], known: @autoclosure () throws -> Set<String>
    ) throws -> [String: EngineExpectations] {
        guard request.expectationsPath != nil || request.userExpectationsPath != nil else { return [:] }
        let known = try known()
        var result =
            try request.expectationsPath.map {
                try loadExpectations(at: $0, engines: engines, known: known, unknownIDs: request.unknownExpectationIDs)
            } ?? [:]
        if let user = request.userExpectationsPath {
            for (engine, own) in try loadExpectations(at: user, engines: engines, known: known, unknownIDs: .reject) {
                var merged = result[engine] ?? EngineExpectations(engine: engine)
                merged.entries.merge(own.entries) { _, users in users }
                result[engine] = merged
            }
        }
        return result
    }

    /// The expectations of the reference engine `cf` (``Triage/referenceEngine``): the shipped ones, from
    /// `expectationsPath` when it is a directory, whatever engines run, so that the triage can name the toolchain's
    /// known defects on any engine (a user's entries are not the toolchain's defects). None with no expectations.
    public static func loadReferenceExpectations(_ request: ConformanceRequest) throws -> EngineExpectations {
        try loadReferenceExpectations(request, known: try loadSpec(request).knownIDs)
    }

    /// ``loadReferenceExpectations(_:)`` for a spec already loaded, whose case ids are `known`.
    static func loadReferenceExpectations(
        _ request: ConformanceRequest, known: @autoclosure () throws -> Set<String>
    ) throws -> EngineExpectations {
        var isDirectory: ObjCBool = false
        guard let directory = request.expectationsPath,
            FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            return EngineExpectations(engine: Triage.referenceEngine)
        }
        let known = try known()
        return try EngineExpectations.load(
            directory: directory, engine: Triage.referenceEngine, knownIDs: known,
            unknownIDs: request.unknownExpectationIDs)
    }

    /// The expectations in one directory of `<engine>.yaml` files, or in one file.
    static func loadExpectations(
        at directory: String, engines: [String], known: Set<String>,
        unknownIDs: EngineExpectations.UnknownIDs
    ) throws -> [String: EngineExpectations] {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), !isDirectory.boolValue {
            let file = try EngineExpectations.load(
                file: directory, engine: nil, knownIDs: known,
                unknownIDs: unknownIDs)
            guard engines.contains(file.engine) else {
                throw SpecError(
                    SpecLocation(file: directory, line: 0),
                    "this file is for engine '\(file.engine)', "
                        + "which is not selected (selected: \(engines.joined(separator: ", ")))")
            }
            return [file.engine: file]
        }
        var result: [String: EngineExpectations] = [:]
        for engine in engines {
            result[engine] = try EngineExpectations.load(
                directory: directory, engine: engine, knownIDs: known,
                unknownIDs: unknownIDs)
        }
        return result
    }

    /// Loads, selects and runs each case in a worker process of `launcher` (one per engine at a time), so that an
    /// engine that crashes or hangs costs one case. Throws ``SpecError`` for a malformed spec or expectations file.
    /// `spec` is the request's spec when the caller has loaded it already (``loadSpec(_:)``).
    public static func run(
        _ request: ConformanceRequest, spec: LoadedSpec? = nil, launcher: WorkerLauncher,
        engines: [EngineDescription], progress: (@Sendable (CaseOutcome) -> Void)? = nil
    ) throws -> ConformanceReport {
        let inputs = try runInputs(request, spec: spec, engines: engines.map(\.name))
        var runner = IsolatedRunner(
            launcher: launcher, defaultTimeout: request.timeout,
            repetitions: request.repetitions, progress: progress)
        runner.jobs = request.jobs
        var report = runner.run(
            cases: inputs.cases, specPath: request.specPath, engines: engines, expectations: inputs.expectations)
        report.referenceExpectations = inputs.reference
        return report
    }

    /// Loads, selects and runs every case in this process (`--isolation none`: for a debugger; a crash ends the run
    /// and a timed-out case leaves its thread behind). Throws ``SpecError`` for a malformed spec or expectations file.
    public static func runInProcess(
        _ request: ConformanceRequest, spec: LoadedSpec? = nil, engines: [any RunLoopEngine],
        progress: (@Sendable (CaseOutcome) -> Void)? = nil
    ) throws -> ConformanceReport {
        let inputs = try runInputs(request, spec: spec, engines: engines.map(\.name))
        let runner = ConformanceRunner(
            defaultTimeout: request.timeout, repetitions: request.repetitions,
            progress: progress)
        var report = runner.run(cases: inputs.cases, engines: engines, expectations: inputs.expectations)
        report.referenceExpectations = inputs.reference
        return report
    }

    /// What a run reads before its first case: the selected cases, each engine's expectations and the triage's
    /// reference, from `spec` (loaded now when the caller has not), checked against every case id of the spec.
    private static func runInputs(
        _ request: ConformanceRequest, spec: LoadedSpec?, engines: [String]
    ) throws -> (cases: [SpecCase], expectations: [String: EngineExpectations], reference: EngineExpectations) {
        let spec = try spec ?? loadSpec(request)
        let expectations = try loadExpectations(request, engines: engines, known: spec.knownIDs)
        let reference = try loadReferenceExpectations(request, known: spec.knownIDs)
        return (spec.selected, expectations, reference)
    }
}
