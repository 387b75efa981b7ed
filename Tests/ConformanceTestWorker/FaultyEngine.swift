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
                FileHandle.standardError.write(
                    Data("faulty: ignoring malformed RUNLOOP_TEST_FAULTS entry '\(entry)'\n".utf8))
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
final class FaultyLoop: ForwardingLoop, @unchecked Sendable {
    private let fault: Fault

    init(_ inner: any EngineLoop, fault: Fault) {
        self.fault = fault
        super.init(inner)
    }

    override func run(mode: ModeName, seconds: Double, returnAfterSourceHandled: Bool) -> RunResult { fault.strike() }
}
