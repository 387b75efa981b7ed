// The observer store against an array model.

import Testing
@testable import RefRunLoop

@Test func orderedStoreMatchesModelExhaustively() {
    // Every sequence of up to 6 operations: insert with order 0...2, or remove one of the live nodes.
    var failures: [String] = []
    func explore(_ operations: [(insert: Int?, remove: Int?)], depth: Int) {
        var store = OrderedStore<Int>()
        var model: [(order: Int, id: Int)] = []
        var live: [(id: Int, node: OrderedStore<Int>.Node)] = []
        for (index, operation) in operations.enumerated() {
            if let order = operation.insert {
                live.append((index, store.insert(index, order: order)))
                let position = model.firstIndex { $0.order > order } ?? model.count
                model.insert((order, index), at: position)
            } else if let victim = operation.remove {
                store.remove(live[victim].node)
                model.removeAll { $0.id == live[victim].id }
                live.remove(at: victim)
            }
        }
        let description = operations.map { $0.insert.map { "insert(\($0))" } ?? "remove(#\($0.remove!))" }
        if let broken = store.checkInvariants() { failures.append("\(description): \(broken)"); return }
        let elements = store.elementsInOrder()
        if elements != model.map(\.id) { failures.append("\(description): \(elements) vs \(model.map(\.id))"); return }
        guard depth > 0, failures.count < 5 else { return }
        for order in 0...2 { explore(operations + [(order, nil)], depth: depth - 1) }
        for victim in live.indices { explore(operations + [(nil, victim)], depth: depth - 1) }
    }
    explore([], depth: 6)
    #expect(failures.isEmpty, "failing inputs:\n\(failures.joined(separator: "\n"))")
}

@Test func orderedStoreMatchesModelOnLongRandomRuns() {
    // Deep trees, which the exhaustive test's six operations never build: 20,000 random inserts (orders 0...7, so
    // equal orders are common) and removals of random live nodes, against the array model, checking the tree after
    // every 97 operations. SplitMix64 with fixed seeds: the same runs every time.
    for seed: UInt64 in [1, 2, 3] {
        var random = SplitMix64(seed: seed)
        var store = OrderedStore<Int>()
        var model: [(order: Int, id: Int)] = []
        var live: [(id: Int, node: OrderedStore<Int>.Node)] = []
        for step in 0..<20_000 {
            if live.isEmpty || random.next() % 3 != 0 {
                let order = Int(random.next() % 8)
                live.append((step, store.insert(step, order: order)))
                let position = model.firstIndex { $0.order > order } ?? model.count
                model.insert((order, step), at: position)
            } else {
                let victim = Int(random.next() % UInt64(live.count))
                store.remove(live[victim].node)
                model.removeAll { $0.id == live[victim].id }
                live.remove(at: victim)
            }
            if step % 97 == 0 || step == 19_999 {
                if let broken = store.checkInvariants() {
                    Issue.record("seed \(seed), step \(step): \(broken)")
                    return
                }
                #expect(store.elementsInOrder() == model.map(\.id), "seed \(seed), step \(step)")
            }
        }
    }
}
