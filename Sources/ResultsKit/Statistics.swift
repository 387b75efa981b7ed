// Statistics: medians, quantiles, the geometric mean and the two-sided Mann-Whitney U test,
// computed the way scipy.stats.mannwhitneyu does (method "auto").
import Foundation

/// The method used to compute a Mann-Whitney p-value.
public enum MannWhitneyMethod: String, Sendable, Codable {
    /// The exact null distribution of U (no ties, at least one sample of 8 or fewer).
    case exact
    /// The normal approximation with tie and continuity corrections.
    case asymptotic
}

/// The result of a two-sided Mann-Whitney U test.
public struct MannWhitneyResult: Sendable, Equatable, Codable {
    /// U for the first sample: its rank sum minus n1(n1+1)/2 (scipy's `statistic`).
    public let u: Double
    /// The two-sided p-value, in [0, 1].
    public let pValue: Double
    /// How the p-value was computed.
    public let method: MannWhitneyMethod
}

/// Descriptive statistics and the Mann-Whitney U test.
public enum Statistics {
    /// The median (mean of the two middle values for even counts); `nil` for no values.
    public static func median(_ values: [Double]) -> Double? {
        quantile(values, 0.5)
    }

    /// The `q`-quantile by linear interpolation between order statistics (numpy's default);
    /// `nil` for no values.
    public static func quantile(_ values: [Double], _ q: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let position = min(max(q, 0), 1) * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let fraction = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }

    /// The geometric mean of positive values; `nil` if there are none or any is not positive.
    public static func geometricMean(_ values: [Double]) -> Double? {
        guard !values.isEmpty, values.allSatisfy({ $0 > 0 && $0.isFinite }) else { return nil }
        let meanLog = values.reduce(0) { $0 + log($1) } / Double(values.count)
        return exp(meanLog)
    }

