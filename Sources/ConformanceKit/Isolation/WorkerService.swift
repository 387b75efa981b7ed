// The worker side of process isolation: serves case ids from standard input, one at a time, with the engine it was
// started for, and reports on file descriptor 3 (WorkerProtocol.swift). `runloop worker` and the tests' own worker
// executable are thin `main`s around `WorkerService.main`.

import EngineKit
import Foundation

/// A conformance worker's main loop.
public enum WorkerService {
    /// Serves until standard input ends and returns the process's exit status: 0, or 2 for bad arguments.
    /// `catalogue` holds the engines this executable hosts by name and the loader that makes others (`cf:PATH`).
    /// Call it on the process's main thread: main-thread cases (feature mainThread) run on the calling thread.
    public static func main(arguments: [String], catalogue: EngineCatalogue) -> Int32 {
        let parsed: WorkerArguments
        switch WorkerArguments.parse(arguments) {
        case .success(let value): parsed = value
        case .failure(let error):
            FileHandle.standardError.write(Data("worker: \(error.message)\n".utf8))
            return 2
        }
        // A runner that went away must not leave a worker behind (one stuck in a hanging case, say), and writing to
        // its pipe must not kill the worker with SIGPIPE before that is noticed.
        signal(SIGPIPE, SIG_IGN)
        let writer = MessageWriter(descriptor: WorkerArguments.messageDescriptor)
        switch parsed {
        case .list:
            writer.send(.engines(catalogue.engines.map { EngineDescription($0) }))
            return 0
        case .describe(let selector):
            switch resolve(selector, in: catalogue) {
            case .success(let engine):
                writer.send(.engines([EngineDescription(engine, selector: selector)]))
                return 0
            case .failure(let error):
                writer.send(.fatal(error.description))
                return 2
            }
        case .serve(let specPath, let selector):
            let engine: any RunLoopEngine
            switch resolve(selector, in: catalogue) {
            case .success(let resolved): engine = resolved
            case .failure(let error):
                writer.send(.fatal(error.description))
                return 2
            }
            let spec: ServedSpec
            do {
                spec = try ServedSpec(path: specPath)
            } catch {
                writer.send(.fatal("\(error)"))
                return 2
            }
            writer.send(.ready(engine: engine.name))
            let activity = CaseActivity()
            exitWhenTheRunnerIsGone(activity)
            // The protocol runs on a thread of its own; the calling (main) thread waits for main-thread cases
            // (feature mainThread) and runs them, and is otherwise idle: it neither runs a loop nor drains the main
            // dispatch queue.
            let mainThread = MainThreadExecutor()
            let protocolThread = Thread {
                serve(spec: spec, engine: engine, writer: writer, mainThread: mainThread, activity: activity)
                mainThread.finish()
            }
            protocolThread.name = "worker: protocol"
            protocolThread.stackSize = 1 << 20
            protocolThread.start()
            mainThread.serve()
            return 0
        }
    }

    /// The catalogue's engine for `selector`, or why there is none.
    private static func resolve(
        _ selector: String,
        in catalogue: EngineCatalogue
    ) -> Result<any RunLoopEngine, WorkerError> {
        catalogue.engine(selector)
            ?? .failure(
                WorkerError(
                    description: "this worker has no engine '\(selector)' "
                        + "(it hosts \(catalogue.names.joined(separator: ", ")))"))
    }

    /// Runs each case id read from standard input and reports it. No watchdog here: the runner holds it and ends this
    /// process when a case overruns, so a hanging case costs a process, never a thread left behind in a later case.
    private static func serve(
        spec: ServedSpec, engine: any RunLoopEngine, writer: MessageWriter,
        mainThread: MainThreadExecutor, activity: CaseActivity
    ) {
        var spec = spec
        while let id = readLine(strippingNewline: true) {
            guard activity.begin() else { return }  // the runner is gone: no case may start without its watchdog
            defer { activity.end() }
            let found: Result<SpecCase?, Error> = Result { try spec.specCase(id) }
            guard case .success(let specCase?) = found else {
                let detail =
                    switch found {
                    case .failure(let error): "the worker's spec does not load: \(error)"
                    case .success: "the worker's spec has no case '\(id)'"
                    }
                writer.send(.done(.init(id: id, status: .error, detail: detail, trace: [], seconds: 0)))
                continue
            }
            let outcome = CaseAttempt.run(specCase, on: engine, limit: nil, mainThread: mainThread) { line in
                writer.send(.trace(line))
            }
            writer.send(
                .done(
                    .init(
                        id: id, status: outcome.status, detail: outcome.detail, trace: outcome.actualTrace,
                        seconds: outcome.seconds)))
        }
    }

    /// Ends this process when the runner's end of standard input closes (the runner exited or was killed) while a
    /// case is still running. Between cases it only marks the runner gone: `readLine` then sees the end of input and
    /// the worker returns normally, running its exit handlers (a profiling build writes its profile then), and no
    /// further case starts.
    private static func exitWhenTheRunnerIsGone(_ activity: CaseActivity) {
        let watcher = Thread {
            var entry = pollfd(fd: STDIN_FILENO, events: 0, revents: 0)  // POLLHUP and POLLERR are always reported
            while true {
                let ready = poll(&entry, 1, -1)
                if ready > 0, entry.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                    if activity.runnerGone() { _exit(0) }
                    return
                }
                if ready < 0, errno != EINTR { return }
            }
        }
        watcher.name = "worker: runner watch"
        watcher.start()
    }
}

/// Whether a case is running, and whether the runner is gone. Shared by the protocol thread and the watcher thread;
/// both fields are protected by `lock`.
final class CaseActivity: @unchecked Sendable {
    private let lock = NSLock()
    /// Protected by `lock`.
    private var running = false
    /// Protected by `lock`.
    private var gone = false

    /// A case starts: false when the runner is gone (then none may start).
    func begin() -> Bool {
        lock.withLock {
            if gone { return false }
            running = true
            return true
        }
    }

    func end() {
        lock.withLock { running = false }
    }

    /// The runner is gone: true when a case is running (the worker must end at once, as nobody holds its
    /// watchdog any more); otherwise no case starts from now on.
    func runnerGone() -> Bool {
        lock.withLock {
            gone = true
            return running
        }
    }
}

/// Writes whole messages to one descriptor. Messages come from the case thread and its helper threads; `lock`
/// keeps each one whole.
final class MessageWriter: @unchecked Sendable {
    private let descriptor: Int32
    private let lock = NSLock()

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func send(_ message: WorkerMessage) {
        let data = message.encoded()
        lock.withLock {
            // The runner is gone (EPIPE): nobody is left to report to.
            if !writeFully(descriptor, data) { _exit(0) }
        }
    }
}
