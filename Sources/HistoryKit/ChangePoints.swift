// Change points of a series: where its level stepped, by E-divisive means with a permutation test.
//
// Method: D. S. Matteson and N. A. James, "A Nonparametric Approach for Multiple Change Point Analysis of
// Multivariate Data", Journal of the American Statistical Association 109(505), 2014, section 2 (the divergence
// measure, its estimator Q̂ and the hierarchical bisection) and section 3.2 (the permutation test). As in MongoDB's
// use of it on CI performance data (D. Daly et al., "Change Point Detection in Software Performance Testing",
// ICPE 2020), the split's right end is the segment's end (no search over kappa), alpha = 1, and each new change point
// must pass the permutation test at the significance level, else the search stops.
import Foundation

/// Where a series' level stepped.
public struct ChangePoint: Sendable, Equatable {
    /// The index of the first value after the step.
    public let index: Int
    /// The permutation test's p-value: the share of permutations (plus the observed order) whose best split was at
    /// least as strong.
    public let pValue: Double
    /// The median of the values from the previous change point (or the start) up to the step.
    public let before: Double
    /// The median of the values from the step to the next change point (or the end).
    public let after: Double

    /// True for a step between two builds' exact counts (``ExactSteps``): no test, `pValue` is 0.
    public var exact = false

    /// after / before - 1 (nil when `before` is 0).
    public var change: Double? { before != 0 ? after / before - 1 : nil }
}

/// E-divisive means (Matteson & James 2014) with alpha = 1 on a one-dimensional series.
public struct EDivisive: Sendable {
    /// The significance level a change point's permutation test must reach.
    public var significance: Double = 0.05
    /// Permutations per test; the smallest p-value is 1 / (permutations + 1).
    public var permutations: Int = 199
    /// The fewest values on each side of a split.
    public var minimumSegment: Int = 3
    /// The seed of the permutations, so the same series always gives the same answer.
    public var seed: UInt64 = 0x5EED_C0DE

    /// Creates a detector with the default parameters.
    public init() {}

    /// The change points of `values`, in index order.
    public func changePoints(_ values: [Double]) -> [ChangePoint] {
        guard values.count >= 2 * minimumSegment else { return [] }
        var random = SplitMix64(seed: seed)
        var boundaries = [0, values.count]
        var found: [(index: Int, p: Double)] = []
        while true {
            // The strongest split over every current segment.
            guard let best = bestSplit(values, boundaries) else { break }
            // The permutation test: shuffle within each segment, take the best split again.
            var atLeastAsStrong = 0
            let stopAt = Int((significance * Double(permutations + 1)).rounded(.up))
            var done = 0
            var shuffled = values
            for _ in 0..<permutations {
                for (start, end) in zip(boundaries, boundaries.dropFirst()) where end - start > 1 {
                    for i in stride(from: end - 1, to: start, by: -1) {
                        let j = start + Int(random.next() % UInt64(i - start + 1))
                        shuffled.swapAt(i, j)
                    }
                }
                done += 1
                if let strength = bestSplit(shuffled, boundaries)?.strength, strength >= best.strength {
                    atLeastAsStrong += 1
                    // Already too many to be significant: the rest cannot change the answer.
                    if atLeastAsStrong >= stopAt { break }
                }
            }
            let p = Double(atLeastAsStrong + 1) / Double(done + 1)
            guard p <= significance, atLeastAsStrong < stopAt else { break }
            found.append((best.index, p))
            boundaries.append(best.index)
            boundaries.sort()
        }
        found.sort { $0.index < $1.index }
        let cuts = [0] + found.map(\.index) + [values.count]
        return found.enumerated().map { position, point in
            let before = Array(values[cuts[position]..<point.index])
            let after = Array(values[point.index..<cuts[position + 2]])
            return ChangePoint(
                index: point.index, pValue: point.p, before: EDivisive.median(before),
                after: EDivisive.median(after))
        }
    }

    /// The split with the largest Q̂ over all segments between consecutive `boundaries`.
    func bestSplit(_ values: [Double], _ boundaries: [Int]) -> (index: Int, strength: Double)? {
        var best: (index: Int, strength: Double)?
        for (start, end) in zip(boundaries, boundaries.dropFirst()) {
            if let split = bestSplit(values, start, end), split.strength > (best?.strength ?? -.infinity) {
                best = split
            }
        }
        return best
    }

    /// The split of values[start..<end] into X = [start, tau) and Y = [tau, end) that maximises
    /// Q̂(X, Y) = m n / (m + n) * (2/(m n) sum|x - y| - 1/C(m,2) sum|x - x'| - 1/C(n,2) sum|y - y'|),
    /// computed for every tau in O(L^2) from the pairwise distances' row sums.
    func bestSplit(_ values: [Double], _ start: Int, _ end: Int) -> (index: Int, strength: Double)? {
        let length = end - start
        guard length >= 2 * minimumSegment else { return nil }
        // before[t]: sum of d(i, t) for i < t; after[t]: sum of d(t, j) for j > t (indices within the segment).
        var before = [Double](repeating: 0, count: length)
        var after = [Double](repeating: 0, count: length)
        values.withUnsafeBufferPointer { v in
            for i in 0..<length {
                let x = v[start + i]
                var sum = 0.0
                for j in (i + 1)..<length {
                    let d = abs(x - v[start + j])
                    sum += d
                    before[j] += d
                }
                after[i] = sum
            }
        }
        // within[t] = sum over pairs inside [0, t); withinAfter[t] = sum over pairs inside [t, length).
        var within = [Double](repeating: 0, count: length + 1)
        var withinAfter = [Double](repeating: 0, count: length + 1)
        for t in 0..<length { within[t + 1] = within[t] + before[t] }
        for t in stride(from: length - 1, through: 0, by: -1) { withinAfter[t] = withinAfter[t + 1] + after[t] }
        let total = within[length]
        var best: (index: Int, strength: Double)?
        for tau in minimumSegment...(length - minimumSegment) {
            let m = Double(tau)
            let n = Double(length - tau)
            let between = total - within[tau] - withinAfter[tau]
            let divergence =
                2 / (m * n) * between - 2 / (m * (m - 1)) * within[tau] - 2 / (n * (n - 1)) * withinAfter[tau]
            let strength = m * n / (m + n) * divergence
            if strength > (best?.strength ?? -.infinity) { best = (start + tau, strength) }
        }
        return best
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// A small deterministic generator (SplitMix64) for the permutations.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
