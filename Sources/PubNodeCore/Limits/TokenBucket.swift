/// A token bucket: up to `burst` tokens, refilled at `ratePerSecond`; each admitted event takes one.
///
/// A value type with no clock of its own: callers pass the time, so one bucket can sit inside any
/// lock and be tested with a manual clock. A reading earlier than the last one (the wall clock
/// stepped back) counts as no time passing, so a clock going backwards never adds tokens twice
/// nor removes any. A rate of zero or less admits everything.
public struct TokenBucket: Sendable, Equatable {
    /// Tokens added per second.
    public let ratePerSecond: Double
    /// Most tokens held (at least 1).
    public let burst: Double
    /// Tokens held at `updatedNanoseconds`.
    public private(set) var tokens: Double
    /// The latest reading seen; never moves back.
    public private(set) var updatedNanoseconds: UInt64

    /// A full bucket as of `nowNanoseconds` (0 when unknown: the first reading then finds it full).
    public init(ratePerSecond: Double, burst: Double, nowNanoseconds: UInt64 = 0) {
        self.ratePerSecond = ratePerSecond
        self.burst = max(1, burst)
        self.tokens = self.burst
        self.updatedNanoseconds = nowNanoseconds
    }

    /// Whether the bucket admits everything (no positive rate).
    public var isUnlimited: Bool { !(ratePerSecond > 0) }

    /// Takes a token: nil when admitted, else the nanoseconds until one is available (at least 1).
    public mutating func take(nowNanoseconds now: UInt64) -> UInt64? {
        guard !isUnlimited else { return nil }
        refill(now)
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        let wait = ((1 - tokens) / ratePerSecond * 1_000_000_000).rounded(.up)
        return max(1, wait < Double(UInt64.max) ? UInt64(wait) : .max)
    }

    /// Whether the bucket would be full at `now`: such a bucket holds no state worth keeping.
    public func isFull(nowNanoseconds now: UInt64) -> Bool {
        tokens(atNanoseconds: now) >= burst
    }

    /// The tokens the bucket would hold at `now`, without taking any.
    public func tokens(atNanoseconds now: UInt64) -> Double {
        var copy = self
        copy.refill(now)
        return copy.tokens
    }

    /// Adds the tokens earned since the last reading; a reading from the past adds nothing.
    private mutating func refill(_ now: UInt64) {
        guard now > updatedNanoseconds else { return }
        let earned = Double(now - updatedNanoseconds) * ratePerSecond / 1_000_000_000
        tokens = min(burst, tokens + earned)
        updatedNanoseconds = now
    }

    /// Whole seconds to wait for `nanoseconds`, rounded up, at least 1: a `Retry-After` value.
    public static func retryAfterSeconds(_ nanoseconds: UInt64) -> Int {
        let seconds = nanoseconds / 1_000_000_000 + (nanoseconds % 1_000_000_000 == 0 ? 0 : 1)
        return Int(clamping: max(1, seconds))
    }
}
