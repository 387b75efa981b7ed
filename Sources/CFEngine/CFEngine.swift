// The CoreFoundation engines: `cf`, the toolchain's CoreFoundation (the libFoundation.so this process is linked with),
// and `cf:PATH`, any shared library that exports CoreFoundation's C API for run loops, loaded at run time (CFLoader.h
// says how and why with RTLD_DEEPBIND). Both are one engine over the function table of Sources/CFLoader: each member
// is one call into the library, so the spec observes the library itself, and `cf` and `cf:PATH` of the toolchain's
// library are the same code. The library's objects are opaque references owned through its own CFRetain/CFRelease;
// nothing here assumes the toolchain's CoreFoundation headers.

import CFLoader
import EngineKit
import Foundation
import Synchronization

/// One CoreFoundation library: its function table, which lives for the process.
public final class CFLibrary: Sendable {
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

    /// The function table, read in place: a member access goes through the table's address, where a getter
    /// returning the struct would copy it whole (its path buffer is 4 KiB) on every call into the library.
    var fn: cfl_library { unsafeAddress { UnsafePointer(table) } }

    /// Libraries already opened in this process, by path.
    private static let opened = Mutex<[String: CFLibrary]>([:])

    /// The toolchain's CoreFoundation, which this process is linked with (cfl_open_toolchain), opened once.
    public static let toolchain: Result<CFLibrary, LoadError> = {
        var error: UnsafeMutablePointer<CChar>?
        guard let table = cfl_open_toolchain(&error) else {
            defer { free(error) }
            return .failure(LoadError(description: error.map { String(cString: $0) } ?? "no CoreFoundation"))
        }
        return .success(CFLibrary(table: table))
    }()

    /// Opens the library at `path` once per process. The error names the path and every missing core function.
    public static func open(_ path: String) -> Result<CFLibrary, LoadError> {
        opened.withLock { cache in
            if let library = cache[path] { return .success(library) }
            var error: UnsafeMutablePointer<CChar>?
            guard let table = cfl_open(path, &error) else {
                defer { free(error) }
                return .failure(LoadError(description: error.map { String(cString: $0) } ?? "cannot load \(path)"))
            }
            let library = CFLibrary(table: table)
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

/// The engine over one CoreFoundation library: `cf` (the toolchain's) or `cf:NAME` (one loaded from a path).
public struct CoreFoundationEngine: RunLoopEngine {
    /// What `--engine` values of the loaded family start with: `cf:PATH`.
    public static let prefix = "cf:"

    public let library: CFLibrary
    /// `cf` for the toolchain's library; otherwise `cf:` and the library's file name without `lib` and `.so...`
    /// (`cf:Foundation` for libFoundation.so), by CFLoader's one naming rule (cfl_engine_name), which the benchmark
    /// shim applies too.
    public let name: String

    /// The engine over a library loaded from a path (`cf:NAME`).
    public init(library: CFLibrary) {
        self.library = library
        name = Self.name(ofPath: library.path)
    }

    private init(toolchain library: CFLibrary) {
        self.library = library
        name = "cf"
    }

    /// The engine name of a library at `path` (cfl_engine_name).
    public static func name(ofPath path: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4200)
        cfl_engine_name(path, &buffer, UInt(buffer.count))
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `cf`: the toolchain's CoreFoundation. Its library is part of the process (this target links it), so opening it
    /// fails only in a broken installation, which is reported when the engine is first used.
    public static var toolchain: CoreFoundationEngine {
        switch CFLibrary.toolchain {
        case .success(let library): return CoreFoundationEngine(toolchain: library)
        case .failure(let error): fatalError("the cf engine: \(error)")
        }
    }

    /// The path `cf:PATH` names: a path with a slash as it is, a bare file name relative to the current directory
    /// (not looked up on the dynamic linker's path, as dlopen would).
    public static func path(ofSelector selector: String) -> String? {
        guard selector.hasPrefix(prefix) else { return nil }
        let path = String(selector.dropFirst(prefix.count))
        if path.isEmpty || path.contains("/") { return path }
        return FileManager.default.currentDirectoryPath + "/" + path
    }

    /// The engine for an `--engine` value `cf:PATH`; nil when `selector` is not of this family.
    public static func load(selector: String) -> Result<CoreFoundationEngine, LoadError>? {
        guard let path = path(ofSelector: selector) else { return nil }
        guard !path.isEmpty else { return .failure(LoadError(description: "'\(selector)' names no library: cf:PATH")) }
        return CFLibrary.open(path).map { CoreFoundationEngine(library: $0) }
    }

    /// ``load(selector:)`` as a worker's engine loader.
    @Sendable public static func loadEngine(selector: String) -> Result<any RunLoopEngine, any Error>? {
        load(selector: selector)?.map { $0 as any RunLoopEngine }.mapError { $0 as any Error }
    }

    public var summary: String {
        "CoreFoundation from \(library.path) (build id \(library.buildID.isEmpty ? "none" : library.buildID))"
            + (name == "cf" ? ", the toolchain's" : "")
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
        case .foundation:
            return "drives CoreFoundation's C API only (Foundation's RunLoop over the same loop: engine foundation)"
        case .source1: missing = []
        case .blocks:
            missing = [
                fn.CFRunLoopPerformBlock == nil ? "CFRunLoopPerformBlock" : nil,
                fn.CFArrayCreate == nil ? "CFArrayCreate" : nil,
                fn.typeArrayCallBacks == nil ? "kCFTypeArrayCallBacks" : nil,
            ].compactMap { $0 }
        case .stopMode: missing = fn._CFRunLoopStopMode == nil ? ["_CFRunLoopStopMode"] : []
        case .isSignalled: missing = fn.CFRunLoopSourceIsSignalled == nil ? ["CFRunLoopSourceIsSignalled"] : []
        // A library built without libdispatch has CFRunLoopGetMain and no main queue, which no symbol shows:
        // `--without main-queue` says so.
        case .mainThread, .mainQueue: missing = fn.CFRunLoopGetMain == nil ? ["CFRunLoopGetMain"] : []
        case .timerTolerance:
            missing = [
                fn.CFRunLoopTimerGetTolerance == nil ? "CFRunLoopTimerGetTolerance" : nil,
                fn.CFRunLoopTimerSetTolerance == nil ? "CFRunLoopTimerSetTolerance" : nil,
            ].compactMap { $0 }
        }
        return missing.isEmpty ? nil : "\(library.path) has no \(missing.joined(separator: ", "))"
    }

    /// A CoreFoundation timer made by someone else (Foundation's Timer holds one) as an engine timer of this library,
    /// for the CF calls that have no Foundation counterpart (CFRunLoopRemoveTimer, CFRunLoopContainsTimer). The
    /// wrapper retains `ref` and releases it when it goes.
    public func timer(wrapping ref: UnsafeRawPointer) -> any EngineTimer {
        _ = library.fn.CFRetain(ref)
        return CFTimerItem(library: library, ref: ref, creator: "a foreign CFRunLoopTimer")
    }

    public func currentLoop() -> any EngineLoop {
        guard let loop = library.fn.CFRunLoopGetCurrent() else {
            fatalError("\(library.path): CFRunLoopGetCurrent returned NULL")
        }
        return CFLoop(library: library, loop: loop)
    }
}
