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
        let created = Set(allActions.compactMap { action -> String? in
            if case .create(let name) = action { return name }
            return nil
        })
        return items.filter { $0.createdByStep && !created.contains($0.name) }
    }

    /// The spelling of each construct the case uses that spec format 1 lacks, once each, in a stable order.
    public var laterConstructs: [String] {
        var found: [String] = []
        func note(_ word: String) { if !found.contains(word) { found.append(word) } }
        if items.contains(where: \.createdByStep) { note("created: later") }
        if !loops.isEmpty { note("loops") }
        if features.contains(.mainThread) { note("features: mainThread") }
        for action in allActions {
            if let word = action.laterConstructWord { note(word) }
        }
        return found
    }

    /// The oldest format version that can hold the case.
    public var formatVersion: SpecFormatVersion { laterConstructs.isEmpty ? .v1 : .v1_1 }
}

extension Action {
    /// The spec word of this action if it is a construct of format 1.1, else nil.
    var laterConstructWord: String? {
        switch self {
        case .target: return "target"
        case .post: return "post"
        case .join: return "join"
        case .waitUntilWaiting: return "waitUntilWaiting"
        case .end: return "end"
        case .query(.sameLoop): return "sameLoop"
        case .add, .remove, .contains, .addCommonMode, .signal, .write, .wakeUp, .stop, .stopMode, .invalidate,
             .setNextFireDate, .setTolerance, .perform, .mark, .stall, .thread:
            return nil
        case .query(.isMainLoop):
            return "query: isMainLoop"
        case .query(.caseLoopIsMain):
            return "query: [isMainLoop, case]"
        case .query:
            return nil
        case .run(let request):
            return request.took == nil ? nil : "took"
        case .create:
            return "create"
        case .runForever:
            return "runForever"
        case .dispatchMain:
            return "dispatchMain"
        }
    }
}
