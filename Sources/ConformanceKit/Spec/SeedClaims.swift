// The seed claims (Sources/ConformanceSpec/seeds.yaml): every claim about run-loop behaviour in the write-ups the
// project started from, in our words, with the spec cases that check it and a verdict on the toolchain's
// CoreFoundation. The loader checks that every cited case exists and every verdict is one of the four below.

import ConformanceSpec
import Foundation
import YAMLKit

/// What the toolchain's CoreFoundation on Linux says about a claim.
public enum SeedVerdict: String, CaseIterable, Sendable, Codable {
    /// CF does what the claim says; the cited cases show it.
    case holds
    /// CF does something else; `why` says what and the cited cases show it.
    case doesNotHold = "does-not-hold"
    /// The claim is about Darwin alone (mach ports, UIKit, Objective-C API); `why` says why it cannot be checked here.
    case darwinOnly = "darwin-only"
    /// The claim is about timing thresholds, cost, CF's internal data or API the spec cannot reach; `why` says which.
    case notCheckableHere = "not-checkable-here"

    /// How the counts name the verdict.
    public var label: String {
        switch self {
        case .holds: return "holds"
        case .doesNotHold: return "does not hold"
        case .darwinOnly: return "Darwin-only"
        case .notCheckableHere: return "not checkable here"
        }
    }

    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// One write-up the claims come from.
public struct SeedDocument: Sendable {
    /// Its file name, which claims cite in `seed`.
    public var file: String
    /// What it covers, in a line.
    public var about: String
}

/// One claim of a write-up.
public struct SeedClaim: Sendable {
    /// Stable id, dotted lower-case words (e.g. `s002.activity.before-sources-before-sleep`).
    public var id: String
    /// The file name of the write-up it comes from (one of ``SeedClaims/seeds``).
    public var seed: String
    /// The claim, restated in our words.
    public var claim: String
    public var verdict: SeedVerdict
    /// Ids of the spec cases that check it, in the order written.
    public var cases: [String]
    /// What CF does instead, why it cannot be checked here, or a nuance; nil only for a claim that holds.
    public var why: String?
    public var location: SpecLocation
}

/// The seed claims file, parsed and checked against a spec's case ids.
public struct SeedClaims: Sendable {
    /// The version of the seed claims format this package reads.
    public static let formatVersion = 1

    public var seeds: [SeedDocument]
    public var claims: [SeedClaim]
    public var path: String

    /// How many claims have each verdict, every verdict listed (zero included), in declaration order.
    public var verdictCounts: [(verdict: SeedVerdict, claims: Int)] {
        SeedVerdict.allCases.map { verdict in (verdict, claims.filter { $0.verdict == verdict }.count) }
    }

    /// The claims of each write-up, in the order the write-ups are listed.
    public var claimsBySeed: [(seed: SeedDocument, claims: [SeedClaim])] {
        seeds.map { seed in (seed, claims.filter { $0.seed == seed.file }) }
    }

    /// The shipped file, checked against the case ids of the shipped spec (or `knownCases` when given).
    public static func shipped(knownCases: Set<String>) throws -> SeedClaims {
        guard let path = SpecResources.seedsFile else {
            throw SpecError(
                SpecLocation(file: "seeds.yaml", line: 0),
                "the shipped seed claims were not found next to the executable")
        }
        return try load(path: path, knownCases: knownCases)
    }

    /// Loads the seed claims at `path` (the shipped file when nil) and checks them against the case ids of the spec
    /// at `specPath` (a file or a directory; its rule ids are not checked here, `runloop rules` reports those).
    public static func load(path: String?, specPath: String) throws -> SeedClaims {
        let cases = try SpecLoader.$ruleCheck.withValue(.none) { try SpecLoader.load(path: specPath) }.flatMap(\.cases)
        let known = Set(cases.map(\.id))
        guard let path else { return try shipped(knownCases: known) }
        return try load(path: path, knownCases: known)
    }

