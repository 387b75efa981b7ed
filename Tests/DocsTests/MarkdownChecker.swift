// Reads the repository's Markdown and reports what a reader would trip on: links and images that lead nowhere,
// anchors that name no heading, `scripts/...` paths that do not exist, dated figures and issue numbers in the user
// docs. Pure functions over a directory, so the tests can run them on the real tree and on planted mistakes.
import Foundation

/// One problem found in one Markdown file.
struct DocProblem: CustomStringConvertible, Equatable {
    /// The file, relative to the checked root.
    let file: String
    /// 1-based line.
    let line: Int
    let message: String

    var description: String { "\(file):\(line): \(message)" }
}

enum MarkdownChecker {
    /// Every `.md` file under `root`, relative paths, sorted; hidden directories (`.git`, `.build*`, `.ci`) are left out,
    /// and so are the directories named in `excluding` (relative to `root`).
    static func markdownFiles(under root: URL, excluding: Set<String> = []) -> [String] {
        guard
            let walker = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.isDirectoryKey],
                options: [.skipsHiddenFiles])
        else { return [] }
        let rootPath = root.standardizedFileURL.path
        var files: [String] = []
        for case let url as URL in walker {
            let relative = String(url.standardizedFileURL.path.dropFirst(rootPath.count + 1))
            if (try? url.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true {
                if excluding.contains(relative) || url.lastPathComponent.hasPrefix(".build") {
                    walker.skipDescendants()
                }
                continue
            }
            if relative.hasSuffix(".md") { files.append(relative) }
        }
        return files.sorted()
    }

    /// The lines of a Markdown text outside fenced code blocks, with their 1-based numbers, inline code spans blanked.
    static func proseLines(_ text: String) -> [(number: Int, text: String)] {
        var result: [(Int, String)] = []
        var fence: String?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let open = fence {
                if trimmed.hasPrefix(open) { fence = nil }
                continue
            }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                fence = String(trimmed.prefix(3))
                continue
            }
            result.append((index + 1, blankCodeSpans(line)))
        }
        return result
    }

    /// The line with every `code span` replaced by spaces (so that brackets inside code are not links).
    static func blankCodeSpans(_ line: String) -> String {
        var out = ""
        var inCode = false
        for character in line {
            if character == "`" {
                inCode.toggle()
                out.append(" ")
            } else {
                out.append(inCode ? " " : character)
            }
        }
        return out
    }

    /// The inline links and images of a prose line: their targets, as written.
    static func linkTargets(in line: String) -> [String] {
        let pattern = #"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(line.startIndex..., in: line)
        return regex.matches(in: line, range: range).compactMap { match in
            Range(match.range(at: 1), in: line).map { String(line[$0]) }
        }
    }

    /// GitHub's anchor for a heading's text: Markdown markup dropped, lower-cased, punctuation but `-` and `_` removed,
    /// spaces made hyphens.
    static func slug(_ heading: String) -> String {
        var text = heading
        // A link in a heading reads as its text.
        if let regex = try? NSRegularExpression(pattern: #"\[([^\]]*)\]\([^)]*\)"#) {
            text = regex.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text),
                withTemplate: "$1")
        }
        text = text.replacingOccurrences(of: "`", with: "").replacingOccurrences(of: "*", with: "")
        var slug = ""
        for scalar in text.lowercased().unicodeScalars {
            if scalar == " " {
                slug.append("-")
            } else if scalar == "-" || scalar == "_" || CharacterSet.alphanumerics.contains(scalar) {
                slug.unicodeScalars.append(scalar)
            }
        }
        return slug
    }

    /// The anchors of a Markdown text's ATX headings (outside fenced code), with GitHub's `-1`, `-2` suffixes for
    /// repeated ones.
    static func anchors(of text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        var fence: String?
        for line in text.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let open = fence {
                if trimmed.hasPrefix(open) { fence = nil }
                continue
            }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                fence = String(trimmed.prefix(3))
                continue
            }
            let hashes = line.prefix { $0 == "#" }.count
            guard (1...6).contains(hashes), line.dropFirst(hashes).first == " " else { continue }
            let base = slug(String(line.dropFirst(hashes)).trimmingCharacters(in: .whitespaces))
            let count = seen[base, default: 0]
            seen[base] = count + 1
            anchors.insert(count == 0 ? base : "\(base)-\(count)")
        }
        return anchors
    }

    /// Problems with the relative links and images of `file` (relative to `root`): a target that does not exist, or an
    /// anchor that names no heading of its Markdown target.
    static func linkProblems(file: String, root: URL) -> [DocProblem] {
        let url = root.appendingPathComponent(file)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            return [DocProblem(file: file, line: 0, message: "cannot be read as UTF-8")]
        }
        let directory = url.deletingLastPathComponent()
        var problems: [DocProblem] = []
        for (number, line) in proseLines(text) {
            for target in linkTargets(in: line) {
                if target.contains(":") && !target.hasPrefix("#") { continue }  // http:, https:, mailto:
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = parts[0].removingPercentEncoding ?? String(parts[0])
                let anchor = parts.count > 1 ? String(parts[1]) : nil
                let destination = path.isEmpty ? url : directory.appendingPathComponent(path).standardizedFileURL
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: destination.path, isDirectory: &isDirectory) else {
                    problems.append(DocProblem(file: file, line: number, message: "link to \(target): no such file"))
                    continue
                }
                guard let anchor, !isDirectory.boolValue, destination.pathExtension == "md" else { continue }
                let targetText = (try? String(contentsOf: destination, encoding: .utf8)) ?? ""
                if !anchors(of: targetText).contains(anchor.lowercased()) {
                    problems.append(
                        DocProblem(
                            file: file, line: number,
                            message: "link to \(target): no heading with anchor #\(anchor)"))
                }
            }
        }
        return problems
    }

    /// `scripts/...` paths named in `file` (anywhere, code included) that do not exist under `root`.
    static func scriptPathProblems(file: String, root: URL) -> [DocProblem] {
        guard let text = try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8),
            let regex = try? NSRegularExpression(
                pattern: #"(?<![A-Za-z0-9_./-])scripts/[A-Za-z0-9_./-]*[A-Za-z0-9_-]/?"#)
        else { return [] }
        var problems: [DocProblem] = []
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            for match in regex.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                guard let range = Range(match.range, in: line) else { continue }
                let path = String(line[range])
                if !FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path) {
                    problems.append(DocProblem(file: file, line: index + 1, message: "\(path) does not exist"))
                }
            }
        }
        return problems
    }

    /// Dates (`YYYY-MM-DD`) and issue numbers (`issue 12`, `issue #12`) in `file`: a user doc holds neither.
    static func datedOrIssueProblems(file: String, root: URL) -> [DocProblem] {
        guard let text = try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8),
            let date = try? NSRegularExpression(pattern: #"20\d\d-\d\d-\d\d"#),
            let issue = try? NSRegularExpression(pattern: #"(?i)\bissue\s+#?\d+"#)
        else { return [DocProblem(file: file, line: 0, message: "cannot be read as UTF-8")] }
        var problems: [DocProblem] = []
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let range = NSRange(line.startIndex..., in: line)
            for match in date.matches(in: line, range: range) {
                let found = Range(match.range, in: line).map { String(line[$0]) } ?? ""
                problems.append(
                    DocProblem(
                        file: file, line: index + 1,
                        message: "dated figure \(found): dated measurements go to journal/"))
            }
            for match in issue.matches(in: line, range: range) {
                let found = Range(match.range, in: line).map { String(line[$0]) } ?? ""
                problems.append(DocProblem(file: file, line: index + 1, message: "issue number (\(found))"))
            }
        }
        return problems
    }
}
