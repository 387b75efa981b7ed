// The `cf:PATH` engine family checks itself against the built-in `cf`: the toolchain's own libFoundation.so, loaded
// at run time, must meet cf's expectation on every case of the shipped spec, with the same status and trace as a run
// of `cf` where that is a known defect. Plus what a library without an optional function turns into (SKIP naming the
// symbol).

import CFLoader
import ConformanceTestSupport
import EngineKit
import Foundation
import Testing

@testable import CFEngine
@testable import ConformanceKit

enum ToolchainFoundation {
    /// The libFoundation.so this test process runs with (the toolchain's), from /proc/self/maps.
    static let path: String? = mapped("/libFoundation.so")

    /// The path of a file this process has mapped whose path ends in `suffix`, from /proc/self/maps.
    static func mapped(_ suffix: String) -> String? {
        // Read to the end: procfs files report a size of 0, so a read sized by stat would see nothing.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps") else { return nil }
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        return maps.split(separator: "\n").lazy.compactMap { line -> String? in
            guard line.hasSuffix(suffix), let slash = line.firstIndex(of: "/") else { return nil }
            return String(line[slash...])
        }.first
    }

    static let loaded = WorkerSession(
        launcher: TestWorker.launcher(), specPath: ShippedSpec.request.specPath,
        engine: EngineDescription(
            selector: "cf:" + (path ?? "missing"),
            name: "cf:Foundation", features: []))
}

@Suite("Loaded CoreFoundation", .serialized)
struct LoadedEngineTests {
    @Test func theToolchainsFoundationIsFound() throws {
        let path = try #require(ToolchainFoundation.path)
        let description = try IsolatedRunner.describeEngine(TestWorker.launcher(), selector: "cf:" + path)
        #expect(description.name == "cf:Foundation")
        #expect(Set(description.features) == CoreFoundationEngine.toolchain.features)
    }

    @Test("each case through cf:libFoundation.so as on cf", arguments: ShippedSpec.caseIDs)
    func sameAsBuiltIn(_ id: String) throws {
        let specCase = try #require(ShippedSpec.cases[id])
        let limit = specCase.timeout ?? ShippedSpec.request.timeout
        let loaded = ToolchainFoundation.loaded.run(specCase, limit: limit)
        // Where cf is expected to pass (the shipped-spec tests check that it does), cf's trace is the case's own, so
        // the loaded library must meet the same expectation; only cf's known defects are compared with a run of cf.
        let expected = try ShippedSpec.expectedStatus(id, on: "cf")
        // A result the moving wall clock left unjudged is the machine's, not the library's nor the suite's.
        if WallClock.leftUnjudged(loaded) {
            print("LoadedEngineTests: \(id) not judged: \(loaded.detail ?? "")")
            return
        }
        guard expected != .pass else {
            // A SKIP only where cf skips too: the case needs a feature cf does not have.
            let cfSkips = !Set(specCase.features).isSubset(of: CoreFoundationEngine.toolchain.features)
            #expect(
                loaded.status == (cfSkips ? .skip : .pass),
                "\(id): cf:Foundation \(loaded.status), cf \(cfSkips ? "skips it" : "passes it")\n\(loaded.detail ?? "")"
            )
            return
        }
        let builtIn = try ShippedSpec.cfOutcome(specCase)
        #expect(
            loaded.status == builtIn.status,
            "\(id): cf:Foundation \(loaded.status), cf \(builtIn.status)\n\(loaded.detail ?? "")")
        // Lines of an any-order group (CF iterating a set, whose order differs from process to process) are compared
        // as the spec compares them: each trace aligned with the expectation, then line by line.
        func aligned(_ trace: [String]) -> [String] {
            TraceMatch.alignUnordered(expected: trace, ranges: specCase.unorderedRanges, actual: specCase.expectedTrace)
        }
        #expect(aligned(loaded.actualTrace) == aligned(builtIn.actualTrace), "\(id)")
    }

    @Test func aMissingOptionalFunctionSkipsWithItsName() throws {
        let path = try #require(ToolchainFoundation.path)
        let library = try CFLibrary.open(path).get()
        // The same library with CFRunLoopPerformBlock taken out of a copy of its table.
        let table = UnsafeMutablePointer<cfl_library>.allocate(capacity: 1)
        table.initialize(to: library.table.pointee)
        table.pointee.CFRunLoopPerformBlock = nil
        let engine = CoreFoundationEngine(library: CFLibrary(table: table))
        #expect(!engine.features.contains(.blocks))
        #expect(engine.whyLacking(.blocks) == "\(path) has no CFRunLoopPerformBlock")
        let needsBlocks = try SpecLoader.parse(
            """
            spec_version: 1
            cases:
              - id: self.block
                rule: A block performs in the next pass.
                source: observed
                features: [blocks]
                items: {b: block}
                steps: [{perform: [b, default]}, run]
                expect: [run default, block b, return finished]
            """, file: "self.yaml"
        ).cases[0]
        let outcome = ConformanceRunner().run(needsBlocks, on: engine)
        #expect(outcome.status == .skip)
        #expect(outcome.detail == "engine lacks: blocks (\(path) has no CFRunLoopPerformBlock)")
    }

    @Test func aBareFileNameIsInTheCurrentDirectory() {
        // Not on the dynamic linker's path (scripts/cli-checks.sh loads one so from a directory of its own).
        #expect(
            CoreFoundationEngine.path(ofSelector: "cf:libx.so")
                == FileManager.default.currentDirectoryPath + "/libx.so")
        #expect(CoreFoundationEngine.path(ofSelector: "cf:/a/libx.so.6") == "/a/libx.so.6")
        #expect(CoreFoundationEngine.path(ofSelector: "ref") == nil)
        #expect(CoreFoundationEngine.name(ofPath: "/a/libx.so.6") == "cf:x")
        #expect(CoreFoundationEngine.name(ofPath: "CoreFoundation") == "cf:CoreFoundation")
    }

    @Test func wrongLibrariesAreClearErrors() {
        #expect(CoreFoundationEngine.load(selector: "ref") == nil)
        let text = NSTemporaryDirectory() + "runloop-not-a-library-\(getpid()).so"
        try? String(repeating: "this is not a shared library\n", count: 200).write(
            toFile: text, atomically: true,
            encoding: .utf8)
        defer { unlink(text) }
        for (path, message) in [
            ("/nonexistent/libCF.so", "cannot load /nonexistent/libCF.so"),
            (text, "\(text): invalid ELF header"),
            ("/nonexistent-dir-of-its-own/libc.so.6", "cannot load /nonexistent-dir-of-its-own/libc.so.6"),
            (
                ToolchainFoundation.mapped("/libc.so.6") ?? "libc.so.6",
                "libc.so.6 is not a CoreFoundation run-loop library: it lacks CFRunLoopGetCurrent"
            ),
        ] {
            guard case .failure(let error)? = CoreFoundationEngine.load(selector: "cf:" + path) else {
                Issue.record("\(path) loaded")
                continue
            }
            #expect(error.description.contains(message), "\(error)")
        }
    }
}
