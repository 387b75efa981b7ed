// Keeps the docs for users: a short README, no dated figure or issue number in the user docs, every relative link
// and image of every Markdown file outside journal/ leading to a file (and its anchor to a heading), every
// `scripts/...` path they name existing. The checks run on the repository found from this file's path; the
// planted-mistake tests show that each check can fail.
import Foundation
import Testing

/// The repository's root: three levels up from Tests/DocsTests/DocsTests.swift.
private let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The docs a user reads: no dated figure, no count from a given day, no issue number.
private let userDocs = [
    "README.md", "Sources/ConformanceSpec/INTERPRETING.md", "docs/DESIGN.md", "Benchmarks/README.md",
    "Sources/CompareKit/COMPARING.md", "Sources/HistoryKit/HISTORY.md", "Sources/ConformanceFuzzer/FUZZING.md",
    "results/README.md",
]

/// Every Markdown file but the journal's, whose entries are records and may cite what has since gone.
private func nonJournalDocs() -> [String] {
    MarkdownChecker.markdownFiles(under: repositoryRoot, excluding: ["journal"])
}

@Suite struct DocsTests {
    @Test func readmeIsShort() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
        #expect(lines <= 150, "README.md has \(lines) lines; at most 150 (move detail to the deeper docs)")
    }

    @Test func userDocsExist() {
        for doc in userDocs {
            #expect(
                FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(doc).path),
                "\(doc) is missing")
        }
    }

    @Test func userDocsHoldNoDateOrIssueNumber() {
        let problems = userDocs.flatMap { MarkdownChecker.datedOrIssueProblems(file: $0, root: repositoryRoot) }
        #expect(problems.isEmpty, "\(problems.map(\.description).joined(separator: "\n"))")
    }

    @Test func markdownFilesAreFound() {
        let files = nonJournalDocs()
        #expect(files.contains("README.md"))
        #expect(!files.contains { $0.hasPrefix("journal/") })
    }

    @Test func relativeLinksResolve() {
        let problems = nonJournalDocs().flatMap { MarkdownChecker.linkProblems(file: $0, root: repositoryRoot) }
        #expect(problems.isEmpty, "\(problems.map(\.description).joined(separator: "\n"))")
    }

    @Test func scriptPathsExist() {
        let problems = nonJournalDocs().flatMap { MarkdownChecker.scriptPathProblems(file: $0, root: repositoryRoot) }
        #expect(problems.isEmpty, "\(problems.map(\.description).joined(separator: "\n"))")
    }

    @Test func journalIndexListsEveryEntry() throws {
        let journal = repositoryRoot.appendingPathComponent("journal")
        let index = try String(contentsOf: journal.appendingPathComponent("README.md"), encoding: .utf8)
        let entries = try FileManager.default.contentsOfDirectory(atPath: journal.path)
            .filter { $0.hasSuffix(".md") && $0 != "README.md" }
        for entry in entries {
            #expect(
                entry.range(of: #"^20\d\d-\d\d-\d\d-[a-z0-9-]+\.md$"#, options: .regularExpression) != nil,
                "journal/\(entry) is not named YYYY-MM-DD-topic.md")
            #expect(index.contains("(\(entry))"), "journal/README.md does not link \(entry)")
        }
    }
}

/// The checks on planted mistakes, in a directory of their own: each must report what it is for.
@Suite struct DocsCheckerTests {
    /// A scratch tree holding `files` (relative path to text), removed afterwards.
    private func withTree(_ files: [String: String], _ body: (URL) throws -> Void) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("docs-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try body(root)
    }

    @Test func brokenLinkAndImageAreReported() throws {
        let readme = """
            See [the design](docs/DESIGN.md) and [nothing](docs/NOPE.md).
            ![shot](docs/missing.png)
            [web](https://example.com/x) and `[code](not/a/link.md)`
            ```
            [fenced](not/a/link.md)
            ```
            """
        try withTree(["README.md": readme, "docs/DESIGN.md": "# Design\n"]) { root in
            let problems = MarkdownChecker.linkProblems(file: "README.md", root: root)
            #expect(problems.map(\.line) == [1, 2])
            #expect(problems.first?.message.contains("docs/NOPE.md") == true)
        }
    }

    @Test func anchorsFollowGitHubSlugs() throws {
        let design = """
            # Design overview
            ## 3. The run pass of the reference loop
            ## Flags of `runloop-bench`
            ## Notes
            ## Notes
            ```
            # not a heading
            ```
            """
        let readme = """
            [a](docs/DESIGN.md#3-the-run-pass-of-the-reference-loop) [b](docs/DESIGN.md#flags-of-runloop-bench)
            [c](docs/DESIGN.md#notes-1) [d](docs/DESIGN.md#not-a-heading) [e](#here) [f](#nowhere)
            ## Here
            """
        try withTree(["README.md": readme, "docs/DESIGN.md": design]) { root in
            let problems = MarkdownChecker.linkProblems(file: "README.md", root: root)
            #expect(problems.count == 2)
            #expect(problems.allSatisfy { $0.line == 2 })
            #expect(problems.contains { $0.message.contains("#not-a-heading") })
            #expect(problems.contains { $0.message.contains("#nowhere") })
        }
    }

    @Test func missingScriptIsReported() throws {
        try withTree(["README.md": "Run `bash scripts/run.sh` or scripts/gone.sh.\n", "scripts/run.sh": ""]) { root in
            let problems = MarkdownChecker.scriptPathProblems(file: "README.md", root: root)
            #expect(problems.map(\.message) == ["scripts/gone.sh does not exist"])
        }
    }

    @Test func datesAndIssueNumbersAreReported() throws {
        try withTree(["README.md": "Measured 2026-11-27.\nFixed in issue #12, see issue 7.\nThe 2026 plan.\n"]) {
            root in
            let problems = MarkdownChecker.datedOrIssueProblems(file: "README.md", root: root)
            #expect(problems.map(\.line) == [1, 2, 2])
        }
    }

    @Test func journalIsLeftOutOfTheWalk() throws {
        try withTree(["README.md": "", "journal/2026-01-01-x.md": "", "a/b.md": "", ".build/c.md": ""]) { root in
            #expect(MarkdownChecker.markdownFiles(under: root, excluding: ["journal"]) == ["README.md", "a/b.md"])
        }
    }
}
