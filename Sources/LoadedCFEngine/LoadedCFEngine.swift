// Engines `cf:PATH`: any shared library that exports CoreFoundation's C API for run loops, loaded at run time
// (CFLoader.h says how and why with RTLD_DEEPBIND). Like the built-in `cf` engine, each member is one call into the
// library, so the spec observes the library itself. The library's objects are opaque references owned through its
// own CFRetain/CFRelease; nothing here assumes the toolchain's CoreFoundation.

import CFLoader
import EngineKit
import Foundation
import Synchronization

/// One loaded library: its function table, which lives for the process.
public final class LoadedLibrary: Sendable {
    // The table is written once by cfl_open and only read afterwards.
    nonisolated(unsafe) let table: UnsafeMutablePointer<cfl_library>
    public let path: String
    /// The library's GNU build id in hex, or "" when it has none.
    public let buildID: String

    init(table: UnsafeMutablePointer<cfl_library>) {
        self.table = table
        path = withUnsafeBytes(of: table.pointee.path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        buildID = withUnsafeBytes(of: table.pointee.build_id) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    var fn: cfl_library { table.pointee }

    /// Libraries already opened in this process, by path.
    private static let opened = Mutex<[String: LoadedLibrary]>([:])

    /// Opens the library at `path` once per process. The error names the path and every missing core function.
    public static func open(_ path: String) -> Result<LoadedLibrary, LoadError> {
        opened.withLock { cache in
            if let library = cache[path] { return .success(library) }
            var error: UnsafeMutablePointer<CChar>?
            guard let table = cfl_open(path, &error) else {
                defer { free(error) }
                return .failure(LoadError(description: error.map { String(cString: $0) } ?? "cannot load \(path)"))
            }
            let library = LoadedLibrary(table: table)
            cache[path] = library
            return .success(library)
        }
    }

    // MARK: Strings

    /// A new CFString of the library (release it), or its kCFRunLoopCommonModes constant for `.common` (do not).
    func modeString(_ mode: ModeName) -> (ref: cfl_ref, owned: Bool) {
        switch mode {
        case .common: return (fn.commonModes, false)
        case .named(let name): return (makeString(name), true)
        }
    }

    func makeString(_ text: String) -> cfl_ref {
        guard let string = fn.CFStringCreateWithCString(nil, text, CFL_UTF8) else {
            fatalError("\(path): CFStringCreateWithCString returned NULL for '\(text)'")
        }
        return string
    }

    /// Calls `body` with the mode's string, releasing it afterwards when it was created for the call.
    func withMode<R>(_ mode: ModeName, _ body: (cfl_ref) -> R) -> R {
        let (string, owned) = modeString(mode)
        defer { if owned { fn.CFRelease(string) } }
        return body(string)
    }

    /// A Swift string from one of the library's CFStrings.
    func string(_ cf: cfl_ref?) -> String {
        guard let cf else { return "?" }
        let length = fn.CFStringGetLength(cf)
        let capacity = fn.CFStringGetMaximumSizeForEncoding(length, CFL_UTF8) + 1
        guard capacity > 0, capacity < 1 << 20 else { return "?" }
        var buffer = [CChar](repeating: 0, count: capacity)
        guard fn.CFStringGetCString(cf, &buffer, capacity, CFL_UTF8) != 0 else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why a library cannot be used as an engine.
public struct LoadError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// The engine over one loaded library.
public struct LoadedCFEngine: RunLoopEngine {
    /// What `--engine` values of this family start with: `cf:PATH`.
    public static let prefix = "cf:"

    public let library: LoadedLibrary
    /// `cf:` and the library's file name without `lib` and `.so...`: `cf:Foundation` for libFoundation.so.
    public let name: String

    public init(library: LoadedLibrary) {
        self.library = library
        var base = URL(fileURLWithPath: library.path).lastPathComponent
        if let so = base.range(of: ".so") { base = String(base[..<so.lowerBound]) }
        if base.hasPrefix("lib"), base.count > 3 { base.removeFirst(3) }
        name = Self.prefix + base
    }

    /// The engine for an `--engine` value `cf:PATH`; nil when `selector` is not of this family.
    public static func load(selector: String) -> Result<LoadedCFEngine, LoadError>? {
        guard selector.hasPrefix(prefix) else { return nil }
        let path = String(selector.dropFirst(prefix.count))
        guard !path.isEmpty else { return .failure(LoadError(description: "'\(selector)' names no library: cf:PATH")) }
        return LoadedLibrary.open(path).map(LoadedCFEngine.init)
    }

    /// ``load(selector:)`` as a worker's engine loader.
    @Sendable public static func loadEngine(selector: String) -> Result<any RunLoopEngine, any Error>? {
        load(selector: selector)?.map { $0 as any RunLoopEngine }.mapError { $0 as any Error }
    }

    public var features: Set<EngineFeature> {
        EngineFeature.allCases.reduce(into: []) { features, feature in
            if whyLacking(feature) == nil { features.insert(feature) }
        }
    }

    public func whyLacking(_ feature: EngineFeature) -> String? {
        let fn = library.fn
        let missing: [String]
        switch feature {
        case .source1: missing = []
        case .blocks:
            missing = [fn.CFRunLoopPerformBlock == nil ? "CFRunLoopPerformBlock" : nil,
                       fn.CFArrayCreate == nil ? "CFArrayCreate" : nil,
                       fn.typeArrayCallBacks == nil ? "kCFTypeArrayCallBacks" : nil].compactMap { $0 }
        case .stopMode: missing = fn._CFRunLoopStopMode == nil ? ["_CFRunLoopStopMode"] : []
        case .mainThread: missing = fn.CFRunLoopGetMain == nil ? ["CFRunLoopGetMain"] : []
        case .timerTolerance:
            missing = [fn.CFRunLoopTimerGetTolerance == nil ? "CFRunLoopTimerGetTolerance" : nil,
                       fn.CFRunLoopTimerSetTolerance == nil ? "CFRunLoopTimerSetTolerance" : nil].compactMap { $0 }
        }
        return missing.isEmpty ? nil : "\(library.path) has no \(missing.joined(separator: ", "))"
    }

    public func currentLoop() -> any EngineLoop {
        guard let loop = library.fn.CFRunLoopGetCurrent() else {
            fatalError("\(library.path): CFRunLoopGetCurrent returned NULL")
        }
        return LoadedCFLoop(library: library, loop: loop)
    }
}
