// `faulty`: the reference engine, except that on the cases named in RUNLOOP_TEST_FAULTS it misbehaves inside its
// first CFRunLoopRunInMode, after the case has recorded trace lines: it aborts, segfaults, exits or hangs.
//
// RUNLOOP_TEST_FAULTS is a comma-separated list of KIND=GLOB (KIND: abort, segv, exit, hang; GLOB an fnmatch pattern
// of case ids), e.g. "abort=order.entry-*,hang=stop.from-callout".

import EngineKit
import Foundation
import RefEngine
import Synchronization

/// What `faulty` does on a case.
enum Fault: String {
    case abort, segv, exit, hang

    /// The fault RUNLOOP_TEST_FAULTS chooses for `caseID`, if any.
    static func chosen(for caseID: String) -> Fault? {
        let setting = ProcessInfo.processInfo.environment["RUNLOOP_TEST_FAULTS"] ?? ""
        for entry in setting.split(separator: ",") {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let fault = Fault(rawValue: parts[0]) else {
                FileHandle.standardError.write(Data("faulty: ignoring malformed RUNLOOP_TEST_FAULTS entry '\(entry)'\n".utf8))
                continue
            }
            if fnmatch(parts[1], caseID, 0) == 0 { return fault }
        }
        return nil
    }

    /// Misbehaves; never returns.
    func strike() -> Never {
        switch self {
        case .abort: Foundation.abort()
        case .segv:
            // A real bad dereference, as a buggy engine makes (a raised SIGSEGV returns from Swift's backtracer).
            let address = Int(ProcessInfo.processInfo.processIdentifier & 0) | 8
            UnsafeMutablePointer<Int>(bitPattern: address)!.pointee = 1
        case .exit: Foundation.exit(3)
        case .hang: break
        }
        while true { sleep(3600) }
    }
}

struct FaultyEngine: CaseObservingEngine {
    var name: String { "faulty" }
    var features: Set<EngineFeature> { ReferenceEngine().features }

    /// The fault for the case about to run in this worker; written on the case thread before `currentLoop`.
    private static let pending = Mutex<Fault?>(nil)

    func caseWillStart(_ caseID: String) {
        Self.pending.withLock { $0 = Fault.chosen(for: caseID) }
    }

    func currentLoop() -> any EngineLoop {
        let loop = ReferenceEngine().currentLoop()
        guard let fault = Self.pending.withLock({ $0 }) else { return loop }
        return FaultyLoop(loop, fault: fault)
    }
}

/// The reference loop with a fault in `run`; everything else passes through.
final class FaultyLoop: EngineLoop {
    private let inner: any EngineLoop
    private let fault: Fault

    init(_ inner: any EngineLoop, fault: Fault) {
        self.inner = inner
        self.fault = fault
    }

    func run(mode: ModeName, seconds: Double, returnAfterSourceHandled: Bool) -> RunResult { fault.strike() }

    var now: Double { inner.now }
    func makeSource0(order: Int, callbacks: Source0Callbacks) -> any EngineSource {
        inner.makeSource0(order: order, callbacks: callbacks)
    }
    func makeSource1(order: Int, fd: Int32, perform: @escaping @Sendable () -> Void) -> any EngineSource {
        inner.makeSource1(order: order, fd: fd, perform: perform)
    }
    func makeTimer(fireDate: Double, interval: Double, order: Int,
                   callout: @escaping @Sendable () -> Void) -> any EngineTimer {
        inner.makeTimer(fireDate: fireDate, interval: interval, order: order, callout: callout)
    }
    func makeObserver(activities: ActivitySet, repeats: Bool, order: Int,
                      callout: @escaping @Sendable (Activity) -> Void) -> any EngineObserver {
        inner.makeObserver(activities: activities, repeats: repeats, order: order, callout: callout)
    }
    func add(_ item: EngineItem, mode: ModeName) { inner.add(item, mode: mode) }
    func remove(_ item: EngineItem, mode: ModeName) { inner.remove(item, mode: mode) }
    func contains(_ item: EngineItem, mode: ModeName) -> Bool { inner.contains(item, mode: mode) }
    func addCommonMode(_ name: String) { inner.addCommonMode(name) }
    func performBlock(modes: BlockModes, _ block: @escaping @Sendable () -> Void) { inner.performBlock(modes: modes, block) }
    func stop() { inner.stop() }
    func stopMode(_ name: String) { inner.stopMode(name) }
    func wakeUp() { inner.wakeUp() }
    var isWaiting: Bool { inner.isWaiting }
    var currentMode: String? { inner.currentMode }
    var allModes: [String] { inner.allModes }
    func nextTimerFireDate(mode: ModeName) -> Double { inner.nextTimerFireDate(mode: mode) }
}
