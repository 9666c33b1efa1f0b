import Synchronization

/// A dictionary split into independently locked shards, so unrelated keys never contend.
///
/// Lookups are O(1): hash to a shard, then a dictionary lookup under that shard's mutex.
/// Values are reference types whose own state carries its own lock.
public final class ShardedMap<Key: Hashable & Sendable, Value: AnyObject & Sendable>: Sendable {
    /// One shard: a dictionary behind its own mutex.
    private final class Shard: Sendable {
        let mutex = Mutex<[Key: Value]>([:])
        func withLock<R>(_ body: (inout [Key: Value]) throws -> R) rethrows -> R {
            try mutex.withLock { try body(&$0) }
        }
    }

    private let shards: [Shard]
    private let mask: Int

    /// Creates a map with `shardCount` shards (rounded up to a power of two).
    public init(shardCount: Int = 64) {
        var count = 1
        while count < shardCount { count <<= 1 }
        shards = (0..<count).map { _ in Shard() }
        mask = count - 1
    }

    private func shard(_ key: Key) -> Shard {
        shards[key.hashValue & mask]
    }

    /// The value for `key`, if present.
    public func get(_ key: Key) -> Value? {
        shard(key).withLock { $0[key] }
    }

    /// The value for `key`, created by `make` when absent.
    public func getOrCreate(_ key: Key, _ make: () -> Value) -> Value {
        shard(key).withLock { dictionary in
            if let existing = dictionary[key] { return existing }
            let created = make()
            dictionary[key] = created
            return created
        }
    }

    /// Removes `key` when `shouldRemove` (run under the shard lock) agrees; returns whether it did.
    @discardableResult
    public func remove(_ key: Key, if shouldRemove: (Value) -> Bool) -> Bool {
        shard(key).withLock { dictionary in
            guard let value = dictionary[key], shouldRemove(value) else { return false }
            dictionary[key] = nil
            return true
        }
    }

    /// A snapshot of every key, shard by shard.
    public func keys() -> [Key] {
        shards.flatMap { shard in shard.withLock { Array($0.keys) } }
    }

    /// A snapshot of every entry, shard by shard.
    public func entries() -> [(key: Key, value: Value)] {
        shards.flatMap { shard in shard.withLock { $0.map { (key: $0.key, value: $0.value) } } }
    }

    /// A snapshot of every value, shard by shard.
    public func values() -> [Value] {
        shards.flatMap { shard in shard.withLock { Array($0.values) } }
    }

    /// Removes every entry for which `shouldRemove` (run under the shard lock) agrees; returns the count.
    @discardableResult
    public func removeAll(where shouldRemove: (Key, Value) -> Bool) -> Int {
        var removed = 0
        for shard in shards {
            shard.withLock { dictionary in
                for (key, value) in dictionary where shouldRemove(key, value) {
                    dictionary[key] = nil
                    removed += 1
                }
            }
        }
        return removed
    }

    /// Number of entries (a snapshot).
    public var count: Int { shards.reduce(0) { total, shard in total + shard.withLock { $0.count } } }
}
