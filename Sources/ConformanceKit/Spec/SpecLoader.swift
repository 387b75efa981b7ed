// Reads spec files (YAML) into cases, checking everything that can be checked before a case runs: the format
// version, field names and types, item references and kinds, trace events, and ids unique across files.

import EngineKit
import Foundation
import YAMLKit

/// Loads and validates spec files.
public enum SpecLoader {
    /// Loads every `*.yaml` file under `path` (a file or a directory), sorted by name, and checks that case ids are
    /// unique across them.
    public static func load(path: String) throws -> [SpecFile] {
        let files = try yamlFiles(at: path)
        let loaded = try files.map(loadFile)
        try checkUniqueIDs(loaded.flatMap(\.cases))
        return loaded
    }

    /// Fails on the second case that reuses an id.
    static func checkUniqueIDs(_ cases: [SpecCase]) throws {
        var seen: [String: SpecLocation] = [:]
        for specCase in cases {
            if let first = seen[specCase.id] {
                throw SpecError(
                    specCase.location, caseID: specCase.id, field: "id", "duplicate id (first defined at \(first))")
            }
            seen[specCase.id] = specCase.location
        }
    }

    /// The YAML files at `path`: the file itself, or the `.yaml`/`.yml` files directly in the directory.
    static func yamlFiles(at path: String) throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw SpecError(SpecLocation(file: path, line: 0), "no such file or directory")
        }
        guard isDirectory.boolValue else { return [path] }
        let names = try FileManager.default.contentsOfDirectory(atPath: path)
        return names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
            .map { (path as NSString).appendingPathComponent($0) }
    }

    /// Loads one spec file.
    public static func loadFile(_ path: String) throws -> SpecFile {
        try parse(readText(path), file: path)
    }

    /// The text of a spec-format file (cases, expectations, the catalogue, the fuzzer's known divergences), or a
    /// ``SpecError`` naming it.
    package static func readText(_ path: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw SpecError(SpecLocation(file: path, line: 0), "cannot read the file: \(error.localizedDescription)")
        }
    }

    /// The top-level fields of a spec-format file, after checking its `spec_version` (files of other versions are
    /// refused, INTERPRETING.md).
    package static func versionedTop(_ text: String, file: String) throws -> Fields {
        try versionedTopAndVersion(text, file: file).top
    }

    static func versionedTopAndVersion(_ text: String, file: String) throws
        -> (top: Fields, version: SpecFormatVersion)
    {
        let root = try composeYAML(text, file: file)
        var top = try root.fields()
        let versionValue = try top.required("spec_version")
        // YAML reads `1.1` as a number and `1` as an integer; both are compared by their written form.
        let written = try versionValue.string()
        guard let version = SpecFormatVersion(rawValue: written == "1.0" ? "1" : written) else {
            let versions = SpecFormatVersion.allCases.map(\.rawValue)
            let known = versions.dropLast().joined(separator: ", ") + " and " + versions.last!
            throw versionValue.error("spec_version \(written) is not supported (this runner reads versions \(known))")
        }
        return (top, version)
    }

    /// Parses spec text; `file` is used in messages.
    public static func parse(_ text: String, file: String) throws -> SpecFile {
        var (top, version) = try versionedTopAndVersion(text, file: file)
        let cases = try top.required("cases").sequence().map(parseCase)
        try checkUniqueIDs(cases)
        for specCase in cases where specCase.formatVersion > version {
            throw SpecError(
                specCase.location, caseID: specCase.id,
                "case '\(specCase.id)' uses spec format \(specCase.formatVersion.rawValue) "
                    + "constructs (\(specCase.constructs(after: version).joined(separator: ", "))) but its file says spec_version "
                    + "\(version.rawValue); write spec_version: \(specCase.formatVersion.rawValue)")
        }
        try top.finish(allowed: ["spec_version", "cases"])
        return SpecFile(path: file, version: version, cases: cases)
    }

    /// Composes YAML, turning libyaml's errors into ``SpecError``s with the file and line.
    static func composeYAML(_ text: String, file: String) throws -> YAMLValue {
        do {
            guard let node = try YAMLSyntax.compose(text) else {
                throw SpecError(SpecLocation(file: file, line: 1), "the file is empty")
            }
            return YAMLValue(node: node, file: file, caseID: nil, field: "")
        } catch let error as YAMLSyntaxError {
            throw SpecError(SpecLocation(file: file, line: error.line ?? 0), "YAML syntax error: \(problem(error))")
        }
    }

    private static func problem(_ error: YAMLSyntaxError) -> String {
        switch error.problem {
        case .syntax(let text), .other(let text):
            return text
        case .duplicateKeys(let duplicates):
            return "duplicate key \(duplicates.map { "'\($0)'" }.joined(separator: ", ")) in one mapping"
        case .reader(let problem, let value):
            // Yams's own description quotes the offending line, control characters and all.
            return value >= 0 ? "\(problem) (character \(String(format: "U+%04X", value)))" : problem
        }
    }

    // MARK: Cases

    static let caseFields = [
        "id", "rule", "source", "rules", "features", "allow", "timeout", "loops", "items", "steps",
        "on", "expect",
    ]

    static func parseCase(_ value: YAMLValue) throws -> SpecCase {
        // Inside a case, fields are named relative to the case.
        var caseValue = YAMLValue(node: value.node, file: value.file, caseID: nil, field: "")
        var probe = try caseValue.fields()
        let idValue = try probe.required("id")
        let id = try idValue.string()
        guard isValidID(id) else {
            throw idValue.error("id '\(id)' must be dotted lower-case words, area first (e.g. stop.in-entry-observer)")
        }
        caseValue.caseID = id
        var fields = try caseValue.fields()
        _ = fields.optional("id")
        return try parseCaseBody(id: id, fields: &fields, location: value.location)
    }

    private static func parseCaseBody(id: String, fields: inout Fields, location: SpecLocation) throws -> SpecCase {
        try fields.rejectUnknown(allowed: caseFields)
        let rule = try fields.required("rule").string()
        let source = try fields.required("source").string()
        let rules = try parseRules(fields.optional("rules"))
        let features = try (fields.optional("features")?.sequence() ?? []).map { value -> EngineFeature in
            let word = try value.string()
            guard let feature = EngineFeature(rawValue: word) else {
                throw value.error(
                    "unknown feature '\(word)' (one of \(EngineFeature.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            return feature
        }
        let allowances = Set(
            try (fields.optional("allow")?.sequence() ?? []).map { value -> Allowance in
                let word = try value.string()
                guard let allowance = Allowance(rawValue: word) else {
                    throw value.error(
                        "unknown allowance '\(word)' (one of \(Allowance.allCases.map(\.rawValue).joined(separator: ", ")))"
                    )
                }
                return allowance
            })
        var timeout: Double?
        if let value = fields.optional("timeout") {
            timeout = try value.double()
            guard let seconds = timeout, seconds > 0, seconds.isFinite else {
                throw value.error("timeout must be a positive number of seconds")
            }
        }
        let items = try parseItems(fields.optional("items"))
        let kinds = Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.kind) })
        let loops = try parseLoops(fields.optional("loops"), items: kinds)
        var actions = ActionParser(items: kinds, laterItems: Set(items.filter(\.createdByStep).map(\.name)))
        actions.loops = loops
        actions.mainThread = features.contains(.mainThread)
        let stepsValue = try fields.required("steps")
        let steps = try stepsValue.sequence().map(actions.parse)
        guard !steps.isEmpty else { throw stepsValue.error("a case needs at least one step") }
        let grammar = TraceGrammar(items: kinds)
        let triggers = try (fields.optional("on")?.sequence() ?? []).map {
            try parseTrigger($0, actions: actions, grammar: grammar)
        }
        let expectValue = try fields.required("expect")
        var expected: [String] = []
        var unordered: [Range<Int>] = []
        func traceLine(_ line: YAMLValue) throws -> String {
            let text = try line.string()
            if let problem = grammar.problem(in: text) { throw line.error(problem) }
            return text
        }
        for entry in try expectValue.sequence() {
            if entry.isScalar {
                expected.append(try traceLine(entry))
                continue
            }
            var group = try entry.fields()
            let linesValue = try group.required("any-order")
            let lines = try linesValue.sequence().map(traceLine)
            guard lines.count >= 2 else { throw linesValue.error("an any-order group needs at least two lines") }
            try group.finish(allowed: ["any-order"])
            unordered.append(expected.count..<expected.count + lines.count)
            expected += lines
        }
        try fields.finish(allowed: caseFields)
        var specCase = SpecCase(
            id: id, rule: rule, source: source, features: features, allowances: allowances,
            timeout: timeout, items: items, steps: steps, triggers: triggers,
            expectedTrace: expected, location: location)
        specCase.unorderedRanges = unordered
        specCase.rules = rules
        specCase.level = try levelOfRules(rules)
        // Sending to the main queue needs an engine whose main loop services it (a CoreFoundation without libdispatch
        // has CFRunLoopGetMain but no main queue), listed or not.
        let sendsToMainQueue = specCase.allActions.contains {
            if case .dispatchMain = $0 { return true } else { return false }
        }
        if sendsToMainQueue, !specCase.features.contains(.mainQueue) { specCase.features.append(.mainQueue) }
        // Foundation's verbs need an engine with Foundation's layer, listed or not.
        if specCase.usesFoundationLayer, !specCase.features.contains(.foundation) {
            specCase.features.append(.foundation)
        }
        // (1.4) Asking whether a source is signalled needs an engine that can answer, listed or not.
        let asksSignalled = specCase.allActions.contains {
            if case .query(.isSignalled) = $0 { return true } else { return false }
        }
        if asksSignalled, !specCase.features.contains(.isSignalled) { specCase.features.append(.isSignalled) }
        specCase.loops = loops
        if let never = specCase.itemsNeverCreated.first {
            throw SpecError(
                never.location, caseID: id,
                "item '\(never.name)' is declared 'created: later' but no "
                    + "'create: \(never.name)' action creates it")
        }
        return specCase
    }

    /// `loops: [NAME, ...]` (format 1.1): names for loops of helper threads, each a name as items have, once, neither
    /// an item's name nor a reserved loop name (`here`, `current`).
    static func parseLoops(_ value: YAMLValue?, items: [String: ItemKind]) throws -> [String] {
        guard let value else { return [] }
        var names: [String] = []
        for entry in try value.sequence() {
            let name = try entry.string()
            guard isValidName(name) else {
                throw entry.error("loop name '\(name)' must be a letter followed by letters, digits or '_'")
            }
            guard !LoopName.reserved.contains(name) else {
                throw entry.error(
                    "'\(name)' is reserved (`here` is the case thread's loop, `current` the performing "
                        + "thread's own); choose another loop name")
            }
            guard items[name] == nil else { throw entry.error("'\(name)' is already an item's name") }
            guard !names.contains(name) else { throw entry.error("loop '\(name)' is declared twice") }
            names.append(name)
        }
        guard !names.isEmpty else { throw value.error("`loops` names at least one loop (or leave the field out)") }
        return names
    }

    static func isValidID(_ id: String) -> Bool {
        let parts = id.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy { ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "-" }
        }
    }

    // MARK: Items

    static func parseItems(_ value: YAMLValue?) throws -> [ItemDeclaration] {
        guard let value else { return [] }
        return try value.mapping().map { name, spec in
            guard isValidName(name) else {
                throw spec.error("item name '\(name)' must be a letter followed by letters, digits or '_'")
            }
            let (kind, later, fromCreation) = try parseItemKindAndCreation(spec)
            var declaration = ItemDeclaration(
                name: name, kind: kind, location: spec.location, createdByStep: later,
                firesFromCreation: fromCreation)
            (declaration.foundationForm, declaration.repeats) = try parseFoundationTimerForm(spec)
            return declaration
        }
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.first, first.isLetter else { return false }
        return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }

    /// An item's kind, whether it is created by a step (`created: later` among its parameters, format 1.1), and for a
    /// timer so created whether its `fire` counts from its creation (`from: creation`, format 1.2).
    static func parseItemKindAndCreation(_ value: YAMLValue) throws -> (kind: ItemKind, later: Bool, fromCreation: Bool)
    {
        let (word, argument) = try value.singleKey()
        var fields = Fields(owner: value, pairs: [])
        if let argument, !isNull(argument) { fields = try argument.fields() }
        var later = false
        if let created = fields.optional("created") {
            guard word != "block" else {
                throw created.error("a block is a name, not an object: it cannot be created later")
            }
            let when = try created.string()
            guard when == "later" || when == "first" else {
                throw created.error("created must be 'later' (by a create step) or 'first' (before the first step)")
            }
            later = when == "later"
        }
        var fromCreation = false
        if let from = fields.optional("from") {
            guard word == "timer" else { throw from.error("only a timer has a fire date to count from") }
            let origin = try from.string()
            guard origin == "creation" || origin == "start" else {
                throw from.error(
                    "from must be 'creation' (fire counts from the create step) or 'start' (from the case's start)")
            }
            fromCreation = origin == "creation"
            if fromCreation && !later {
                throw from.error(
                    "from: creation needs created: later (a timer made before the first step is made at "
                        + "the case's start)")
            }
        }
        let kind: ItemKind
        switch word {
        case "source0":
            kind = .source0(
                order: try fields.optional("order")?.int() ?? 0,
                callouts: try fields.optional("callouts")?.bool() ?? false)
            try fields.finish(allowed: ["order", "callouts", "created"])
        case "source1":
            kind = .source1(order: try fields.optional("order")?.int() ?? 0)
            try fields.finish(allowed: ["order", "created"])
        case "timer":
            kind = .timer(
                fire: try fields.optional("fire")?.double() ?? 0,
                interval: try fields.optional("interval")?.double() ?? 0,
                tolerance: try fields.optional("tolerance")?.double(),
                order: try fields.optional("order")?.int() ?? 0)
            // `form` and `repeats` (1.3): parseFoundationTimerForm reads them.
            _ = (fields.optional("form"), fields.optional("repeats"))
            try fields.finish(allowed: ["fire", "interval", "tolerance", "order", "created", "from", "form", "repeats"])
        case "observer":
            var activities = ActivitySet.all
            if let list = fields.optional("activities") {
                activities = try parseActivities(list)
            }
            kind = .observer(
                activities: activities, repeats: try fields.optional("repeats")?.bool() ?? true,
                order: try fields.optional("order")?.int() ?? 0)
            try fields.finish(allowed: ["activities", "repeats", "order", "created"])
        case "block":
            kind = .block
            try fields.finish(allowed: [])
        default:
            throw value.error("unknown item kind '\(word)' (one of source0, source1, timer, observer, block)")
        }
        return (kind, later, fromCreation)
    }

    /// (1.3) A timer's `form` (fire, timeInterval or scheduled: Foundation's Timer instead of CF's) and `repeats`
    /// (only with a form). `timeInterval` and `scheduled` take no `fire`: Foundation dates them from their creation.
    static func parseFoundationTimerForm(_ value: YAMLValue) throws -> (FoundationTimerForm?, Bool?) {
        let (word, argument) = try value.singleKey()
        guard word == "timer", let argument, !isNull(argument) else { return (nil, nil) }
        var fields = try argument.fields()
        let formValue = fields.optional("form")
        let repeatsValue = fields.optional("repeats")
        guard let formValue else {
            if let repeatsValue { throw repeatsValue.error("repeats needs a Foundation form (form: fire, ...)") }
            return (nil, nil)
        }
        let formWord = try formValue.string()
        guard let form = FoundationTimerForm(rawValue: formWord) else {
            throw formValue.error(
                "unknown timer form '\(formWord)' (one of "
                    + FoundationTimerForm.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        if form != .fire, let fire = fields.optional("fire") {
            throw fire.error("a \(form.rawValue) timer has no fire: Foundation dates it from its creation")
        }
        if let order = fields.optional("order") { throw order.error("Foundation's Timer has no order") }
        return (form, try repeatsValue?.bool())
    }

    static func parseActivities(_ value: YAMLValue) throws -> ActivitySet {
        if value.isScalar, try value.string() == "all" { return .all }
        return ActivitySet(
            try value.sequence().map { entry in
                let word = try entry.string()
                guard let activity = Activity(rawValue: word) else {
                    throw entry.error(
                        "unknown activity '\(word)' (one of all, \(Activity.allCases.map(\.rawValue).joined(separator: ", ")))"
                    )
                }
                return activity
            })
    }

    static func isNull(_ value: YAMLValue) -> Bool { value.isNull }

    // MARK: Triggers

    static func parseTrigger(_ value: YAMLValue, actions: ActionParser, grammar: TraceGrammar) throws -> Trigger {
        var fields = try value.fields()
        let whenValue = try fields.required("when")
        let event = try whenValue.string()
        if let problem = grammar.problem(in: event) { throw whenValue.error(problem) }
        var occurrence = Trigger.Occurrence.nth(1)
        let nth = fields.optional("nth")
        let every = fields.optional("every")
        if let nth {
            let n = try nth.int()
            guard n >= 1 else { throw nth.error("nth counts from 1") }
            occurrence = .nth(n)
        }
        if let every, try every.bool() {
            guard nth == nil else { throw every.error("give either nth or every, not both") }
            occurrence = .every
        }
        let doValue = try fields.required("do")
        let list = try doValue.sequence().map(actions.parse)
        guard !list.isEmpty else { throw doValue.error("a trigger needs at least one action") }
        try fields.finish(allowed: ["when", "nth", "every", "do"])
        return Trigger(event: event, occurrence: occurrence, actions: list, location: value.location)
    }
}
