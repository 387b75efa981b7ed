// The rule catalogue (Sources/ConformanceSpec/catalogue.yaml): every CFRunLoop behaviour the cases check, under a
// stable id, with where it lives in a pinned version of CF's source. The one place rule ids are defined.

import ConformanceSpec
import Foundation
import YAMLKit

/// One behaviour rule of the catalogue.
public struct CatalogueRule: Sendable {
    /// Stable id, `area.behaviour`, e.g. `stop.innermost-only`.
    public var id: String
    /// What CF does, in one or two sentences.
    public var text: String
    /// Where it lives in CF's source: functions and line ranges of the pinned file.
    public var cf: String
    /// Where the behaviour comes from (INTERPRETING.md, "The rule catalogue").
    public var level: RuleLevel
    /// For a `platform` rule: the platform-conditional branches of the pinned file involved, each as its `#if`
    /// condition and line range; nil for the other levels.
    public var platform: String?
    /// Where CF's comments or folklore say otherwise, what differs; for an `api` rule, the documentation that states
    /// it; for a `platform` rule, what Darwin's branch does instead. Nil if there is nothing to say.
    public var note: String?
    /// What a violation would change, and so which context exposes it (a sleeping run, a nested run, a callout of
    /// some kind); nil if the catalogue does not say. `runloop rules` lists the rules without it.
    public var exposes: String?
    public var location: SpecLocation
}

/// The catalogue: the pinned CF source and the rules, in file order.
public struct RuleCatalogue: Sendable {
    /// The version of the catalogue format this package reads.
    /// 2 added `level` (required) and `platform`.
    public static let formatVersion = 2

    /// Which CF source the line ranges refer to, e.g. "swiftlang/swift-corelibs-foundation swift-6.3.1-RELEASE
    /// Sources/CoreFoundation/CFRunLoop.c".
    public var cfSource: String
    public var rules: [CatalogueRule]
    public var path: String
    /// The markers of the Foundation sources the catalogue pins (`foundation_sources`): a citation "N-M (FRL)" names
    /// lines of the file pinned under FRL.
    public var foundationMarkers: [String] = []

    private var byID: [String: CatalogueRule]

    /// The rule with this id, if the catalogue has it.
    public func rule(_ id: String) -> CatalogueRule? { byID[id] }

    /// The level of a case that pins these rules: the most specific of theirs; nil when none is in the catalogue.
    public func level(ofRules ids: [String]) -> RuleLevel? { RuleLevel.of(ids.compactMap { byID[$0]?.level }) }

    /// How many rules each level has, every level listed (zero included), from the most general.
    public var levelCounts: [(level: RuleLevel, rules: Int)] {
        RuleLevel.allCases.map { level in (level, rules.filter { $0.level == level }.count) }
    }

    /// The catalogue shipped with the package. Loaded once; a malformed shipped catalogue is reported as the
    /// ``SpecError`` it is, each time it is asked for.
    public static func shipped() throws -> RuleCatalogue { try shippedResult.get() }

    private static let shippedResult: Result<RuleCatalogue, SpecError> = {
        guard let path = SpecResources.catalogueFile else {
            return .failure(
                SpecError(
                    SpecLocation(file: "catalogue.yaml", line: 0),
                    "the shipped rule catalogue was not found next to the executable"))
        }
        do { return .success(try load(path: path)) } catch let error as SpecError { return .failure(error) } catch {
            return .failure(SpecError(SpecLocation(file: path, line: 0), "\(error)"))
        }
    }()

    /// Loads a catalogue file.
    public static func load(path: String) throws -> RuleCatalogue {
        try parse(SpecLoader.readText(path), file: path)
    }

    /// Parses catalogue text; `file` is used in messages.
    public static func parse(_ text: String, file: String) throws -> RuleCatalogue {
        let root = try SpecLoader.composeYAML(text, file: file)
        var top = try root.fields()
        let versionValue = try top.required("catalogue_version")
        let version = try versionValue.int()
        guard version == formatVersion else {
            throw versionValue.error(
                "catalogue_version \(version) is not supported (this runner reads version \(formatVersion))")
        }
        var source = try top.required("cf_source").fields()
        let sourceParts = try ["repository", "tag", "file"].map { try source.required($0).string() }
        _ = (source.optional("commit"), source.optional("blob"))
        try source.finish(allowed: ["repository", "tag", "commit", "blob", "file"])
        var foundationMarkers: [String] = []
        for entry in try top.optional("foundation_sources")?.sequence() ?? [] {
            var fields = try entry.fields()
            foundationMarkers.append(try fields.required("marker").string())
            _ = try fields.required("file").string()
            _ = try fields.required("blob").string()
            try fields.finish(allowed: ["marker", "file", "blob"])
        }
        var rules: [CatalogueRule] = []
        var byID: [String: CatalogueRule] = [:]
        for entry in try top.required("rules").sequence() {
            let rule = try parseRule(entry)
            if let first = byID[rule.id] {
                throw SpecError(
                    rule.location, field: "id", "duplicate rule id '\(rule.id)' (first defined at \(first.location))")
            }
            byID[rule.id] = rule
            rules.append(rule)
        }
        try top.finish(allowed: ["catalogue_version", "cf_source", "foundation_sources", "rules"])
        var catalogue = RuleCatalogue(
            cfSource: sourceParts.joined(separator: " "), rules: rules, path: file, byID: byID)
        catalogue.foundationMarkers = foundationMarkers
        return catalogue
    }

    private static func parseRule(_ value: YAMLValue) throws -> CatalogueRule {
        var fields = try value.fields()
        let idValue = try fields.required("id")
        let id = try idValue.string()
        guard SpecLoader.isValidID(id) else {
            throw idValue.error(
                "rule id '\(id)' must be dotted lower-case words, area first (e.g. stop.innermost-only)")
        }
        let text = try fields.required("text").string()
        let cf = try fields.required("cf").string()
        let levelValue = try fields.required("level")
        let levelName = try levelValue.string()
        guard let level = RuleLevel(rawValue: levelName) else {
            throw levelValue.error("rule '\(id)': unknown level '\(levelName)' (one of \(RuleLevel.names))")
        }
        let platformValue = fields.optional("platform")
        let platform = try platformValue?.string()
        let note = try fields.optional("note")?.string()
        let exposes = try fields.optional("exposes")?.string()
        try fields.finish(allowed: ["id", "text", "cf", "level", "platform", "note", "exposes"])
        // A platform rule names its branches and what Darwin does instead; an api rule names its documentation.
        if level == .platform, platform == nil {
            throw levelValue.error(
                "rule '\(id)': a platform rule needs a 'platform' field naming its #if branches and lines")
        }
        if let platformValue, level != .platform {
            throw platformValue.error(
                "rule '\(id)': only a platform rule has a 'platform' field (this one is \(level.rawValue))")
        }
        if level != .cf, note == nil {
            let what = level == .api ? "which documentation states it" : "what Darwin's branch does instead"
            let article = level == .api ? "an api" : "a platform"
            throw levelValue.error("rule '\(id)': \(article) rule needs a 'note' saying \(what)")
        }
        return CatalogueRule(
            id: id, text: text, cf: cf, level: level, platform: platform, note: note, exposes: exposes,
            location: value.location)
    }
}
