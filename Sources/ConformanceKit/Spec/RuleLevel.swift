// A rule's level: where the behaviour it asserts comes from (Apple's documented contract, CF's shared algorithm, or
// the platform's wait mechanism), and so how far a result on it carries beyond the toolchain's CF on Linux.

import Foundation

/// Where a catalogue rule's behaviour comes from, from the most general to the most specific.
public enum RuleLevel: String, Sendable, CaseIterable, Comparable, Codable {
    /// Apple's documentation states it: what an app may rely on everywhere.
    case api
    /// CF's shared algorithm in CFRunLoop.c, the same code on every platform.
    case cf
    /// The platform's wait mechanism or kernel order (`#if TARGET_OS_*` branches of CFRunLoop.c): on Linux, epoll,
    /// eventfd and timerfd.
    case platform

    public static func < (lhs: RuleLevel, rhs: RuleLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The level of a case that pins rules of these levels: the most specific one (platform over cf over api);
    /// nil for none.
    public static func of(_ levels: [RuleLevel]) -> RuleLevel? { levels.max() }

    /// The levels' names, for messages: "api, cf, platform".
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// Parses a comma-separated list of level names ("api,cf"); nil with the first unknown name otherwise.
    public static func parseList(_ text: String) -> Result<Set<RuleLevel>, UnknownLevel> {
        var levels: Set<RuleLevel> = []
        for word in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = word.trimmingCharacters(in: .whitespaces)
            guard let level = RuleLevel(rawValue: name) else { return .failure(UnknownLevel(name: name)) }
            levels.insert(level)
        }
        return .success(levels)
    }

    /// A level name that is none of ``RuleLevel``'s.
    public struct UnknownLevel: Error, Sendable, CustomStringConvertible {
        public var name: String
        public var description: String { "unknown level '\(name)' (one of \(RuleLevel.names))" }
    }
}
