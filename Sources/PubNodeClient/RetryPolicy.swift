import Foundation

/// How the subscription retries after failures: exponential backoff with jitter and a gap cap.
public struct RetryPolicy: Sendable, Equatable {
    /// The gap before the first retry, in seconds.
    public var initialDelay: Double
    /// The largest gap between attempts, in seconds.
    public var maximumDelay: Double
    /// Consecutive failed attempts after which the subscription gives up (`nil`: never).
    public var maximumAttempts: Int?
    /// Fraction of each gap (0...1) taken off at random, so clients do not retry in step.
    public var jitter: Double

    /// A policy; the defaults start at 1 s, double each attempt up to 120 s, with 20 % jitter.
    public init(initialDelay: Double = 1, maximumDelay: Double = 120, maximumAttempts: Int? = nil, jitter: Double = 0.2) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
        self.jitter = jitter
    }

    /// The default policy.
    public static let `default` = RetryPolicy()

    /// Never retry: the first failure disconnects.
    public static let none = RetryPolicy(maximumAttempts: 0)

    /// The gap before retry number `attempt` (1-based); `random` is in `0..<1`.
    public func delay(forAttempt attempt: Int, random: Double) -> Double {
        let exponent = Double(max(0, min(attempt - 1, 62)))
        let raw = min(maximumDelay, initialDelay * pow(2, exponent))
        let fraction = min(1, max(0, jitter)) * min(1, max(0, random))
        return max(0, raw * (1 - fraction))
    }

    /// Whether another attempt is allowed after `attempt` consecutive failures.
    public func allowsRetry(after attempt: Int) -> Bool {
        guard let maximumAttempts else { return true }
        return attempt <= maximumAttempts
    }
}
