// Running a program with a deadline: in a process group of its own, its output to a file, ended (the whole group:
// SIGTERM, then SIGKILL) at its limit or when the run is interrupted. Nothing here waits without a deadline.
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// How a child process ended.
public enum ChildEnd: Sendable, Equatable {
    /// It exited with this status.
    case exited(Int32)
    /// A signal ended it (not one of ours).
    case signalled(Int32)
    /// It outlived its limit and was ended.
    case timedOut
    /// The run was interrupted (SIGINT, SIGTERM) and it was ended.
    case interrupted

    /// Whether it exited with status 0.
    public var succeeded: Bool { self == .exited(0) }

    /// `the harness exited with status 3`, `... was killed by signal 11`, ...
    public func describe(_ what: String, limit: Int) -> String {
        switch self {
        case .exited(let status): return "\(what) exited with status \(status)"
        case .signalled(let signal): return "\(what) was killed by signal \(signal)"
        case .timedOut: return "\(what) did not finish in \(limit) s (outer watchdog)"
        case .interrupted: return "\(what) was ended: the run was interrupted"
        }
    }
}

/// A program could not be started.
public struct SpawnError: Error, CustomStringConvertible {
    public let description: String
}

/// Runs programs with a deadline.
public enum ChildProcess {
    /// How long a child may take to go after SIGTERM before SIGKILL (what `timeout -k 10` gave).
    static let termGraceSeconds = 10.0
    /// The longest pause between two looks at a running child.
    static let longestPollSeconds = 0.01

    /// Runs `executable` (searched in PATH when it has no '/') with `arguments`, stdin from /dev/null and stdout and
    /// stderr to the file `output` (truncated), in a process group of its own, and waits at most `limit` seconds.
    /// `tick`, if given, is called about once a second while it runs.
    public static func run(
        _ executable: String, _ arguments: [String], output: String, limit: Double,
        environment: [String: String]? = nil, interruption: Interruption? = nil,
        tick: (() -> Void)? = nil
    ) throws -> ChildEnd {
        let pid = try spawn(executable, arguments, output: output, environment: environment)
        return wait(pid, limit: limit, interruption: interruption, tick: tick)
    }

    /// Runs a short query (`git rev-parse`, `dpkg-query`) and returns its output, or nil when it failed or could not
    /// start. At most `limit` seconds.
    public static func output(
        _ executable: String, _ arguments: [String], limit: Double = 30,
        environment: [String: String]? = nil
    ) -> String? {
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("runloop-bench-query-\(getpid())-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        guard let end = try? run(executable, arguments, output: file, limit: limit, environment: environment),
            end.succeeded
        else { return nil }
        return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
    }

    static func spawn(
        _ executable: String, _ arguments: [String], output: String,
        environment: [String: String]?
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A group of its own (so that ending it ends its children too, and a terminal's ^C reaches only us); the
        // signals Interruption blocks, and any an invoking shell ignored, are back to their defaults in it.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGPIPE, SIGHUP] { sigaddset(&defaults, number) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes,
            Int16(
                POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF
                    | POSIX_SPAWN_SETSIGMASK))

        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment ?? [:] { merged[key] = value }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status =
            executable.contains("/")
            ? posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            : posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        return pid
    }

    /// Waits for `pid` until `limit` seconds have passed or the run is interrupted; then ends its group.
    static func wait(_ pid: pid_t, limit: Double, interruption: Interruption?, tick: (() -> Void)?) -> ChildEnd {
        let start = Date()
        var lastTick = start
        var pause = 0.001
        while true {
            if let end = reap(pid) { return end }
            if interruption?.isSet == true {
                end(group: pid, grace: 2)
                return .interrupted
            }
            if Date().timeIntervalSince(start) >= limit {
                end(group: pid, grace: termGraceSeconds)
                return .timedOut
            }
            if let tick, Date().timeIntervalSince(lastTick) >= 1 {
                lastTick = Date()
                tick()
            }
            usleep(UInt32(pause * 1_000_000))
            pause = min(pause * 2, longestPollSeconds)
        }
    }

    /// The child's end if it has ended (reaped), else nil.
    static func reap(_ pid: pid_t) -> ChildEnd? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == 0 || (result == -1 && errno == EINTR) { return nil }
        // -1 otherwise: not our child any more (reaped elsewhere); nothing to wait for.
        guard result == pid else { return .exited(-1) }
        let signal = status & 0x7f
        if signal == 0 { return .exited((status >> 8) & 0xff) }
        return .signalled(signal)
    }

    /// SIGTERM to the group of `pid`, SIGKILL after `grace` seconds, and a bounded wait for it to be reaped.
    static func end(group pid: pid_t, grace: Double) {
        kill(-pid, SIGTERM)
        let start = Date()
        while Date().timeIntervalSince(start) < grace {
            if reap(pid) != nil { return }
            usleep(10_000)
        }
        kill(-pid, SIGKILL)
        let killed = Date()
        while Date().timeIntervalSince(killed) < 5 {
            if reap(pid) != nil { return }
            usleep(10_000)
        }
    }
}
