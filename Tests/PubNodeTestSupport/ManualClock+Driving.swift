/// Ways for a test to move a `ManualClock` in step with what the code under test is doing.
extension ManualClock {
    /// Waits (in real time, up to `timeout`) until some sleep falls due exactly `duration` from
    /// now, then moves the clock by `duration`. Returns false, without moving, when none appeared:
    /// a test asserting on it checks both that the wait was scheduled and that it was that long.
    public func advanceToSleeper(dueIn duration: Duration, timeout: Duration = .seconds(10)) async -> Bool {
        guard await eventually(timeout: timeout, { hasSleeper(dueIn: duration) }) else { return false }
        advance(by: duration)
        return true
    }

    /// Polls `condition`, moving the clock by `step` after each poll that fails, until it holds or
    /// `timeout` of real time passes; returns whether it held. For code that takes several short
    /// waits of this clock (batching intervals) on the way to the condition.
    public func advance(by step: Duration, until condition: () async -> Bool,
                        timeout: Duration = .seconds(10)) async -> Bool {
        await eventually(timeout: timeout) {
            if await condition() { return true }
            advance(by: step)
            return false
        }
    }
}
