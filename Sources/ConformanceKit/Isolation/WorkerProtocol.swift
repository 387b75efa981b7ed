// What a conformance worker process and the runner that drives it say to each other.
//
// The runner starts a worker with the arguments below. It writes case ids to the worker's standard input, one per line;
// closing it ends the worker. The worker writes messages to file descriptor 3 (not standard output, which an engine
// may print to), one JSON object per line: first `engines` (with --list) or `ready` (or `fatal`), then for each case
// any number of `trace` lines as they are recorded, then `done`. INTERPRETING.md describes it for engine authors.

import EngineKit
import Foundation

/// An engine a worker hosts: the `--engine` value that selects it, its name in reports, and its features.
public struct EngineDescription: Sendable, Equatable {
    /// What the worker's `--engine` takes: the name, or for a loaded engine `cf:PATH`.
    public var selector: String
    public var name: String
    /// The features it has, in the order of ``EngineFeature/allCases`` when the worker says so.
    public var features: [EngineFeature]
    /// What the engine is, in one line (`runloop engines`); absent from workers that do not say.
    public var summary: String?
    /// Why it lacks each feature it lacks, by feature, when it says (a library: the symbols it does not export).
    public var lacking: [EngineFeature: String]?

    public init(
        selector: String, name: String, features: [EngineFeature], summary: String? = nil,
        lacking: [EngineFeature: String]? = nil
    ) {
        self.selector = selector
        self.name = name
        self.features = features
        self.summary = summary
        self.lacking = lacking
    }

    /// The description of an engine object (its selector is its name unless given).
    public init(_ engine: any RunLoopEngine, selector: String? = nil) {
        let lacking = EngineFeature.allCases.filter { !engine.features.contains($0) }
        self.init(
            selector: selector ?? engine.name, name: engine.name,
            features: EngineFeature.allCases.filter(engine.features.contains),
            summary: engine.summary.isEmpty ? nil : engine.summary,
            lacking: Dictionary(
                uniqueKeysWithValues: lacking.compactMap { feature in
                    engine.whyLacking(feature).map { (feature, $0) }
                }))
    }
}

/// On the wire a feature is its spec spelling (`source1`, `stopMode`, ...), in a list and as a key of `lacking`.
/// A feature this runner does not know (a worker built against a newer spec) is left out, not an error.
extension EngineDescription: Codable {
    private enum Key: String, CodingKey {
        case selector, name, features, summary, lacking
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let lacking = try container.decodeIfPresent([String: String].self, forKey: .lacking)
        let features = try container.decode([String].self, forKey: .features)
        self.init(
            selector: try container.decode(String.self, forKey: .selector),
            name: try container.decode(String.self, forKey: .name),
            features: features.compactMap { EngineFeature(rawValue: $0) },
            summary: try container.decodeIfPresent(String.self, forKey: .summary),
            lacking: lacking.map { reasons in
                Dictionary(
                    uniqueKeysWithValues: reasons.compactMap { key, reason in
                        EngineFeature(rawValue: key).map { ($0, reason) }
                    })
            })
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(selector, forKey: .selector)
        try container.encode(name, forKey: .name)
        try container.encode(features.map(\.rawValue), forKey: .features)
        try container.encodeIfPresent(summary, forKey: .summary)
        try container.encodeIfPresent(
            lacking.map { reasons in
                Dictionary(uniqueKeysWithValues: reasons.map { ($0.key.rawValue, $0.value) })
            }, forKey: .lacking)
    }
}

/// One line a worker writes: exactly one of these. On the wire it is a JSON object with one member, named after the
/// case: `{"engines":[...]}`, `{"ready":"ref"}`, `{"fatal":"why"}`, `{"trace":"fire t"}`, `{"done":{...}}`.
enum WorkerMessage: Sendable, Equatable {
    /// The answer to `--list` and `--describe`.
    case engines([EngineDescription])
    /// The worker has loaded the spec and is waiting for case ids; the engine's name.
    case ready(engine: String)
    /// The worker cannot serve (a spec that does not load, an unknown engine); it exits after this.
    case fatal(String)
    /// A trace line of the running case, as it was recorded.
    case trace(String)
    /// The running case's result.
    case done(Result)

