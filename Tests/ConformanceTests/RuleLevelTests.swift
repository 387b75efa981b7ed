// The rule catalogue's levels: each rule's level agrees with where its cited lines of CFRunLoop.c lie (a platform rule
// cites a platform-conditional branch, an api or cf rule none), the loader refuses an unknown level, `--level` selects
// cases by level and the reports count results per level.

import ConformanceSpec
import ConformanceTestSupport
import Foundation
import ProcessTestSupport
import Testing

@testable import ConformanceKit

/// The platform-conditional branches of the pinned CFRunLoop.c (Sources/ConformanceSpec/cf-platform-branches.yaml,
/// made by scripts/cf-platform-branches.py; the tests cannot fetch the file itself).
struct PlatformBranches {
    struct Branch {
        var lines: ClosedRange<Int>
        var directive: String
        var linux: Bool
        var darwin: Bool
        /// Compiled on one of Linux and Darwin and not the other, or on neither (another platform's): what a
        /// `platform` rule cites and an `api` or `cf` rule must not.
        var isPlatformSpecific: Bool { !(linux && darwin) }
    }

    var blob: String
    var branches: [Branch]

    static let sourcePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/ConformanceSpec/cf-platform-branches.yaml").path

    /// Reads the generated file: `blob:`, then per branch `- lines: "A-B"`, `directive:`, `linux:`, `darwin:`.
    static func load(path: String = sourcePath) throws -> PlatformBranches {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var blob = ""
        var branches: [Branch] = []
        for line in text.split(separator: "\n").map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            func value(_ key: String) -> String? {
                for prefix in ["- \(key): ", "\(key): "] where trimmed.hasPrefix(prefix) {
                    return String(trimmed.dropFirst(prefix.count)).trimmingCharacters(
                        in: CharacterSet(charactersIn: "\""))
                }
                return nil
            }
            if let text = value("blob") { blob = text }
            if let text = value("lines") {
                let bounds = text.split(separator: "-").compactMap { Int($0) }
                guard bounds.count == 2 else { throw CocoaError(.fileReadCorruptFile) }
                branches.append(Branch(lines: bounds[0]...bounds[1], directive: "", linux: false, darwin: false))
            }
            guard !branches.isEmpty else { continue }
            if let text = value("directive") { branches[branches.count - 1].directive = text }
            if let text = value("linux") { branches[branches.count - 1].linux = text == "true" }
            if let text = value("darwin") { branches[branches.count - 1].darwin = text == "true" }
        }
        return PlatformBranches(blob: blob, branches: branches)
    }

    /// The platform-specific branch that holds every line of `range`, if any.
    func branch(holding range: ClosedRange<Int>) -> Branch? {
        branches.first {
            $0.isPlatformSpecific && $0.lines.contains(range.lowerBound) && $0.lines.contains(range.upperBound)
        }
    }

    /// The line ranges a catalogue field cites: "3305-12" (3305 to 3312), "3689-3729", "3416"; numbers that are part
    /// of a word (TARGET_OS_WIN32) are not lines.
    static func ranges(in text: String) -> [ClosedRange<Int>] {
        var result: [ClosedRange<Int>] = []
        let characters = Array(text)
        var index = 0
        func digits(from start: Int) -> (String, Int) {
            var end = start
            while end < characters.count, characters[end].isNumber { end += 1 }
            return (String(characters[start..<end]), end)
        }
        while index < characters.count {
            let before = index > 0 ? characters[index - 1] : " "
            guard characters[index].isNumber, !(before.isLetter || before.isNumber || before == "_" || before == ".")
            else {
                index += 1
                continue
            }
            let (first, end) = digits(from: index)
            index = end
            guard first.count >= 2, let start = Int(first) else { continue }
            var last = start
            if index + 1 < characters.count, characters[index] == "-", characters[index + 1].isNumber {
                let (tail, tailEnd) = digits(from: index + 1)
                index = tailEnd
                // "3305-12" abbreviates 3312: the tail replaces the last digits of the start.
                let full = tail.count < first.count ? String(first.dropLast(tail.count)) + tail : tail
                last = Int(full) ?? start
            }
            result.append(start...max(start, last))
        }
        return result
    }

    /// A `cf` field without its citations of Foundation's sources ("RunLoop.swift 244-257 (FRL)"): the lines of
    /// another file than CFRunLoop.c, whose branches these are not.
    static func withoutFoundationCitations(_ text: String) -> String {
        text.split(separator: ";").filter { !$0.contains("(FRL)") && !$0.contains("(FT)") }.joined(separator: ";")
    }

    /// What is wrong with the catalogue's levels against these branches, one line per problem: a platform rule whose
    /// `platform` field cites no platform-specific branch, or cites a range outside one; an api or cf rule whose `cf`
    /// cites a range inside one.
    func problems(_ catalogue: RuleCatalogue) -> [String] {
        var problems: [String] = []
        for rule in catalogue.rules {
            switch rule.level {
            case .platform:
                let cited = Self.ranges(in: rule.platform ?? "")
                if cited.isEmpty { problems.append("\(rule.id): platform rule whose 'platform' cites no lines") }
                for range in cited where branch(holding: range) == nil {
                    problems.append("\(rule.id): platform rule cites \(range) outside every platform-specific branch")
                }
            case .api, .cf:
                for range in Self.ranges(in: Self.withoutFoundationCitations(rule.cf)) {
                    if let inside = branch(holding: range) {
                        problems.append(
                            "\(rule.id): \(rule.level.rawValue) rule cites \(range), inside the branch "
                                + "\(inside.lines) (\(inside.directive))")
                    }
                }
            }
        }
        return problems
    }
}

