/// Polling helpers for the scenario control flow.
enum Waiting {
    /// Polls `condition` every `pollMillis` ms until it holds or `timeout` seconds pass.
    /// Returns whether the condition held.
    static func until(
        timeout: Double, pollMillis: Int = 10, _ condition: () -> Bool
    ) async -> Bool {
        let deadline = MonotonicClock.now() + nanos(seconds: timeout)
        while !condition() {
            if MonotonicClock.now() >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(pollMillis))
        }
        return true
    }

    /// Sleeps for `seconds` (non-throwing).
    static func sleep(seconds: Double) async {
        guard seconds > 0 else { return }
        try? await Task.sleep(for: .nanoseconds(Int64(nanos(seconds: seconds))))
    }

    /// Seconds to nanoseconds, clamped at zero.
    static func nanos(seconds: Double) -> UInt64 {
        UInt64(max(0, seconds) * 1_000_000_000)
    }

    /// Seconds elapsed since the monotonic instant `start`.
    static func seconds(since start: UInt64) -> Double {
        Double(MonotonicClock.now() &- start) / 1_000_000_000
    }
}
