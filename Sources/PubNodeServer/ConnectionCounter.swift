import Synchronization

/// Open connections per client address, in independently locked shards so unrelated clients never
/// contend. An address is present only while it has an open connection counted, so memory follows
/// the connections actually open.
final class ConnectionCounter: Sendable {
    private final class Shard: Sendable {
        let counts = Mutex<[String: Int]>([:])
    }

    private let shards: [Shard]
    private let mask: Int

    /// A counter in `shardCount` shards (rounded up to a power of two).
    init(shardCount: Int = 64) {
        var count = 1
        while count < shardCount { count <<= 1 }
        shards = (0..<count).map { _ in Shard() }
        mask = count - 1
    }

    private func shard(_ address: String) -> Shard { shards[address.hashValue & mask] }

    /// Counts one more connection from `address` unless it already has `limit` (0 = no limit);
    /// returns whether it was counted.
    func open(_ address: String, limit: Int) -> Bool {
        shard(address).counts.withLock { counts in
            let current = counts[address, default: 0]
            guard limit <= 0 || current < limit else { return false }
            counts[address] = current + 1
            return true
        }
    }

    /// Counts one connection from `address` as closed (one that `open` counted).
    func close(_ address: String) {
        shard(address).counts.withLock { counts in
            guard let current = counts[address] else { return }
            counts[address] = current > 1 ? current - 1 : nil
        }
    }

    /// Open connections from `address`.
    func count(_ address: String) -> Int {
        shard(address).counts.withLock { $0[address, default: 0] }
    }

    /// The addresses with open connections (a snapshot).
    func addresses() -> [String] {
        shards.flatMap { shard in shard.counts.withLock { Array($0.keys) } }
    }
}
