// The signalled list's storage keeps its entries in the order they were listed, whichever of its two places (the
// first slot, the array) each entry is in: appends, re-listings at the front, and taking one or all.

import Testing

@testable import RefRunLoop

/// Sources told apart by their order value.
private func sources(_ count: Int) -> [RefRunLoopSource] {
    (0..<count).map { RefRunLoopSource(order: $0, perform: {}) }
}

/// The list's entries, by order value, emptying it.
private func drained(_ list: inout SignalledList) -> [Int] {
    var buffer: [RefRunLoopSource] = []
    list.takeAll(into: &buffer)
    #expect(list.isEmpty)
    return buffer.map(\.order)
}

@Test func appendsKeepTheirOrderAcrossTheFirstSlotAndTheArray() {
    var list = SignalledList()
    #expect(list.isEmpty && !list.hasTwoOrMore)
    let made = sources(4)
    for source in made { list.append(source) }
    #expect(!list.isEmpty && list.hasTwoOrMore)
    #expect(drained(&list) == [0, 1, 2, 3])
    // The array kept its storage; the list works again from empty.
    list.append(made[2])
    #expect(!list.hasTwoOrMore)
    #expect(list.takeOnly()?.order == 2)
    #expect(list.isEmpty && list.takeOnly() == nil)
}

@Test func reListedSourcesGoBeforeTheListedOnesInTheirOwnOrder() {
    let made = sources(6)
    var list = SignalledList()
    list.append(made[4])
    list.append(made[5])
    list.insertAtFront(made[3])
    list.insertAtFront(contentsOf: [made[0], made[1], made[2]])
    #expect(drained(&list) == [0, 1, 2, 3, 4, 5])
    // At the front of an empty list, and of a list of one.
    list.insertAtFront(made[1])
    list.insertAtFront(contentsOf: [])
    #expect(!list.hasTwoOrMore)
    list.insertAtFront(contentsOf: [made[0]])
    #expect(drained(&list) == [0, 1])
    list.insertAtFront(contentsOf: [made[2], made[3]])
    #expect(drained(&list) == [2, 3])
}

@Test func removeAllEmptiesBothPlaces() {
    var list = SignalledList()
    for source in sources(3) { list.append(source) }
    list.removeAll()
    #expect(list.isEmpty && !list.hasTwoOrMore && list.takeOnly() == nil)
}
