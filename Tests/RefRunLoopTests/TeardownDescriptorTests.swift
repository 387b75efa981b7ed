// A loop closes each mode's epoll set and timerfd exactly once: at its teardown (thread exit), or, for a loop that was
// never torn down, when its last reference goes; never both. No spec case can see it (a case never looks at a loop
// whose thread and last reference are gone), and a count of open descriptors would race the tests running beside
// this one in the same process. So each descriptor is recognised by what only this test put in it: the epoll set
// watches one of the test's pipes (its fdinfo lists the pipe's inode), the timerfd is given an interval nothing else
// uses (its fdinfo shows it); the test keeps a duplicate of each so that the open file outlives the loop's descriptor
// and can still be marked. A descriptor number is "still the loop's" while its fdinfo shows the mark.

import CRunLoopSystem
import Foundation
import Testing

@testable import RefRunLoop

#if canImport(Glibc)
import Glibc
#endif

/// The fdinfo text of one of this process's descriptors, nil when it is not open.
private func fdinfo(_ fd: Int32) -> String? {
    try? String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8)
}

/// timerfd_settime(2), which the Glibc module does not import (CRunLoopSystem wraps only the absolute one-shot arming
/// the loop makes): looked up in the C library.
private let timerfdSetTime:
    @convention(c) (
        Int32, Int32, UnsafePointer<itimerspec>, UnsafeMutablePointer<itimerspec>?
    ) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "timerfd_settime") else {
            fatalError("timerfd_settime is not in the C library")
        }
        return unsafeBitCast(
            symbol,
            to: (@convention(c) (
                Int32, Int32, UnsafePointer<itimerspec>, UnsafeMutablePointer<itimerspec>?
            ) -> Int32).self)
    }()

/// The inode number of an open descriptor.
private func inode(_ fd: Int32) -> UInt64? {
    var info = stat()
    guard fstat(fd, &info) == 0 else { return nil }
    return UInt64(info.st_ino)
}

/// One mode set's two descriptors, marked: `epollFD` watches `pipe`'s read end, `timerFD` has the interval
/// `interval` (seconds, nanoseconds). The duplicates keep each open file alive after the loop closes its number.
private struct MarkedModeSet {
    let epollFD: Int32
    let timerFD: Int32
    let epollDuplicate: Int32
    let timerDuplicate: Int32
    let pipeInode: UInt64
    let interval: (seconds: Int, nanoseconds: Int)

    /// Marks `set`'s descriptors (through duplicates) with `pipeReadEnd` and a fresh interval.
    init(_ set: WaitSet.ModeSet, pipeReadEnd: Int32) throws {
        epollFD = set.epollFD
        timerFD = set.timerFD
        epollDuplicate = dup(epollFD)
        timerDuplicate = dup(timerFD)
        guard epollDuplicate >= 0, timerDuplicate >= 0, let pipeInode = inode(pipeReadEnd) else {
            throw MarkError("dup or fstat failed: errno \(errno)")
        }
        self.pipeInode = pipeInode
        guard csystem_epoll_add(epollDuplicate, pipeReadEnd, .max - 1, 1) == 0 else {
            throw MarkError("epoll_ctl failed: errno \(errno)")
        }
        // An interval of over 11 days with random nanoseconds: the loop arms one-shot times only, so no other
        // timerfd in the process has it. The first expiry is an hour away and nothing reads the timer.
        interval = (1_000_000 + Int.random(in: 0..<1_000_000), Int.random(in: 1..<1_000_000_000))
        var setting = itimerspec()
        setting.it_interval = timespec(tv_sec: interval.seconds, tv_nsec: interval.nanoseconds)
        setting.it_value = timespec(tv_sec: 3600, tv_nsec: 0)
        guard timerfdSetTime(timerDuplicate, 0, &setting, nil) == 0 else {
            throw MarkError("timerfd_settime failed: errno \(errno)")
        }
    }

    /// Whether descriptor `epollFD` is still the loop's epoll set: it watches the marked pipe.
    var epollIsOpen: Bool {
        guard let text = fdinfo(epollFD) else { return false }
        let mark = "ino:\(String(pipeInode, radix: 16)) "
        return text.split(separator: "\n").contains { $0.hasPrefix("tfd:") && $0.contains(mark) }
    }

    /// Whether descriptor `timerFD` is still the loop's timerfd: it has the marked interval.
    var timerIsOpen: Bool {
        fdinfo(timerFD)?.contains("it_interval: (\(interval.seconds), \(interval.nanoseconds))") == true
    }

