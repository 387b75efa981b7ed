// Which mutants a run takes: --only (keys or ids), --operator, --file.

public struct Selection: Sendable {
    public var only: [String] = []
    public var operators: Set<MutationOperator> = []
    public var files: Set<String> = []
    /// A uniform sample of this many of the mutants chosen so far (all when nil), drawn with `seed`: the same seed
    /// and manifest give the same sample, so the report covers exactly the mutants the run took.
    public var sample: Int? = nil
    public var seed: UInt64 = 1

    public init(
        only: [String] = [], operators: Set<MutationOperator> = [], files: Set<String> = [], sample: Int? = nil,
        seed: UInt64 = 1
    ) {
        self.only = only
        self.operators = operators
        self.files = files
        self.sample = sample
        self.seed = seed
    }

    /// The selected mutants; an --only entry that names no mutant is an error.
    public func apply(to mutants: [Mutant]) throws(InputError) -> [Mutant] {
        var chosen = mutants
        if !only.isEmpty {
            for entry in only where !mutants.contains(where: { $0.key == entry || String($0.id) == entry }) {
                throw InputError(file: "--only", message: "no mutant has the id or key '\(entry)'")
            }
            chosen = chosen.filter { only.contains($0.key) || only.contains(String($0.id)) }
        }
        if !operators.isEmpty { chosen = chosen.filter { operators.contains($0.mutationOperator) } }
        if !files.isEmpty {
            for file in files where !mutants.contains(where: { $0.file == file }) {
                throw InputError(file: "--file", message: "no mutant in a file named '\(file)'")
            }
            chosen = chosen.filter { files.contains($0.file) }
        }
        if let sample, sample < chosen.count {
            var generator = SplitMix64(state: seed)
            let picked = Set(chosen.map(\.id).shuffled(using: &generator).prefix(sample))
            chosen = chosen.filter { picked.contains($0.id) }
        }
        return chosen
    }
}

/// SplitMix64: a small seeded generator, so that a sample is the same on every run and platform.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