    /// What an attempt at a case produced, before any expectation is applied.
    struct Result: Codable, Sendable, Equatable {
        var id: String
        var status: CaseStatus
        var detail: String?
        var trace: [String]
        var seconds: Double
    }

    /// The message as one line, newline included.
    func encoded() -> Data {
        // JSONEncoder escapes control characters, so a message never spans lines.
        var data = (try? JSONEncoder().encode(self)) ?? Data(#"{"fatal":"unencodable message"}"#.utf8)
        data.append(UInt8(ascii: "\n"))
        return data
    }
}

extension WorkerMessage: Codable {
    private enum Key: String, CodingKey, CaseIterable {
        case engines, ready, fatal, trace, done
    }

    /// A line with no member of these, or more than one (a null member counts as absent), is not a message; other
    /// members are ignored.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let present = try Key.allCases.filter { key in
            guard container.contains(key) else { return false }
            return try !container.decodeNil(forKey: key)
        }
        guard present.count == 1, let key = present.first else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "a worker message has exactly one of engines, ready, fatal, trace and done, not "
                        + (present.isEmpty ? "none" : present.map(\.rawValue).joined(separator: " and "))))
        }
        switch key {
        case .engines: self = .engines(try container.decode([EngineDescription].self, forKey: key))
        case .ready: self = .ready(engine: try container.decode(String.self, forKey: key))
        case .fatal: self = .fatal(try container.decode(String.self, forKey: key))
        case .trace: self = .trace(try container.decode(String.self, forKey: key))
        case .done: self = .done(try container.decode(Result.self, forKey: key))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .engines(let engines): try container.encode(engines, forKey: .engines)
        case .ready(let engine): try container.encode(engine, forKey: .ready)
        case .fatal(let reason): try container.encode(reason, forKey: .fatal)
        case .trace(let line): try container.encode(line, forKey: .trace)
        case .done(let result): try container.encode(result, forKey: .done)
        }
    }
}

extension WorkerMessage: CustomStringConvertible {
    /// The message as the worker wrote it (its JSON line), for reports of a message out of place.
    var description: String {
        String(decoding: encoded().dropLast(), as: UTF8.self)
    }
}

/// The worker's command line: `--list`, `--describe SELECTOR`, or `--spec PATH --engine SELECTOR`.
enum WorkerArguments: Equatable {
    case list
    case describe(selector: String)
    case serve(specPath: String, engine: String)

    /// The file descriptor a worker writes its messages to.
    static let messageDescriptor: Int32 = 3

    var arguments: [String] {
        switch self {
        case .list: return ["--list"]
        case .describe(let selector): return ["--describe", selector]
        case .serve(let specPath, let engine): return ["--spec", specPath, "--engine", engine]
        }
    }

    /// Parses a worker's arguments; the error says what is wrong.
    static func parse(_ arguments: [String]) -> Result<WorkerArguments, WorkerUsageError> {
        if arguments == ["--list"] { return .success(.list) }
        if arguments.count == 2, arguments[0] == "--describe" { return .success(.describe(selector: arguments[1])) }
        var specPath: String?
        var engine: String?
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst(), flag == "--spec" || flag == "--engine" else {
                return .failure(WorkerUsageError(message: "unexpected argument '\(flag)'"))
            }
            if flag == "--spec" { specPath = value } else { engine = value }
        }
        guard let specPath, let engine else {
            return .failure(
                WorkerUsageError(message: "needs --list, --describe SELECTOR, or --spec PATH and --engine SELECTOR"))
        }
        return .success(.serve(specPath: specPath, engine: engine))
    }
}

/// Writes all of `data` to `descriptor`, retrying after signals. False when the other end is gone (EPIPE) or the write
/// fails otherwise. Both sides of the protocol write with it.
func writeFully(_ descriptor: Int32, _ data: Data) -> Bool {
    data.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }
}

struct WorkerUsageError: Error {
    var message: String
}
