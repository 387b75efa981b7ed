// The contract between the conformance runner and a run-loop implementation ("engine").
//
// The runner never touches an engine's own API: it interprets a spec case by calling the members below, on the
// case's loop thread unless a member says it may be called from any thread. Every member mirrors one CFRunLoop
// function; its doc comment names it, so an engine author can read the CF documentation for the exact meaning.
// Version 1 of this contract is described in Sources/ConformanceSpec/INTERPRETING.md.

/// A run-loop implementation the conformance runner can drive.
public protocol RunLoopEngine: Sendable {
    /// Short, stable name used on the command line and in reports (`cf`, `ref`).
    var name: String { get }
    /// What the engine is, in one line (`runloop engines`): for a library, its path and build id. Defaults to "".
    var summary: String { get }
    /// Optional capabilities; a case that needs a missing one is reported SKIP, not FAIL.
    var features: Set<EngineFeature> { get }
    /// The calling thread's loop, created on first use (CFRunLoopGetCurrent). Called on a fresh thread per case, on
    /// each fresh helper thread that hosts a case's second loop (`loops:`, format 1.1), or, for a main-thread case
    /// (``EngineFeature/mainThread``), on the process's main thread, whose loop is the main loop. The object returned
    /// keeps the loop alive while it is referenced (CF: retains it), also after the thread has exited.
    func currentLoop() -> any EngineLoop
    /// Why the engine lacks `feature` (the SKIP reason names it), or nil. Defaults to nil.
    func whyLacking(_ feature: EngineFeature) -> String?
}

extension RunLoopEngine {
    public func whyLacking(_ feature: EngineFeature) -> String? { nil }
    public var summary: String { "" }
}

/// An engine that wants to know which case is about to run: diagnostic engines, and the test-only engine that
/// crashes or hangs on chosen cases. The runner calls `caseWillStart` on the case's thread, before ``currentLoop()``.
public protocol CaseObservingEngine: RunLoopEngine {
    func caseWillStart(_ caseID: String)
}

/// Optional capabilities of an engine. Cases list the ones they need (`features:` in the spec).
public enum EngineFeature: String, CaseIterable, Sendable, Codable {
    /// Version-1 sources that wait on a file descriptor.
    case source1
    /// `_CFRunLoopStopMode`: a persistent per-mode stop request.
    case stopMode
    /// Timer tolerance that is stored and honoured (CFRunLoopTimerSetTolerance / GetTolerance).
    case timerTolerance
    /// CFRunLoopPerformBlock.
    case blocks
    /// Main-thread cases: the case runs on the process's main thread, whose loop is the main loop
    /// (CFRunLoopGetMain) (spec format 1.1).
    case mainThread
    /// The main loop services the main dispatch queue as CF's does: blocks sent to it run in the loop's common modes,
    /// and its port keeps a common mode of the main loop from being empty. A CoreFoundation built without
    /// libdispatch has a main loop without it. Cases that send to the main queue (`dispatchMain`) need it whether
    /// they list it or not.
    case mainQueue
    /// Foundation's `RunLoop` and `Timer` API over the loop (``FoundationLayerLoop``): the Foundation verbs of spec
    /// format 1.3. Cases that use one need it whether they list it or not.
    case foundation
    /// CFRunLoopSourceIsSignalled: whether a source is signalled (``EngineSource/isSignalled``), asked by the query
    /// `[isSignalled, source]` (spec format 1.4). Cases that ask it need it whether they list it or not.
    case isSignalled

    /// The feature's name on the command line (`--without`): kebab case, `tolerance` for timerTolerance.
    public var optionName: String {
        switch self {
        case .source1: return "source1"
        case .stopMode: return "stop-mode"
        case .timerTolerance: return "tolerance"
        case .blocks: return "blocks"
        case .mainThread: return "main-thread"
        case .mainQueue: return "main-queue"
        case .foundation: return "foundation"
        case .isSignalled: return "is-signalled"
        }
    }

    /// The feature a command-line name (``optionName``) or a spec name (the raw value) names.
    public init?(optionName: String) {
        guard let feature = Self.allCases.first(where: { $0.optionName == optionName || $0.rawValue == optionName })
        else { return nil }
        self = feature
    }

    /// Parses a comma-separated `--without` list; the error names the unknown feature and lists the known ones.
    public static func parseList(_ list: String) -> Result<Set<EngineFeature>, FeatureListError> {
        var features = Set<EngineFeature>()
        for word in list.split(separator: ",").map({ String($0.filter { $0 != " " }) }) where !word.isEmpty {
            guard let feature = EngineFeature(optionName: word) else {
                return .failure(
                    FeatureListError(
                        description: "unknown feature '\(word)' (known: "
                            + allCases.map(\.optionName).joined(separator: ", ") + ")"))
            }
            features.insert(feature)
        }
        return .success(features)
    }
}

/// A `--without` list that names an unknown feature.
public struct FeatureListError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// One loop, bound to the thread that created it.
///
/// Members marked "any thread" must be safe to call concurrently with a running loop; the others are called on the
/// loop's own thread only.
public protocol EngineLoop: AnyObject, Sendable {
    /// The engine's absolute clock in seconds (CFAbsoluteTimeGetCurrent); timer fire dates use it. Any thread.
    var now: Double { get }

