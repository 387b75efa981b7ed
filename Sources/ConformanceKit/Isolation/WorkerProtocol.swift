// What a conformance worker process and the runner that drives it say to each other.
//
// The runner starts a worker with the arguments below. It writes case ids to the worker's standard input, one per line;
// closing it ends the worker. The worker writes messages to file descriptor 3 (not standard output, which an engine
// may print to), one JSON object per line: first `engines` (with --list) or `ready` (or `fatal`), then for each case
// any number of `trace` lines as they are recorded, then `done`. INTERPRETING.md describes it for engine authors.

import EngineKit
import Foundation

/// An engine a worker hosts: the `--engine` value that selects it, its name in reports, and its features.
public struct EngineDescription: Codable, Sendable, Equatable {
    /// What the worker's `--engine` takes: the name, or for a loaded engine `cf:PATH`.
    public var selector: String
    public var name: String
    public var features: [String]
    /// What the engine is, in one line (`runloop engines`); absent from workers that do not say.
    public var summary: String?
    /// Why it lacks each feature it lacks, by feature, when it says (a library: the symbols it does not export).
    public var lacking: [String: String]?

    public init(selector: String, name: String, features: [String], summary: String? = nil,
                lacking: [String: String]? = nil) {
        self.selector = selector
        self.name = name
        self.features = features
        self.summary = summary
        self.lacking = lacking
    }

    /// The description of an engine object (its selector is its name unless given).
    public init(_ engine: any RunLoopEngine, selector: String? = nil) {
        let lacking = EngineFeature.allCases.filter { !engine.features.contains($0) }
        self.init(selector: selector ?? engine.name, name: engine.name,
                  features: EngineFeature.allCases.filter(engine.features.contains).map(\.rawValue),
                  summary: engine.summary.isEmpty ? nil : engine.summary,
                  lacking: Dictionary(uniqueKeysWithValues: lacking.compactMap { feature in
                      engine.whyLacking(feature).map { (feature.rawValue, $0) }
                  }))
    }
}

/// One line a worker writes. Exactly one member is set.
struct WorkerMessage: Codable, Sendable {
    /// The answer to `--list` and `--describe`.
    var engines: [EngineDescription]?
    /// The worker has loaded the spec and is waiting for case ids; the engine's name.
    var ready: String?
    /// The worker cannot serve (a spec that does not load, an unknown engine); it exits after this.
    var fatal: String?
    /// A trace line of the running case, as it was recorded.
    var trace: String?
    /// The running case's result.
    var done: Result?

    /// What an attempt at a case produced, before any expectation is applied.
    struct Result: Codable, Sendable {
        var id: String
        var status: String
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
            return .failure(WorkerUsageError(message: "needs --list, --describe SELECTOR, or --spec PATH and --engine SELECTOR"))
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
