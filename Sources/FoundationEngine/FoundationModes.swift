// The spec's modes as Foundation's RunLoop.Mode values.

import EngineKit
import Foundation

extension ModeName {
    /// `.common` is `RunLoop.Mode.common`, any other name `RunLoop.Mode(name)`. Foundation hands CF the
    /// kCFRunLoopCommonModes constant for any mode equal to `.common`, so the literal name "kCFRunLoopCommonModes"
    /// cannot be said through Foundation (swift-corelibs-foundation Sources/Foundation/RunLoop.swift 36-47,
    /// `_cfStringUniquingKnown`).
    var foundationMode: RunLoop.Mode {
        switch self {
        case .common: return .common
        case .named(let name): return RunLoop.Mode(name)
        }
    }
}
