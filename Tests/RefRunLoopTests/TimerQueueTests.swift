// The timer queue against a sorted-array model, exhaustively over short operation sequences.

import Testing

@testable import RefRunLoop

/// A queue node, identified by number.
private typealias ID = NumberedQueueNode

/// One operation on the queue. Indices refer to the live entries in insertion order.
private enum QueueOperation: CustomStringConvertible {
    case insert(deadline: UInt64)
    case remove(live: Int)
    case reschedule(live: Int, deadline: UInt64)

    var description: String {
        switch self {
        case .insert(let deadline): return "insert(\(deadline))"
        case .remove(let live): return "remove(#\(live))"
        case .reschedule(let live, let deadline): return "reschedule(#\(live), \(deadline))"
        }
    }
}

/// The model: CF's sorted timer array, where a (re)inserted timer goes after the ones with the same deadline.
private struct SortedModel {
    var items: [(id: Int, deadline: UInt64)] = []

    mutating func insert(id: Int, deadline: UInt64) {
        let index = items.firstIndex { $0.deadline > deadline } ?? items.count
        items.insert((id, deadline), at: index)
    }

    mutating func remove(id: Int) { items.removeAll { $0.id == id } }
}

/// Replays `operations` on a queue and the model; returns a description of the first difference, or nil.
private func replay(_ operations: [QueueOperation]) -> String? {
    var queue = TimerQueue<ID>()
    var model = SortedModel()
    var live: [(id: Int, entry: TimerQueue<ID>.Entry)] = []
    var nextID = 0
    for operation in operations {
        switch operation {
        case .insert(let deadline):
            let entry = queue.insert(ID(nextID), deadline: deadline, hardDeadline: deadline + 1)
            live.append((nextID, entry))
            model.insert(id: nextID, deadline: deadline)
            nextID += 1
        case .remove(let index):
            queue.remove(live[index].entry)
            model.remove(id: live[index].id)
            live.remove(at: index)
        case .reschedule(let index, let deadline):
            queue.reschedule(live[index].entry, deadline: deadline, hardDeadline: deadline)
            model.remove(id: live[index].id)
            model.insert(id: live[index].id, deadline: deadline)
        }
        if let broken = queue.checkInvariants() { return "invariant: \(broken)" }
        if queue.count != model.items.count { return "count \(queue.count), model \(model.items.count)" }
        if queue.first?.payload.value != model.items.first?.id {
            return
                "first \(String(describing: queue.first?.payload.value)), model \(String(describing: model.items.first?.id))"
        }
        let ordered = queue.due(atOrBefore: .max).map(\.payload.value)
        if ordered != model.items.map(\.id) { return "order \(ordered), model \(model.items.map(\.id))" }
        for limit: UInt64 in 0...3 {
            let due = queue.due(atOrBefore: limit).map(\.payload.value)
            let expected = model.items.filter { $0.deadline <= limit }.map(\.id)
            if due != expected { return "due(<= \(limit)) \(due), model \(expected)" }
        }
    }
    return nil
}

/// Replays every sequence of up to `depth` operations, each step offering `choices(liveCount)` (an operation and the
/// live count after it), stopping a branch at its first failure; returns the first failures (up to 5) and how many
/// sequences passed.
private func exploreExhaustively<Operation>(
    depth: Int, replay: ([Operation]) -> String?,
    choices: (Int) -> [(Operation, Int)]
) -> (failures: [String], checked: Int) {
    var failures: [String] = []
    var checked = 0
    func explore(_ operations: [Operation], liveCount: Int, depth: Int) {
        if let failure = replay(operations) {
            failures.append("\(operations): \(failure)")
            return
        }
        checked += 1
        guard depth > 0, failures.count < 5 else { return }
        for (operation, live) in choices(liveCount) {
            explore(operations + [operation], liveCount: live, depth: depth - 1)
        }
    }
    explore([], liveCount: 0, depth: depth)
    return (failures, checked)
}

@Test func timerQueueMatchesSortedArrayExhaustively() {
    let deadlines: [UInt64] = [0, 1, 2]
    let (failures, checked) = exploreExhaustively(depth: 5, replay: replay) { (live: Int) -> [(QueueOperation, Int)] in
        var choices = deadlines.map { (QueueOperation.insert(deadline: $0), live + 1) }
        for index in 0..<live {
            choices.append((.remove(live: index), live - 1))
            choices += deadlines.map { (.reschedule(live: index, deadline: $0), live) }
        }
        return choices
    }
    #expect(failures.isEmpty, "failing inputs:\n\(failures.joined(separator: "\n"))")
    #expect(checked > 10_000)
}

@Test func timerQueueRemovingAnEntryTwiceIsHarmless() {
    var queue = TimerQueue<ID>()
    let entry = queue.insert(ID(1), deadline: 5, hardDeadline: 5)
    queue.remove(entry)
    queue.remove(entry)
    #expect(queue.isEmpty)
    #expect(!entry.isQueued)
}

