// Which version of the spec format a case needs: the constructs it uses that version 1 does not have. The loader
// refuses a case whose file names an older version (INTERPRETING.md, "Versions"); the fuzzer's case writer picks the
// version of what it writes from it.

extension SpecCase {
    /// Every action of the case: its steps, its triggers' actions and helper threads' actions, depth first.
    public var allActions: [Action] {
        var found: [Action] = []
        func walk(_ actions: [Action]) {
            for action in actions {
                found.append(action)
                switch action {
                case .thread(_, let inner), .target(_, let inner), .post(_, let inner), .dispatchMain(let inner):
                    walk(inner)
                default: break
                }
            }
        }
        walk(steps)
        for trigger in triggers { walk(trigger.actions) }
        return found
    }

    /// (1.1) Items declared `created: later` that no `create` action names: the loader refuses such a case.
    public var itemsNeverCreated: [ItemDeclaration] {
        let created = Set(
            allActions.compactMap { action -> String? in
                if case .create(let name) = action { return name }
                return nil
            })
        return items.filter { $0.createdByStep && !created.contains($0.name) }
    }

    /// (1.3) Whether the case uses Foundation's layer: a Foundation verb or a timer of a Foundation form.
    public var usesFoundationLayer: Bool {
        items.contains { $0.foundationForm != nil } || allActions.contains { $0.isFoundationVerb }
    }

    /// The spelling of each construct the case uses that spec format 1 lacks, once each, in a stable order.
    public var laterConstructs: [String] { versionedConstructs.map(\.word) }

    /// The constructs the case uses that need a version after 1, each with the version that added it.
    public var versionedConstructs: [(word: String, version: SpecFormatVersion)] {
        var found: [(word: String, version: SpecFormatVersion)] = []
        func note(_ word: String, _ version: SpecFormatVersion) {
            if !found.contains(where: { $0.word == word }) { found.append((word, version)) }
        }
        if items.contains(where: \.createdByStep) { note("created: later", .v1_1) }
        if items.contains(where: \.firesFromCreation) { note("from: creation", .v1_2) }
        if !loops.isEmpty { note("loops", .v1_1) }
        if items.contains(where: { $0.foundationForm != nil }) { note("form", .v1_3) }
        if features.contains(.mainThread) { note("features: mainThread", .v1_1) }
        for action in allActions {
            if let (word, version) = action.laterConstruct { note(word, version) }
        }
        return found
    }

    /// The constructs the case uses that `version` lacks.
    public func constructs(after version: SpecFormatVersion) -> [String] {
        versionedConstructs.filter { $0.version > version }.map(\.word)
    }

    /// The oldest format version that can hold the case.
    public var formatVersion: SpecFormatVersion { versionedConstructs.map(\.version).max() ?? .v1 }
}

extension Action {
    /// (1.3) Whether this is one of Foundation's verbs (feature `foundation`).
    var isFoundationVerb: Bool {
        switch self {
        case .foundationRun, .runUntil, .runBefore, .limitDate, .acceptInput, .performInModes: return true
        default: return false
        }
    }

    /// The spec word of this action and the format version that added it, if that is after version 1, else nil.
    var laterConstruct: (word: String, version: SpecFormatVersion)? {
        switch self {
        case .target: return ("target", .v1_1)
        case .post: return ("post", .v1_1)
        case .join: return ("join", .v1_1)
        case .waitUntilWaiting: return ("waitUntilWaiting", .v1_1)
        case .end: return ("end", .v1_1)
        case .query(.sameLoop): return ("sameLoop", .v1_1)
        case .add, .remove, .contains, .addCommonMode, .signal, .write, .wakeUp, .stop, .stopMode, .invalidate,
            .setNextFireDate, .setTolerance, .perform, .mark, .stall, .thread:
            return nil
        case .query(.isMainLoop):
            return ("query: isMainLoop", .v1_1)
        case .query(.caseLoopIsMain):
            return ("query: [isMainLoop, case]", .v1_1)
        case .query(.isMainThread):
            return ("query: isMainThread", .v1_2)
        case .query(.isSignalled):
            return ("query: isSignalled", .v1_4)
        case .query:
            return nil
        case .run(let request):
            return request.took.map(Self.timingConstruct)
        case .create:
            return ("create", .v1_1)
        case .runForever:
            return ("runForever", .v1_1)
        case .dispatchMain:
            return ("dispatchMain", .v1_1)
        case .sleep:
            return ("sleep", .v1_2)
        case .waitUntilSlept:
            return ("waitUntilSlept", .v1_2)
        case .foundationRun: return ("foundationRun", .v1_3)
        case .runUntil: return ("runUntil", .v1_3)
        case .runBefore: return ("runBefore", .v1_3)
        case .limitDate: return ("limitDate", .v1_3)
        case .acceptInput: return ("acceptInput", .v1_3)
        case .performInModes: return ("performInModes", .v1_3)
        case .setFlag: return ("setFlag", .v1_3)
        }
    }

    /// `took` is 1.1; its bound relative to the run's own timeout is 1.2.
    private static func timingConstruct(_ took: TimingAssertion) -> (word: String, version: SpecFormatVersion) {
        if case .underTimeout = took { return ("took: underTimeout", .v1_2) }
        return ("took", .v1_1)
    }
}
