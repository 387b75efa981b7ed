// The seed claims (Sources/ConformanceSpec/seeds.yaml): the shipped file loads against the shipped spec, every claim
// is checked by cases that exist, and a malformed file is refused with its file and line.

import ConformanceKit
import ConformanceSpec
import Foundation
import Testing

@Suite("Seed claims")
struct SeedClaimsTests {
    static func shipped() throws -> SeedClaims {
        let spec = try #require(SpecResources.casesDirectory)
        return try SeedClaims.load(path: nil, specPath: spec)
    }

    @Test func shippedClaimsLoad() throws {
        let claims = try Self.shipped()
        let spec = try #require(SpecResources.casesDirectory)
        let caseIDs = Set(try SpecLoader.load(path: spec).flatMap(\.cases).map(\.id))
        #expect(!claims.claims.isEmpty)
        for claim in claims.claims {
            #expect(claim.cases.allSatisfy(caseIDs.contains), "\(claim.id) cites a missing case")
            switch claim.verdict {
            case .holds:
                #expect(!claim.cases.isEmpty, "\(claim.id) holds without a case")
            case .doesNotHold:
                #expect(!claim.cases.isEmpty, "\(claim.id) does not hold without a case showing it")
                #expect(claim.why != nil, "\(claim.id) does not hold without saying why")
            case .darwinOnly, .notCheckableHere:
                #expect(claim.why != nil, "\(claim.id): \(claim.verdict.rawValue) without saying why")
            }
        }
        // Every write-up listed has claims, and the counts add up to the claims.
        for (seed, seedClaims) in claims.claimsBySeed { #expect(!seedClaims.isEmpty, "no claim from \(seed.file)") }
        #expect(claims.verdictCounts.map(\.claims).reduce(0, +) == claims.claims.count)
        #expect(claims.verdictCounts.allSatisfy { $0.claims > 0 })
        // The area of cases written for the seeds is cited, every case of it.
        let cited = Set(claims.claims.flatMap(\.cases))
        let seedCases = caseIDs.filter { $0.hasPrefix("seeds.") }
        #expect(!seedCases.isEmpty)
        #expect(seedCases.subtracting(cited).isEmpty, "seed cases no claim cites: \(seedCases.subtracting(cited))")
    }

    @Test func tableGroupsBySeedAndCounts() throws {
        let claims = try Self.shipped()
        let table = claims.renderTable()
        for seed in claims.seeds { #expect(table.contains("\(seed.file): \(seed.about)")) }
        let counts = claims.verdictCounts
        let line =
            "\(claims.claims.count) claims: \(counts[0].claims) holds, \(counts[1].claims) does not hold, "
            + "\(counts[2].claims) Darwin-only, \(counts[3].claims) not checkable here"
        #expect(table.hasSuffix(line), "\(table.suffix(200))")
        #expect(claims.renderJSON().contains("\"does-not-hold\" : \(counts[1].claims)"))
    }

    static let header = """
        seeds_version: 1
        seeds:
          - {file: a.txt, about: one write-up}
        claims:
          - id: sa.first
            seed: a.txt
            claim: a claim
        """

    /// The message for `claim` lines appended to a valid header, or nil if the text loads.
    static func message(_ lines: String, knownCases: Set<String> = ["known.case"]) -> String? {
        do {
            _ = try SeedClaims.parse(header + "\n" + lines, file: "s.yaml", knownCases: knownCases)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func malformedClaimsNameFileAndLine() throws {
        #expect(Self.message("    verdict: holds\n    cases: [known.case]") == nil)
        let verdict = try #require(Self.message("    verdict: maybe\n    cases: [known.case]"))
        #expect(verdict.hasPrefix("s.yaml:8: "), "\(verdict)")
        #expect(verdict.contains("unknown verdict 'maybe' (one of holds, does-not-hold"), "\(verdict)")
        let missing = try #require(Self.message("    verdict: holds\n    cases: [known.case, no.such-case]"))
        #expect(missing.hasPrefix("s.yaml:9: "), "\(missing)")
        #expect(missing.contains("field 'claims[0].cases[1]'"), "\(missing)")
        #expect(missing.contains("no case 'no.such-case' in the spec"), "\(missing)")
        let noCase = try #require(Self.message("    verdict: does-not-hold\n    why: because"))
        #expect(noCase.contains("s.yaml:8: "), "\(noCase)")
        #expect(noCase.contains("needs at least one case"), "\(noCase)")
        let noWhy = try #require(Self.message("    verdict: darwin-only"))
        #expect(noWhy.contains("s.yaml:8: ") && noWhy.contains("needs 'why'"), "\(noWhy)")
        let unknownSeed = try #require(
            Self.message(
                "    verdict: holds\n    cases: [known.case]\n"
                    + "  - {id: sa.second, seed: b.txt, claim: x, verdict: holds, cases: [known.case]}"))
        #expect(unknownSeed.contains("s.yaml:10: "), "\(unknownSeed)")
        #expect(unknownSeed.contains("seed 'b.txt' is not listed"), "\(unknownSeed)")
    }
}