@Test func timerQueueTakesBackARemovedNodeWithEveryFieldNew() {
    var queue = TimerQueue<ID>()
    let node = ID(1)
    queue.insert(node, deadline: 8, hardDeadline: 20)
    queue.insert(ID(2), deadline: 10, hardDeadline: 10)
    queue.suspend(node)
    queue.remove(node)
    #expect(!node.isQueued)
    // Inserted again (as the loop does when a timer rejoins a mode): a new entry, armable, in a new place.
    queue.insert(node, deadline: 9, hardDeadline: 9)
    #expect(node.deadline == 9 && node.hardDeadline == 9 && node.isArmable)
    #expect(queue.first === node)
    #expect(queue.earliestCap == 9)
    #expect(queue.checkInvariants() == nil)
}

@Test func timerQueueRemoveAllLeavesEveryNodeOutOfAnyQueue() {
    var queue = TimerQueue<ID>()
    let nodes = (0..<40).map { ID($0) }
    // Into the run, the exact heap and the tolerant heap, one suspended.
    for node in nodes {
        let deadline = UInt64(node.value % 3 == 0 ? 100 - node.value : node.value)
        queue.insert(node, deadline: deadline, hardDeadline: deadline + (node.value % 5 == 0 ? 7 : 0))
    }
    queue.suspend(nodes[5])
    let removed = queue.removeAll()
    #expect(Set(removed.map(\.value)) == Set(0..<40))
    #expect(queue.isEmpty && queue.checkInvariants() == nil)
    #expect(nodes.allSatisfy { !$0.isQueued && !$0.isArmable })
    var other = TimerQueue<ID>()
    for node in nodes { other.insert(node, deadline: 1, hardDeadline: 1) }
    #expect(other.count == 40 && other.checkInvariants() == nil)
}

/// One operation on the queue's windows and suspensions. Indices refer to the live entries in insertion order.
private enum WindowOperation: CustomStringConvertible {
    case insert(deadline: UInt64, window: UInt64)
    case remove(live: Int)
    case reschedule(live: Int, deadline: UInt64, window: UInt64)
    case setWindow(live: Int, window: UInt64)
    case suspend(live: Int)
    case resume(live: Int)

    var description: String {
        switch self {
        case .insert(let deadline, let window): return "insert(\(deadline), window \(window))"
        case .remove(let live): return "remove(#\(live))"
        case .reschedule(let live, let deadline, let window):
            return "reschedule(#\(live), \(deadline), window \(window))"
        case .setWindow(let live, let window): return "setWindow(#\(live), \(window))"
        case .suspend(let live): return "suspend(#\(live))"
        case .resume(let live): return "resume(#\(live))"
        }
    }
}

/// A live entry of the window model: CF's sorted array plus each timer's window and whether it is firing.
private struct WindowModelEntry {
    let id: Int
    var deadline: UInt64
    var window: UInt64
    var suspended = false
    let entry: TimerQueue<ID>.Entry

    /// The latest wake-up that fires it on time.
    var cap: UInt64 {
        let hard = deadline + window
        return hard - TimerCoalescing.margin(TimerCoalescing.Window(soft: deadline, hard: hard))
    }
}

/// Replays `operations` on a queue and a model of it; returns a description of the first difference, or nil. The
/// model's wake-up time is the earliest cap of the entries not suspended; its order is CF's (a rescheduled entry goes
/// after the entries with its new deadline, a window change keeps its place).
private func replayWindows(_ operations: [WindowOperation]) -> String? {
    var queue = TimerQueue<ID>()
    var model: [WindowModelEntry] = []  // in (deadline, sequence) order
    var live: [Int] = []  // ids in insertion order
    var nextID = 0
    func position(_ id: Int) -> Int { model.firstIndex { $0.id == id }! }
    func insertSorted(_ item: WindowModelEntry) {
        model.insert(item, at: model.firstIndex { $0.deadline > item.deadline } ?? model.count)
    }
    for operation in operations {
        switch operation {
        case .insert(let deadline, let window):
            let entry = queue.insert(ID(nextID), deadline: deadline, hardDeadline: deadline + window)
            insertSorted(WindowModelEntry(id: nextID, deadline: deadline, window: window, entry: entry))
            live.append(nextID)
            nextID += 1
        case .remove(let index):
            let at = position(live[index])
            queue.remove(model[at].entry)
            model.remove(at: at)
            live.remove(at: index)
        case .reschedule(let index, let deadline, let window):
            var item = model.remove(at: position(live[index]))
            queue.reschedule(item.entry, deadline: deadline, hardDeadline: deadline + window)
            item.deadline = deadline
            item.window = window
            insertSorted(item)
        case .setWindow(let index, let window):
            let at = position(live[index])
            queue.setHardDeadline(model[at].entry, model[at].deadline + window)
            model[at].window = window
        case .suspend(let index):
            let at = position(live[index])
            queue.suspend(model[at].entry)
            model[at].suspended = true
        case .resume(let index):
            let at = position(live[index])
            queue.resume(model[at].entry)
            model[at].suspended = false
        }
        if let broken = queue.checkInvariants() { return "invariant: \(broken)" }
        if queue.count != model.count { return "count \(queue.count), model \(model.count)" }
        if queue.first?.payload.value != model.first?.id {
            return
                "first \(String(describing: queue.first?.payload.value)), model \(String(describing: model.first?.id))"
        }
        let expectedCap = model.filter { !$0.suspended }.map(\.cap).min()
        if queue.earliestCap != expectedCap {
            return "earliest cap \(String(describing: queue.earliestCap)), model \(String(describing: expectedCap))"
        }
        for item in model where item.entry.isArmable == item.suspended {
            return "entry #\(item.id) armable: \(item.entry.isArmable), model suspended: \(item.suspended)"
        }
        let ordered = queue.due(atOrBefore: .max).map(\.payload.value)
        if ordered != model.map(\.id) { return "order \(ordered), model \(model.map(\.id))" }
        let due = queue.due(atOrBefore: 0).map(\.payload.value)
        if due != model.filter({ $0.deadline == 0 }).map(\.id) { return "due(<= 0) \(due)" }
        if Set(queue.unorderedEntries.map(\.payload.value)) != Set(model.map(\.id)) {
            return "entries differ from the model's"
        }
    }
    // Removing every entry leaves nothing behind.
    for item in model { queue.remove(item.entry) }
    if !queue.isEmpty || queue.earliestCap != nil { return "not empty after removing every entry" }
    return nil
}

