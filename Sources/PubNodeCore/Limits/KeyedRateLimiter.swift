import Synchronization

/// One token bucket per key (a client address), for limits that apply to each caller separately.
///
/// The buckets are split into independently locked shards (as in `ShardedMap`), so unrelated
/// callers never contend: a call hashes to a shard and holds its lock for one dictionary lookup
/// and one bucket update. Memory is bounded: a shard holds at most `maxEntriesPerShard` buckets.
/// When a new key arrives at a full shard, the buckets that have refilled completely are dropped
/// first (a caller whose bucket is full again carries no state worth keeping: a new bucket starts
/// full); when none has, the bucket closest to full (the longest idle) goes, which gives at most
/// that one caller a fresh burst.
public final class KeyedRateLimiter<Key: Hashable & Sendable>: Sendable {
    /// One shard: buckets behind their own mutex.
    private final class Shard: Sendable {
        let buckets = Mutex<[Key: TokenBucket]>([:])
    }

    /// Events allowed per second per key (0 or less = unlimited: nothing is tracked).
    public let perSecond: Double
    /// Events allowed at once per key.
    public let burst: Double
    /// Most buckets a shard holds.
    public let maxEntriesPerShard: Int
    private let clock: any WallClock
    private let shards: [Shard]
    private let mask: Int
    private let admittedCount = Atomic<Int>(0)
    private let refusedCount = Atomic<Int>(0)
    private let evictedCount = Atomic<Int>(0)

    /// A limiter admitting `perSecond` events a second per key and `burst` at once (one second's
    /// worth, at least 1, by default), in `shardCount` shards (rounded up to a power of two) of at
    /// most `maxEntriesPerShard` keys each.
    public init(perSecond: Double, burst: Double? = nil, clock: any WallClock, shardCount: Int = 64,
                maxEntriesPerShard: Int = 256) {
        self.perSecond = perSecond
        self.burst = max(1, burst ?? perSecond)
        self.clock = clock
        self.maxEntriesPerShard = max(1, maxEntriesPerShard)
        var count = 1
        while count < shardCount { count <<= 1 }
        shards = (0..<count).map { _ in Shard() }
        mask = count - 1
    }

    /// Whether every event is admitted.
    public var isUnlimited: Bool { !(perSecond > 0) }

    /// Most keys tracked at once.
    public var capacity: Int { shards.count * maxEntriesPerShard }

    /// Admits one event for `key`: nil when admitted, else whole seconds (at least 1) to wait.
    public func admit(_ key: Key) -> Int? {
        take(key).map(TokenBucket.retryAfterSeconds)
    }

    /// Admits one event for `key`: nil when admitted, else the nanoseconds until a token is available.
    public func take(_ key: Key) -> UInt64? {
        guard !isUnlimited else {
            admittedCount.add(1, ordering: .relaxed)
            return nil
        }
        let now = clock.nowNanoseconds()
        let (wait, evicted) = shards[key.hashValue & mask].buckets.withLock { buckets -> (UInt64?, Int) in
            if buckets[key] != nil { return (buckets[key]!.take(nowNanoseconds: now), 0) }
            let evicted = buckets.count >= maxEntriesPerShard ? evict(from: &buckets, now: now) : 0
            var bucket = TokenBucket(ratePerSecond: perSecond, burst: burst, nowNanoseconds: now)
            let wait = bucket.take(nowNanoseconds: now)
            buckets[key] = bucket
            return (wait, evicted)
        }
        if evicted > 0 { evictedCount.add(evicted, ordering: .relaxed) }
        if wait == nil { admittedCount.add(1, ordering: .relaxed) } else { refusedCount.add(1, ordering: .relaxed) }
        return wait
    }

    /// Makes room in a full shard: drops every full bucket, or else the one closest to full.
    private func evict(from buckets: inout [Key: TokenBucket], now: UInt64) -> Int {
        let before = buckets.count
        buckets = buckets.filter { !$0.value.isFull(nowNanoseconds: now) }
        if buckets.count < before { return before - buckets.count }
        var fullest: (key: Key, tokens: Double)?
        for (key, bucket) in buckets {
            let tokens = bucket.tokens(atNanoseconds: now)
            if fullest == nil || tokens > fullest!.tokens { fullest = (key, tokens) }
        }
        if let fullest { buckets[fullest.key] = nil }
        return 1
    }

    /// Drops every bucket that has refilled completely; returns how many (an optional sweep: the
    /// bound holds without it).
    @discardableResult
    public func removeIdle() -> Int {
        let now = clock.nowNanoseconds()
        var removed = 0
        for shard in shards {
            shard.buckets.withLock { buckets in
                let before = buckets.count
                buckets = buckets.filter { !$0.value.isFull(nowNanoseconds: now) }
                removed += before - buckets.count
            }
        }
        return removed
    }

    /// Keys tracked now (a snapshot).
    public var count: Int { shards.reduce(0) { total, shard in total + shard.buckets.withLock { $0.count } } }

    /// The keys tracked now, shard by shard.
    public func keys() -> [Key] {
        shards.flatMap { shard in shard.buckets.withLock { Array($0.keys) } }
    }

    /// Events admitted so far.
    public var admitted: Int { admittedCount.load(ordering: .relaxed) }
    /// Events refused so far.
    public var refused: Int { refusedCount.load(ordering: .relaxed) }
    /// Buckets dropped to make room so far.
    public var evicted: Int { evictedCount.load(ordering: .relaxed) }

    /// The configuration and counters.
    public func snapshot() -> RateLimiterStats {
        RateLimiterStats(perSecond: perSecond, burst: burst, admitted: admitted, refused: refused)
    }
}
