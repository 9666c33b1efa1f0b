/// A keyset's rate limits: how many publishes and how many requests of any kind it accepts per
/// second, across all its clients. nil or 0 means unlimited.
public struct RateLimits: Codable, Sendable, Hashable {
    /// Publishes and signals per second (nil or 0 = unlimited).
    public var publishesPerSecond: Double?
    /// Requests of any kind per second (nil or 0 = unlimited).
    public var requestsPerSecond: Double?

    /// Creates limits; the defaults are unlimited.
    public init(publishesPerSecond: Double? = nil, requestsPerSecond: Double? = nil) {
        self.publishesPerSecond = publishesPerSecond
        self.requestsPerSecond = requestsPerSecond
    }

    /// No limit at all.
    public static let unlimited = RateLimits()

    /// Whether neither limit applies.
    public var isUnlimited: Bool { Self.positive(publishesPerSecond) == nil && Self.positive(requestsPerSecond) == nil }

    /// A limiter for publishes, nil when unlimited.
    public func publishLimiter(clock: any WallClock) -> RateLimiter? {
        Self.positive(publishesPerSecond).map { RateLimiter(perSecond: $0, clock: clock) }
    }

    /// A limiter for requests, nil when unlimited.
    public func requestLimiter(clock: any WallClock) -> RateLimiter? {
        Self.positive(requestsPerSecond).map { RateLimiter(perSecond: $0, clock: clock) }
    }

    /// Refuses negative or non-finite rates.
    public func validate() throws(PubNodeError) {
        for (name, rate) in [("publishesPerSecond", publishesPerSecond), ("requestsPerSecond", requestsPerSecond)] {
            if let rate, !(rate.isFinite && rate >= 0) {
                throw .invalidParameter("\(name) must be a finite number of 0 or more")
            }
        }
    }

    private static func positive(_ rate: Double?) -> Double? {
        guard let rate, rate > 0, rate.isFinite else { return nil }
        return rate
    }

    /// These limits, each unset field taken from `defaults`.
    public func over(_ defaults: RateLimits) -> RateLimits {
        RateLimits(publishesPerSecond: publishesPerSecond ?? defaults.publishesPerSecond,
                   requestsPerSecond: requestsPerSecond ?? defaults.requestsPerSecond)
    }
}
