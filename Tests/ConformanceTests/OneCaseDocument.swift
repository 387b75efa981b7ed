// A spec file of one case, `area.new-case`, for the format tests: each suite gives its version's defaults.

enum OneCaseDocument {
    /// The file's text. `loops` (1.1) is left out when empty; with `markDone` the steps end with `mark: done`.
    static func text(
        version: String, loops: String = "", items: String, steps: String, expect: String, markDone: Bool
    ) -> String {
        """
        spec_version: \(version)
        cases:
          - id: area.new-case
            rule: A rule.
            source: observed\(loops.isEmpty ? "" : "\n    loops: \(loops)")
            items:
              \(items)
            steps:
              \(steps)\(markDone ? "\n      - mark: done" : "")
            expect:
              \(expect)
        """
    }
}
