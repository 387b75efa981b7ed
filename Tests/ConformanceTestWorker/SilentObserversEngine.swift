// `silent-observers`: the reference engine, except that no observer is ever called, the defect a broken
// CoreFoundation may have. The triage tests check that a run on it gives one cluster naming the observer callouts
// (not one per case or per activity) and that the passes of cases with observers are flagged as only vacuous.

import EngineKit
import RefEngine

struct SilentObserversEngine: RunLoopEngine {
    var name: String { "silent-observers" }
    var features: Set<EngineFeature> { ReferenceEngine().features }

    func currentLoop() -> any EngineLoop {
        SilentObserversLoop(ReferenceEngine().currentLoop())
    }
}

/// The reference loop, with observers whose callout is never made.
final class SilentObserversLoop: ForwardingLoop, @unchecked Sendable {
    override func makeObserver(
        activities: ActivitySet, repeats: Bool, order: Int,
        callout: @escaping @Sendable (Activity) -> Void
    ) -> any EngineObserver {
        inner.makeObserver(activities: activities, repeats: repeats, order: order) { _ in }  // the planted defect
    }
}
