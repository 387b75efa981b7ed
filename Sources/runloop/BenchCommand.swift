// `runloop bench`: parses arguments and hands them to BenchKit's BenchRun; all logic lives there.
import ArgumentParser
import BenchKit
import Foundation

/// Runs the benchmarks and reports them.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run the run-loop benchmarks: one CSV, the report of its targets, the history's check.",
        discussion: """
            Builds the harness (Benchmarks/Package.swift, release, scratch path .build-bench), runs its families (scale \
            and wake one process per benchmark and repetition, the others with random interleaving; a hung benchmark is \
            ended by a watchdog and becomes an error row), writes results/<label>-<date>.csv with the run's context, \
            prints `runloop report`'s summary and targets (Benchmarks/targets.yaml), adds the run to \
            results/history.sqlite and prints the check against the previous run of the same machine and profile \
            (informational).

            Profiles: \(BenchProfile.all.map { ($0 == .standard ? "standard (no flag)" : "--" + $0.name) + ": "
            + $0.purpose }.joined(separator: "; ")).

            --instructions counts instead of timing: each engine's benchmarks of one family (--family wake: a \
            same-CPU wake-up round trip on each path, BM_WakePath path:awake, where every signal finds the loop \
            before its wait, and path:asleep, where every signal finds it blocked in its wait; engines whose loop \
            runs on threads of their own skip asleep; scale: an item added and removed at N = 10,000, for sources, \
            timers, timers in random order and observers) run under valgrind's callgrind with N, 2N and again N \
            iterations, and the difference of the first two in user-space instructions per unit is the figure, \
            which does not move with the machine's load (a figure whose repeat of N differs is marked not exact). \
            It writes results/<label>-<date>.csv (label <virtualisation>-<CPUs>cpu-instructions; profile \
            callgrind) marked '# timing: none', prints the report's instruction tables and targets (those marked \
            'run: instructions' in the targets file) and adds the run to the history, whose trends show a step \
            between commits' counts as a change point. --tree DIR counts another checkout's harness (a worktree of another commit).

            --syscalls counts system calls instead: each engine's wake-up round trip (pin:same/load:none, \
            pin:same/load:idle1000, pin:diff/load:none) runs with N / 10 and N round trips (--iterations N, default \
            20,000) under perf's syscall tracepoints, which count every thread without slowing it down, and the \
            difference per round trip of every system call and of the main ones (write, read, epoll_wait, poll, \
            futex, timerfd_settime) is the figure; where perf cannot count, strace -c -f counts instead, whose \
            figures are distorted by ptrace and only indicative. It prints the table of every column, writes \
            results/<label>-<date>.csv (label <virtualisation>-<CPUs>cpu-syscalls; profile perf or strace) marked \
            '# timing: none', prints the report's tables marked 'run: syscalls' and adds the run to the history. \
            Counts are means: a round trip that finds the loop awake skips the wake-up.

            SIGINT or SIGTERM ends the running benchmark and writes the rows measured so far, marked \
            '# partial: interrupted after N s'.

            Exit status: 0 done; 1 a benchmark error row, a harness failure, or interrupted; 2 bad input.
            """)

    @Flag(help: "Shorter measurements, judged only against the targets' quick bounds.")
    var quick = false
    @Flag(help: "The baseline: scale up to N = 100,000, 1 s coalescing windows (the longest profile).")
    var full = false
    @Flag(help: "Every benchmark once, meaningless figures (the harness's smoke test).")
    var smoke = false

    @Option(
        help: ArgumentHelp(
            "Comma-separated engines of the harness, and cf:PATH for a CoreFoundation library (default: "
                + "every built-in one; an unknown engine is exit 2, naming the harness's engines).",
            valueName: "list"))
    var engines: String?

    @Option(
        help: ArgumentHelp(
            "Comma-separated families of the harness (default: every one; an unknown family is exit 2, "
                + "naming the harness's families).", valueName: "list"))
    var family: String?

    @Option(
        help: ArgumentHelp(
            "Only benchmarks whose name matches (Google Benchmark's --benchmark_filter).",
            valueName: "regex"))
    var filter: String?

    @Option(
        help: ArgumentHelp(
            "The CSV to write (default results/<label>-<date>.csv, or <label>-<date>-2.csv and so on when a run of the same minute has that name).",
            valueName: "file"))
    var out: String?

    @Option(
        help: ArgumentHelp(
            "The machine label in the CSV and its file name (default "
                + "<virtualisation>-<CPUs>cpu, with -<profile> unless --full).", valueName: "label"))
    var label: String?

    @Option(
        help: ArgumentHelp(
            "Repetitions per benchmark (default and minimum 5; wake latency at least 9; every "
                + "one is kept).", valueName: "n"))
    var repetitions: Int?

    @Option(
        help: ArgumentHelp(
            "End a benchmark call that takes longer than this, seconds (default: the profile's); "
                + "after two such hangs of one engine in a family its other benchmarks there are "
                + "skipped.", valueName: "s"))
    var watchdog: Int?

    @Option(help: ArgumentHelp("A runloop-bench binary to use instead of building one.", valueName: "path"))
    var harness: String?

    @Flag(
        help: "Build the harness (or check --harness) and print its path; run nothing (e.g. before a quiet window).")
    var buildOnly = false

    @Flag(help: "Do not add the run to results/history.sqlite (nor check it against the previous run).")
    var noHistory = false

    @Option(
        help: ArgumentHelp(
            "The targets file of the report (default: Benchmarks/targets.yaml of the checkout).",
            valueName: "path"))
    var targets: String?

    @Flag(help: "Count instructions under callgrind instead of timing (see above); --family wake or scale.")
    var instructions = false

    @Flag(help: "Count system calls per wake-up round trip under perf (or strace) instead of timing (see above).")
    var syscalls = false

    @Option(
        help: ArgumentHelp(
            "With --instructions --family wake: the round trip's load, none (default) or idle1000.",
            valueName: "load"))
    var load: String?

    @Option(
        help: ArgumentHelp(
            "With --instructions: the shorter run's iterations (default 4000 round trips for wake, 2 rounds "
                + "of 10,000 items for scale; the longer runs twice as many). With --syscalls: the longer run's "
                + "round trips (default 20,000, at least 100; the shorter runs a tenth).", valueName: "n"))
    var iterations: Int?

    @Option(
        help: ArgumentHelp(
            "With --instructions: count the harness of the checkout at this path (built in its own "
                + ".build-bench); the CSV names its commit.", valueName: "dir"))
    var tree: String?

    func validate() throws {
        if [quick, full, smoke].filter({ $0 }).count > 1 {
            throw ValidationError("--quick, --full and --smoke exclude each other")
        }
    }

    func run() throws {
        var options = BenchOptions()
        options.profile = quick ? .quick : full ? .full : smoke ? .smoke : .standard
        options.engines = engines
        options.families = family.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        options.filter = filter
        options.out = out
        options.label = label
        options.repetitions = repetitions
        options.watchdog = watchdog
        options.harness = harness
        options.history = !noHistory
        options.buildOnly = buildOnly
        options.targets = targets
        options.countInstructions = instructions
        options.countSyscalls = syscalls
        options.counting.givenLoad = load
        options.counting.iterations = iterations
        options.counting.tree = tree
        options.arguments = Array(CommandLine.arguments.drop { $0 != "bench" }.dropFirst())
        let status = BenchRun.run(options)
        if status != 0 { throw ExitCode(status) }
    }
}
