// The `cf` engine: the real CoreFoundation run loop shipped in the Swift toolchain, driven through its C API.
// Nothing here adds behaviour: each member is one CF call, so the spec observes CF itself.

import CoreFoundation
import EngineKit

/// CoreFoundation's CFRunLoop (libFoundation.so in the toolchain).
public struct CoreFoundationEngine: RunLoopEngine {
    public init() {}

    public var name: String { "cf" }

    public var features: Set<EngineFeature> {
        // Tolerance is listed although CF on Linux stores none (Get returns 0): the spec records that as expected
        // failures with their evidence rather than hiding it behind a skip.
        [.source1, .blocks, .timerTolerance, .stopMode, .mainThread]
    }

    public func currentLoop() -> any EngineLoop { CFLoop(CFRunLoopGetCurrent()) }
}

/// Converts between the spec's mode names and CFStrings.
enum CFModes {
    /// The CFString for a mode: the `kCFRunLoopCommonModes` constant itself for `.common`, a new string otherwise.
    static func cfString(_ mode: ModeName) -> CFString {
        switch mode {
        case .common: return kCFRunLoopCommonModes
        case .named(let name): return cfString(name)
        }
    }

    static func cfString(_ name: String) -> CFString {
        CFStringCreateWithCString(nil, name, CFStringBuiltInEncodings.UTF8.rawValue)
    }

    static func string(_ cf: CFString) -> String {
        let length = CFStringGetLength(cf)
        let capacity = CFStringGetMaximumSizeForEncoding(length, CFStringBuiltInEncodings.UTF8.rawValue) + 1
        var buffer = [CChar](repeating: 0, count: Int(capacity))
        guard CFStringGetCString(cf, &buffer, capacity, CFStringBuiltInEncodings.UTF8.rawValue) else { return "?" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
