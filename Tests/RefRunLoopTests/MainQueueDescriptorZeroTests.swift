// The main loop in a process without standard input: libdispatch's main-queue eventfd, made when the main loop first
// asks for it, is then descriptor 0 (the lowest free one), which the main loop must take for a descriptor like any
// other (-1 is its "none"). Checked in a child process, the test bundle itself with one XCTest case: XCTest runs its
// cases on the main thread, which is what the main loop needs. The case closes the child's standard input (a daemon
// does so at its start; the child's is /dev/null) before it asks for the main queue's descriptor, so that 0 is the
// lowest free descriptor then (in a process started without standard input, the runtime's own start-up takes 0
// before any test runs). The Swift Testing test below starts the child, with a deadline, and checks that it passed.

import Foundation
import Glibc
import Testing
import XCTest

@testable import RefRunLoop

/// Set in the child's environment only: the XCTest case below does its check when it is set, and nothing otherwise
/// (as in every ordinary run of the bundle).
private let childVariable = "REF_RUNLOOP_TEST_DESCRIPTOR_ZERO_CHILD"
/// The child's exit status when the main queue's descriptor was not 0 (made before standard input was closed).
private let premiseNotMet: Int32 = 75
private let childTest =
    "RefRunLoopTests.MainQueueDescriptorZeroChild/testAMainLoopWhoseQueueIsDescriptorZeroDoesNotSpin"

/// The child's side (main thread, REF_RUNLOOP_SPIN=every: every wait that may spin does).
final class MainQueueDescriptorZeroChild: XCTestCase {
    /// A wait that takes the main queue's descriptor never spins (the spin sees only the gate, so the queue's blocks
    /// would wait for the spin's end): with the descriptor numbered 0 too. The BeforeWaiting observer makes a
    /// wake-up, which a spin would catch (counted in ``RefRunLoop/spinCaughtWakeUpCount``); the wait reports it,
    /// and the next BeforeWaiting stops the run.
    func testAMainLoopWhoseQueueIsDescriptorZeroDoesNotSpin() {
        guard ProcessInfo.processInfo.environment[childVariable] == "1" else { return }
        // What the library's first use makes and keeps (a test or debug build of it may keep a file open) is made
        // before standard input is closed: a loop made and freed here, its own descriptors closed again.
        do { XCTAssertEqual(RefRunLoop().passCount, 0) }
        // No standard input from here: the main queue's eventfd, made now, takes descriptor 0.
        XCTAssertEqual(close(0), 0)
        // The process may have made the main queue's eventfd already (seen under load: a run of the main thread's
        // CoreFoundation loop asks for it): then this child cannot check its case, and says so by its exit status.
        if MainQueue.descriptor != 0 { exit(premiseNotMet) }
        let loop = RefRunLoop.current
        XCTAssertTrue(loop.isMain)
        XCTAssertTrue(RefRunLoop.WaitPolicy.spinsEveryWait)
        let waits = Recorder<Int>()
        let observer = RefRunLoopObserver(activities: .beforeWaiting) { _, _ in
            waits.append(1)
            if waits.count == 1 { loop.wakeUp() } else { loop.stop() }
        }
        loop.add(observer, mode: .default)
        let caught = loop.spinCaughtWakeUpCount
        let result = loop.run(mode: .default, seconds: 10, returnAfterSourceHandled: false)
        loop.remove(observer, mode: .default)
        XCTAssertEqual(result, .stopped)
        XCTAssertEqual(waits.count, 2)
        XCTAssertEqual(loop.spinCaughtWakeUpCount - caught, 0)
    }
}

@Test func aMainLoopWhoseQueueIsDescriptorZeroDoesNotSpin() throws {
    // A child that could not check its case (its main queue's eventfd made early) is started again, five times at
    // most; if none could, nothing is checked, and the test says so on stderr.
    for _ in 0..<5 {
        guard let (status, output) = try runChild() else { return }
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        if exited && code == premiseNotMet { continue }
        // Exited with 0: the XCTest case ran and passed (a failed assertion exits with 1, a crash by a signal)...
        #expect(exited)
        #expect(code == 0)
        // ... and it ran the one case (a filter that matched nothing would exit with 0 too).
        #expect(output.contains("Executed 1 test, with 0 failures"), "\(output)")
        return
    }
    FileHandle.standardError.write(
        Data("aMainLoopWhoseQueueIsDescriptorZeroDoesNotSpin: not checked, no child had descriptor 0 free\n".utf8))
}

/// Runs the child once; its wait status and output, or nil after recording a hang.
private func runChild() throws -> (Int32, String)? {
    let executable =
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    // The child's output (XCTest's report, a few lines: far below a pipe's buffer) into a file read afterwards.
    let outputPath = FileManager.default.temporaryDirectory
        .appendingPathComponent("descriptor-zero-\(getpid())-\(UInt64.random(in: 0 ... .max)).txt").path
    defer { unlink(outputPath) }
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var environment = ProcessInfo.processInfo.environment
    environment[childVariable] = "1"
    environment[RefRunLoop.WaitPolicy.environmentVariable] = "every"
    let arguments = [executable, childTest]
    let environmentStrings = environment.map { "\($0.key)=\($0.value)" }
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environmentStrings.map { strdup($0) } + [nil]
    defer {
        for pointer in argv + envp { free(pointer) }
    }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
    try #require(spawned == 0, "posix_spawn failed: \(spawned)")
    // Every wait has a deadline: the child's run is a few passes, so only a hang reaches it.
    var status: Int32 = 0
    let deadline = TestDeadline()
    while waitpid(pid, &status, WNOHANG) == 0 {
        if deadline.passed {
            kill(pid, SIGKILL)
            _ = waitpid(pid, &status, 0)
            Issue.record("the child did not end within \(Int(testHangLimit)) s")
            return nil
        }
        usleep(1000)
    }
    return (status, (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
}