@Suite("Rule levels")
struct RuleLevelTests {
    static let catalogueSource = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/ConformanceSpec/catalogue.yaml").path

    /// The branches file was made from the blob the catalogue pins.
    @Test func branchesAreOfThePinnedBlob() throws {
        let branches = try PlatformBranches.load()
        let catalogueText = try String(contentsOfFile: Self.catalogueSource, encoding: .utf8)
        #expect(branches.blob.count == 40)
        #expect(catalogueText.contains("blob: \(branches.blob)"))
        #expect(branches.branches.contains { $0.linux && !$0.darwin })
        #expect(branches.branches.contains { $0.darwin && !$0.linux })
    }

    @Test func citedRanges() {
        #expect(
            PlatformBranches.ranges(in: "CFRunLoopRunSpecific 3305-12; f 3689-3729, 3416 (x)")
                == [3305...3312, 3689...3729, 3416...3416])
        #expect(PlatformBranches.ranges(in: "TARGET_OS_WIN32 || TARGET_OS_LINUX 130-131") == [130...131])
    }

    /// Every platform rule cites a platform-conditional branch of CFRunLoop.c, every api and cf rule cites none.
    @Test func levelsAgreeWithTheBranches() throws {
        let problems = try PlatformBranches.load().problems(try RuleCatalogue.shipped())
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// The check above can fail: a platform rule labelled cf, and a cf rule labelled platform, are each found.
    @Test func mislabelledRulesAreFound() throws {
        let branches = try PlatformBranches.load()
        var text = try String(contentsOfFile: Self.catalogueSource, encoding: .utf8)
        func relabel(_ id: String, from: String, to: String) throws {
            let start = try #require(text.range(of: "  - id: \(id)\n"))
            let level = try #require(text.range(of: "    level: \(from)\n", range: start.upperBound..<text.endIndex))
            text.replaceSubrange(level, with: "    level: \(to)\n")
        }
        // wakeup.coalesce cites the eventfd write (3414-19): as cf, its platform field is refused by the loader, so
        // drop that field too; as a cf rule its `cf` still cites 3416, inside the Linux branch.
        try relabel("wakeup.coalesce", from: "platform", to: "cf")
        let platformLine = try #require(text.range(of: "    platform: \"TARGET_OS_LINUX && !TARGET_OS_CYGWIN 3414-19"))
        let lineEnd = try #require(text.range(of: "\n", range: platformLine.upperBound..<text.endIndex))
        text.removeSubrange(platformLine.lowerBound..<lineEnd.upperBound)
        // timeout.poll as platform, with a platform field citing its own shared lines.
        try relabel("timeout.poll", from: "cf", to: "platform\n    platform: \"__CFRunLoopRun 2966-68\"\n    note: x")
        let catalogue = try RuleCatalogue.parse(text, file: "mislabelled.yaml")
        let problems = branches.problems(catalogue)
        #expect(problems.contains { $0.hasPrefix("wakeup.coalesce: cf rule cites 3416...3416") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("timeout.poll: platform rule cites 2966...2968") }, "\(problems)")
    }

    /// `runloop rules`' counts come from the rules' levels, and every level has rules.
    @Test func levelCounts() throws {
        let catalogue = try RuleCatalogue.shipped()
        let counts = catalogue.levelCounts
        #expect(counts.map(\.level) == RuleLevel.allCases)
        #expect(counts.reduce(0) { $0 + $1.rules } == catalogue.rules.count)
        for (level, rules) in counts {
            #expect(rules == catalogue.rules.filter { $0.level == level }.count)
            #expect(rules > 0, "no rule at level \(level.rawValue)")
        }
    }

    static func catalogue(level: String, extra: String = "") -> String {
        """
        catalogue_version: 2
        cf_source: {repository: r, tag: t, file: f}
        rules:
          - id: a.rule
            text: x
            cf: y
            level: \(level)\(extra)
        """
    }

    /// An unknown level names the file, the line and the rule; a platform rule needs its branches and a note, an api
    /// rule a note; only a platform rule has a `platform` field.
    @Test func levelErrors() throws {
        func message(_ text: String) -> String? {
            do {
                _ = try RuleCatalogue.parse(text, file: "c.yaml")
                return nil
            } catch let error as SpecError {
                return error.description
            } catch {
                return "\(error)"
            }
        }
        let unknown = try #require(message(Self.catalogue(level: "kernel")))
        #expect(unknown.contains("c.yaml:7"), "\(unknown)")
        #expect(unknown.contains("rule 'a.rule': unknown level 'kernel' (one of api, cf, platform)"), "\(unknown)")
        #expect(message(Self.catalogue(level: "cf")) == nil)
        #expect(message(Self.catalogue(level: "platform"))?.contains("needs a 'platform' field") == true)
        #expect(
            message(Self.catalogue(level: "platform", extra: "\n    platform: \"TARGET_OS_LINUX 1-2\""))?
                .contains("needs a 'note'") == true)
        #expect(message(Self.catalogue(level: "platform", extra: "\n    platform: \"P 1-2\"\n    note: n")) == nil)
        #expect(message(Self.catalogue(level: "api"))?.contains("which documentation states it") == true)
        #expect(
            message(Self.catalogue(level: "cf", extra: "\n    platform: \"P 1-2\""))?
                .contains("only a platform rule") == true)
        let missing = Self.catalogue(level: "cf").replacingOccurrences(of: "    level: cf\n", with: "")
            .replacingOccurrences(of: "    level: cf", with: "")
        #expect(message(missing)?.contains("level") == true)
        #expect(
            message(Self.catalogue(level: "cf").replacingOccurrences(of: "version: 2", with: "version: 1"))?
                .contains("catalogue_version 1 is not supported") == true)
    }

    @Test func levelLists() throws {
        #expect(try RuleLevel.parseList("api").get() == [.api])
        #expect(try RuleLevel.parseList("api, cf").get() == [.api, .cf])
        #expect(throws: RuleLevel.UnknownLevel.self) { try RuleLevel.parseList("api,kernel").get() }
        #expect(throws: RuleLevel.UnknownLevel.self) { try RuleLevel.parseList("").get() }
        #expect(RuleLevel.of([.api, .platform, .cf]) == .platform)
        #expect(RuleLevel.of([.api, .cf]) == .cf)
        #expect(RuleLevel.of([]) == nil)
    }

    /// A case's level is the most specific of its rules'; `--level` selects by it, the selections of the three
    /// levels partition the spec, and a list selects the union.
    @Test func selectionByLevel() throws {
        let catalogue = try RuleCatalogue.shipped()
        let all = try Conformance.selectCases(ShippedSpec.request)
        #expect(!all.isEmpty)
        for specCase in all {
            #expect(specCase.level == catalogue.level(ofRules: specCase.rules), "\(specCase.id)")
            #expect(specCase.level != nil, "\(specCase.id) has no level")
        }
        var total = 0
        for level in RuleLevel.allCases {
            var request = ShippedSpec.request
            request.levels = [level]
            let selected = try Conformance.selectCases(request)
            #expect(!selected.isEmpty, "no case at level \(level.rawValue)")
            #expect(selected.allSatisfy { $0.level == level })
            #expect(selected.count == all.filter { $0.level == level }.count)
            total += selected.count
        }
        #expect(total == all.count)
        var request = ShippedSpec.request
        request.levels = [.api, .cf]
        #expect(try Conformance.selectCases(request).count == all.filter { $0.level != .platform }.count)
        // A platform case is one that cites a platform rule, whatever else it cites.
        let platformRules = Set(catalogue.rules.filter { $0.level == .platform }.map(\.id))
        #expect(
            all.filter { $0.level == .platform }.map(\.id)
                == all.filter { !platformRules.isDisjoint(with: $0.rules) }.map(\.id))
    }

    /// The reports count results per level and engine: the terminal's verdict line, the JSON's `levels` and each
    /// result's `level`, a JUnit property, the page's table.
    @Test func reportsCountPerLevel() throws {
        let all = try Conformance.selectCases(ShippedSpec.request)
        let picked = try [RuleLevel.api, .cf, .platform].map { level in
            try #require(all.first { $0.level == level })
        }
        func outcome(_ specCase: SpecCase, _ engine: String, _ status: CaseStatus) -> CaseOutcome {
            CaseOutcome(
                caseID: specCase.id, area: specCase.area, engine: engine, status: status, expected: .pass,
                expectationReason: nil, detail: nil, expectedTrace: [], actualTrace: [], seconds: 0)
        }
        let outcomes = [
            outcome(picked[0], "cf", .pass), outcome(picked[1], "cf", .pass),
            outcome(picked[2], "cf", .fail), outcome(picked[0], "ref", .pass),
            outcome(picked[1], "ref", .fail), outcome(picked[2], "ref", .pass),
        ]
        let report = ConformanceReport(
            engines: ["cf", "ref"], outcomes: outcomes, caseIDs: picked.map(\.id),
            cases: picked)
        let summary = LevelSummary(report)
        #expect(summary.levels == RuleLevel.allCases)
        #expect(summary.notAsExpected(level: .api) == 0)
        #expect(summary.notAsExpected(level: .cf) == 1)
        #expect(summary.notAsExpected(level: .platform) == 1)
        #expect(summary.cell(level: .cf, engine: "ref")?.tally.fail == 1)
        #expect(summary.cell(level: .cf, engine: "cf")?.tally.pass == 1)

        let table = TableReport.render(report, rows: .notPassing)
        #expect(table.contains("Not as expected by level: api 0, cf 1, platform 1"), "\(table)")
        #expect(table.contains("  platform on cf: 1 result, 0 as expected"), "\(table)")

        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(ReportFormat.json.render(report).utf8))
                as? [String: Any])
        let levels = try #require(json["levels"] as? [String: [String: [String: Any]]])
        #expect(levels["cf"]?["ref"]?["fail"] as? Int == 1)
        #expect(levels["api"]?["cf"]?["as_expected"] as? Int == 1)
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(results.map { $0["level"] as? String } == ["api", "cf", "platform", "api", "cf", "platform"])

        let junit = ReportFormat.junit.render(report)
        #expect(junit.contains(#"<property name="level" value="platform"/>"#))
        #expect(junit.components(separatedBy: #"<property name="level""#).count - 1 == outcomes.count)

        let page = ConformPage.html(report, cases: picked, catalogue: nil, specName: "s")
        #expect(page.contains("<h2 id=\"levels\">By level</h2>"))
        #expect(page.contains("Not as expected by level: api 0, cf 1, platform 1"))
    }

    /// `runloop rules --catalogue` with an unknown level exits 2 naming the file, the line and the rule; `runloop
    /// rules` prints the count of rules per level; `runloop conform --level` refuses an unknown level with exit 2.
    @Test func commandLine() throws {
        let runloop = URL(fileURLWithPath: TestWorker.path).deletingLastPathComponent().appendingPathComponent(
            "runloop")
        try #require(
            FileManager.default.isExecutableFile(atPath: runloop.path), "runloop is not built beside the tests")
        func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            try TestProcess.run(runloop.path, arguments)
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("levels-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bad = directory.appendingPathComponent("bad.yaml").path
        try Self.catalogue(level: "kernel").write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try run(["rules", "--catalogue", bad])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("\(bad):7"), "\(refused.stderr)")
        #expect(refused.stderr.contains("rule 'a.rule': unknown level 'kernel'"), "\(refused.stderr)")

        let rules = try run(["rules"])
        let counts = try RuleCatalogue.shipped().levelCounts.map { "\($0.level.rawValue) \($0.rules)" }
        #expect(
            rules.stdout.contains("rules per level: " + counts.joined(separator: ", ")), "\(rules.stdout.suffix(400))")

        let level = try run(["conform", "--engine", "ref", "--level", "api,kernel"])
        #expect(level.status == 2)
        #expect(level.stderr.contains("--level: unknown level 'kernel'"), "\(level.stderr)")
    }
}
