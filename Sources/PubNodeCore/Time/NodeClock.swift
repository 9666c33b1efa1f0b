/// The node's one source of time, injected everywhere time matters: wall-clock readings (timetokens,
/// expiries, presence timeouts) and waiting (periodic sweeps, hook retries and deadlines, delays).
///
/// Production uses `SystemNodeClock`; tests inject a manual clock whose `advance` both moves the
/// wall time and resumes the sleepers that fall due, so time-based behaviour is tested without
/// sleeping.
public protocol NodeClock: WallClock {
    /// Suspends the caller for `duration` of this clock's time; throws `CancellationError` when the
    /// calling task is cancelled first.
    func sleep(for duration: Duration) async throws
}

/// Real time: `CLOCK_REALTIME` for readings and `Task.sleep` for waiting.
public struct SystemNodeClock: NodeClock {
    private let wall = SystemWallClock()

    /// Creates the system clock.
    public init() {}

    /// Reads `CLOCK_REALTIME`.
    public func nowNanoseconds() -> UInt64 { wall.nowNanoseconds() }

    /// Sleeps with `Task.sleep` on the continuous clock.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
