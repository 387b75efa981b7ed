// The timer queue against a sorted-array model, exhaustively over short operation sequences.

import Testing
@testable import RefRunLoop

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
    var queue = TimerQueue<Int>()
    var model = SortedModel()
    var live: [(id: Int, entry: TimerQueue<Int>.Entry)] = []
    var nextID = 0
    for operation in operations {
        switch operation {
        case .insert(let deadline):
            let entry = queue.insert(nextID, deadline: deadline, hardDeadline: deadline + 1)
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
        if queue.first?.payload != model.items.first?.id { return "first \(String(describing: queue.first?.payload)), model \(String(describing: model.items.first?.id))" }
        let ordered = queue.due(atOrBefore: .max).map(\.payload)
        if ordered != model.items.map(\.id) { return "order \(ordered), model \(model.items.map(\.id))" }
        for limit: UInt64 in 0...3 {
            let due = queue.due(atOrBefore: limit).map(\.payload)
            let expected = model.items.filter { $0.deadline <= limit }.map(\.id)
            if due != expected { return "due(<= \(limit)) \(due), model \(expected)" }
        }
    }
    return nil
}

@Test func timerQueueMatchesSortedArrayExhaustively() {
    let deadlines: [UInt64] = [0, 1, 2]
    var failures: [String] = []
    var checked = 0
    func explore(_ operations: [QueueOperation], liveCount: Int, depth: Int) {
        if let failure = replay(operations) {
            failures.append("\(operations): \(failure)")
            return
        }
        checked += 1
        guard depth > 0, failures.count < 5 else { return }
        for deadline in deadlines {
            explore(operations + [.insert(deadline: deadline)], liveCount: liveCount + 1, depth: depth - 1)
        }
        for index in 0..<liveCount {
            explore(operations + [.remove(live: index)], liveCount: liveCount - 1, depth: depth - 1)
            for deadline in deadlines {
                explore(operations + [.reschedule(live: index, deadline: deadline)], liveCount: liveCount, depth: depth - 1)
            }
        }
    }
    explore([], liveCount: 0, depth: 5)
    #expect(failures.isEmpty, "failing inputs:\n\(failures.joined(separator: "\n"))")
    #expect(checked > 10_000)
}

@Test func timerQueueRemovingAnEntryTwiceIsHarmless() {
    var queue = TimerQueue<Int>()
    let entry = queue.insert(1, deadline: 5, hardDeadline: 5)
    queue.remove(entry)
    queue.remove(entry)
    #expect(queue.isEmpty)
    #expect(!entry.isQueued)
}
