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
                if case .thread(_, let inner) = action { walk(inner) }
                if case .dispatchMain(let inner) = action { walk(inner) }
            }
        }
        walk(steps)
        for trigger in triggers { walk(trigger.actions) }
        return found
    }

    /// The spelling of each construct the case uses that spec format 1 lacks, once each, in a stable order.
    public var laterConstructs: [String] {
        var found: [String] = []
        func note(_ word: String) { if !found.contains(word) { found.append(word) } }
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
        case .add, .remove, .contains, .addCommonMode, .signal, .write, .wakeUp, .stop, .stopMode, .invalidate,
             .setNextFireDate, .setTolerance, .run, .perform, .mark, .stall, .thread:
            return nil
        case .query(.isMainLoop):
            return "query: isMainLoop"
        case .query(.caseLoopIsMain):
            return "query: [isMainLoop, case]"
        case .query:
            return nil
        case .dispatchMain:
            return "dispatchMain"
        }
    }
}