    /// Average ranks (1-based, ties get the mean of their ranks) and the sizes of tie groups.
    static func averageRanks(_ values: [Double]) -> (ranks: [Double], tieGroups: [Int]) {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Double](repeating: 0, count: values.count)
        var groups: [Int] = []
        var start = 0
        while start < order.count {
            var end = start
            while end + 1 < order.count && values[order[end + 1]] == values[order[start]] { end += 1 }
            let rank = Double(start + end) / 2 + 1
            for position in start...end { ranks[order[position]] = rank }
            groups.append(end - start + 1)
            start = end + 1
        }
        return (ranks, groups)
    }

    /// The two-sided Mann-Whitney U test of `x` against `y`, matching
    /// `scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method="auto")`:
    /// exact when there are no ties and either sample has at most 8 values, otherwise the normal
    /// approximation with tie correction and continuity correction.
    /// - Returns: `nil` if either sample is empty.
    public static func mannWhitneyU(_ x: [Double], _ y: [Double]) -> MannWhitneyResult? {
        let (u1, hasTies) = uStatistic(x, y)
        guard let u1 else { return nil }
        let method: MannWhitneyMethod = (x.count > 8 && y.count > 8) || hasTies ? .asymptotic : .exact
        return mannWhitneyU(x, y, method: method, precomputedU: u1)
    }

    /// The two-sided Mann-Whitney U test with an explicit method (scipy's `method=`).
    /// `.exact` ignores ties, as scipy does when asked for it explicitly.
    /// - Returns: `nil` if either sample is empty.
    static func mannWhitneyU(_ x: [Double], _ y: [Double], method: MannWhitneyMethod) -> MannWhitneyResult? {
        guard let u1 = uStatistic(x, y).u1 else { return nil }
        return mannWhitneyU(x, y, method: method, precomputedU: u1)
    }

    /// Computes the p-value for a known U1.
    static func mannWhitneyU(
        _ x: [Double], _ y: [Double], method: MannWhitneyMethod,
        precomputedU u1: Double
    ) -> MannWhitneyResult {
        let n1 = x.count
        let n2 = y.count
        let u = max(u1, Double(n1 * n2) - u1)
        var p: Double
        switch method {
        case .exact:
            p = 2 * exactSurvival(u: Int(u.rounded()), n1: n1, n2: n2)
        case .asymptotic:
            let tieGroups = averageRanks(x + y).tieGroups
            p = 2 * normalSurvival(asymptoticZ(u: u, n1: n1, n2: n2, tieGroups: tieGroups))
        }
        if p.isNaN { p = 1 }
        return MannWhitneyResult(u: u1, pValue: min(max(p, 0), 1), method: method)
    }

    /// U1 (rank sum of `x` minus n1(n1+1)/2) and whether the pooled sample has ties.
    static func uStatistic(_ x: [Double], _ y: [Double]) -> (u1: Double?, hasTies: Bool) {
        guard !x.isEmpty, !y.isEmpty else { return (nil, false) }
        let (ranks, groups) = averageRanks(x + y)
        let rankSum = ranks[0..<x.count].reduce(0, +)
        let n1 = Double(x.count)
        return (rankSum - n1 * (n1 + 1) / 2, groups.contains { $0 > 1 })
    }

    /// The standardised U with tie correction and continuity correction, as scipy's `_get_mwu_z`:
    /// z = (U - n1·n2/2 - 0.5) / sqrt(n1·n2/12 · ((n+1) - Σ(t³-t)/(n(n-1)))).
    static func asymptoticZ(u: Double, n1: Int, n2: Int, tieGroups: [Int]) -> Double {
        let a = Double(n1)
        let b = Double(n2)
        let n = a + b
        let tieTerm = tieGroups.reduce(0.0) { $0 + Double($1 * $1 * $1 - $1) }
        let variance = a * b / 12 * ((n + 1) - (n > 1 ? tieTerm / (n * (n - 1)) : 0))
        let numerator = u - a * b / 2 - 0.5
        let s = variance > 0 ? variance.squareRoot() : 0
        if s == 0 { return numerator < 0 ? -.infinity : (numerator > 0 ? .infinity : .nan) }
        return numerator / s
    }

    /// P(Z ≥ z) for a standard normal Z.
    static func normalSurvival(_ z: Double) -> Double {
        if z.isNaN { return .nan }
        return 0.5 * erfc(z / 2.0.squareRoot())
    }

    /// P(U ≥ u) under the null hypothesis for samples of sizes `n1` and `n2` without ties.
    ///
    /// The frequencies of U are the coefficients of the Gaussian binomial coefficient
    /// [n1+n2 choose m]_q with m = min(n1, n2), built as Π (1 - q^(M+i)) / (1 - q^i).
    static func exactSurvival(u: Int, n1: Int, n2: Int) -> Double {
        let frequencies = exactFrequencies(n1: n1, n2: n2)
        let total = frequencies.reduce(0, +)
        let maximum = n1 * n2
        if u <= 0 { return 1 }
        if u > maximum { return 0 }
        // By symmetry P(U ≥ u) = P(U ≤ n1·n2 - u); sum the shorter tail for accuracy.
        let complement = maximum - u
        if complement < u {
            return frequencies[0...complement].reduce(0, +) / total
        }
        return frequencies[u...maximum].reduce(0, +) / total
    }

    /// The number of arrangements giving each U = 0...n1·n2 (not normalised).
    ///
    /// Works on power series truncated at degree n1·n2, where multiplying by (1 - q^k) and
    /// dividing by (1 - q^i) are exact; the result is a polynomial of that degree.
    static func exactFrequencies(n1: Int, n2: Int) -> [Double] {
        let m = min(n1, n2)
        let big = max(n1, n2)
        let size = m * big + 1
        var poly = [Double](repeating: 0, count: size)
        poly[0] = 1
        guard m > 0 else { return poly }
        for i in 1...m {
            // Multiply by (1 - q^(big + i)).
            let shift = big + i
            if shift < size {
                for k in stride(from: size - 1, through: shift, by: -1) { poly[k] -= poly[k - shift] }
            }
            // Divide by (1 - q^i): running sums with stride i.
            if i < size {
                for k in i..<size { poly[k] += poly[k - i] }
            }
        }
        return poly
    }

    /// The smallest two-sided p-value an exact test can give for these sample sizes
    /// (complete separation): 2 / C(n1+n2, n1). Used to tell whether a test can reach alpha.
    public static func smallestPossiblePValue(n1: Int, n2: Int) -> Double {
        guard n1 > 0, n2 > 0 else { return 1 }
        // log C(n1+n2, n1) via lgamma to avoid overflow.
        let logChoose = lgamma(Double(n1 + n2 + 1)) - lgamma(Double(n1 + 1)) - lgamma(Double(n2 + 1))
        return min(1, 2 * exp(-logChoose))
    }
}
