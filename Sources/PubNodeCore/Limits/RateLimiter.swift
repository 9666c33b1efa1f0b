import Synchronization

/// What a rate limiter has done so far.
public struct RateLimiterStats: Sendable, Equatable {
    /// Events allowed per second (0 = unlimited).
    public var perSecond: Double
    /// Events allowed at once after a quiet spell.
    public var burst: Double
    /// Events admitted.
    public var admitted: Int
    /// Events refused.
    public var refused: Int

    /// Creates a snapshot.
    public init(perSecond: Double, burst: Double, admitted: Int, refused: Int) {
        self.perSecond = perSecond
        self.burst = burst
        self.admitted = admitted
        self.refused = refused
    }
}

/// One token bucket shared by every caller (a keyset's publishes, say): thread-safe, one short
/// critical section per call, and counters readable without taking the lock.
public final class RateLimiter: Sendable {
    /// Events allowed per second (0 or less = unlimited).
    public let perSecond: Double
    /// Events allowed at once.
    public let burst: Double
    private let clock: any WallClock
    private let bucket: Mutex<TokenBucket>
    private let admittedCount = Atomic<Int>(0)
    private let refusedCount = Atomic<Int>(0)

    /// A limiter admitting `perSecond` events a second on average and `burst` at once (one
    /// second's worth, at least 1, by default).
    public init(perSecond: Double, burst: Double? = nil, clock: any WallClock) {
        self.perSecond = perSecond
        self.burst = max(1, burst ?? perSecond)
        self.clock = clock
        self.bucket = Mutex(TokenBucket(ratePerSecond: perSecond, burst: self.burst, nowNanoseconds: clock.nowNanoseconds()))
    }

    /// Admits one event: nil when admitted, else the whole seconds (at least 1) to wait, for `Retry-After`.
    public func admit() -> Int? {
        guard let wait = take() else { return nil }
        return TokenBucket.retryAfterSeconds(wait)
    }

    /// Admits one event: nil when admitted, else the nanoseconds until a token is available.
    public func take() -> UInt64? {
        let now = clock.nowNanoseconds()
        let wait = bucket.withLock { $0.take(nowNanoseconds: now) }
        if wait == nil { admittedCount.add(1, ordering: .relaxed) } else { refusedCount.add(1, ordering: .relaxed) }
        return wait
    }

    /// Events admitted so far.
    public var admitted: Int { admittedCount.load(ordering: .relaxed) }
    /// Events refused so far.
    public var refused: Int { refusedCount.load(ordering: .relaxed) }

    /// The configuration and counters.
    public func snapshot() -> RateLimiterStats {
        RateLimiterStats(perSecond: perSecond, burst: burst, admitted: admitted, refused: refused)
    }
}
