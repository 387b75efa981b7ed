// A line diff of expected and actual traces, for failure reports.

/// Renders a unified-style diff: `  ` unchanged, `- ` expected but missing, `+ ` present but not expected.
public enum TraceDiff {
    public static func render(expected: [String], actual: [String]) -> String {
        let lines = edits(expected: expected, actual: actual).map { edit -> String in
            switch edit {
            case .same(let line): return "  " + line
            case .removed(let line): return "- " + line
            case .added(let line): return "+ " + line
            }
        }
        return (["--- expected", "+++ actual"] + lines).joined(separator: "\n")
    }

    /// One line of a diff.
    public enum Edit: Equatable, Sendable {
        case same(String)
        /// In the expected (first) trace only.
        case removed(String)
        /// In the actual (second) trace only.
        case added(String)
    }

    /// The shortest edit from `expected` to `actual` (a longest common subsequence; traces are tens to hundreds of
    /// lines, so the quadratic table is small).
    public static func edits(expected: [String], actual: [String]) -> [Edit] {
        let n = expected.count
        let m = actual.count
        var table = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                table[i][j] = expected[i] == actual[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var result: [Edit] = []
        var i = 0
        var j = 0
        while i < n || j < m {
            if i < n, j < m, expected[i] == actual[j] {
                result.append(.same(expected[i]))
                i += 1
                j += 1
            } else if j < m, i == n || table[i][j + 1] >= table[i + 1][j] {
                result.append(.added(actual[j]))
                j += 1
            } else {
                result.append(.removed(expected[i]))
                i += 1
            }
        }
        return result
    }
}

/// Exact matching with `any-order` groups.
public enum TraceMatch {
    /// The expected trace with each unordered group rearranged into the order the actual trace has at the same
    /// position, when the group's lines are exactly the actual lines there (as a multiset). Comparing the result
    /// with the actual trace line by line is then the whole match; the rest of the trace stays exact.
    public static func alignUnordered(expected: [String], ranges: [Range<Int>], actual: [String]) -> [String] {
        var aligned = expected
        for range in ranges where range.upperBound <= actual.count {
            let window = Array(actual[range])
            if window.sorted() == expected[range].sorted() { aligned.replaceSubrange(range, with: window) }
        }
        return aligned
    }
}
