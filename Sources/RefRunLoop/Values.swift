// Plain values of the public API: modes, activities, run results.

/// A mode argument, as CF's APIs take it.
///
/// `.common` is `kCFRunLoopCommonModes` itself: adding to it adds to every common mode (rules common.*). A
/// `.named` mode whose name happens to equal ``commonModesName`` is a literal mode of that name for add, remove and
/// contains, as in CF, where the constant is recognised by pointer identity.
public enum RefRunLoopMode: Hashable, Sendable, CustomStringConvertible {
    case common
    case named(String)

    /// `kCFRunLoopDefaultMode`. The default mode exists from the start and is common (rule common.default-is-common).
    public static let defaultModeName = "kCFRunLoopDefaultMode"
    /// The string value of `kCFRunLoopCommonModes`. Blocks match it by string equality (rule block.mode-match) and
    /// running it returns finished (rule run.common-modes-refused).
    public static let commonModesName = "kCFRunLoopCommonModes"

    /// `kCFRunLoopDefaultMode`.
    public static let `default` = RefRunLoopMode.named(defaultModeName)

    /// Whether this is `kCFRunLoopDefaultMode`. O(1) for ``default`` itself, whose name shares the constant's storage
    /// (String's equality checks identity first).
    @inline(__always)
    var isDefault: Bool {
        if case .named(let name) = self { return name == Self.defaultModeName }
        return false
    }

    /// The mode's name as a string: for `.common`, ``commonModesName``.
    public var name: String {
        switch self {
        case .common: return Self.commonModesName
        case .named(let name): return name
        }
    }

    public var description: String { name }
}

/// The run-loop activities an observer can watch (CFRunLoopActivity), with CF's bit values.
public struct RefRunLoopActivity: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let entry = RefRunLoopActivity(rawValue: 1 << 0)
    public static let beforeTimers = RefRunLoopActivity(rawValue: 1 << 1)
    public static let beforeSources = RefRunLoopActivity(rawValue: 1 << 2)
    public static let beforeWaiting = RefRunLoopActivity(rawValue: 1 << 5)
    public static let afterWaiting = RefRunLoopActivity(rawValue: 1 << 6)
    public static let exit = RefRunLoopActivity(rawValue: 1 << 7)
    public static let allActivities = RefRunLoopActivity(rawValue: 0x0FFF_FFFF)

    public var description: String {
        let names: [(RefRunLoopActivity, String)] = [
            (.entry, "entry"), (.beforeTimers, "beforeTimers"), (.beforeSources, "beforeSources"),
            (.beforeWaiting, "beforeWaiting"), (.afterWaiting, "afterWaiting"), (.exit, "exit"),
        ]
        return names.filter { contains($0.0) }.map(\.1).joined(separator: "|")
    }
}

/// What a run returns (CFRunLoopRunResult), with CF's raw values.
public enum RefRunLoopResult: Int32, Sendable, CaseIterable, CustomStringConvertible {
    /// The mode was missing or empty, or became empty (rules run.empty-mode-finished, result.check-order).
    case finished = 1
    /// ``RefRunLoop/stop()`` or ``RefRunLoop/stop(mode:)`` (rules result.check-order, stop.before-first-pass).
    case stopped = 2
    /// The timeout passed; always the result of a poll (seconds <= 0) that handled no source (rule timeout.poll).
    case timedOut = 3
    /// A source was handled and the run was asked to return after one (rule result.check-order).
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

/// The modes argument of ``RefRunLoop/perform(modes:_:)``: CF accepts one mode string or a collection of them.
public enum RefBlockModes: Sendable, Hashable {
    case one(RefRunLoopMode)
    case list([RefRunLoopMode])

    /// The mode names, as CF stores them: `.common` is the string ``RefRunLoopMode/commonModesName``.
    var names: Set<String> {
        switch self {
        case .one(let mode): return [mode.name]
        case .list(let modes): return Set(modes.map(\.name))
        }
    }
}
