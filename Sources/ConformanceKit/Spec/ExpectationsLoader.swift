// Per-engine expected results, kept beside the cases as web-platform-tests keeps its metadata: a known divergence
// is recorded with its reason, not hidden.
//
//   spec_version: 1
//   engine: cf
//   expected:
//     timer.tolerance.get-returns-set-value:
//       status: FAIL
//       reason: "CoreFoundation on Linux stores no tolerance: CFRunLoopTimerGetTolerance returns 0 (RL 4739-70)."

import Foundation
import YAMLKit

/// One engine's expected non-PASS statuses.
public struct EngineExpectations: Sendable {
    public struct Entry: Sendable {
        public var status: CaseStatus
        public var reason: String
        public var location: SpecLocation
    }

    public var engine: String
    public var entries: [String: Entry]

    public init(engine: String, entries: [String: Entry] = [:]) {
        self.engine = engine
        self.entries = entries
    }

    /// What to do with an entry whose id names no case of the spec.
    public enum UnknownIDs: Sendable {
        /// Reject the file (the expectations were written for this spec, so the id is a typo or a stale entry).
        case reject
        /// Leave the entry out (the shipped expectations applied to a user's own spec, which may copy some cases).
        case ignore
    }

    /// Loads `<directory>/<engine>.yaml` if it exists; an engine without a file expects every case to pass.
    /// Every id must name a known case, unless `unknownIDs` is `.ignore`.
    public static func load(
        directory: String, engine: String, knownIDs: Set<String>,
        unknownIDs: UnknownIDs = .reject
    ) throws -> EngineExpectations {
        let path = (directory as NSString).appendingPathComponent("\(engine).yaml")
        guard FileManager.default.fileExists(atPath: path) else { return EngineExpectations(engine: engine) }
        return try load(file: path, engine: engine, knownIDs: knownIDs, unknownIDs: unknownIDs)
    }

    /// Loads one expectations file. With `engine` nil the file's own `engine:` says which engine it is for.
    public static func load(
        file path: String, engine: String?, knownIDs: Set<String>,
        unknownIDs: UnknownIDs = .reject
    ) throws -> EngineExpectations {
        try parse(SpecLoader.readText(path), file: path, engine: engine, knownIDs: knownIDs, unknownIDs: unknownIDs)
    }

    /// Parses an expectations file; `file` is used in messages.
    public static func parse(
        _ text: String, file: String, engine: String?, knownIDs: Set<String>,
        unknownIDs: UnknownIDs = .reject
    ) throws -> EngineExpectations {
        var top = try SpecLoader.versionedTop(text, file: file)
        let engineValue = try top.required("engine")
        let fileEngine = try engineValue.string()
        if let engine, fileEngine != engine {
            throw engineValue.error("this file is for engine '\(fileEngine)', but is named for '\(engine)'")
        }
        var entries: [String: Entry] = [:]
        for (id, value) in try top.required("expected").mapping() {
            var entryValue = value
            entryValue.caseID = id
            guard knownIDs.contains(id) else {
                if unknownIDs == .ignore { continue }
                throw entryValue.error(
                    "no case of the spec has this id (an expectations file goes with its spec: for "
                        + "your own cases pass --expectations DIR with your own <engine>.yaml files, "
                        + "or --expectations none)")
            }
            var fields = try entryValue.fields()
            let statusValue = try fields.required("status")
            let word = try statusValue.string()
            guard let status = CaseStatus(rawValue: word), status != .pass, status != .skip else {
                throw statusValue.error("status must be FAIL, TIMEOUT, CRASH or ERROR, not '\(word)'")
            }
            let reasonValue = try fields.required("reason")
            let reason = try reasonValue.string()
            guard reason.count >= 20 else { throw reasonValue.error("give the reason and its evidence") }
            try fields.finish(allowed: ["status", "reason"])
            entries[id] = Entry(status: status, reason: reason, location: value.location)
        }
        try top.finish(allowed: ["spec_version", "engine", "expected"])
        return EngineExpectations(engine: fileEngine, entries: entries)
    }
}
