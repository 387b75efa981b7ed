// Benchmark names as the harness registers them (`BM_X/engine:NAME/param:value...`) and as Google Benchmark writes
// them (with `/iterations:1`, `/manual_time`, `/real_time`, and `_mean`, `_median`, ... on aggregate rows).
import Foundation

public enum BenchmarkName {
    /// The name without Google Benchmark's suffixes: the name the harness registers and its watchdog writes.
    public static func base(_ name: String) -> String {
        var name = name
        for suffix in ["_mean", "_median", "_stddev", "_cv"] where name.hasSuffix(suffix) {
            name.removeLast(suffix.count)
            break
        }
        var parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeAll { $0 == "manual_time" || $0 == "real_time" || isIterations($0) }
        return parts.joined(separator: "/")
    }

    /// The engine argument of a name (`BM_X/engine:NAME/...`), or nil (the machine limits, a family's error row).
    public static func engine(_ name: String) -> String? {
        let parts = name.split(separator: "/")
        guard parts.count >= 2, parts[1].hasPrefix("engine:") else { return nil }
        return String(parts[1].dropFirst("engine:".count))
    }

    /// A Google Benchmark filter that selects exactly the benchmarks `bases` (base names), whatever suffixes they
    /// have. Names hold only letters, digits, '_', ':' and '/': no regex metacharacters to escape.
    public static func filter(selecting bases: [String]) -> String {
        "^(" + bases.joined(separator: "|") + ")(/|$)"
    }

    static func isIterations(_ part: String) -> Bool {
        part.hasPrefix("iterations:") && part.dropFirst("iterations:".count).allSatisfy(\.isNumber)
    }
}
