// What a conformance run ran on: its engines (each one's build: a CoreFoundation library's path and build id, the
// `runloop` executable's build id for the engines built in), the machine, the toolchain and the date. Recorded in the
// run's JSON (ConformanceDocument.runs), so that a matrix merged from several runs labels each column with its run.

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The context of one conformance run.
public struct ConformanceRunContext: Codable, Sendable, Equatable {
    /// When the run ended, ISO 8601 in UTC.
    public var date: String
    public var machine: Machine
    public var toolchain: Toolchain
    /// The executable the engines ran in (`runloop`, or the `--worker` given), and its build id.
    public var runloop: String
    public var engines: [Engine]
    /// The file a merge read the run from; absent in a run's own document.
    public var file: String?

    public struct Machine: Codable, Sendable, Equatable {
        public var hostname: String
        /// `uname -srm`.
        public var kernel: String
        public var cpus: Int
    }

    public struct Toolchain: Codable, Sendable, Equatable {
        /// The first line of `swift --version` on the run's PATH ("unknown" when there is none).
        public var swift_version: String
        /// The Swift compiler this runloop was built with, as far as `#if compiler` tells.
        public var compiled_with: String
    }

    public struct Engine: Codable, Sendable, Equatable {
        /// Its column in the document.
        public var column: String
        public var name: String
        /// `cf`, `ref`, `cf:PATH`.
        public var selector: String
        /// What it is: a CoreFoundation library's path and build id; for an engine built in, `runloop`'s build.
        public var build: String
    }

    /// A short label of the run for a column: host, Swift version, date to the minute.
    public var label: String {
        let version =
            toolchain.swift_version.split(separator: " ").firstIndex(of: "version").map { index in
                "Swift " + toolchain.swift_version.split(separator: " ")[index + 1]
            } ?? toolchain.compiled_with
        return "\(machine.hostname), \(version), \(date.prefix(16).replacingOccurrences(of: "T", with: " "))"
    }

    /// The context of a run of `engines` on this machine, now. `host` is the executable the engines ran in (the
    /// worker's; by default this one): a CoreFoundation engine's build is its library's path and build id, any other
    /// engine's is what it says of itself and the host's build id.
    public static func gather(engines: [EngineDescription], host: String? = nil, date: Date = Date())
        -> ConformanceRunContext
    {
        let executable =
            host ?? (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "unknown"
        let hostBuild = executable + " (build id \(ELFBuildID.read(path: executable) ?? "none"))"
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return ConformanceRunContext(
            date: formatter.string(from: date),
            machine: Machine(
                hostname: ProcessInfo.processInfo.hostName, kernel: kernel(),
                cpus: ProcessInfo.processInfo.activeProcessorCount),
            toolchain: Toolchain(swift_version: swiftVersion() ?? "unknown", compiled_with: compiledWith),
            runloop: hostBuild,
            engines: engines.map { engine in
                let isCoreFoundation = engine.name == "cf" || engine.selector.hasPrefix("cf:")
                return Engine(
                    column: engine.name, name: engine.name, selector: engine.selector,
                    build: isCoreFoundation
                        ? engine.summary ?? "unknown"
                        : (engine.summary.map { $0 + "; " } ?? "") + "in " + hostBuild)
            })
    }

    static func kernel() -> String {
        var names = utsname()
        guard uname(&names) == 0 else { return "unknown" }
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return "\(text(names.sysname)) \(text(names.release)) \(text(names.machine))"
    }

    /// The first line of `swift --version`, or nil when there is no `swift` or it does not answer within 10 s.
    static func swiftVersion() -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        do { try process.run() } catch { return nil }
        // The output is a few lines: read after the exit (a pipe buffer holds them).
        guard ended.wait(timeout: .now() + 10) == .success else {
            process.terminate()
            return nil
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard process.terminationStatus == 0 else { return nil }
        return output.split(separator: "\n").first.map(String.init)
    }

    /// The compiler this file was compiled with, to the version `#if compiler` can tell.
    static var compiledWith: String {
        #if compiler(>=6.4)
        return "Swift compiler 6.4 or later"
        #elseif compiler(>=6.3.1)
        return "Swift compiler 6.3.1 or a later 6.3"
        #elseif compiler(>=6.3)
        return "Swift compiler 6.3"
        #else
        return "Swift compiler before 6.3"
        #endif
    }
}
