// One conformance worker process as its runner sees it: started with posix_spawn, fed case ids on its standard input,
// read on its message pipe with a deadline, ended with SIGKILL, and reaped. The system calls of process isolation
// live here; IsolatedRunner.swift holds what they mean.

import CRunLoopSystem
import Foundation
import Synchronization

/// How to start a worker: an executable, the arguments that select its worker mode, and environment additions.
public struct WorkerLauncher: Sendable {
    public var executable: String
    /// Arguments before the worker protocol's own (`["worker"]` for `runloop worker`).
    public var leadingArguments: [String]
    /// Added to this process's environment for the worker (the tests choose the faults of their faulty engine so).
    public var environment: [String: String]

    public init(executable: String, leadingArguments: [String] = [], environment: [String: String] = [:]) {
        self.executable = executable
        self.leadingArguments = leadingArguments
        self.environment = environment
    }

    /// This very executable, with `leadingArguments` (e.g. the `runloop` binary and `["worker"]`).
    public static func currentExecutable(leadingArguments: [String]) -> WorkerLauncher {
        let path =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return WorkerLauncher(executable: path, leadingArguments: leadingArguments)
    }
}

/// Why a worker could not be started or asked.
public struct WorkerError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(description: String) {
        self.description = description
    }
}

/// A running worker. Used by one thread at a time (its ``WorkerSession``'s lock says which).
package final class WorkerProcess {
    /// What reading the message pipe gave.
    enum Event {
        case message(WorkerMessage)
        /// The worker closed its end: it exited, or is about to.
        case closed
        case timedOut
        /// A line that is not a message.
        case garbled(String)
    }

    let pid: pid_t
    private let input: Int32
    private let messages: Int32
    /// The worker's standard output and error: a file with no name left (unlinked once the worker had it), so that
    /// nothing stays behind in the temporary directory whatever happens to either process.
    private let stderrDescriptor: Int32
    private var buffer = Data()
    private var reaped: Int32?

    private init(pid: pid_t, input: Int32, messages: Int32, stderrDescriptor: Int32) {
        self.pid = pid
        self.input = input
        self.messages = messages
        self.stderrDescriptor = stderrDescriptor
    }

    deinit {
        terminate()
        finishInput()
        close(messages)
        close(stderrDescriptor)
    }

    // MARK: Starting

    /// Numbers the workers' stderr files of this process.
    private static let counter = Atomic<Int>(0)

    /// Starts `launcher` with `arguments`: standard input from a pipe this object writes, file descriptor 3 to a pipe
    /// it reads, standard output and standard error to a file (kept to quote after a crash).
    static func spawn(_ launcher: WorkerLauncher, arguments: WorkerArguments) throws -> WorkerProcess {
        // A write to a worker that has just died must fail with EPIPE, not end this process.
        signal(SIGPIPE, SIG_IGN)
        let number = counter.wrappingAdd(1, ordering: .relaxed).newValue
        let stderrPath = NSTemporaryDirectory() + "runloop-worker-\(getpid())-\(number).stderr"
        let stderrDescriptor = open(stderrPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard stderrDescriptor >= 0 else {
            throw WorkerError(description: "cannot create \(stderrPath): \(String(cString: strerror(errno)))")
        }
        // The worker gets the file as its descriptor 2 during the spawn; after that the name is not needed.
        defer { unlink(stderrPath) }

        var inputPipe: [Int32] = [-1, -1]
        var messagePipe: [Int32] = [-1, -1]
        // O_CLOEXEC: the parent's ends must not leak into other workers started meanwhile by other threads.
        guard csystem_pipe_cloexec(&inputPipe) == 0 else {
            close(stderrDescriptor)
            throw WorkerError(description: "pipe failed: errno \(errno)")
        }
        guard csystem_pipe_cloexec(&messagePipe) == 0 else {
            close(inputPipe[0])
            close(inputPipe[1])
            close(stderrDescriptor)
            throw WorkerError(description: "pipe failed: errno \(errno)")
        }
        // The child's ends go to descriptors 0, 2 and 3 by dup2, one after another: a source that already is one of
        // those numbers (the stderr file is often 3) would be overwritten before it is copied. Above 10 none is.
        inputPipe[0] = movedAbove10(inputPipe[0])
        messagePipe[1] = movedAbove10(messagePipe[1])
        let childStderr = movedAbove10(stderrDescriptor, keepingOriginal: true)
        defer { close(childStderr) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputPipe[0], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, messagePipe[1], WorkerArguments.messageDescriptor)
        posix_spawn_file_actions_adddup2(&actions, childStderr, STDERR_FILENO)
        posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO)

        let argv = [launcher.executable] + launcher.leadingArguments + arguments.arguments
        var environment = ProcessInfo.processInfo.environment
        environment.merge(launcher.environment) { _, added in added }
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var pid = pid_t()
        let spawned = withCStrings(argv) { cArgv in
            withCStrings(envp) { cEnvp in posix_spawn(&pid, launcher.executable, &actions, nil, cArgv, cEnvp) }
        }
        close(inputPipe[0])
        close(messagePipe[1])
        guard spawned == 0 else {
            close(inputPipe[1])
            close(messagePipe[0])
            close(stderrDescriptor)
            throw WorkerError(description: "cannot start \(launcher.executable): \(String(cString: strerror(spawned)))")
        }
        return WorkerProcess(
            pid: pid, input: inputPipe[1], messages: messagePipe[0],
            stderrDescriptor: stderrDescriptor)
    }

    // MARK: Talking

    /// Writes one line to the worker's standard input. False if the worker is gone.
    func send(line: String) -> Bool {
        guard inputOpen else { return false }
        return writeFully(input, Data((line + "\n").utf8))
    }

    /// The longest line a worker may write. The largest real message, a `done` with the trace cut off at 10,000
    /// lines, is a few hundred kilobytes; a worker whose engine writes garbage to descriptor 3 must not fill memory.
    static let maxLineBytes = 16 << 20

    /// The next message, waiting no later than `deadline` (CLOCK_MONOTONIC nanoseconds).
    func next(deadline: UInt64) -> Event {
        while true {
            if buffer.count > Self.maxLineBytes, !buffer.contains(UInt8(ascii: "\n")) {
                let start = String(decoding: buffer.prefix(200), as: UTF8.self)
                buffer.removeAll()
                return .garbled("a line of more than \(Self.maxLineBytes) bytes, starting: \(start)")
            }
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                guard let message = try? JSONDecoder().decode(WorkerMessage.self, from: line) else {
                    return .garbled(String(decoding: line.prefix(200), as: UTF8.self))
                }
                return .message(message)
            }
            let now = Self.monotonicNanoseconds()
            if now >= deadline { return .timedOut }
            var entry = pollfd(fd: messages, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0, errno != EINTR { return .closed }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = read(messages, &chunk, chunk.count)
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
            } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                return .closed
            }
        }
    }

    private var inputOpen = true

    /// Closes the worker's standard input, its signal to finish; it exits when it reads the end.
    func finishInput() {
        guard inputOpen else { return }
        inputOpen = false
        close(input)
    }

    // MARK: Ending

    /// How the worker ended, once it has: waits up to `seconds` for it to exit by itself, then kills it.
    func termination(waitingUpTo seconds: Double) -> String {
        let deadline = Self.monotonicNanoseconds() + UInt64(seconds * 1e9)
        while reaped == nil, Self.monotonicNanoseconds() < deadline {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { reaped = status } else if result < 0, errno != EINTR { break } else { usleep(1000) }
        }
        if reaped == nil {
            terminate()
            return "it closed its message pipe but did not exit within \(seconds) s, so it was killed"
        }
        return Self.describe(status: reaped ?? 0)
    }

    /// Kills the worker (if it is still running) and reaps it.
    func terminate() {
        guard reaped == nil else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, 0)
            if result == pid {
                reaped = status
                return
            }
            if result < 0, errno != EINTR {
                reaped = -1
                return
            }
        }
    }

    /// What the worker wrote to standard error and standard output, line by line (its last megabyte at most).
    func stderrLines() -> [String] {
        let handle = FileHandle(fileDescriptor: stderrDescriptor, closeOnDealloc: false)
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > 1 << 20 ? size - (1 << 20) : 0)
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// "killed by SIGSEGV (signal 11)" or "exited with status 3", from a waitpid status.
    static func describe(status: Int32) -> String {
        let signal = status & 0x7f
        if signal == 0 { return "exited with status \((status >> 8) & 0xff)" }
        let names: [Int32: String] = [
            SIGABRT: "SIGABRT", SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL",
            SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGTRAP: "SIGTRAP", SIGTERM: "SIGTERM",
        ]
        return "killed by \(names[signal] ?? "signal") (signal \(signal))"
    }

    package static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

/// A close-on-exec copy of `descriptor` numbered 10 or more; the original is closed unless `keepingOriginal`.
/// (F_DUPFD_CLOEXEC sets close-on-exec atomically, as the pipes need.) On failure, the original.
private func movedAbove10(_ descriptor: Int32, keepingOriginal: Bool = false) -> Int32 {
    let moved = fcntl(descriptor, F_DUPFD_CLOEXEC, 10)
    guard moved >= 0 else { return keepingOriginal ? dup(descriptor) : descriptor }
    if !keepingOriginal { close(descriptor) }
    return moved
}

/// Calls `body` with a NULL-terminated array of C strings that live for the call.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