    /// Loads a seed claims file; every case it cites must be in `knownCases`.
    public static func load(path: String, knownCases: Set<String>) throws -> SeedClaims {
        try parse(SpecLoader.readText(path), file: path, knownCases: knownCases)
    }

    /// Parses seed claims text; `file` is used in messages. Fails, naming the file, line and field, on a missing or
    /// unknown field, an unknown verdict, seed or case id, a duplicate id, a claim that holds or does not hold without
    /// a case, and a claim other than `holds` without `why`.
    public static func parse(_ text: String, file: String, knownCases: Set<String>) throws -> SeedClaims {
        var top = try SpecLoader.composeYAML(text, file: file).fields()
        let versionValue = try top.required("seeds_version")
        let version = try versionValue.int()
        guard version == formatVersion else {
            throw versionValue.error(
                "seeds_version \(version) is not supported (this runner reads version \(formatVersion))")
        }
        var seeds: [SeedDocument] = []
        for entry in try top.required("seeds").sequence() {
            var fields = try entry.fields()
            let fileValue = try fields.required("file")
            let name = try fileValue.string()
            if seeds.contains(where: { $0.file == name }) { throw fileValue.error("seed '\(name)' is listed twice") }
            seeds.append(SeedDocument(file: name, about: try fields.required("about").string()))
            try fields.finish(allowed: ["file", "about"])
        }
        let seedNames = Set(seeds.map(\.file))
        var claims: [SeedClaim] = []
        var byID: [String: SpecLocation] = [:]
        for entry in try top.required("claims").sequence() {
            let claim = try parseClaim(entry, seeds: seedNames, knownCases: knownCases)
            if let first = byID[claim.id] {
                throw SpecError(claim.location, field: "id", "duplicate claim id '\(claim.id)' (first at \(first))")
            }
            byID[claim.id] = claim.location
            claims.append(claim)
        }
        try top.finish(allowed: ["seeds_version", "seeds", "claims"])
        return SeedClaims(seeds: seeds, claims: claims, path: file)
    }

    private static func parseClaim(_ value: YAMLValue, seeds: Set<String>, knownCases: Set<String>) throws
        -> SeedClaim
    {
        var fields = try value.fields()
        try fields.rejectUnknown(allowed: ["id", "seed", "claim", "verdict", "cases", "why"])
        let idValue = try fields.required("id")
        let id = try idValue.string()
        guard SpecLoader.isValidID(id) else {
            throw idValue.error("claim id '\(id)' must be dotted lower-case words (e.g. s002.activity.after-waiting)")
        }
        let seedValue = try fields.required("seed")
        let seed = try seedValue.string()
        guard seeds.contains(seed) else {
            throw seedValue.error("claim '\(id)': seed '\(seed)' is not listed under 'seeds'")
        }
        let claim = try fields.required("claim").string()
        let verdictValue = try fields.required("verdict")
        let verdictName = try verdictValue.string()
        guard let verdict = SeedVerdict(rawValue: verdictName) else {
            throw verdictValue.error("claim '\(id)': unknown verdict '\(verdictName)' (one of \(SeedVerdict.names))")
        }
        var cases: [String] = []
        if let casesValue = fields.optional("cases") {
            for caseValue in try casesValue.sequence() {
                let caseID = try caseValue.string()
                guard knownCases.contains(caseID) else {
                    throw caseValue.error("claim '\(id)': no case '\(caseID)' in the spec")
                }
                cases.append(caseID)
            }
        }
        let why = try fields.optional("why")?.string()
        try fields.finish()
        if cases.isEmpty, verdict == .holds || verdict == .doesNotHold {
            throw verdictValue.error("claim '\(id)': a claim that \(verdict.label) needs at least one case in 'cases'")
        }
        if why == nil, verdict != .holds {
            throw verdictValue.error("claim '\(id)': a \(verdict.rawValue) claim needs 'why'")
        }
        return SeedClaim(
            id: id, seed: seed, claim: claim, verdict: verdict, cases: cases, why: why, location: value.location)
    }
}
