// `planted`: the reference engine with one planted bug, for the fuzzer's own tests: an observer whose order is 1 or
// more is never called for BeforeSources. FuzzTests check that `runloop fuzz` finds this and shrinks it to a small
// case (an observer of order >= 1, its add, a run) that still diverges from `ref`.

import EngineKit
import RefEngine

struct PlantedEngine: RunLoopEngine {
    var name: String { "planted" }
    var features: Set<EngineFeature> { ReferenceEngine().features }

    func currentLoop() -> any EngineLoop {
        PlantedLoop(ReferenceEngine().currentLoop())
    }
}

/// The reference loop, except that observers of order >= 1 miss BeforeSources.
final class PlantedLoop: ForwardingLoop, @unchecked Sendable {
    override func makeObserver(
        activities: ActivitySet, repeats: Bool, order: Int,
        callout: @escaping @Sendable (Activity) -> Void
    ) -> any EngineObserver {
        inner.makeObserver(activities: activities, repeats: repeats, order: order) { activity in
            if order >= 1, activity == .beforeSources { return }  // the planted bug
            callout(activity)
        }
    }
}
