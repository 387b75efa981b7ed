// `runloop rules --seeds`: the seed claims grouped by write-up, each with its verdict, its cases and why, then the
// count of claims per verdict.

import Foundation

extension SeedClaims {
    /// The claims as text: per write-up, a heading, then per claim its verdict and id, the claim, `why` and the
    /// cases; then one line of counts.
    public func renderTable() -> String {
        let width = SeedVerdict.allCases.map(\.rawValue.count).max() ?? 0
        let indent = String(repeating: " ", count: width + 4)
        var lines: [String] = []
        for (seed, claims) in claimsBySeed {
            lines.append("\(seed.file): \(seed.about)")
            for claim in claims {
                let verdict = claim.verdict.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)
                lines.append("  \(verdict)  \(claim.id)")
                lines.append("\(indent)\(claim.claim)")
                if let why = claim.why { lines.append("\(indent)why: \(why)") }
                if !claim.cases.isEmpty { lines.append("\(indent)cases: \(claim.cases.joined(separator: ", "))") }
            }
            lines.append("")
        }
        lines.append(countsLine)
        return lines.joined(separator: "\n")
    }

    /// "N claims: A holds, B does not hold, C Darwin-only, D not checkable here".
    public var countsLine: String {
        "\(claims.count) claims: " + verdictCounts.map { "\($0.claims) \($0.verdict.label)" }.joined(separator: ", ")
    }

    /// The claims as JSON: the file, the counts per verdict and every claim with its seed, verdict, cases and why.
    public func renderJSON() -> String {
        struct Claim: Encodable {
            var id, seed, claim, verdict: String
            var cases: [String]
            var why: String?
        }
        struct Report: Encodable {
            var file: String
            var counts: [String: Int]
            var claims: [Claim]
        }
        let counts = Dictionary(uniqueKeysWithValues: verdictCounts.map { ($0.verdict.rawValue, $0.claims) })
        let rows = claims.map {
            Claim(id: $0.id, seed: $0.seed, claim: $0.claim, verdict: $0.verdict.rawValue, cases: $0.cases, why: $0.why)
        }
        return JSONText.render(Report(file: path, counts: counts, claims: rows))
    }
}
