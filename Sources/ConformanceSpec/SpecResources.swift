// Where the shipped spec lives once the package is built: the cases, the per-engine expectations and the rule
// catalogue are copied as resources, so `runloop conform` and the loader find them without being told.

import Foundation

/// Paths of the spec shipped with this package.
public enum SpecResources {
    /// The directory of case files (`*.yaml`).
    public static var casesDirectory: String? { Bundle.module.url(forResource: "cases", withExtension: nil)?.path }
    /// The directory of per-engine expectations (`<engine>.yaml`).
    public static var expectationsDirectory: String? {
        Bundle.module.url(forResource: "expectations", withExtension: nil)?.path
    }
    /// The rule catalogue (`catalogue.yaml`): every rule id a case may cite.
    public static var catalogueFile: String? {
        Bundle.module.url(forResource: "catalogue", withExtension: "yaml")?.path
    }

    /// The seed write-ups' claims, each with the cases that check it and a verdict (`runloop rules --seeds`).
    public static var seedsFile: String? { Bundle.module.url(forResource: "seeds", withExtension: "yaml")?.path }

    /// The known, explained divergences between engines that `runloop fuzz` reports apart.
    public static var fuzzKnownFile: String? {
        Bundle.module.url(forResource: "fuzz-known", withExtension: "yaml")?.path
    }
}
