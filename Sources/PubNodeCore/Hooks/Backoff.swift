/// Exponential retry delays with jitter.
public enum Backoff {
    /// The delay before retry number `attempt` (1 for the first retry): `base × 2^(attempt−1)`,
    /// capped at `maximum`, then spread over its upper half by `random` (0..<1) so that retries of
    /// many events do not arrive together.
    public static func delay(attempt: Int, base: Duration, maximum: Duration, random: Double) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        let ceiling = min(base * (1 << exponent), maximum)
        let jitter = min(max(random, 0), 1)
        return ceiling / 2 + ceiling * (jitter / 2)
    }
}
