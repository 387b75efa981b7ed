// The observer store against an array model.

import Testing

@testable import RefRunLoop

@Test func orderedStoreMatchesModelExhaustively() {
    // Every sequence of up to 6 operations: insert with order 0...2, or remove one of the live elements.
    var failures: [String] = []
    func explore(_ operations: [(insert: Int?, remove: Int?)], depth: Int) {
        var store = OrderedStore<Int>()
        var model: [(order: Int, id: Int)] = []
        var live: [(id: Int, handle: OrderedStore<Int>.Handle)] = []
        for (index, operation) in operations.enumerated() {
            if let order = operation.insert {
                live.append((index, store.insert(index, order: order)))
                let position = model.firstIndex { $0.order > order } ?? model.count
                model.insert((order, index), at: position)
            } else if let victim = operation.remove {
                store.remove(live[victim].handle) { moved, handle in relocate(moved, to: handle, in: &live) }
                model.removeAll { $0.id == live[victim].id }
                live.remove(at: victim)
            }
        }
        let description = operations.map { $0.insert.map { "insert(\($0))" } ?? "remove(#\($0.remove!))" }
        if let broken = store.checkInvariants() {
            failures.append("\(description): \(broken)")
            return
        }
        if let wrong = live.first(where: { store.element(at: $0.handle) != $0.id }) {
            failures.append(
                "\(description): the handle of \(wrong.id) finds \(String(describing: store.element(at: wrong.handle)))"
            )
            return
        }
        let elements = store.elementsInOrder()
        if elements != model.map(\.id) {
            failures.append("\(description): \(elements) vs \(model.map(\.id))")
            return
        }
        guard depth > 0, failures.count < 5 else { return }
        for order in 0...2 { explore(operations + [(order, nil)], depth: depth - 1) }
        for victim in live.indices { explore(operations + [(nil, victim)], depth: depth - 1) }
    }
    explore([], depth: 6)
    #expect(failures.isEmpty, "failing inputs:\n\(failures.joined(separator: "\n"))")
}

@Test func orderedStoreMatchesModelOnLongRandomRuns() {
    // Deep trees, which the exhaustive test's six operations never build: 20,000 random inserts (orders 0...7, so
    // equal orders are common) and removals of random live elements, against the array model, checking the tree after
    // every 97 operations. SplitMix64 with fixed seeds: the same runs every time.
    for seed: UInt64 in [1, 2, 3] {
        var random = SplitMix64(seed: seed)
        var store = OrderedStore<Int>()
        var model: [(order: Int, id: Int)] = []
        var live: [(id: Int, handle: OrderedStore<Int>.Handle)] = []
        var relocations = 0
        for step in 0..<20_000 {
            if live.isEmpty || random.next() % 3 != 0 {
                let order = Int(random.next() % 8)
                live.append((step, store.insert(step, order: order)))
                let position = model.firstIndex { $0.order > order } ?? model.count
                model.insert((order, step), at: position)
            } else {
                let victim = Int(random.next() % UInt64(live.count))
                store.remove(live[victim].handle) { moved, handle in
                    relocations += 1
                    relocate(moved, to: handle, in: &live)
                }
                model.removeAll { $0.id == live[victim].id }
                live.remove(at: victim)
            }
            if step % 97 == 0 || step == 19_999 {
                if let broken = store.checkInvariants() {
                    Issue.record("seed \(seed), step \(step): \(broken)")
                    return
                }
                if let wrong = live.first(where: { store.element(at: $0.handle) != $0.id }) {
                    Issue.record("seed \(seed), step \(step): the handle of \(wrong.id) is stale")
                    return
                }
                #expect(store.elementsInOrder() == model.map(\.id), "seed \(seed), step \(step)")
            }
        }
        // Random removals leave holes in the middle: the run must have squeezed them out (and relocated) at least once.
        #expect(relocations > 0, "seed \(seed): no relocation in 20,000 steps")
    }
}

@Test func orderedStoreKeepsHolesBoundedUnderEveryRemovalPattern() {
    // Removals from the front (first in, first out), from the back, and behind one element that stays at the front
    // (every hole in the middle): the group's array never holds more than about twice its elements, and every handle
    // stays right through the relocations.
    for pattern in ["fifo", "lifo", "pinned"] {
        var store = OrderedStore<Int>()
        var live: [(id: Int, handle: OrderedStore<Int>.Handle)] = [(0, store.insert(0, order: 0))]
        for id in 1...5_000 {
            live.append((id, store.insert(id, order: 0)))
            if id % 2 == 0 {
                let victim = pattern == "fifo" ? 0 : pattern == "lifo" ? live.count - 2 : 1
                store.remove(live[victim].handle) { moved, handle in relocate(moved, to: handle, in: &live) }
                live.remove(at: victim)
            }
            if let broken = store.checkInvariants() {
                Issue.record("\(pattern), step \(id): \(broken)")
                return
            }
        }
        #expect(store.elementsInOrder() == live.map(\.id), "\(pattern)")
        #expect(live.allSatisfy { store.element(at: $0.handle) == $0.id }, "\(pattern)")
    }
}

/// Records a relocation the store reported in the tests' list of live handles.
private func relocate(
    _ id: Int, to handle: OrderedStore<Int>.Handle, in live: inout [(id: Int, handle: OrderedStore<Int>.Handle)]
) {
    guard let index = live.firstIndex(where: { $0.id == id }) else {
        Issue.record("the store relocated \(id), which is not stored")
        return
    }
    live[index].handle = handle
}
