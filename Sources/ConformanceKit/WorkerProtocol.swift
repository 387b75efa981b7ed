// What a conformance worker process and the runner that drives it say to each other.
//
// The runner starts a worker with the arguments below. It writes case ids to the worker's standard input, one per line;
// closing it ends the worker. The worker writes messages to file descriptor 3 (not standard output, which an engine
// may print to), one JSON object per line: first `engines` (with --list) or `ready` (or `fatal`), then for each case
// any number of `trace` lines as they are recorded, then `done`. INTERPRETING.md describes it for engine authors.

import EngineKit
import Foundation

/// An engine a worker hosts: its name and its features.
public struct EngineDescription: Codable, Sendable, Equatable {
    public var name: String
    public var features: [String]

    public init(name: String, features: [String]) {
        self.name = name
        self.features = features
    }

    init(_ engine: any RunLoopEngine) {
        self.init(name: engine.name, features: EngineFeature.allCases.filter(engine.features.contains).map(\.rawValue))
    }
}

/// One line a worker writes. Exactly one member is set.
struct WorkerMessage: Codable, Sendable {
    /// The answer to `--list`.
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

/// The worker's command line: `--list`, or `--spec PATH --engine NAME`.
enum WorkerArguments: Equatable {
    case list
    case serve(specPath: String, engine: String)

    /// The file descriptor a worker writes its messages to.
    static let messageDescriptor: Int32 = 3

    var arguments: [String] {
        switch self {
        case .list: return ["--list"]
        case .serve(let specPath, let engine): return ["--spec", specPath, "--engine", engine]
        }
    }

    /// Parses a worker's arguments; the error says what is wrong.
    static func parse(_ arguments: [String]) -> Result<WorkerArguments, WorkerUsageError> {
        if arguments == ["--list"] { return .success(.list) }
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
            return .failure(WorkerUsageError(message: "needs --list, or --spec PATH and --engine NAME"))
        }
        return .success(.serve(specPath: specPath, engine: engine))
    }
}

struct WorkerUsageError: Error {
    var message: String
}
