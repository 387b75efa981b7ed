// The fuzzer's own pseudo-random generator: SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", 2014). Never the system RNG, so that a seed names the same scenario on every machine and every run,
// and a divergence found once can be replayed with `--seed N --count 1`.

/// SplitMix64: 64 bits of state, one addition and a mix per number. Plenty for choosing scenario shapes, and its
/// output is fixed by the algorithm, unlike Swift's `SystemRandomNumberGenerator` or a library's default generator.
///
/// A value type confined to the thread that generates one scenario.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (bound > 0). Lemire's multiply-shift would be faster; the modulo bias of a 64-bit
    /// draw over bounds below 100 is below 1e-17 and changes nothing here. The generator draws only through this
    /// (never `Int.random(in:using:)`, whose way of drawing the standard library may change), so seeds replay on any
    /// toolchain.
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "below(\(bound)): the bound must be positive")
        return Int(next() % UInt64(bound))
    }

    /// A number in `range`.
    public mutating func within(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    /// True with probability `percent` / 100.
    public mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    /// The elements in a random order (Fisher-Yates with ``below(_:)``; not the standard library's `shuffled(using:)`,
    /// whose way of drawing is not promised to stay the same across Swift versions).
    public mutating func shuffle<T>(_ elements: [T]) -> [T] {
        var result = elements
        for index in stride(from: result.count - 1, to: 0, by: -1) {
            result.swapAt(index, below(index + 1))
        }
        return result
    }

    /// One element of a non-empty array.
    public mutating func pick<T>(_ choices: [T]) -> T {
        choices[below(choices.count)]
    }
}
