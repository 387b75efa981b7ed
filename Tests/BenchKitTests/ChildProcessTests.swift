// Child processes with a deadline: how each end is told apart. The limits are far from the children's own times
// (a child that sleeps 30 s against a limit of a fraction of a second), so the outcome does not depend on the
// machine's speed.
import Foundation
import Testing

@testable import BenchKit

@Suite struct ChildProcessTests {
    static func output() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("bench-child-\(UUID())").path
    }

    @Test func exitStatusAndOutput() throws {
        let file = Self.output()
        #expect(
            try ChildProcess.run(
                "/bin/sh", ["-c", "echo out; echo err >&2; exit 3"], output: file,
                limit: 60) == .exited(3))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "out\nerr\n")
        #expect(ChildProcess.output("/bin/sh", ["-c", "printf %s \"$X\""], environment: ["X": "given"]) == "given")
        #expect(ChildProcess.output("/bin/sh", ["-c", "exit 1"]) == nil)
    }

    @Test func aSignal() throws {
        #expect(
            try ChildProcess.run("/bin/sh", ["-c", "kill -9 $$"], output: Self.output(), limit: 60)
                == .signalled(9))
    }

    @Test func theLimitEndsTheWholeGroup() throws {
        // The shell's child sleeps too: ending only the shell would leave it behind.
        let pidFile = Self.output()
        #expect(
            try ChildProcess.run(
                "/bin/sh", ["-c", "sleep 30 & echo $! >\(pidFile); wait"], output: Self.output(),
                limit: 2) == .timedOut)
        let pid = try #require(
            Int(
                (try String(contentsOfFile: pidFile, encoding: .utf8))
                    .trimmingCharacters(in: .whitespacesAndNewlines)))
        // Gone, or a zombie its new parent has not reaped yet: not sleeping any more (looked at for up to 10 s).
        var running = true
        for _ in 0..<100 where running {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            running = !stat.isEmpty && !stat.contains(") Z ")
            if running { usleep(100_000) }
        }
        #expect(!running)
    }

    @Test func anInterruptionEndsIt() throws {
        let interruption = Interruption()
        interruption.note(SIGINT)
        #expect(
            try ChildProcess.run(
                "/bin/sh", ["-c", "sleep 30"], output: Self.output(), limit: 60,
                interruption: interruption) == .interrupted)
        #expect(interruption.signal == SIGINT)
    }

    @Test func aProgramThatIsNotThere() {
        #expect(throws: SpawnError.self) {
            try ChildProcess.run("/nonexistent/program", [], output: Self.output(), limit: 1)
        }
    }

    @Test func descriptions() {
        #expect(ChildEnd.exited(134).describe("the harness", limit: 300) == "the harness exited with status 134")
        #expect(
            ChildEnd.timedOut.describe("the harness", limit: 300)
                == "the harness did not finish in 300 s (outer watchdog)")
    }
}
