// The stable-position array against an array model.

import Testing

@testable import RefRunLoop

@Test func slotArrayMatchesModelOnLongRandomRuns() {
    // Appends and removals (oldest first, newest first, from the middle, at random) over 20,000 steps, with phases
    // that grow and shrink the array, so its holes are dropped at the front and squeezed out of the middle; every
    // position the array gave stays right through the relocations it reports, and the elements stay in order.
    // SplitMix64 with fixed seeds: the same runs every time.
    for seed: UInt64 in [1, 2, 3] {
        var random = SplitMix64(seed: seed)
        var array = SlotArray<Int>()
        var live: [(id: Int, position: Int)] = []  // in insertion order, the model
        var squeezes = 0
        for step in 0..<20_000 {
            let roll = random.next() % 100
            let growing = step % 2_000 < 1_100
            if live.isEmpty || (growing && roll < 60) || (!growing && roll < 35) {
                live.append((step, array.append(step)))
            } else {
                let victim =
                    switch roll % 4 {
                    case 0: 0
                    case 1: live.count - 1
                    case 2: min(1, live.count - 1)
                    default: Int(random.next() % UInt64(live.count))
                    }
                var moved = 0
                array.remove(at: live[victim].position) { id, position in
                    moved += 1
                    guard let index = live.firstIndex(where: { $0.id == id }) else {
                        Issue.record("seed \(seed), step \(step): relocated \(id), which is not stored")
                        return
                    }
                    live[index].position = position
                }
                live.remove(at: victim)
                if moved > 0 { squeezes += 1 }
            }
            if step % 89 == 0 || step == 19_999 {
                if let broken = array.checkInvariants(position: { id in live.first { $0.id == id }?.position }) {
                    Issue.record("seed \(seed), step \(step): \(broken)")
                    return
                }
                #expect(array.elements == live.map(\.id), "seed \(seed), step \(step)")
                #expect(array.count == live.count)
                for item in live where array.element(at: item.position) != item.id {
                    Issue.record("seed \(seed), step \(step): position \(item.position) does not hold \(item.id)")
                    return
                }
            }
        }
        #expect(squeezes > 0, "seed \(seed): the holes in the middle were never squeezed out")
    }
}

@Test func slotArrayDropsFrontHolesWithoutMovingPositions() {
    // First in, first out: the front holes are dropped by moving the base, so no element is ever relocated, and the
    // array never has more than four slots per element (an append grows it only when fewer than half its slots are
    // leading holes).
    var array = SlotArray<Int>()
    var live: [(id: Int, position: Int)] = []
    for id in 0..<10_000 {
        live.append((id, array.append(id)))
        if id >= 100 {
            array.remove(at: live.removeFirst().position) { id, _ in Issue.record("relocated \(id)") }
        }
        #expect(array.capacity <= max(16, 4 * array.count), "\(array.capacity) slots for \(array.count) elements")
    }
    #expect(array.checkInvariants(position: { _ in nil }) == nil)
    #expect(array.elements == live.map(\.id))
    #expect(live.allSatisfy { array.element(at: $0.position) == $0.id })
    while let first = live.first {
        array.remove(at: first.position) { id, _ in Issue.record("relocated \(id)") }
        live.removeFirst()
    }
    #expect(array.isEmpty && array.elements.isEmpty)
    // Emptied, it starts again from its first slot.
    let position = array.append(7)
    #expect(array.element(at: position) == 7 && array.count == 1)
}
