// The treap that orders the observer store's groups, on its own: distinct orders, as the store uses it, and its nodes
// held by nothing but the tree (the test keeps them unretained, as the store's groups do), so a relink that drops a
// node's last link is a crash here (a use after free under AddressSanitizer), not a silent pass.

import Testing

@testable import RefRunLoop

@Test func orderTreapWithDistinctOrdersMatchesModel() {
    var random = SplitMix64(seed: 7)
    var treap = OrderTreap<Int>()
    var live: [Int: Unmanaged<OrderTreap<Int>.Node>] = [:]
    for step in 0..<20_000 {
        let order = Int(random.next() % 500)
        if let handle = live[order] {
            let node = handle.takeUnretainedValue()
            #expect(treap.node(withOrder: order) === node, "step \(step): search for \(order)")
            treap.remove(node)
            live[order] = nil
            #expect(treap.node(withOrder: order) == nil, "step \(step): \(order) still found")
        } else {
            live[order] = Unmanaged.passUnretained(treap.insert(order, order: order))
        }
        if step % 97 == 0 {
            if let broken = treap.checkInvariants() {
                Issue.record("step \(step): \(broken)")
                return
            }
            #expect(treap.elementsInOrder() == live.keys.sorted(), "step \(step)")
        }
    }
}
