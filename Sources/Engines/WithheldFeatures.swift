// `--without FEATURE`: an engine with some of its features turned off, so the cases that need them SKIP with the
// reason, as on an engine that lacks them. For a library whose build leaves a behaviour out although it exports the
// function (a CoreFoundation built without libdispatch exports CFRunLoopGetMain but its main loop has no main queue).

import ConformanceKit
import EngineKit

extension EngineCatalogue {
    /// The catalogue with `withheld` turned off on every engine it hosts or loads (itself when it is empty).
    public func without(_ withheld: Set<EngineFeature>) -> EngineCatalogue {
        guard !withheld.isEmpty else { return self }
        let withholding: [any RunLoopEngine] = engines.map { FeatureWithholdingEngine($0, withheld: withheld) }
        guard let loader else { return EngineCatalogue(engines: withholding) }
        let withholdingLoader: EngineLoader = { selector in
            guard let loaded = loader(selector) else { return nil }
            return loaded.map { engine -> any RunLoopEngine in FeatureWithholdingEngine(engine, withheld: withheld) }
        }
        return EngineCatalogue(engines: withholding, loader: withholdingLoader)
    }
}

/// `base` without the features in `withheld`; every other member is the base engine's.
public struct FeatureWithholdingEngine: RunLoopEngine {
    public let base: any RunLoopEngine
    public let withheld: Set<EngineFeature>

    public init(_ base: any RunLoopEngine, withheld: Set<EngineFeature>) {
        self.base = base
        self.withheld = withheld
    }

    public var name: String { base.name }
    public var summary: String { base.summary }
    public var features: Set<EngineFeature> { base.features.subtracting(withheld) }

    public func whyLacking(_ feature: EngineFeature) -> String? {
        if withheld.contains(feature), base.features.contains(feature) {
            return "turned off with --without \(feature.optionName)"
        }
        return base.whyLacking(feature)
    }

    public func currentLoop() -> any EngineLoop { base.currentLoop() }
}
