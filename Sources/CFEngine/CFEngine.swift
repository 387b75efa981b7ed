// The `cf` engine: the real CoreFoundation run loop shipped in the Swift toolchain, driven through its C API.
// Nothing here adds behaviour: each member is one CF call, so the spec observes CF itself.

import CoreFoundation
import EngineKit

#if canImport(Glibc)
import Glibc
#endif

/// CoreFoundation's CFRunLoop (libFoundation.so in the toolchain).
public struct CoreFoundationEngine: RunLoopEngine {
    public init() {}

    public var name: String { "cf" }

    public var features: Set<EngineFeature> {
        // Tolerance is not listed: on Linux CF stores none (Get returns 0), which the spec records as expected
        // failures rather than hiding behind a skip.
        var set: Set<EngineFeature> = [.source1, .blocks, .timerTolerance]
        if CFPrivate.stopMode != nil { set.insert(.stopMode) }
        return set
    }

    public func currentLoop() -> any EngineLoop { CFLoop(CFRunLoopGetCurrent()) }
}

/// CF functions that exist in libFoundation.so but are not declared for Linux in the toolchain's headers.
enum CFPrivate {
    typealias StopModeFunction = @convention(c) (CFRunLoop?, CFString?) -> Void

    /// `_CFRunLoopStopMode(rl, modeName)`, looked up once; nil if this CF build does not export it.
    static let stopMode: StopModeFunction? = {
        // dlopen(NULL) is the program and every library it loaded, libFoundation.so among them.
        guard let program = dlopen(nil, RTLD_NOW), let symbol = dlsym(program, "_CFRunLoopStopMode") else { return nil }
        return unsafeBitCast(symbol, to: StopModeFunction.self)
    }()
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