@Test func timerQueueMatchesTheModelOnLongRunsOfOrderedInserts() {
    // Long sequences the exhaustive tests never reach: hundreds of entries, mostly inserted in deadline order (so the
    // sorted run holds them), removed oldest first, newest first and from the middle (so the run's holes are dropped
    // and squeezed out), with inserts out of order, reschedules, windows and suspensions among them; checked after
    // every operation against the windows model. SplitMix64 with fixed seeds: the same runs every time.
    for seed: UInt64 in [1, 2, 3] {
        var random = SplitMix64(seed: seed)
        var operations: [WindowOperation] = []
        var live = 0
        var clock: UInt64 = 100
        for step in 0..<1_500 {
            let roll = random.next() % 100
            let growing = step % 500 < 250
            if live == 0 || (growing && roll < 75) || (!growing && roll < 20) {
                clock += random.next() % 3
                let deadline = roll % 10 == 0 ? clock - random.next() % 50 : clock
                operations.append(.insert(deadline: deadline, window: roll % 9 == 0 ? 20 : 0))
                live += 1
            } else if roll < 85 {
                let index =
                    switch roll % 3 {
                    case 0: Int(random.next() % UInt64(live))
                    case 1: 0
                    default: live - 1
                    }
                operations.append(.remove(live: index))
                live -= 1
            } else if roll < 91 {
                let deadline = clock + random.next() % 4
                operations.append(.reschedule(live: Int(random.next() % UInt64(live)), deadline: deadline, window: 0))
            } else if roll < 96 {
                operations.append(.suspend(live: Int(random.next() % UInt64(live))))
            } else {
                operations.append(.resume(live: Int(random.next() % UInt64(live))))
            }
        }
        if let failure = replayWindows(operations) { Issue.record("seed \(seed): \(failure)") }
    }
}

/// Windows (empty, which puts an entry in the heap without tolerance, or 20 ns, whose cap is 18 ns after the deadline)
/// and suspensions, against the model, over every sequence of up to 4 operations.
@Test func timerQueueWakeUpTimeMatchesTheModelExhaustively() {
    let deadlines: [UInt64] = [0, 1]
    let windows: [UInt64] = [0, 20]
    let (failures, checked) = exploreExhaustively(depth: 4, replay: replayWindows) {
        (live: Int) -> [(WindowOperation, Int)] in
        var choices: [(WindowOperation, Int)] = []
        for deadline in deadlines {
            choices += windows.map { (.insert(deadline: deadline, window: $0), live + 1) }
        }
        for index in 0..<live {
            choices += [(.remove(live: index), live - 1), (.suspend(live: index), live), (.resume(live: index), live)]
            for window in windows {
                choices.append((.setWindow(live: index, window: window), live))
                choices += deadlines.map { (.reschedule(live: index, deadline: $0, window: window), live) }
            }
        }
        return choices
    }
    #expect(failures.isEmpty, "failing inputs:\n\(failures.joined(separator: "\n"))")
    #expect(checked > 10_000)
}

/// A heap of many entries with several suspended near its root: the wake-up time is the earliest armable cap.
@Test func timerQueueFindsTheEarliestArmableEntryPastSuspendedOnes() {
    var queue = TimerQueue<ID>()
    var entries: [TimerQueue<ID>.Entry] = []
    var rng = SplitMix64(seed: 7)
    for id in 0..<500 {
        let deadline = rng.next() % 1_000
        entries.append(queue.insert(ID(id), deadline: deadline, hardDeadline: deadline))
    }
    let byDeadline = entries.sorted { ($0.deadline, $0.payload.value) < ($1.deadline, $1.payload.value) }
    for suspendedCount in 0..<20 {
        if suspendedCount > 0 { queue.suspend(byDeadline[suspendedCount - 1]) }
        #expect(queue.earliestCap == byDeadline[suspendedCount].deadline)
        #expect(queue.checkInvariants() == nil)
    }
}
