// A worker's spec, parsed a file at a time: a case is found in whichever file holds it, however its id is written,
// and only the files needed are parsed.

import Foundation
import Testing

@testable import ConformanceKit

@Suite("A worker's spec, file by file")
struct ServedSpecTests {
    /// A spec file of one valid case per id, the ids written as `idStyle` makes them.
    static func file(_ ids: [String], idStyle: (String) -> String = { $0 }, extra: String = "") -> String {
        "spec_version: 1\n\(extra)cases:\n"
            + ids.map {
                """
                  - id: \(idStyle($0))
                    rule: A rule.
                    source: observed
                    items:
                      o: observer
                    steps:
                      - add: o
                      - run
                    expect:
                      - run default

                """
            }.joined()
    }

    /// A directory with `files` (name to text), removed after `body`.
    static func withSpec(_ files: [String: String], _ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("served-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (name, text) in files {
            try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        try body(directory)
    }

    @Test func aCaseIsFoundInItsFileAndOnlyThatFileIsParsed() throws {
        // b.yaml does not parse: asking for a case of a.yaml must not touch it.
        try Self.withSpec(["a.yaml": Self.file(["area.one", "area.two"]), "b.yaml": "spec_version: [\n"]) {
            var spec = try ServedSpec(path: $0)
            #expect(try spec.specCase("area.two")?.id == "area.two")
            #expect(try spec.specCase("area.one")?.location.file.hasSuffix("a.yaml") == true)
        }
    }

    @Test func anIdMentionedInAnotherFileOrQuotedIsStillFound() throws {
        // a.yaml names the id in a comment (searched first, parsed, not there); c.yaml writes it quoted.
        try Self.withSpec([
            "a.yaml": Self.file(["area.other"], extra: "# see area.wanted in c.yaml\n"),
            "b.yaml": Self.file(["area.third"]),
            "c.yaml": Self.file(["area.wanted"], idStyle: { "'\($0)'" }),
        ]) {
            var spec = try ServedSpec(path: $0)
            #expect(try spec.specCase("area.wanted")?.location.file.hasSuffix("c.yaml") == true)
            #expect(try spec.specCase("area.third")?.id == "area.third")
            #expect(try spec.specCase("area.missing") == nil)
        }
    }

    @Test func aCaseInAFileThatDoesNotParseIsAnErrorNamingTheFile() throws {
        try Self.withSpec(["a.yaml": Self.file(["area.one"]) + "  - id: area.broken\n    rule: [\n"]) { directory in
            var spec = try ServedSpec(path: directory)
            #expect(throws: SpecError.self) { try spec.specCase("area.broken") }
        }
        #expect(throws: SpecError.self) { try ServedSpec(path: "/nonexistent/spec") }
    }

    @Test func aSingleFileIsItsOwnSpec() throws {
        try Self.withSpec(["a.yaml": Self.file(["area.one"])]) {
            var spec = try ServedSpec(path: $0 + "/a.yaml")
            #expect(spec.files == [$0 + "/a.yaml"])
            #expect(try spec.specCase("area.one")?.id == "area.one")
        }
    }
}