    /// CFRunLoopSourceCreate with a version-0 context.
    func makeSource0(order: Int, callbacks: Source0Callbacks) -> any EngineSource
    /// CFRunLoopSourceCreate with a version-1 context whose port is `fd`: when `fd` is readable the loop reads
    /// 8 bytes from it and calls `perform`. Needs ``EngineFeature/source1``.
    func makeSource1(order: Int, fd: Int32, perform: @escaping @Sendable () -> Void) -> any EngineSource
    /// CFRunLoopTimerCreateWithHandler. `fireDate` is absolute in ``now``'s clock; `interval` <= 0 means one-shot.
    func makeTimer(
        fireDate: Double, interval: Double, order: Int,
        callout: @escaping @Sendable () -> Void
    ) -> any EngineTimer
    /// CFRunLoopObserverCreateWithHandler.
    func makeObserver(
        activities: ActivitySet, repeats: Bool, order: Int,
        callout: @escaping @Sendable (Activity) -> Void
    ) -> any EngineObserver

    /// CFRunLoopAddSource / AddTimer / AddObserver. Any thread.
    func add(_ item: EngineItem, mode: ModeName)
    /// CFRunLoopRemoveSource / RemoveTimer / RemoveObserver. Any thread.
    func remove(_ item: EngineItem, mode: ModeName)
    /// CFRunLoopContainsSource / ContainsTimer / ContainsObserver. Any thread.
    func contains(_ item: EngineItem, mode: ModeName) -> Bool
    /// CFRunLoopAddCommonMode. Any thread.
    func addCommonMode(_ name: String)
    /// CFRunLoopPerformBlock: queue `block` for the given modes; does not wake the loop. Any thread.
    /// Needs ``EngineFeature/blocks``.
    func performBlock(modes: BlockModes, _ block: @escaping @Sendable () -> Void)

    /// CFRunLoopRunInMode. Loop thread; may be called re-entrantly from a callout (a nested run).
    func run(mode: ModeName, seconds: Double, returnAfterSourceHandled: Bool) -> RunResult
    /// CFRunLoopRun: runs the default mode until a run of it returns Stopped or Finished. Loop thread; may be called
    /// from a callout. (Spec format 1.1, action `runForever`.)
    func runForever()
    /// CFRunLoopStop. Any thread.
    func stop()
    /// _CFRunLoopStopMode. Any thread. Needs ``EngineFeature/stopMode``.
    func stopMode(_ name: String)
    /// CFRunLoopWakeUp. Any thread.
    func wakeUp()
    /// CFRunLoopIsWaiting. Any thread.
    var isWaiting: Bool { get }
    /// CFRunLoopCopyCurrentMode: the innermost running mode, or nil when not running. Any thread.
    var currentMode: String? { get }
    /// CFRunLoopCopyAllModes, in any order. Any thread.
    var allModes: [String] { get }
    /// CFRunLoopGetNextTimerFireDate: the earliest fire date in `mode`, or 0 when there is none.
    func nextTimerFireDate(mode: ModeName) -> Double
    /// Whether `other` wraps the same run loop as this one (CFEqual of two CFRunLoopRefs, which is pointer
    /// identity): two calls of ``RunLoopEngine/currentLoop()`` on one thread give the same loop, on two threads two
    /// loops. `other` comes from the same engine. Any thread. (Contract 1.1, for cases with a second loop.)
    func isSameLoop(as other: any EngineLoop) -> Bool
    /// Whether this loop is the main thread's loop: CFRunLoopGetMain() == this loop. Any thread. An engine without
    /// ``EngineFeature/mainThread`` may answer false.
    var isMainLoop: Bool { get }
}

/// A source created by ``EngineLoop/makeSource0(order:callbacks:)`` or ``EngineLoop/makeSource1(order:fd:perform:)``.
public protocol EngineSource: AnyObject, Sendable {
    /// CFRunLoopSourceSignal. Any thread.
    func signal()
    /// CFRunLoopSourceInvalidate. Any thread.
    func invalidate()
    /// CFRunLoopSourceIsValid. Any thread.
    var isValid: Bool { get }
    /// CFRunLoopSourceIsSignalled. Any thread. Asked only of an engine with ``EngineFeature/isSignalled``; the
    /// default, for an engine without it, is nil (the engine cannot answer).
    var isSignalled: Bool? { get }
}

extension EngineSource {
    public var isSignalled: Bool? { nil }
}

/// A timer created by ``EngineLoop/makeTimer(fireDate:interval:order:callout:)``.
public protocol EngineTimer: AnyObject, Sendable {
    /// CFRunLoopTimerInvalidate. Any thread.
    func invalidate()
    /// CFRunLoopTimerIsValid. Any thread.
    var isValid: Bool { get }
    /// CFRunLoopTimerGetNextFireDate / SetNextFireDate (absolute, in ``EngineLoop/now``'s clock). Any thread.
    var nextFireDate: Double { get set }
    /// CFRunLoopTimerGetTolerance / SetTolerance. Any thread.
    var tolerance: Double { get set }
}

/// An observer created by ``EngineLoop/makeObserver(activities:repeats:order:callout:)``.
public protocol EngineObserver: AnyObject, Sendable {
    /// CFRunLoopObserverInvalidate. Any thread.
    func invalidate()
    /// CFRunLoopObserverIsValid. Any thread.
    var isValid: Bool { get }
}

/// Anything that can be added to a mode.
public enum EngineItem: Sendable {
    case source(any EngineSource)
    case timer(any EngineTimer)
    case observer(any EngineObserver)
}

/// Callouts of a version-0 source. `schedule` and `cancel` receive the concrete mode name.
public struct Source0Callbacks: Sendable {
    public var perform: @Sendable () -> Void
    public var schedule: @Sendable (String) -> Void
    public var cancel: @Sendable (String) -> Void

    public init(
        perform: @escaping @Sendable () -> Void,
        schedule: @escaping @Sendable (String) -> Void = { _ in },
        cancel: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.perform = perform
        self.schedule = schedule
        self.cancel = cancel
    }
}
