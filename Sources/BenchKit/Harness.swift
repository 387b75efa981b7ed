// What `runloop bench` asks the harness binary besides running benchmarks: its families, its description of the
// engines and CPUs, a family's benchmark names. Each answer is a short process with a deadline.
import Foundation

/// A benchmark family as the harness lists it (`--rl_list_families`: kFamilies in Benchmarks/Harness/main.cpp).
public struct HarnessFamily: Sendable, Equatable {
    /// What `--rl_family` takes.
    public let name: String
    /// How the progress lines name it.
    public let title: String

    public init(name: String, title: String) {
        self.name = name
        self.title = title
    }

    /// The families of `--rl_list_families` output: one a line, name, a tab, title.
    public static func parse(_ text: String) -> [HarnessFamily] {
        text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "\t", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            return HarnessFamily(name: String(parts[0]), title: String(parts[1]))
        }
    }
}

/// The harness binary.
public struct Harness: Sendable {
    /// Its path.
    public let path: String
    /// Where its answers are written before they are read.
    let work: String
    /// The longest a query may take.
    static let queryLimitSeconds = 120.0

    public init(path: String, work: String) {
        self.path = path
        self.work = work
    }

    /// Runs the harness with `arguments`; returns how it ended and what it printed.
    func query(_ arguments: [String], name: String) throws -> (end: ChildEnd, output: String) {
        let file = work + "/" + name + ".out"
        let end = try ChildProcess.run(path, arguments, output: file, limit: Harness.queryLimitSeconds)
        return (end, (try? String(contentsOfFile: file, encoding: .utf8)) ?? "")
    }

    /// Its families, in the order they run.
    public func families() throws -> [HarnessFamily] {
        let (end, output) = try query(["--rl_list_families"], name: "families")
        let families = HarnessFamily.parse(output)
        guard end.succeeded, !families.isEmpty else {
            throw BenchFailure(
                "bench: the harness lists no benchmark family (--rl_list_families: "
                    + end.describe(path, limit: Int(Harness.queryLimitSeconds)) + ")\n" + output)
        }
        return families
    }

    /// Its `# key: value` lines on the engines and CPUs. An engine list it refuses is bad input (exit 2 naming it).
    public func describe(engines: String?) throws -> [String] {
        let (end, output) = try query(
            ["--rl_describe"] + (engines.map { ["--rl_engines=" + $0] } ?? []),
            name: "describe")
        if end == .exited(2), let engines {
            let why = output.split(separator: "\n").last.map(String.init) ?? "refused"
            throw BenchInputError(
                field: "--engines",
                "'\(engines)': "
                    + why.replacingOccurrences(of: "runloop-bench: ", with: ""))
        }
        guard end.succeeded else {
            throw BenchFailure(
                "bench: the harness could not describe the engines ("
                    + end.describe(path, limit: Int(Harness.queryLimitSeconds)) + ")\n" + output)
        }
        return output.split(separator: "\n").map(String.init).filter { $0.hasPrefix("#") }
    }

    /// The benchmarks of `family` that `arguments` select (Google Benchmark's `--benchmark_list_tests`).
    public func benchmarks(family: String, arguments: [String]) throws -> [String] {
        let (end, output) = try query(
            ["--rl_family=" + family] + arguments + ["--benchmark_list_tests=true"],
            name: "list-" + family)
        let names = output.split(separator: "\n").map(String.init).filter { $0.hasPrefix("BM_") }
        // A filter that matches nothing is no error (the family is skipped); one Google Benchmark cannot compile is.
        if names.isEmpty, output.contains("Could not compile") {
            throw BenchInputError(
                field: "--filter",
                "not a regular expression Google Benchmark accepts: "
                    + output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard end.succeeded || names.isEmpty else {
            throw BenchFailure(
                "bench: the harness could not list the benchmarks of family \(family) ("
                    + end.describe(path, limit: Int(Harness.queryLimitSeconds)) + ")\n" + output)
        }
        return names
    }
}
