import NIOCore

/// Monotonic nanosecond clock shared by all event loops of this process.
enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (CLOCK_MONOTONIC).
    @inline(__always)
    static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }
}
