// A line diff of expected and actual traces, for failure reports.

/// Renders a unified-style diff: `  ` unchanged, `- ` expected but missing, `+ ` present but not expected.
public enum TraceDiff {
    public static func render(expected: [String], actual: [String]) -> String {
        // Longest common subsequence table; traces are short (tens to hundreds of lines).
        let n = expected.count, m = actual.count
        var table = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                table[i][j] = expected[i] == actual[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var lines = ["--- expected", "+++ actual"]
        var i = 0, j = 0
        while i < n || j < m {
            if i < n, j < m, expected[i] == actual[j] {
                lines.append("  " + expected[i])
                i += 1
                j += 1
            } else if j < m, i == n || table[i][j + 1] >= table[i + 1][j] {
                lines.append("+ " + actual[j])
                j += 1
            } else {
                lines.append("- " + expected[i])
                i += 1
            }
        }
        return lines.joined(separator: "\n")
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
