// The timer queue's invariant check (TimerQueue.checkInvariants) finds a queue broken on purpose. Every other test
// checks valid queues, where a check that looks at too little still answers nil. A queue is broken without touching
// its storage: a node's place (which only the queue sets) is replaced by one taken from a node of another queue, a
// place that is valid there and wrong here in exactly one way.

import Testing

@testable import RefRunLoop

/// A queue node, identified by number.
private typealias Node = NumberedQueueNode

/// Inserts nodes with (deadline, hard deadline) in order and returns them.
private func filled(_ queue: inout TimerQueue<Node>, _ deadlines: [(UInt64, UInt64)]) -> [Node] {
    deadlines.enumerated().map { number, deadlines in
        let node = Node(number)
        queue.insert(node, deadline: deadlines.0, hardDeadline: deadlines.1)
        return node
    }
}

@Test func timerQueueCheckFindsACapEntryThatPrecedesItsParent() {
    // Caps (hard deadline less the margin, Coalescing.swift): [10, 1000] has cap 901, [20, 120] cap 110, [10, 110]
    // cap 100, [20, 60] cap 56. The broken queue: tolerant heap [P, Q] by deadline, cap heap [Q, P] by cap.
    var queue = TimerQueue<Node>()
    let nodes = filled(&queue, [(10, 1000), (20, 120)])
    #expect(queue.checkInvariants() == nil)
    // The donor's R is its tolerant root and second in its cap heap, as P is, but with the cap 100: below Q's 110.
    var donor = TimerQueue<Node>()
    let donors = filled(&donor, [(10, 110), (20, 60)])
    #expect(donor.checkInvariants() == nil)
    nodes[0].queuePlace = donors[0].queuePlace
    #expect(queue.checkInvariants() == "cap entry at 1 precedes its parent")
}

@Test func timerQueueCheckFindsAnExactEntryThatPrecedesItsParent() {
    // Without tolerance, in order, a timer joins the sorted run; out of order, the exact heap. Each queue: a run of
    // one entry (deadline 30), then an exact heap of two (root first, then its child).
    var queue = TimerQueue<Node>()
    let nodes = filled(&queue, [(30, 30), (10, 10), (15, 15)])
    #expect(queue.checkInvariants() == nil)
    // The donor's second heap entry is at index 1, as the queue's is, with the deadline 5: before the root's 10.
    var donor = TimerQueue<Node>()
    let donors = filled(&donor, [(30, 30), (3, 3), (5, 5)])
    #expect(donor.checkInvariants() == nil)
    nodes[2].queuePlace = donors[2].queuePlace
    #expect(queue.checkInvariants() == "exact entry at 1 precedes its parent")
}

@Test func timerQueueCheckFindsATolerantEntryThatPrecedesItsParent() {
    // The tolerant heap [A, B] by deadline; the donor's second entry is at index 1 of both its heaps, as B is (its
    // cap is the later one), but its deadline 5 is before A's 10.
    var queue = TimerQueue<Node>()
    let nodes = filled(&queue, [(10, 110), (20, 220)])
    #expect(queue.checkInvariants() == nil)
    var donor = TimerQueue<Node>()
    let donors = filled(&donor, [(3, 103), (5, 205)])
    #expect(donor.checkInvariants() == nil)
    nodes[1].queuePlace = donors[1].queuePlace
    #expect(queue.checkInvariants() == "tolerant entry at 1 precedes its parent")
}
