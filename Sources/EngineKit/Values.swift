// Plain values shared by the engine contract, the spec and the reports.

/// A mode as the spec names it.
///
/// `.common` stands for the `kCFRunLoopCommonModes` constant itself (CF recognises it by pointer identity); a `.named`
/// mode whose string happens to equal "kCFRunLoopCommonModes" is a literal mode of that name (rule common.by-identity).
public enum ModeName: Hashable, Sendable, CustomStringConvertible {
    case common
    case named(String)

    /// The name of CF's default mode.
    public static let defaultModeName = "kCFRunLoopDefaultMode"
    /// `kCFRunLoopDefaultMode`.
    public static let `default` = ModeName.named(defaultModeName)

    /// Parses the spec's spelling: `common`, `default`, or any other literal name.
    public init(specName: String) {
        switch specName {
        case "common": self = .common
        case "default": self = .default
        default: self = .named(specName)
        }
    }

    /// The spec's spelling of a concrete mode name (`default` for CF's default mode).
    public static func specName(of concrete: String) -> String {
        concrete == defaultModeName ? "default" : concrete
    }

    public var description: String {
        switch self {
        case .common: return "common"
        case .named(let name): return ModeName.specName(of: name)
        }
    }
}

/// The run-loop activities an observer can watch (CFRunLoopActivity).
public enum Activity: String, CaseIterable, Sendable, Codable {
    case entry, beforeTimers, beforeSources, beforeWaiting, afterWaiting, exit

    /// The CFRunLoopActivity bit.
    public var bit: UInt {
        switch self {
        case .entry: return 1 << 0
        case .beforeTimers: return 1 << 1
        case .beforeSources: return 1 << 2
        case .beforeWaiting: return 1 << 5
        case .afterWaiting: return 1 << 6
        case .exit: return 1 << 7
        }
    }

    public init?(bit: UInt) {
        guard let match = Activity.allCases.first(where: { $0.bit == bit }) else { return nil }
        self = match
    }
}

/// A set of activities, as an observer's mask.
public struct ActivitySet: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public init(_ activities: [Activity]) { self.init(rawValue: activities.reduce(0) { $0 | $1.bit }) }

    public static let all = ActivitySet(Activity.allCases)

    public func contains(_ activity: Activity) -> Bool { rawValue & activity.bit != 0 }
}

/// The result of one run (CFRunLoopRunResult).
public enum RunResult: Int, Sendable, CaseIterable, CustomStringConvertible {
    case finished = 1
    case stopped = 2
    case timedOut = 3
    case handledSource = 4

    public var description: String {
        switch self {
        case .finished: return "finished"
        case .stopped: return "stopped"
        case .timedOut: return "timedOut"
        case .handledSource: return "handledSource"
        }
    }
}

/// The modes argument of CFRunLoopPerformBlock: one mode string, or an array of them.
public enum BlockModes: Sendable, Equatable {
    case one(ModeName)
    case list([ModeName])
}
