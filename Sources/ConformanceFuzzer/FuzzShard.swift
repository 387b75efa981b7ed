// One shard of a campaign (`runloop fuzz --shard K/N`): the campaign's scenarios dealt round-robin over N shards, so
// that N processes (a CI matrix, or N cores) search one seed range together and `runloop fuzz merge` makes one report
// of their outputs. Scenario i of the unsharded campaign (seed first + i) goes to shard i mod N + 1, so the N shards
// of a campaign partition its scenarios exactly, and a shard with a time limit covers a spread of the whole range, not
// its beginning only.

/// Shard `index` of `count` (1-based, as a CI matrix counts them).
public struct FuzzShard: Sendable, Hashable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// - Throws: ``FuzzShardError`` unless 1 <= index <= count.
    public init(index: Int, count: Int) throws(FuzzShardError) {
        guard count >= 1 else { throw FuzzShardError(text: "\(index)/\(count)", reason: "N must be at least 1") }
        guard (1...count).contains(index) else {
            throw FuzzShardError(text: "\(index)/\(count)", reason: "K must be 1 to N (\(count))")
        }
        self.init(checked: index, count: count)
    }

    /// The whole campaign as one shard.
    public static let whole = FuzzShard(checked: 1, count: 1)

    private init(checked index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `K/N`, e.g. `2/4`.
    public init(parsing text: String) throws(FuzzShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw FuzzShardError(text: text, reason: "not of the form K/N (shard K of N, e.g. 2/4)")
        }
        try self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// The seed of this shard's scenario `position` (counting from 0) in the campaign that starts at `first`: the
    /// unsharded campaign's scenario `(index - 1) + position * count`.
    public func seed(first: UInt64, position: Int) -> UInt64 {
        first &+ UInt64(index - 1) &+ UInt64(position) &* UInt64(count)
    }

    /// How many of the unsharded campaign's first `total` scenarios are this shard's.
    public func scenarios(ofTotal total: Int) -> Int {
        let offset = index - 1
        return total <= offset ? 0 : (total - offset + count - 1) / count
    }
}

/// A `--shard` value that names no shard.
public struct FuzzShardError: Error, CustomStringConvertible, Sendable {
    public let text: String
    public let reason: String
    public var description: String { "--shard '\(text)': \(reason)" }
}
