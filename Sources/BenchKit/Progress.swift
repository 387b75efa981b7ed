// What `runloop bench` says while it runs, on stderr: its lines (`bench: [2/6] observer dispatch: ...`) and, on a
// terminal, a status line under them rewritten in place with the time so far and an estimate of what is left from
// the benchmark runs done (a benchmark's repetition is one unit). Elsewhere (a log, a pipe) only the lines.
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The run's progress. Confined to the run's thread (BenchRun calls it; ChildProcess's tick runs on that thread).
public final class Progress {
    /// Whether stderr is a terminal (the status line is drawn only there).
    let terminal: Bool
    /// Where text goes.
    let write: (String) -> Void
    /// When the run started.
    let start: Date
    /// The time now (a test's own clock).
    let now: () -> Date
    /// When the benchmarks started (``expect(_:)``): the estimate leaves the build and the listing out.
    private var unitsStart: Date?
    /// Units to run and run (benchmark repetitions).
    private(set) var total = 0
    private(set) var done = 0
    /// What runs now, for the status line.
    private var current = ""
    /// Whether a status line is on the screen.
    private var drawn = false

    public init(
        terminal: Bool = isatty(2) != 0, start: Date = Date(), now: @escaping () -> Date = Date.init,
        write: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        self.terminal = terminal
        self.start = start
        self.now = now
        self.write = write
    }

    /// A line of its own (the status line, if any, is drawn again under it).
    public func line(_ text: String) {
        clear()
        write(text + "\n")
        draw()
    }

    /// The units the whole run has.
    public func expect(_ units: Int) {
        total = units
        unitsStart = now()
    }

    /// What runs now.
    public func running(_ text: String) {
        current = text
        draw()
    }

    /// `units` more done.
    public func advance(_ units: Int = 1) {
        done += units
        draw()
    }

    /// Redraws the status line (its clock).
    public func tick() { draw() }

    /// Removes the status line (at the end of the run).
    public func finish() { clear() }

    /// Seconds since the start.
    public var elapsed: Int { Int(now().timeIntervalSince(start)) }

    /// `1:05 elapsed, 12/40 runs, about 3:20 left`: the estimate is the time per unit so far times the units left.
    public func status() -> String {
        var text = "\(Progress.clock(elapsed)) elapsed"
        if total > 0 { text += ", \(done)/\(total) runs" }
        if done > 0, total > done {
            let spent = now().timeIntervalSince(unitsStart ?? start)
            text += ", about \(Progress.clock(Int(spent / Double(done) * Double(total - done)))) left"
        }
        return text + (current.isEmpty ? "" : ": " + current)
    }

    /// `m:ss`.
    public static func clock(_ seconds: Int) -> String {
        String(format: "%d:%02d", seconds / 60, seconds % 60)
    }

    private func draw() {
        guard terminal else { return }
        var text = "bench: " + status()
        if text.count > 119 { text = String(text.prefix(116)) + "..." }
        write("\r\u{1B}[K" + text)
        drawn = true
    }

    private func clear() {
        guard terminal, drawn else { return }
        write("\r\u{1B}[K")
        drawn = false
    }
}
