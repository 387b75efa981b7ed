// The engines `runloop conform` knows, by name.

import CFEngine
import EngineKit
import RefEngine

enum EngineRegistry {
    /// Every engine, in the order of the report's columns.
    static let all: [any RunLoopEngine] = [CoreFoundationEngine(), ReferenceEngine()]

    static var names: [String] { all.map(\.name) }

    /// The engines a `--engine` value selects: one name, or `all`.
    static func select(_ name: String) -> [any RunLoopEngine]? {
        name == "all" ? all : all.first { $0.name == name }.map { [$0] }
    }
}
