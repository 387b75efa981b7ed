// The timer-queue node of the queue's own tests (the queue's entries are their payloads' own objects,
// TimerQueue.swift), identified by number.

@testable import RefRunLoop

/// A timer-queue node that is its own payload, with a number for the tests to name it by.
final class NumberedQueueNode: TimerQueueNode {
    let value: Int
    var queuePlace = TimerQueuePlace()
    var payload: NumberedQueueNode { self }
    init(_ value: Int) { self.value = value }
}