    func closeDuplicates() {
        close(epollDuplicate)
        close(timerDuplicate)
    }
}

private struct MarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A loop that is not any thread's (so only the test holds it), with a second mode, and its mode sets marked with
/// `pipeReadEnd`.
private func markedLoop(pipeReadEnd: Int32) throws -> (loop: RefRunLoop?, marked: [MarkedModeSet]) {
    let loop = RefRunLoop()
    loop.stop(mode: "teardown.other")
    let sets = loop.lock.withLock { loop.modes.values.map(\.waitSet) }
    let marked = try sets.map { try MarkedModeSet($0, pipeReadEnd: pipeReadEnd) }
    return (loop, marked)
}

private func makePipe() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { throw MarkError("pipe failed: errno \(errno)") }
    return (ends[0], ends[1])
}

@Test func aLoopNeverTornDownClosesEachModesDescriptorsWhenItsLastReferenceGoes() throws {
    let pipe = try makePipe()
    defer {
        close(pipe.read)
        close(pipe.write)
    }
    var loop: RefRunLoop?
    let marked: [MarkedModeSet]
    (loop, marked) = try markedLoop(pipeReadEnd: pipe.read)
    defer { marked.forEach { $0.closeDuplicates() } }
    #expect(marked.count == 2)
    // The marks are seen while the loop holds its descriptors, so their absence below means something.
    #expect(marked.allSatisfy { $0.epollIsOpen && $0.timerIsOpen })
    weak let released = loop
    loop = nil
    #expect(released == nil, "the loop is still referenced: its deinit has not run")
    for set in marked {
        #expect(!set.epollIsOpen, "epoll set \(set.epollFD) left open")
        #expect(!set.timerIsOpen, "timerfd \(set.timerFD) left open")
    }
}

/// Tears a marked loop down, then holds the descriptor numbers the teardown freed (with duplicates of the test's
/// pipe) while the loop's last reference goes. Returns nil when another test took one of those numbers first (the
/// check cannot be made this time), else the numbers the loop's deinit closed again: none, if it closes once.
private func numbersClosedAgainAfterTeardown(pipe: (read: Int32, write: Int32)) throws -> [Int32]? {
    var loop: RefRunLoop?
    let marked: [MarkedModeSet]
    (loop, marked) = try markedLoop(pipeReadEnd: pipe.read)
    defer { marked.forEach { $0.closeDuplicates() } }
    #expect(marked.allSatisfy { $0.epollIsOpen && $0.timerIsOpen })
    loop?.tearDown()
    for set in marked {
        #expect(!set.epollIsOpen, "teardown left epoll set \(set.epollFD) open")
        #expect(!set.timerIsOpen, "teardown left timerfd \(set.timerFD) open")
    }
    guard let pipeInode = inode(pipe.read) else { throw MarkError("fstat failed: errno \(errno)") }
    var held: [Int32] = []
    defer {
        // Only the numbers that are still the test's: under a loop that closes them twice, another test may hold
        // one by now.
        for fd in held where inode(fd) == pipeInode { close(fd) }
    }
    // F_DUPFD gives the lowest free number at or above the one asked for: that one, unless another thread took it.
    for number in marked.flatMap({ [$0.epollFD, $0.timerFD] }).sorted() {
        let fd = fcntl(pipe.read, F_DUPFD, number)
        guard fd >= 0 else { throw MarkError("F_DUPFD failed: errno \(errno)") }
        held.append(fd)
        guard fd == number else { return nil }
    }
    weak let released = loop
    loop = nil
    #expect(released == nil, "the loop is still referenced: its deinit has not run")
    return held.filter { inode($0) != pipeInode }
}

@Test func aTornDownLoopDoesNotCloseItsModesDescriptorsAgainWhenItsLastReferenceGoes() throws {
    let pipe = try makePipe()
    defer {
        close(pipe.read)
        close(pipe.write)
    }
    // Another test taking a freed number between the teardown and the F_DUPFD is rare; a few attempts make a
    // check all but certain, and a test that never got to check fails rather than passes.
    var checked = false
    for _ in 0..<20 {
        guard let closedAgain = try numbersClosedAgainAfterTeardown(pipe: pipe) else { continue }
        #expect(closedAgain.isEmpty, "descriptors \(closedAgain) were closed a second time by the loop's deinit")
        checked = true
        break
    }
    #expect(checked, "another test took a descriptor number freed by the teardown in every attempt")
}
